package convert

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestOneSidedTableStats: a 0.3 catalog whose table column statistics of
// an INTEGER column have a min and no max (0.3 readers give no statistics
// then) converts to 0.4, whose readers read one bound as an empty range
// (formats.OneSidedStatsEmpty): convert writes both bounds NULL and the
// proof accepts that; a 0.4 B that keeps the one bound is a stats
// difference. The row used to be carried, and proved equivalent.
func TestOneSidedTableStats(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res, err := lakegen.Repository(ctx, filepath.Join(dir, "lake"), lakegen.Spec{Name: "onesided", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "s", Type: "VARCHAR"}}}},
		{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES (1, 'a'), (2, 'b'))"}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "lake", "data")
	src := filepath.Join(dir, "lake", "versions", res.Versions[0].ID, "ducklake.duckdb")
	v03 := filepath.Join(dir, "v03.duckdb")
	if _, err := Catalog(ctx, src, v03, formats.V0_3, Options{DataPath: data}); err != nil {
		t.Fatal(err)
	}
	execOn(t, v03, "UPDATE ducklake_table_column_stats SET max_value = NULL WHERE column_id = 1")
	v04 := filepath.Join(dir, "v04.duckdb")
	cres, err := Catalog(ctx, v03, v04, formats.V0_4, Options{DataPath: data})
	if err != nil {
		t.Fatal(err)
	}
	noted := false
	for _, f := range cres.Findings {
		noted = noted || f.Code == "one-sided-table-stats"
	}
	db, err := sql.Open("duckdb", v04)
	if err != nil {
		t.Fatal(err)
	}
	var minValue, maxValue sql.NullString
	err = db.QueryRow("SELECT min_value, max_value FROM ducklake_table_column_stats WHERE column_id = 1").Scan(&minValue, &maxValue)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if minValue.Valid || maxValue.Valid || !noted {
		t.Errorf("0.4 statistics min %v max %v (noted %t), want both NULL and a note", minValue, maxValue, noted)
	}
	for _, c := range []struct {
		name string
		edit string
		want bool // a stats difference
	}{
		{"both NULL", "", false},
		{"one bound kept", "UPDATE ducklake_table_column_stats SET min_value = '1' WHERE column_id = 1", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := v04
			if c.edit != "" {
				b = filepath.Join(t.TempDir(), "b.duckdb")
				if _, err := Catalog(ctx, v03, b, formats.V0_4, Options{DataPath: data}); err != nil {
					t.Fatal(err)
				}
				execOn(t, b, c.edit)
			}
			rep, err := compare.Catalogs(ctx, v03, b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			got := false
			for _, d := range rep.Differences {
				got = got || (d.Kind == "stats" && strings.Contains(d.Reason, "empty range"))
			}
			if got != c.want || (err == nil) == c.want {
				t.Errorf("one-sided difference %t (err %v), want %t", got, err, c.want)
			}
		})
	}
}

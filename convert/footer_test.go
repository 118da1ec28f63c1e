package convert

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// footerQuirkLake writes a 1.0 lake with one table per footer quirk, each
// with one data file whose footer triggers it (formats.FooterQuirks), and
// returns its catalog and data folder. Table words gets a bound patched to
// invalid UTF-8, cjk a long non-ASCII string DuckDB's writer leaves
// without bounds, docs a JSON column rewritten DELTA_LENGTH_BYTE_ARRAY,
// geo "geo" metadata with "crs": null.
func footerQuirkLake(t *testing.T) (catalog, data string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lake")
	cols := func(c ...lakegen.Column) []lakegen.Column {
		return append([]lakegen.Column{{Name: "id", Type: "INTEGER"}}, c...)
	}
	spec := lakegen.Spec{Name: "footers", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "words", Columns: cols(lakegen.Column{Name: "s", Type: "VARCHAR"})},
			lakegen.CreateTable{Table: "cjk", Columns: cols(lakegen.Column{Name: "s", Type: "VARCHAR"})},
			lakegen.CreateTable{Table: "docs", Columns: cols(lakegen.Column{Name: "j", Type: "VARCHAR"})},
			lakegen.CreateTable{Table: "geo", Columns: cols(lakegen.Column{Name: "s", Type: "VARCHAR"})}},
		{lakegen.Insert{Table: "words", Select: "SELECT * FROM (VALUES (1, 'éclair'), (2, 'zèbre'), (3, 'apple'))"},
			lakegen.Insert{Table: "cjk", Select: "SELECT * FROM (VALUES (1, repeat('日本語', 100)), (2, 'apple'))"},
			lakegen.Insert{Table: "docs", Select: "SELECT i::INTEGER, json_object('a', i) FROM range(3000) r(i)"},
			lakegen.Insert{Table: "geo", Select: "SELECT * FROM (VALUES (1, 'a'), (2, 'b'))"}},
	}}}}
	res, err := lakegen.Repository(ctx, dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	catalog = filepath.Join(dir, "versions", res.Versions[0].ID, "ducklake.duckdb")
	data = filepath.Join(dir, "data")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, rw := range []struct {
		table, sel, fieldIDs, quirk, from, to string
	}{
		{"words", "", "{id: 1, s: 2}", formats.FooterStringStatsInvalidUTF8, "éclair", "\xC3(clair"},
		{"docs", "id, j::JSON AS j", "{id: 1, j: 2}", formats.FooterJSONDeltaLength, "", ""},
		{"geo", "", "{id: 1, s: 2}", formats.FooterGeoCRSNull, "", ""},
	} {
		got := query(t, catalog, `SELECT f.data_file_id, t.path || f.path, s.path FROM c.ducklake_data_file f JOIN c.ducklake_table t USING (table_id) JOIN c.ducklake_schema s USING (schema_id) WHERE t.table_name = '`+rw.table+`'`)
		if len(got) != 1 {
			t.Fatalf("%s: %d data files, want 1", rw.table, len(got))
		}
		path := filepath.Join(data, got[0][2], got[0][1])
		size, footer, err := footertest.Rewrite(ctx, db, path, rw.sel, rw.fieldIDs, rw.quirk, rw.from, rw.to)
		if err != nil {
			t.Fatal(err)
		}
		execOn(t, catalog, fmt.Sprintf("UPDATE ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %s", size, footer, got[0][0]))
	}
	// lakegen has no JSON: the column becomes one in the catalog too.
	execOn(t, catalog, "UPDATE ducklake_column SET column_type = 'json' WHERE column_name = 'j'")
	return catalog, data
}

// TestFooterQuirksRefused: a target some of whose readers fail on (or
// skip rows of) a data file by its footer is refused, naming the quirk,
// the table, the column, the file and the releases; a range served only
// to later releases (Options.Readers) is not. These were converted.
func TestFooterQuirksRefused(t *testing.T) {
	ctx := context.Background()
	catalog, data := footerQuirkLake(t)
	cases := []struct {
		target  *formats.Version
		readers string
		want    []string // quirk:table
	}{
		{formats.V1_0, "", nil},
		{formats.V0_4, "", []string{formats.FooterGeoCRSNull + ":geo"}},
		{formats.V0_4, ">= 1.5.1", nil},
		{formats.V0_3, "", []string{formats.FooterStringStatsInvalidUTF8 + ":words", formats.FooterStringStatsMissingBound + ":cjk", formats.FooterJSONDeltaLength + ":docs"}},
		{formats.V0_3, ">= 1.4.1", []string{formats.FooterStringStatsInvalidUTF8 + ":words", formats.FooterJSONDeltaLength + ":docs"}},
		{formats.V0_3, ">= 1.4.2", []string{formats.FooterStringStatsInvalidUTF8 + ":words"}},
		{formats.V0_3, ">= 1.4.4", nil},
		{formats.V0_2, "", []string{formats.FooterStringStatsInvalidUTF8 + ":words"}},
	}
	for _, c := range cases {
		t.Run(c.target.Name+c.readers, func(t *testing.T) {
			_, err := Check(ctx, catalog, c.target, Options{DataPath: data, Readers: c.readers})
			var refused *RefusedError
			if err != nil && !errors.As(err, &refused) {
				t.Fatal(err)
			}
			var got []string
			for _, f := range refusedFindings(refused) {
				if _, ok := formats.FooterQuirkNamed(f.Code); !ok || f.Severity != Refuse {
					continue
				}
				for _, tab := range []string{"words", "cjk", "docs", "geo"} {
					if strings.Contains(f.Detail, "main."+tab+":") || strings.Contains(f.Detail, " "+tab+": data_file_id") {
						got = append(got, f.Code+":"+tab)
					}
				}
				if !strings.Contains(f.Reason, "DuckDB 1.") || !strings.Contains(f.Detail, "column ") || !strings.Contains(f.Detail, ".parquet") {
					t.Errorf("finding names no release, column or file: %s", f)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("refused %v, want %v (err %v)", got, c.want, err)
			}
		})
	}
}

func refusedFindings(e *RefusedError) []Finding {
	if e == nil {
		return nil
	}
	return e.Findings
}

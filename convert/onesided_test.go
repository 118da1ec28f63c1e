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
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestOneSidedTableStats: a 0.3 catalog whose table column statistics of
// an INTEGER column have a min and no max (0.3 readers give no statistics
// then) converts to 0.4, whose readers read one bound as an empty range
// (formats.OneSidedStatsEmpty): convert writes both bounds NULL and the
// proof accepts that; a 0.4 B that keeps one bound at the type's extreme
// (read as that one value: formats.OneSidedMisreadSQL) is a stats
// difference, one that keeps a bound short of it (read as no statistics)
// is not. The row used to be carried, and proved equivalent.
func TestOneSidedTableStats(t *testing.T) {
	t.Parallel()
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
	db := testduck.Open(t, v04)
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
		// min 1, max NULL: [1, INTEGER min], no bounds for DuckDB (min >
		// max, NumericStats::HasMinMax false): every row kept, as 0.3's
		// readers keep them (this was reported before).
		{"one bound kept, not at the extreme", "UPDATE ducklake_table_column_stats SET min_value = '1' WHERE column_id = 1", false},
		// min INTEGER min, max NULL: [INTEGER min, INTEGER min], one value.
		{"min kept at the type's minimum", "UPDATE ducklake_table_column_stats SET min_value = '-2147483648' WHERE column_id = 1", true},
		{"max kept at the type's maximum", "UPDATE ducklake_table_column_stats SET max_value = '2147483647' WHERE column_id = 1", true},
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
				got = got || (d.Kind == "stats" && strings.Contains(d.Reason, "with only one bound"))
			}
			if got != c.want || (err == nil) == c.want {
				t.Errorf("one-sided difference %t (err %v), want %t", got, err, c.want)
			}
		})
	}
}

// TestOneSidedStatsByReaderType: which one-sided table column statistics
// a format's readers misread depends on the bound (at its type's extreme
// in its direction, else no statistics), the column's type and the
// DuckLake build (formats.OneSidedMisreadSQL): DuckDB 1.5.0-1.5.2
// give BOOLEAN, TINYINT, DECIMAL and UUID no statistics, 1.5.3 and later
// do (DuckLake d6906fa9), and FLOAT/DOUBLE get them only with contains_nan
// false. A B row of a type B's readers give no statistics for is no
// difference (review rv16-f F3: the proof reported one, a false
// difference); a 0.4 A whose one-sided BOOLEAN row its readers read is
// not read alike by a 1.0 B keeping it (the proof took every 0.4+ A as
// reading them as empty, a false equivalence).
func TestOneSidedStatsByReaderType(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	res, err := lakegen.Repository(ctx, filepath.Join(dir, "lake"), lakegen.Spec{Name: "onesided", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "i", Type: "INTEGER"}, {Name: "b", Type: "BOOLEAN"}, {Name: "d", Type: "DOUBLE"}, {Name: "n", Type: "DECIMAL(9,2)"}}}},
		{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES (1, true, 1.5, 2.25), (2, false, 2.5, 3.5))"}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "lake", "data")
	src := filepath.Join(dir, "lake", "versions", res.Versions[0].ID, "ducklake.duckdb")
	ids := map[string]string{}
	for _, r := range query(t, src, "SELECT column_name, column_id FROM c.ducklake_column") {
		ids[r[0]] = r[1]
	}
	// oneSided keeps column col's min, set to value where not "", and
	// drops its max (the other way round for a bound "max"), with
	// contains_nan set to nan (SQL).
	oneSided := func(col, bound, value, nan string) string {
		keep, drop := "min_value", "max_value"
		if bound == "max" {
			keep, drop = drop, keep
		}
		set := ""
		if value != "" {
			set = keep + " = '" + value + "', "
		}
		return "UPDATE ducklake_table_column_stats SET " + set + drop + " = NULL, contains_nan = " + nan + " WHERE column_id = " + ids[col]
	}
	formatsByName := map[string]*formats.Version{"0.3": formats.V0_3, "0.4": formats.V0_4, "1.0": formats.V1_0}
	// The unedited conversions, made once for the cases (three pairs of
	// A's and B's formats among twenty cases, where each case converted
	// its own two: CPU about a third less), each case editing copies.
	// converted holds them by their formats: "0.3" is src converted to
	// 0.3, "0.3-1.0" that converted to 1.0.
	converted := map[string]string{}
	conversion := func(t *testing.T, from, name, to string) string {
		t.Helper()
		if name != "" {
			name += "-"
		}
		name += to
		if c, ok := converted[name]; ok {
			return c
		}
		c := filepath.Join(dir, name+".duckdb")
		if _, err := Catalog(ctx, from, c, formatsByName[to], Options{DataPath: data}); err != nil {
			t.Fatal(err)
		}
		converted[name] = c
		return c
	}
	for _, c := range []struct {
		name, a, b string
		col, min   string // the one-sided row's column and its min ("" as written: i 1, b false, d 1.5, n 2.25; "max:V" keeps the max instead, V or as written: i 2, b true, d 2.5)
		nan        string // its contains_nan, in A and in B
		inA        bool   // A holds it too (else A has both bounds)
		want       bool   // a stats difference
	}{
		{"0.3 to 0.4 INTEGER at its minimum", "0.3", "0.4", "i", "-2147483648", "NULL", false, true},
		{"0.3 to 0.4 INTEGER not at its minimum (no statistics)", "0.3", "0.4", "i", "", "NULL", false, false},
		{"0.3 to 0.4 BOOLEAN (1.5.0 and 1.5.1 give no statistics)", "0.3", "0.4", "b", "", "NULL", false, false},
		{"0.3 to 0.4 DECIMAL", "0.3", "0.4", "n", "", "NULL", false, false},
		{"0.3 to 1.0 BOOLEAN false (1.5.3 reads it as false only)", "0.3", "1.0", "b", "", "NULL", false, true},
		{"0.3 to 1.0 BOOLEAN true (no statistics)", "0.3", "1.0", "b", "true", "NULL", false, false},
		{"0.3 to 1.0 DECIMAL not at its minimum (no statistics)", "0.3", "1.0", "n", "", "NULL", false, false},
		{"0.3 to 1.0 DECIMAL(9,2) at its minimum", "0.3", "1.0", "n", "-9999999.99", "NULL", false, true},
		{"0.3 to 1.0 DECIMAL(9,2) max only at its maximum", "0.3", "1.0", "n", "max:9999999.99", "NULL", false, true},
		{"0.3 to 0.4 DOUBLE -inf, contains_nan unknown", "0.3", "0.4", "d", "-inf", "NULL", false, false},
		{"0.3 to 0.4 DOUBLE -inf, with NaN", "0.3", "0.4", "d", "-inf", "true", false, false},
		{"0.3 to 0.4 DOUBLE -inf without NaN", "0.3", "0.4", "d", "-inf", "false", false, true},
		{"0.3 to 0.4 DOUBLE 1.5 without NaN (no statistics)", "0.3", "0.4", "d", "", "false", false, false},
		{"0.3 to 0.4 INTEGER max only, below its maximum (no statistics)", "0.3", "0.4", "i", "max:", "NULL", false, false},
		{"0.3 to 0.4 INTEGER max only, at its maximum", "0.3", "0.4", "i", "max:2147483647", "NULL", false, true},
		{"0.3 to 1.0 BOOLEAN max only, true", "0.3", "1.0", "b", "max:", "NULL", false, true},
		{"0.3 to 0.4 DOUBLE max only, inf without NaN", "0.3", "0.4", "d", "max:inf", "false", false, true},
		{"0.3 to 0.4 DOUBLE max only, 2.5 without NaN (no statistics)", "0.3", "0.4", "d", "max:", "false", false, false},
		{"0.4 to 1.0 BOOLEAN in both", "0.4", "1.0", "b", "", "NULL", true, true},
		{"0.4 to 1.0 INTEGER at its minimum in both (read alike)", "0.4", "1.0", "i", "-2147483648", "NULL", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			bound, value := "min", c.min
			if v, ok := strings.CutPrefix(c.min, "max:"); ok {
				bound, value = "max", v
			}
			tmp := t.TempDir()
			convA := conversion(t, src, "", c.a)
			convB := conversion(t, convA, c.a, c.b)
			a, b := filepath.Join(tmp, "a.duckdb"), filepath.Join(tmp, "b.duckdb")
			copyFile(t, convA, a)
			copyFile(t, convB, b)
			if c.inA {
				execOn(t, a, oneSided(c.col, bound, value, c.nan))
			}
			execOn(t, b, oneSided(c.col, bound, value, c.nan))
			rep, err := compare.Catalogs(ctx, a, b, compare.Options{DataPath: data})
			if err != nil && !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatal(err)
			}
			var got []string
			for _, d := range rep.Differences {
				if d.Kind == "stats" && strings.Contains(d.Reason, "with only one bound") {
					got = append(got, d.String())
				}
			}
			if (len(got) > 0) != c.want {
				t.Errorf("one-sided differences %q (all: %v), want one: %t", got, rep.Differences, c.want)
			}
		})
	}
}

package convert

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// boolStat is a BOOLEAN statistics row of a catalog: table, column, data
// file (-1 for ducklake_table_column_stats) and min/max (nil: NULL).
type boolStat struct {
	table, column, file int64
	min, max            *string
}

// booleanStats reads every BOOLEAN statistics row of a catalog file.
func booleanStats(t *testing.T, path string, v *formats.Version) []boolStat {
	t.Helper()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	var out []boolStat
	for _, q := range []string{
		`SELECT table_id, column_id, data_file_id, min_value, max_value FROM c.` + fileStatsName(v) + ` s`,
		`SELECT table_id, column_id, -1, min_value, max_value FROM c.ducklake_table_column_stats s`,
	} {
		rows, err := conn.QueryContext(context.Background(), q+` WHERE EXISTS (SELECT 1 FROM c.ducklake_column col
			WHERE col.table_id = s.table_id AND col.column_id = s.column_id AND col.column_type = 'boolean') ORDER BY ALL`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var b boolStat
			if err := rows.Scan(&b.table, &b.column, &b.file, &b.min, &b.max); err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// keptFiles runs, on a catalog file, the file list DuckLake 1.4 builds
// for WHERE <column> = <constant> on a BOOLEAN column
// (ConvertFilterPushdownToSQL and GenerateConstantFilter of v1.4-andium:
// the constant rendered as its text by CastValueToTarget, the statistics
// not cast by CastStatsToTarget, so compared as text): the data files of
// the table it keeps.
func keptFiles(t *testing.T, conn *sql.Conn, stats string, table, column int64, constant bool) map[int64]bool {
	t.Helper()
	c := "'false'"
	if constant {
		c = "'true'"
	}
	return idSet(t, conn, `SELECT data_file_id FROM c.ducklake_data_file
		WHERE table_id = $1 AND data_file_id IN (SELECT data_file_id FROM c.`+stats+`
			WHERE table_id = $1 AND column_id = $2 AND (min_value IS NULL OR max_value IS NULL OR (`+c+` BETWEEN min_value AND max_value)))`, table, column)
}

// filesHolding lists the data files of a table whose Parquet column of
// field id column holds the value (read from the files under data).
func filesHolding(t *testing.T, conn *sql.Conn, data string, table, column int64, value bool) map[int64]bool {
	t.Helper()
	ctx := context.Background()
	byName := map[string]string{}
	if err := filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			byName[d.Name()] = p
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, `SELECT data_file_id, path FROM c.ducklake_data_file WHERE table_id = $1`, table)
	if err != nil {
		t.Fatal(err)
	}
	files := map[int64]string{}
	for rows.Next() {
		var id int64
		var p string
		if err := rows.Scan(&id, &p); err != nil {
			t.Fatal(err)
		}
		files[id] = byName[filepath.Base(p)]
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	for id, p := range files {
		if p == "" {
			t.Fatalf("data file %d not found under %s", id, data)
		}
		var name sql.NullString
		if err := conn.QueryRowContext(ctx, `SELECT any_value(name) FROM parquet_schema($1) WHERE field_id = $2`, p, column).Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !name.Valid {
			continue // written before the column: its rows read the initial default (NULL in these lakes)
		}
		var n int64
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM read_parquet($1) WHERE "`+strings.ReplaceAll(name.String, `"`, `""`)+`" = $2`, p, value).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			out[id] = true
		}
	}
	return out
}

// TestBooleanStatsForTextReaders: DuckLake 1.5's writers give BOOLEAN
// columns the statistics '0'/'1', which the readers of 0.1-0.4 compare as
// text with 'true'/'false' (formats.QuirkBooleanStatsComparedAsText): with
// them, the file list of WHERE b = true keeps no file. A conversion to
// those formats writes them 'false'/'true': the same query keeps every file
// holding a matching row, and the catalog is proved equivalent. The old
// output (the same catalog with '0'/'1') is not equivalent to its source,
// naming the file and column; as a source it proves equivalent to its 1.0
// conversion (which keeps '0'/'1'), and the 0.4 one converted to 0.3 (text
// readers on both sides) is respelled too. Before, the conversions carried
// '0'/'1' and were proved equivalent.
func TestBooleanStatsForTextReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := formats.QuirkBooleanStatsComparedAsText
	// The proofs against a lake's source read it once (compare.Source:
	// each still reads all of both catalogs), as a backfill's proofs of a
	// version's cells do; the subtests run one after the other.
	sources := map[string]*compare.Source{}
	defer func() {
		for _, s := range sources {
			s.Close()
		}
	}()
	for _, tc := range []struct {
		lake   string
		target *formats.Version
		// column: the BOOLEAN column's table, id and name.
		table, column int64
		name          string
	}{
		{"01_primitive_types", formats.V0_4, 1, 2, "b"},
		{"01_primitive_types", formats.V0_3, 1, 2, "b"},
		{"02_add_drop_columns", formats.V0_4, 1, 6, "d"},
		{"02_add_drop_columns", formats.V0_3, 1, 6, "d"},
	} {
		t.Run(tc.lake+"/"+tc.target.Name, func(t *testing.T) {
			lake := testlakes.Lake(t, "lakes", tc.lake)
			vs := versionCatalogs(t, lake)
			src, data := vs[len(vs)-1], filepath.Join(lake, "data")
			fromSrc := sources[tc.lake]
			if fromSrc == nil {
				fromSrc = compare.NewSource()
				sources[tc.lake] = fromSrc
			}
			source, err := Detect(ctx, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			raw := 0
			for _, b := range booleanStats(t, src, source) {
				if !formats.BooleanTextStats.Ordered(b.min) || !formats.BooleanTextStats.Ordered(b.max) {
					raw++
				}
			}
			if raw == 0 {
				t.Fatalf("%s: no BOOLEAN statistics spelled otherwise than 'false'/'true'; the test needs them", src)
			}
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, tc.target, Options{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			spelled := 0
			for _, b := range booleanStats(t, out, tc.target) {
				if !formats.BooleanTextStats.Ordered(b.min) || !formats.BooleanTextStats.Ordered(b.max) {
					t.Errorf("table %d column %d file %d: BOOLEAN statistics %v/%v, want NULL, 'false' or 'true'", b.table, b.column, b.file, str(b.min), str(b.max))
				}
				if b.min != nil {
					spelled++
				}
			}
			if spelled == 0 {
				t.Errorf("no BOOLEAN statistics left in %s", out)
			}
			noted := false
			for _, f := range res.Findings {
				if f.Code != q.Info().Name {
					continue
				}
				noted = true
				if want := fmt.Sprintf(".%s (table %d, column %d): ", tc.name, tc.table, tc.column); !strings.Contains(f.Detail, want) || !strings.Contains(f.Detail, " file") {
					t.Errorf("%s note %q does not name %q and its files", q.Info().Name, f.Detail, want)
				}
			}
			if !noted {
				t.Errorf("no %s finding: %v", q.Info().Name, res.Findings)
			}
			proveEquivalentFrom(t, fromSrc, src, out, data)

			// The readers' own file list keeps every file holding a
			// matching row, under = true and = false.
			conn := attach(t, out, "READ_ONLY")
			for _, v := range []bool{true, false} {
				kept := keptFiles(t, conn, fileStatsName(tc.target), tc.table, tc.column, v)
				holding := filesHolding(t, conn, data, tc.table, tc.column, v)
				if len(holding) == 0 {
					t.Fatalf("no data file holds %s = %v; the test needs one", tc.name, v)
				}
				for id := range holding {
					if !kept[id] {
						t.Errorf("WHERE %s = %v: format %s readers skip data file %d, which holds matching rows (kept %v)", tc.name, v, tc.target.Name, id, kept)
					}
				}
			}

			// The old output: the same catalog with '0'/'1'.
			old := editedCopy(t, out,
				formats.BooleanTextStats.SpellSQL("c.", fileStatsName(tc.target), false),
				formats.BooleanTextStats.SpellSQL("c.", "ducklake_table_column_stats", false))
			rep, err := compare.Catalogs(ctx, src, old, compare.Options{DataPath: data, Source: fromSrc})
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("compare with the '0'/'1' statistics: err = %v, want not equivalent", err)
			}
			found := 0
			for _, d := range rep.Differences {
				if d.Kind != "stats" || !strings.Contains(d.Reason, q.Info().Name) {
					t.Errorf("unexpected difference %s", d)
					continue
				}
				if !strings.Contains(d.Reason, "column "+tc.name+" (id ") || !strings.Contains(d.Reason, ".parquet (data_file_id ") || !strings.Contains(d.Reason, old) || d.Table == "" {
					t.Errorf("difference does not name the catalog, table, column and file: %s", d)
				}
				found++
			}
			if found == 0 {
				t.Error("no BOOLEAN statistics difference")
			}
			// As a source (what DuckLake 1.5.0/1.5.1 wrote natively) it
			// proves equivalent to its upgrade, which reads more rows.
			up := filepath.Join(t.TempDir(), "up.duckdb")
			if _, err := Catalog(ctx, old, up, formats.V1_0, Options{DataPath: data}); err != nil {
				t.Fatal(err)
			}
			proveEquivalent(t, old, up, data)
			if tc.target != formats.V0_4 {
				return
			}
			// Down to 0.3, whose readers compare them as text too, they are
			// respelled all the same (docs/formats.md): 0.3's readers then
			// keep the files holding matching rows.
			down := filepath.Join(t.TempDir(), "down.duckdb")
			if _, err := Catalog(ctx, old, down, formats.V0_3, Options{DataPath: data}); err != nil {
				t.Fatal(err)
			}
			for _, b := range booleanStats(t, down, formats.V0_3) {
				if !formats.BooleanTextStats.Ordered(b.min) || !formats.BooleanTextStats.Ordered(b.max) {
					t.Errorf("0.4 to 0.3: table %d column %d file %d: BOOLEAN statistics %v/%v, want NULL, 'false' or 'true'", b.table, b.column, b.file, str(b.min), str(b.max))
				}
			}
		})
	}
}

func str(s *string) string {
	if s == nil {
		return "NULL"
	}
	return "'" + *s + "'"
}

// textStatsLake writes a one-version lake (format 1.0) with lakegen and
// returns its catalog and data folder.
func textStatsLake(t *testing.T, snapshots ...lakegen.Snapshot) (catalog, data string) {
	t.Helper()
	dir := t.TempDir()
	res, err := lakegen.Repository(context.Background(), dir, lakegen.Spec{Name: "stats", Versions: []lakegen.Version{{Snapshots: snapshots}}})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "versions", res.Versions[len(res.Versions)-1].ID, "ducklake.duckdb"), filepath.Join(dir, "data")
}

// keptFilesWhere runs, on a catalog file, the file list DuckLake 1.3/1.4
// builds for a filter on a column of table 1 (ConvertFilterPushdownToSQL
// and GenerateConstantFilter of v1.4-andium: the statistics not cast,
// compared as text with the constant's text): cond is the condition on
// min_value and max_value. It returns the kept data files.
func keptFilesWhere(t *testing.T, conn *sql.Conn, stats string, column int64, cond string) map[int64]bool {
	t.Helper()
	return idSet(t, conn, `SELECT data_file_id FROM c.ducklake_data_file
		WHERE table_id = 1 AND data_file_id IN (SELECT data_file_id FROM c.`+stats+`
			WHERE table_id = 1 AND column_id = $1 AND (min_value IS NULL OR max_value IS NULL OR (`+cond+`)))`, column)
}

// TestTemporalStatsForTextReaders: the readers of 0.1-0.3 compare DATE and
// TIMESTAMP statistics as text with the constant's text
// (formats.QuirkTemporalStatsComparedAsText): a file holding 2024-01-01,
// 2025-01-01 and 10000-01-01 has min '2024-01-01' and max '10000-01-01', so
// their file list for WHERE d = DATE '2025-01-01' (and ts >= TIMESTAMP
// '2024-06-01') keeps no file. A conversion to those formats writes the
// temporal statistics NULL: the file lists keep the file and the catalog
// is proved equivalent; converted back up it proves equivalent too. The old
// output (the statistics as the source has them) is not equivalent to its
// source, naming the file and column. 0.4's readers compare them as values:
// they are kept. Before, the conversions carried them and were proved
// equivalent.
func TestTemporalStatsForTextReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := formats.QuirkTemporalStatsComparedAsText
	src, data := textStatsLake(t,
		lakegen.Snapshot{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "INTEGER"}, {Name: "d", Type: "DATE"}, {Name: "ts", Type: "TIMESTAMP"}}}},
		lakegen.Snapshot{lakegen.Insert{Table: "t", Select: "SELECT * FROM (VALUES (1, DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00'), (2, DATE '2025-01-01', TIMESTAMP '2025-01-01 00:00:00'), (3, DATE '10000-01-01', TIMESTAMP '10000-01-01 00:00:00'))"}})
	const columnD, columnTS = 2, 3
	// The proofs against the source read it once (compare.Source: each
	// still reads all of both catalogs), as a backfill's proofs of a
	// version's cells do; the subtests run one after the other.
	fromSrc := compare.NewSource()
	defer fromSrc.Close()
	filters := []struct {
		column int64
		cond   string
	}{
		{columnD, "'2025-01-01' BETWEEN min_value AND max_value"},
		{columnTS, "max_value >= '2024-06-01 00:00:00'"},
	}
	for _, tc := range []struct {
		target *formats.Version
		// asText: the format's readers compare temporal statistics as text.
		asText bool
	}{{formats.V0_2, true}, {formats.V0_3, true}, {formats.V0_4, false}} {
		target := tc.target
		t.Run(target.Name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.duckdb")
			res, err := Catalog(ctx, src, out, target, Options{DataPath: data})
			if err != nil {
				t.Fatal(err)
			}
			noted := false
			for _, f := range res.Findings {
				if f.Code != q.Info().Name {
					continue
				}
				noted = true
				// The note names each table.column and its files.
				for _, want := range []string{"t.d (table 1, column 2): 1 file", "t.ts (table 1, column 3): 1 file"} {
					if !strings.Contains(f.Detail, want) {
						t.Errorf("%s note %q does not name %q", q.Info().Name, f.Detail, want)
					}
				}
			}
			conn := attach(t, out, "READ_ONLY")
			var nonNull int
			if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM c.`+fileStatsName(target)+` WHERE column_id IN (2, 3) AND (min_value IS NOT NULL OR max_value IS NOT NULL)`).Scan(&nonNull); err != nil {
				t.Fatal(err)
			}
			if target.ReadsWith(q) != tc.asText {
				t.Errorf("format %s reads with %s: %v, want %v", target.Name, q.Info().Name, target.ReadsWith(q), tc.asText)
			}
			if !tc.asText {
				if noted || nonNull != 2 {
					t.Errorf("format %s compares by value: finding %v, %d rows with statistics, want none and 2", target.Name, noted, nonNull)
				}
				proveEquivalentFrom(t, fromSrc, src, out, data)
				return
			}
			if !noted || nonNull != 0 {
				t.Errorf("format %s: %s finding %v, %d temporal statistics rows not NULL, want a finding and none: %v", target.Name, q.Info().Name, noted, nonNull, res.Findings)
			}
			for _, f := range filters {
				if kept := keptFilesWhere(t, conn, fileStatsName(target), f.column, f.cond); !kept[0] {
					t.Errorf("%s: format %s readers skip data file 0, which holds matching rows", f.cond, target.Name)
				}
			}
			proveEquivalentFrom(t, fromSrc, src, out, data)
			up := filepath.Join(t.TempDir(), "up.duckdb")
			if _, err := Catalog(ctx, out, up, formats.V1_0, Options{DataPath: data}); err != nil {
				t.Fatal(err)
			}
			proveEquivalent(t, out, up, data)

			// The old output: the statistics as the source has them.
			old := editedCopy(t, out, `ATTACH '`+src+`' AS s (READ_ONLY)`,
				`UPDATE c.`+fileStatsName(target)+` o SET min_value = x.min_value, max_value = x.max_value FROM s.ducklake_file_column_stats x
					WHERE x.data_file_id = o.data_file_id AND x.column_id = o.column_id AND o.column_id IN (2, 3)`, `DETACH s`)
			oc := attach(t, old, "READ_ONLY")
			for _, f := range filters {
				if kept := keptFilesWhere(t, oc, fileStatsName(target), f.column, f.cond); kept[0] {
					t.Fatalf("%s: the old output's file list keeps data file 0; the test needs one that skips it", f.cond)
				}
			}
			rep, err := compare.Catalogs(ctx, src, old, compare.Options{DataPath: data, Source: fromSrc})
			if !errors.Is(err, compare.ErrNotEquivalent) {
				t.Fatalf("compare with the source's temporal statistics: err = %v, want not equivalent", err)
			}
			found := map[string]bool{}
			for _, d := range rep.Differences {
				if d.Kind != "stats" || !strings.Contains(d.Reason, q.Info().Name) || !strings.Contains(d.Reason, ".parquet (data_file_id 0)") || !strings.Contains(d.Reason, old) || d.Table == "" {
					t.Errorf("unexpected difference %s", d)
					continue
				}
				for _, c := range []string{"d", "ts"} {
					found[c] = found[c] || strings.Contains(d.Reason, "column "+c+" (id ")
				}
			}
			if !found["d"] || !found["ts"] {
				t.Errorf("differences name columns %v, want d and ts", found)
			}
		})
	}
}

// idSet runs a query of ids (data_file_id) and returns them as a set.
func idSet(t *testing.T, conn *sql.Conn, query string, args ...any) map[int64]bool {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out[id] = true
	}
	return out
}

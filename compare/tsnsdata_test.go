package compare

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// tsNSEarlyLake copies 01_primitive_types with its table's data file
// rewritten by DuckDB: the ts_ns values of the rows where pick is true
// become ts (a TIMESTAMP_NS before 1677-09-22, which DuckDB reads,
// compares and hashes but cannot render as text), with the file's size,
// footer and ts_ns statistics updated in a copy of the catalog. It returns
// the catalog copy and the copied data folder.
func tsNSEarlyLake(t *testing.T, ts, pick string) (catalog, data string) {
	t.Helper()
	lake, src := lastVersion(t, "lakes", "01_primitive_types")
	dir := t.TempDir()
	data = filepath.Join(dir, "data")
	if err := os.CopyFS(data, os.DirFS(filepath.Join(lake, "data"))); err != nil {
		t.Fatal(err)
	}
	db := testduck.Open(t, "")
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "ATTACH "+sqlString(src)+" AS cat (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	var ids string
	if err := db.QueryRowContext(ctx, `SELECT '{' || string_agg('"' || column_name || '": ' || column_id, ', ') || '}' FROM cat.ducklake_column WHERE table_id = 1 AND end_snapshot IS NULL AND parent_column IS NULL`).Scan(&ids); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT data_file_id, path FROM cat.ducklake_data_file WHERE table_id = 1 AND end_snapshot IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type dataFile struct {
		id   int64
		path string
	}
	var files []dataFile
	for rows.Next() {
		var f dataFile
		if err := rows.Scan(&f.id, &f.path); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var edits []string
	tableLo := int64(math.MaxInt64)
	for _, f := range files {
		file := filepath.Join(data, "main", "prim", f.path)
		tmp := file + ".new"
		q := `COPY (SELECT * REPLACE (CASE WHEN ` + pick + ` THEN TIMESTAMP_NS ` + sqlString(ts) + ` ELSE ts_ns END AS ts_ns) FROM read_parquet(` + sqlString(file) + `)) TO ` + sqlString(tmp) + ` (FORMAT parquet, FIELD_IDS ` + ids + `)`
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		footer := int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
		var lo, hi int64
		if err := db.QueryRowContext(ctx, `SELECT epoch_ns(min(ts_ns)), epoch_ns(max(ts_ns)) FROM read_parquet(`+sqlString(file)+`)`).Scan(&lo, &hi); err != nil {
			t.Fatal(err)
		}
		edits = append(edits, fmt.Sprintf("UPDATE ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %d", len(b), footer, f.id),
			fmt.Sprintf("UPDATE ducklake_file_column_stats SET min_value = '%s', max_value = '%s' WHERE data_file_id = %d AND column_id = 22", timestampNSText(lo), timestampNSText(hi), f.id))
		if lo < tableLo {
			tableLo = lo
		}
	}
	catalog = filepath.Join(dir, "ducklake.duckdb")
	copyFile(t, src, catalog)
	edits = append(edits, fmt.Sprintf("UPDATE ducklake_table_column_stats SET min_value = '%s' WHERE table_id = 1 AND column_id = 22", timestampNSText(tableLo)))
	execCatalog(t, catalog, edits...)
	return catalog, data
}

// TestTimestampNSEarlyData proves lakes whose TIMESTAMP_NS column holds
// 1677-09-21 12:00:00 (DuckDB reads it; its text fails: "Date out of range
// in timestamp_ns conversion"). Before, a proof whose rows differ stopped
// on that error ("catalogs could not be compared") instead of listing the
// first differing rows.
func TestTimestampNSEarlyData(t *testing.T) {
	a, dataA := tsNSEarlyLake(t, "1677-09-21 12:00:00", "id = 1")
	for _, tc := range []struct {
		name, ts, pick string // B's data: ts in the rows where pick
		onlyA, onlyB   string // in the differing rows; "" when equivalent
	}{
		{"same rows", "1677-09-21 12:00:00", "id = 1", "", ""},
		{"B's ts_ns differs", "1677-09-21 12:00:00", "id = 2", "'ts_ns': '1677-09-21 12:00:00'", "'ts_ns': '1677-09-21 12:00:00'"},
		{"B's early value differs in nanoseconds", "1677-09-21 12:00:00.000000007", "id = 1", "'ts_ns': '1677-09-21 12:00:00',", "'ts_ns': '1677-09-21 12:00:00.000000007',"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dataB := tsNSEarlyLake(t, tc.ts, tc.pick)
			// B is A's catalog over B's data: a changed file is read.
			rep, err := Catalogs(context.Background(), a, a, Options{DataPath: dataA, DataPathB: dataB, Engines: readerDBs})
			if tc.onlyA == "" {
				if err != nil {
					t.Fatalf("%v\n%v", err, rep.Differences)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			var rows *RowDiff
			for _, tr := range rep.Tables {
				if tr.Rows != nil {
					rows = tr.Rows
				}
			}
			if rows == nil || !hasDifference(rep, "rows", "main.prim: rows differ") {
				t.Fatalf("want the rows of main.prim to differ, got %v (%v)", rep.Differences, err)
			}
			if !slices.ContainsFunc(rows.OnlyA, func(s string) bool { return strings.Contains(s, tc.onlyA) }) ||
				!slices.ContainsFunc(rows.OnlyB, func(s string) bool { return strings.Contains(s, tc.onlyB) }) {
				t.Errorf("want rows only in A with %q and only in B with %q, got\nA: %q\nB: %q", tc.onlyA, tc.onlyB, rows.OnlyA, rows.OnlyB)
			}
		})
	}
}

func TestScannedMinMaxTimestampNSEarly(t *testing.T) {
	ctx := context.Background()
	catalog, data := tsNSEarlyLake(t, "1677-09-21 12:00:00", "id = 1")
	r := openForTest(t, catalog, data)
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := latestSnapshot(snaps)
	tables, err := r.Tables(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	tb := Table{ID: 1}
	for _, x := range tables {
		if x.ID == 1 {
			tb = x
		}
	}
	cols, err := r.Columns(ctx, tb.ID, s)
	if err != nil {
		t.Fatal(err)
	}
	var need []*Column
	for _, c := range cols {
		if c.Name == "ts_ns" {
			need = append(need, c)
		}
	}
	got, err := r.scannedMinMax(ctx, tb, s, need)
	if err != nil {
		t.Fatal(err)
	}
	if m := got[need[0].ID]; m.min != "1677-09-21 12:00:00" || m.max != "2200-01-01 00:00:00.000000001" {
		t.Errorf("ts_ns: %v", m)
	}
}

// TestTimestampNSRowText checks the SQL text of timestampNSRowText and of
// renderedText against DuckDB's own text where it renders one, and against
// timestampNSText (Go, from epoch_ns) where it does not. Before, every
// early value failed the query.
func TestTimestampNSRowText(t *testing.T) {
	db := testduck.Open(t, "")
	ctx := context.Background()
	for _, tc := range []struct {
		in   string // SQL of the value
		want string
	}{
		{"make_timestamp_ns(-9223372036854775806)", "1677-09-21 00:12:43.145224194"}, // the first after -infinity
		{"CAST('1677-09-21 00:12:43.145225' AS TIMESTAMP_NS)", "1677-09-21 00:12:43.145225"},
		{"CAST('1677-09-21 12:00:00' AS TIMESTAMP_NS)", "1677-09-21 12:00:00"},
		{"CAST('1677-09-21 12:00:00.5' AS TIMESTAMP_NS)", "1677-09-21 12:00:00.5"},
		{"CAST('1677-09-21 23:59:59.999999999' AS TIMESTAMP_NS)", "1677-09-21 23:59:59.999999999"},
		{"CAST('1677-09-22 00:00:00' AS TIMESTAMP_NS)", "1677-09-22 00:00:00"},
		{"CAST('1969-12-31 23:59:59.999999999' AS TIMESTAMP_NS)", "1969-12-31 23:59:59.999999999"},
		{"CAST('2000-01-01 00:00:00.123456789' AS TIMESTAMP_NS)", "2000-01-01 00:00:00.123456789"},
		{"CAST('2262-04-11 23:47:16.854775806' AS TIMESTAMP_NS)", "2262-04-11 23:47:16.854775806"},
		{"CAST('-infinity' AS TIMESTAMP_NS)", "-infinity"},
		{"CAST('infinity' AS TIMESTAMP_NS)", "infinity"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			v := tc.in
			x := newRenderedText(v, "TIMESTAMP_NS")
			var row string
			if err := db.QueryRowContext(ctx, "SELECT "+timestampNSRowText(v)+", "+strings.Join(x.exprs, ", ")).Scan(append([]any{&row}, x.dest()...)...); err != nil {
				t.Fatal(err)
			}
			if row != tc.want {
				t.Errorf("timestampNSRowText: %q, want %q", row, tc.want)
			}
			if got := x.value(); got == nil || *got != tc.want {
				t.Errorf("renderedText: %v, want %q", got, tc.want)
			}
			var ns int64
			if err := db.QueryRowContext(ctx, "SELECT epoch_ns("+v+")").Scan(&ns); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tc.want, "infinity") && timestampNSText(ns) != tc.want {
				t.Errorf("timestampNSText: %q, want %q", timestampNSText(ns), tc.want)
			}
		})
	}
	var null sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT "+timestampNSRowText("CAST(NULL AS TIMESTAMP_NS)")).Scan(&null); err != nil || null.Valid {
		t.Errorf("NULL: %v, %v", null, err)
	}
}

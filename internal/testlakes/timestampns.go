package testlakes

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TimestampNSEarly copies lakes' 01_primitive_types (its catalog src, its
// data folder data) with main.prim's data files rewritten by DuckDB so that
// ts_ns holds ts (a TIMESTAMP_NS before 1677-09-22, which DuckDB reads,
// compares and hashes but cannot render as text) in the rows where pick is
// true, with the files' sizes, footers and ts_ns statistics updated in a
// copy of the catalog. It returns the catalog copy and the copied data
// folder. compare's and convert's tests both use it (compare must not
// import convert, so the lake cannot be built in one of them).
func TimestampNSEarly(tb testing.TB, src, data, ts, pick string) (catalog, dataCopy string) {
	tb.Helper()
	catalog, dataCopy = copyLake(tb, src, data)
	db := testduck.Open(tb, "")
	conn := func(q string, args ...any) *sql.Row { return db.QueryRow(q, args...) }
	must := func(q string) {
		tb.Helper()
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	must("ATTACH " + quoteSQL(catalog) + " AS c")
	var ids string
	if err := conn(`SELECT '{' || string_agg('"' || column_name || '": ' || column_id, ', ') || '}' FROM c.ducklake_column WHERE table_id = 1 AND end_snapshot IS NULL AND parent_column IS NULL`).Scan(&ids); err != nil {
		tb.Fatal(err)
	}
	files := liveDataFiles(tb, db)
	text := func(ns int64) string { return time.Unix(0, ns).UTC().Format("2006-01-02 15:04:05.999999999") }
	tableLo := int64(math.MaxInt64)
	for _, f := range files {
		file := filepath.Join(dataCopy, "main", "prim", f.path)
		tmp := file + ".new"
		must(`COPY (SELECT * REPLACE (CASE WHEN ` + pick + ` THEN TIMESTAMP_NS ` + quoteSQL(ts) + ` ELSE ts_ns END AS ts_ns) FROM read_parquet(` + quoteSQL(file) + `)) TO ` + quoteSQL(tmp) + ` (FORMAT parquet, FIELD_IDS ` + ids + `)`)
		if err := os.Rename(tmp, file); err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var lo, hi int64
		if err := conn(`SELECT epoch_ns(min(ts_ns)), epoch_ns(max(ts_ns)) FROM read_parquet(`+quoteSQL(file)+`)`).Scan(&lo, &hi); err != nil {
			tb.Fatal(err)
		}
		must(fmt.Sprintf("UPDATE c.ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %d", len(b), binary.LittleEndian.Uint32(b[len(b)-8:]), f.id))
		must(fmt.Sprintf("UPDATE c.ducklake_file_column_stats SET min_value = '%s', max_value = '%s' WHERE data_file_id = %d AND column_id = 22", text(lo), text(hi), f.id))
		tableLo = min(tableLo, lo)
	}
	must(fmt.Sprintf("UPDATE c.ducklake_table_column_stats SET min_value = '%s' WHERE table_id = 1 AND column_id = 22", text(tableLo)))
	must("DETACH c")
	return catalog, dataCopy
}

func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func copyFileTo(tb testing.TB, src, dst string) {
	tb.Helper()
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
}

// dataFile is a data file of the catalog attached as c: its id and path
// (relative to its table's folder).
type dataFile struct {
	id   int64
	path string
}

// liveDataFiles lists the data files of table 1 of the catalog attached
// as c at its latest snapshot, by id.
func liveDataFiles(tb testing.TB, db *sql.DB) []dataFile {
	tb.Helper()
	rows, err := db.Query(`SELECT data_file_id, path FROM c.ducklake_data_file WHERE table_id = 1 AND end_snapshot IS NULL ORDER BY data_file_id`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var files []dataFile
	for rows.Next() {
		var f dataFile
		if err := rows.Scan(&f.id, &f.path); err != nil {
			tb.Fatal(err)
		}
		files = append(files, f)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return files
}

// copyLake copies a catalog (src) and its data folder into a temporary
// folder, for a builder to change: the shared unpacked lakes are never
// written (Dir).
func copyLake(tb testing.TB, src, data string) (catalog, dataCopy string) {
	tb.Helper()
	dir := tb.TempDir()
	dataCopy = filepath.Join(dir, "data")
	if err := os.CopyFS(dataCopy, os.DirFS(data)); err != nil {
		tb.Fatal(err)
	}
	catalog = filepath.Join(dir, "ducklake.duckdb")
	copyFileTo(tb, src, catalog)
	return catalog, dataCopy
}

package testlakes

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TimeNS copies lakes' 01_primitive_types (its catalog src, its data folder
// data) with main.prim's column tm (column_id 18) made a time_ns column:
// its type in the catalog copy, and its values in the table's data files,
// written again by DuckDB with tm cast to TIME_NS and stored as stored:
// "TIME_NS" (a Parquet TIME(NANOS) column, as DuckDB 1.5.6 writes TIME_NS)
// or "VARCHAR" (text, as DuckDB wrote TIME_NS before its Parquet writer
// knew the type), their sizes and footers updated. It returns the catalog
// copy and the copied data folder. compare's and convert's tests both use
// it.
func TimeNS(tb testing.TB, src, data, stored string) (catalog, dataCopy string) {
	tb.Helper()
	catalog, dataCopy = copyLake(tb, src, data)
	db := testduck.Open(tb, "")
	defer db.Close()
	must := func(q string) {
		tb.Helper()
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	must("ATTACH " + quoteSQL(catalog) + " AS c")
	var ids string
	if err := db.QueryRow(`SELECT '{' || string_agg('"' || column_name || '": ' || column_id, ', ') || '}' FROM c.ducklake_column WHERE table_id = 1 AND end_snapshot IS NULL AND parent_column IS NULL`).Scan(&ids); err != nil {
		tb.Fatal(err)
	}
	var typ sql.NullString
	if err := db.QueryRow(`SELECT any_value(column_type) FROM c.ducklake_column WHERE table_id = 1 AND column_id = 18 AND column_name = 'tm'`).Scan(&typ); err != nil || typ.String != "time" {
		tb.Fatalf("main.prim's column 18 is not tm of type time (%q, %v)", typ.String, err)
	}
	for _, f := range liveDataFiles(tb, db) {
		file := filepath.Join(dataCopy, "main", "prim", f.path)
		tmp := file + ".new"
		must(`COPY (SELECT * REPLACE (CAST(CAST(tm AS TIME_NS) AS ` + stored + `) AS tm) FROM read_parquet(` + quoteSQL(file) + `)) TO ` + quoteSQL(tmp) + ` (FORMAT parquet, FIELD_IDS ` + ids + `)`)
		if err := os.Rename(tmp, file); err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		must(fmt.Sprintf("UPDATE c.ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %d", len(b), binary.LittleEndian.Uint32(b[len(b)-8:]), f.id))
	}
	must(`UPDATE c.ducklake_column SET column_type = 'time_ns' WHERE table_id = 1 AND column_id = 18`)
	must("DETACH c")
	return catalog, dataCopy
}

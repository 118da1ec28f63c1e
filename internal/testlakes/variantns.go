package testlakes

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// VariantTimestampNSEarly copies lakes' 13_variant (its catalog src, its
// data folder data) with the rows of main.variant_tbl's first data file
// (ids 1-8) whose id is a key of top holding, in the VARIANT column v, the
// TIMESTAMP_NS top[id] itself, and those whose id is a key of nested an
// object {'t': nested[id], 'n': id} (e.g. a value before 1677-09-22,
// which DuckDB reads, compares and hashes inside a VARIANT but cannot
// render as text); the other rows keep their values. The file is written again (field ids
// kept, DuckDB 1.5.6 shreds the values as it writes them), its size and
// footer size in the catalog's copy. Row 5, a VARIANT null, must stay as
// it is (the file's statistics count it). It returns the catalog copy and
// the copied data folder.
func VariantTimestampNSEarly(tb testing.TB, src, data string, top, nested map[int]string) (catalog, dataCopy string) {
	tb.Helper()
	value := "v"
	for _, id := range slices.Sorted(maps.Keys(top)) {
		value = fmt.Sprintf("CASE WHEN id = %d THEN (TIMESTAMP_NS %s)::VARIANT ELSE %s END", id, quoteSQL(top[id]), value)
	}
	for _, id := range slices.Sorted(maps.Keys(nested)) {
		value = fmt.Sprintf("CASE WHEN id = %d THEN {'t': TIMESTAMP_NS %s, 'n': id}::VARIANT ELSE %s END", id, quoteSQL(nested[id]), value)
	}
	return VariantRewritten(tb, src, data, value)
}

// VariantRewritten copies lakes' 13_variant (its catalog src, its data
// folder data) with the VARIANT column v of main.variant_tbl's first data
// file (ids 1-8) holding value, an SQL expression over the file's columns
// id and v, in every row; the other columns, the rows and their order are
// kept. The file is written again (field ids kept, DuckDB 1.5.6 shreds the
// values as it writes them), its size and footer size in the catalog's
// copy. Row 5, a VARIANT null, must stay as it is (value keeps v there:
// the file's statistics count it). It returns the catalog copy and the
// copied data folder.
func VariantRewritten(tb testing.TB, src, data, value string) (catalog, dataCopy string) {
	tb.Helper()
	catalog, dataCopy = copyLake(tb, src, data)
	db := testduck.Open(tb, "")
	must := func(q string) {
		tb.Helper()
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	must("ATTACH " + quoteSQL(catalog) + " AS c")
	var id int64
	var path string
	if err := db.QueryRow(`SELECT data_file_id, path FROM c.ducklake_data_file WHERE table_id = 1 ORDER BY data_file_id LIMIT 1`).Scan(&id, &path); err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(dataCopy, "main", "variant_tbl", path)
	// A table first: DuckDB 1.5.6 fails to write such a VARIANT straight
	// from some queries (a UNION of them), not from a table.
	must(fmt.Sprintf(`CREATE TABLE x AS SELECT id, %s AS v FROM read_parquet(%s)`, value, quoteSQL(file)))
	tmp := file + ".new"
	must(`COPY (FROM x ORDER BY id) TO ` + quoteSQL(tmp) + ` (FORMAT parquet, FIELD_IDS {id: 1, v: 2})`)
	if err := os.Rename(tmp, file); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	must(fmt.Sprintf("UPDATE c.ducklake_data_file SET file_size_bytes = %d, footer_size = %d WHERE data_file_id = %d", len(b), binary.LittleEndian.Uint32(b[len(b)-8:]), id))
	must("DETACH c")
	return catalog, dataCopy
}

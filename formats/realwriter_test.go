package formats_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// writerColumns are columns of every scalar and nested type DuckLake
// stores but VARIANT and GEOMETRY (TestRealReleasesReadConformanceParquet
// and the footer quirks hold those), with NULLs, as select list entries
// over range(n) r(i).
var writerColumns = []string{
	"i % 2 = 0 AS b", "(i % 200 - 100)::TINYINT AS ti", "(i * 7 % 60000 - 30000)::SMALLINT AS si",
	"(i * 100003)::INTEGER AS ii", "(i * 1000000007)::BIGINT AS bi", "(i::HUGEINT * 17014118346046923173168730371588) AS hi",
	"(i % 250)::UTINYINT AS ut", "(i * 13 % 65000)::USMALLINT AS us", "(i * 1000003)::UINTEGER AS ui",
	"(i * 10000000019)::UBIGINT AS ub", "(i::UHUGEINT * 34028236692093846346337460743) AS uh",
	"CASE i % 11 WHEN 0 THEN 'nan'::FLOAT WHEN 1 THEN 'inf'::FLOAT WHEN 2 THEN -0.0::FLOAT ELSE (i / 7.0)::FLOAT END AS f",
	"CASE i % 11 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN '-inf'::DOUBLE WHEN 2 THEN -0.0::DOUBLE ELSE (i / 7.0)::DOUBLE END AS d",
	"(i % 999 / 10)::DECIMAL(4,1) AS dec4", "(i * 1003 / 100)::DECIMAL(9,2) AS dec9", "(i * 1000000007 / 1000)::DECIMAL(18,3) AS dec18",
	"(i::HUGEINT * 1234567890123456789 / 10000000000)::DECIMAL(38,10) AS dec38",
	"DATE '1900-01-01' + (i * 37)::INTEGER AS dt", "TIME '00:00:00' + INTERVAL (i * 28) SECOND + INTERVAL (i) MICROSECOND AS tm",
	"TIMESTAMP '1850-01-01' + INTERVAL (i * 1000003) SECOND + INTERVAL (i) MICROSECOND AS ts",
	"(TIMESTAMP '1850-01-01' + INTERVAL (i * 1000003) SECOND)::TIMESTAMP_S AS tss",
	"(TIMESTAMP '1850-01-01' + INTERVAL (i * 1000003) SECOND + INTERVAL (i) MILLISECOND)::TIMESTAMP_MS AS tsms",
	"(TIMESTAMP '1950-01-01' + INTERVAL (i * 1000003) SECOND)::TIMESTAMP_NS AS tsns",
	"TIMESTAMPTZ '1850-01-01 00:00:00+00' + INTERVAL (i * 1000003) SECOND AS tstz",
	"('12:34:56+' || lpad((i % 15)::VARCHAR, 2, '0') || ':' || CASE WHEN i % 2 = 0 THEN '30' ELSE '00' END)::TIMETZ AS ttz",
	"INTERVAL (i) MONTH + INTERVAL (i * 3) DAY + INTERVAL (i * 1234567) MICROSECOND AS iv",
	"'v' || (i % 50) || repeat('é', i % 5) AS s", "('\\x00\\xFF' || i)::BLOB AS bl", "md5(i::VARCHAR)::UUID AS uu",
	"json_object('a', i, 'b', [i::VARCHAR, 'x']) AS js",
	"CASE WHEN i % 5 = 0 THEN [] WHEN i % 5 = 1 THEN [NULL, i] ELSE [i, i + 1, NULL, i * 2] END AS l",
	"CASE WHEN i % 5 = 0 THEN {a: NULL, b: NULL} ELSE {a: i, b: 's' || i} END AS st",
	"{a: CASE WHEN i % 3 = 0 THEN NULL ELSE [i, NULL] END, b: {c: CASE WHEN i % 4 = 0 THEN NULL ELSE i::VARCHAR END}} AS sl",
	"[{x: i, y: NULL}, NULL, {x: NULL, y: 'q'}] AS lst",
	"CASE WHEN i % 5 = 0 THEN MAP {} ELSE MAP {'k' || i: i, 'z': NULL} END AS mp",
}

// writerOptions are COPY options of DuckDB's Parquet writer that DuckLake
// passes (its parquet_compression, parquet_version,
// parquet_compression_level and parquet_row_group_size options) or leaves
// at DuckDB's defaults (dictionaries, bloom filters).
var writerOptions = []string{
	"", "PARQUET_VERSION V2", "COMPRESSION uncompressed", "COMPRESSION gzip", "COMPRESSION zstd, COMPRESSION_LEVEL 1",
	"COMPRESSION brotli", "COMPRESSION lz4", "COMPRESSION lz4_raw",
	"PARQUET_VERSION V2, COMPRESSION zstd", "ROW_GROUP_SIZE 100, PARQUET_VERSION V2", "DICTIONARY_SIZE_LIMIT 1",
	"DICTIONARY_COMPRESSION_RATIO_THRESHOLD -1", "WRITE_BLOOM_FILTER false",
}

// TestRealReleasesReadWriterOptions: files DuckDB 1.5.6 writes, of every
// type DuckLake stores (writerColumns, NULL in every seventh row), with
// each writer option DuckLake can set or leaves at DuckDB's default
// (writerOptions: V2 encodings, codecs and levels, row groups,
// dictionaries, bloom filters), are read whole and under filters pushed
// down on a few columns by each real release, which read the rows 1.5.6
// reads (docs/formats.md, "Parquet features of the newest writers"), but
// a release a footer quirk the file triggers names. A writer or reader
// change that makes an older release read such a file otherwise fails
// here.
func TestRealReleasesReadWriterOptions(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	sel := make([]string, len(writerColumns))
	for k, c := range writerColumns {
		expr, name, _ := strings.Cut(c, " AS ")
		sel[k] = "CASE WHEN i % 7 = 3 THEN NULL ELSE " + expr + " END AS " + name
	}
	rows := "SELECT " + strings.Join(sel, ", ") + " FROM range(2100) r(i)"
	var stmts, labels, files, stmtFile []string
	for k, o := range writerOptions {
		path := filepath.Join(dir, fmt.Sprintf("o%02d.parquet", k))
		opts := "FORMAT parquet"
		if o != "" {
			opts += ", " + o
		}
		if _, err := db.ExecContext(ctx, "COPY ("+rows+") TO "+sqlLit(path)+" ("+opts+")"); err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		files = append(files, path)
		cols, types := describeParquet(t, ctx, db, path)
		read := readParquet(path)
		stmts, labels, stmtFile = append(stmts, readParquetValues(read, cols, types)), append(labels, o+": whole"), append(stmtFile, path)
		for _, w := range []string{"s = 'v7' AND ii > 1000", "uu = md5('77')::UUID", "d > 100", "f = 'nan'::FLOAT",
			"ttz > '12:00:00+00'::TIMETZ", "dec38 BETWEEN 100 AND 1000000", "tsns < TIMESTAMP_NS '1950-06-01'"} {
			stmts, labels = append(stmts, "SELECT count(*), min(ii), max(ii) FROM read_parquet("+sqlLit(path)+") WHERE "+w), append(labels, o+": "+w)
			stmtFile = append(stmtFile, path)
		}
	}
	// A footer quirk a file triggers (the JSON column of a V2 file:
	// json-delta-length-page-validated-whole, DuckDB 1.4.1) leaves its
	// releases out; TestRealReleasesFooterQuirks holds them.
	hits, err := parquetfooter.Read(ctx, db, files)
	if err != nil {
		t.Fatal(err)
	}
	quirkOf := map[[2]string]string{} // (file, release): a quirk of the file that names the release
	for _, f := range files {
		for _, h := range hits[f] {
			q, _ := formats.FooterQuirkNamed(h.Quirk)
			for _, r := range q.Releases {
				quirkOf[[2]string{f, r}] = q.Name
			}
		}
	}
	ref, got := readings(t, ctx, db, stmts)
	for i := range stmts {
		want := ref.Queries[i]
		if want.Error != "" || want.Rows == "0" {
			t.Fatalf("%s: DuckDB 1.5.6 reads %s rows, error %q", labels[i], want.Rows, want.Error)
		}
		for _, rel := range realduckdb.Releases {
			if q, ok := quirkOf[[2]string{stmtFile[i], rel.DuckDB}]; ok {
				t.Logf("%s: DuckDB %s left out (%s)", labels[i], rel.DuckDB, q)
				continue
			}
			if g := got[rel.DuckDB].Queries[i]; !sameRows(g, want) {
				e, _, _ := strings.Cut(g.Error, "\n")
				t.Errorf("%s: DuckDB %s: %s rows, digest %s, error %q; DuckDB 1.5.6: %s rows, digest %s", labels[i], rel.DuckDB, g.Rows, g.Digest, e, want.Rows, want.Digest)
			}
		}
	}
	t.Logf("%d files, %d statements, each read by %d releases", len(files), len(stmts), len(realduckdb.Releases))
}

// describeParquet returns a Parquet file's columns and types as DuckDB
// 1.5.6 describes them.
func describeParquet(t *testing.T, ctx context.Context, db *sql.DB, path string) (cols, types []string) {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE "+readParquet(path)+")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c, typ string
		if err := rows.Scan(&c, &typ); err != nil {
			t.Fatal(err)
		}
		cols, types = append(cols, c), append(types, typ)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, types
}

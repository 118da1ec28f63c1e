package parquetfooter

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// physicalTypes are parquet.thrift's Type names, as parquet_metadata's
// type column gives them.
var physicalTypes = []string{"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"}

// edgeFiles writes Parquet files whose footers the conformance lakes lack:
// VARCHAR bounds that are not valid UTF-8 in several ways (DuckDB renders
// them as blobs), a VARCHAR without bounds, JSON encoded with
// DELTA_LENGTH_BYTE_ARRAY, blob bounds with every kind of byte, several
// row groups, nested columns, an all-NULL column.
func edgeFiles(t *testing.T, ctx context.Context, db *sql.DB, dir string) []string {
	t.Helper()
	var out []string
	write := func(name, sel, opts string) string {
		p := filepath.Join(dir, name)
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet%s)", sel, parquetsql.Path(p), opts)); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
		return p
	}
	const words = "SELECT * FROM (VALUES (1, 'éclair'), (2, 'zèbre'), (3, 'apple')) v(id, s)"
	for i, to := range []string{
		"\xC3(clair",          // a lead byte without its continuation
		"\xED\xA0\x80lair",    // a surrogate
		"\xC0\xA9clair",       // an overlong encoding
		"\xEF\xBF\xBFlair",    // U+FFFF, a noncharacter (valid)
		"\xF4\x90\x80\x80air", // past U+10FFFF
		"\\\x01\xFFxair",      // a backslash and a control byte
		"\x7F\xFFclair",       // DEL
		"\xFF'\"clai",         // quotes
		"\\xC3(ir",            // escapes spelled in valid text
	} {
		p := write(fmt.Sprintf("utf%d.parquet", i), words, "")
		if _, _, err := footertest.Rewrite(ctx, db, p, "", "{id: 1, s: 2}", formats.FooterStringStatsInvalidUTF8, "éclair", to); err != nil {
			t.Fatal(err)
		}
	}
	write("cjk.parquet", "SELECT * FROM (VALUES (1, repeat('日本語', 100)), (2, 'apple')) v(id, s)", "")
	write("json.parquet", "SELECT i AS id, json_object('a', i) AS j FROM range(5000) r(i)", ", PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1")
	write("blob.parquet", "SELECT i AS id, unhex(printf('%02X', i)) AS b, unhex(printf('%02X', 255 - i)) AS c, encode(chr(i::INT + 1)) AS e FROM range(0, 256) r(i)", "")
	write("groups.parquet", "SELECT i AS id, i::VARCHAR AS s, {'a': i, 'b': [i::VARCHAR, NULL]} AS n, MAP {i::VARCHAR: i} AS m FROM range(10000) r(i)", ", ROW_GROUP_SIZE 2048")
	write("nulls.parquet", "SELECT i AS id, NULL::VARCHAR AS s, NULL::INT AS n FROM range(3) r(i)", "")
	write("empty.parquet", "SELECT 1 AS id, 'x' AS s WHERE false", "")
	return out
}

// conformanceFiles copies the data files of every conformance archive
// into dir (the shared trees are never read in place by a test that
// writes beside them) and returns the copies.
func conformanceFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, archive := range testlakes.Archives {
		root := testlakes.Dir(t, archive)
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".parquet") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, fmt.Sprintf("%d.parquet", len(out)))
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
			out = append(out, dst)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d data files in the conformance archives", len(out))
	}
	return out
}

// TestFooterAsParquetMetadata: on every data file of the conformance
// lakes (copied) and on files with the footers they lack, the footer read
// in Go gives what DuckDB's parquet_metadata gives (the queries it
// replaces, verbatim, and every field read): the row groups' row counts,
// each chunk's type, path, num_values, encodings, statistics counts and,
// for VARCHAR columns, bounds as rendered; and a file it cannot read
// (encrypted) DuckDB cannot read either.
func TestFooterAsParquetMetadata(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	dir := t.TempDir()
	files := append(edgeFiles(t, ctx, db, dir), conformanceFiles(t, t.TempDir())...)
	compared, unread := 0, 0
	for _, f := range files {
		foot, goErr := ReadFooter(ctx, f)
		p := parquetsql.Path(f)
		// The struct-skip checks' query.
		var groups []int64
		rows, duckErr := db.QueryContext(ctx, `SELECT any_value(row_group_num_rows) FROM parquet_metadata(`+p+`) GROUP BY row_group_id ORDER BY row_group_id`)
		if duckErr == nil {
			for rows.Next() {
				var n int64
				if err := rows.Scan(&n); err != nil {
					t.Fatal(err)
				}
				groups = append(groups, n)
			}
			rows.Close()
			duckErr = rows.Err()
		}
		if (goErr == nil) != (duckErr == nil) {
			t.Errorf("%s: read in Go: %v; by parquet_metadata: %v", f, goErr, duckErr)
			continue
		}
		if goErr != nil {
			unread++
			continue
		}
		got, err := RowGroupRows(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, groups) {
			t.Errorf("%s: row groups %v, parquet_metadata %v", f, got, groups)
		}
		varchar := compareChunks(t, ctx, db, f, foot)
		compareCandidates(t, ctx, db, f, foot, varchar)
		compared++
	}
	t.Logf("%d files compared, %d unread by both", compared, unread)
	if compared < 100 {
		t.Errorf("only %d files compared", compared)
	}
}

// compareChunks compares every chunk of a footer with parquet_metadata's
// row of it. It returns which columns are VARCHAR to DuckDB, by
// column_id.
func compareChunks(t *testing.T, ctx context.Context, db *sql.DB, f string, foot *Footer) (varchar []bool) {
	t.Helper()
	p := parquetsql.Path(f)
	rows, err := db.QueryContext(ctx, `SELECT coalesce(num_children, 0), coalesce(duckdb_type, '') FROM parquet_schema(`+p+`)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var children int64
		var duck string
		if err := rows.Scan(&children, &duck); err != nil {
			t.Fatal(err)
		}
		if children == 0 {
			varchar = append(varchar, duck == "VARCHAR" || duck == "JSON")
		}
	}
	rows.Close()
	rows, err = db.QueryContext(ctx, `SELECT row_group_id, column_id, type, path_in_schema, num_values, encodings,
		stats_null_count, stats_distinct_count, stats_min, stats_max, stats_min_value, stats_max_value
		FROM parquet_metadata(`+p+`) ORDER BY row_group_id, column_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var g, c, values int64
		var typ, path, enc string
		var nulls, distinct sql.NullInt64
		var bounds [4]sql.NullString
		if err := rows.Scan(&g, &c, &typ, &path, &values, &enc, &nulls, &distinct, &bounds[0], &bounds[1], &bounds[2], &bounds[3]); err != nil {
			t.Fatal(err)
		}
		n++
		if int(g) >= len(foot.RowGroups) || int(c) >= len(foot.RowGroups[g].Columns) {
			t.Errorf("%s: parquet_metadata has row group %d column %d, the footer read in Go not", f, g, c)
			continue
		}
		cc := foot.RowGroups[g].Columns[c]
		st := cc.Stats
		var encs []string
		for _, e := range cc.Encodings {
			encs = append(encs, encodingName(e))
		}
		mine := fmt.Sprintf("%s %q %d %s %v", physicalTypes[min(max(cc.Type, 0), int32(len(physicalTypes)-1))], cc.PathInSchema(), cc.NumValues, strings.Join(encs, ", "),
			[]sql.NullInt64{{Int64: st.NullCount, Valid: st.HasNullCount}, {Int64: st.DistinctCount, Valid: st.HasDistinctCount}})
		theirs := fmt.Sprintf("%s %q %d %s %v", typ, path, values, enc, []sql.NullInt64{nulls, distinct})
		if mine != theirs {
			t.Errorf("%s row group %d column %d: read in Go %s, parquet_metadata %s", f, g, c, mine, theirs)
		}
		if int(c) < len(varchar) && varchar[c] {
			for i, b := range []struct {
				v   []byte
				set bool
			}{{st.Min, st.HasMin}, {st.Max, st.HasMax}, {st.MinValue, st.HasMinValue}, {st.MaxValue, st.HasMaxValue}} {
				want := sql.NullString{}
				if b.set {
					want = sql.NullString{String: renderVarchar(b.v), Valid: true}
				}
				if want != bounds[i] {
					t.Errorf("%s row group %d column %d bound %d: rendered in Go %+v, parquet_metadata %+v", f, g, c, i, want, bounds[i])
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, rg := range foot.RowGroups {
		chunks += len(rg.Columns)
	}
	if chunks != n {
		t.Errorf("%s: %d chunks read in Go, %d rows of parquet_metadata", f, chunks, n)
	}
	return varchar
}

// compareCandidates runs the statement Read ran before its footers were
// read in Go and compares its rows of VARCHAR columns with candidates'.
// Only those concern a quirk (chunkHits): a BLOB's bounds, which
// candidates render as a VARCHAR's, render as a blob there.
func compareCandidates(t *testing.T, ctx context.Context, db *sql.DB, f string, foot *Footer, varchar []bool) {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT row_group_id, column_id, path_in_schema,
			coalesce(stats_min_value, stats_min), coalesce(stats_max_value, stats_max),
			(stats_null_count IS NOT NULL OR stats_distinct_count IS NOT NULL OR coalesce(stats_min_value, stats_min, stats_max_value, stats_max) IS NOT NULL)
				AND coalesce(stats_null_count < num_values, true),
			coalesce(encodings LIKE '%DELTA_LENGTH_BYTE_ARRAY%', false)
		FROM parquet_metadata(`+parquetsql.Path(f)+`)
		WHERE type = 'BYTE_ARRAY' AND (contains(coalesce(stats_min_value, stats_min, ''), '\x') OR contains(coalesce(stats_max_value, stats_max, ''), '\x')
			OR coalesce(stats_min_value, stats_min) IS NULL OR coalesce(stats_max_value, stats_max) IS NULL
			OR encodings LIKE '%DELTA_LENGTH_BYTE_ARRAY%')
		ORDER BY row_group_id, column_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []chunk
	for rows.Next() {
		var c chunk
		if err := rows.Scan(&c.rowGroup, &c.column, &c.path, &c.min, &c.max, &c.hasStats, &c.deltaLength); err != nil {
			t.Fatal(err)
		}
		want = append(want, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	only := func(cs []chunk) []chunk {
		return slices.DeleteFunc(slices.Clone(cs), func(c chunk) bool { return int(c.column) >= len(varchar) || !varchar[c.column] })
	}
	if got := candidates(foot); fmt.Sprint(only(got)) != fmt.Sprint(only(want)) {
		t.Errorf("%s: candidate chunks read in Go\n%+v\nparquet_metadata\n%+v", f, only(got), only(want))
	}
}

func encodingName(e int32) string {
	names := []string{"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"}
	if e >= 0 && int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprint(e)
}

// TestRenderBlobAsDuckDB: every byte renders as DuckDB casts a BLOB to
// VARCHAR (its parquet_metadata renders an invalid VARCHAR bound so).
func TestRenderBlobAsDuckDB(t *testing.T) {
	db := testduck.Open(t, "")
	rows, err := db.Query(`SELECT i, unhex(printf('%02X', i))::VARCHAR FROM range(256) r(i) ORDER BY i`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var i int
		var want string
		if err := rows.Scan(&i, &want); err != nil {
			t.Fatal(err)
		}
		if got := renderBlob([]byte{byte(i)}); got != want {
			t.Errorf("byte %#x: rendered %q, DuckDB %q", i, got, want)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 256 {
		t.Fatalf("%d bytes, %v", n, err)
	}
}

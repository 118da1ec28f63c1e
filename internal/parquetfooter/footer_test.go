package parquetfooter

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// in Go gives what DuckDB's parquet_metadata gives (the statements it
// replaces, over a batch of files, and every field read): the row groups'
// row counts, each chunk's type, path, num_values, encodings, statistics
// counts and, for VARCHAR columns, bounds as rendered, and Read's
// candidate chunks, those of a VARIANT's shredded values among them, and
// the schema's leaves (physical type, whether DECIMAL, precision); and a file it cannot read (encrypted) DuckDB cannot
// read either.
func TestFooterAsParquetMetadata(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	files := append(edgeFiles(t, ctx, db, t.TempDir()), conformanceFiles(t, t.TempDir())...)
	feet := map[string]*Footer{}
	var readable []string
	for _, f := range files {
		foot, err := ReadFooter(ctx, f)
		if err != nil {
			var n int64
			if derr := db.QueryRowContext(ctx, `SELECT count(*) FROM parquet_metadata(`+parquetsql.Path(f)+`)`).Scan(&n); derr == nil {
				t.Errorf("%s: read in Go: %v; parquet_metadata reads it", f, err)
			}
			continue
		}
		feet[f] = foot
		readable = append(readable, f)
	}
	shredded := 0
	for start := 0; start < len(readable); start += maxBatch {
		shredded += compareBatch(t, ctx, db, readable[start:min(start+maxBatch, len(readable))], feet)
	}
	t.Logf("%d files compared, %d unread by both, %d chunks of shredded VARIANT values", len(readable), len(files)-len(readable), shredded)
	if shredded == 0 {
		t.Errorf("no chunk of shredded VARIANT values compared")
	}
	if len(readable) < 100 {
		t.Errorf("only %d files compared", len(readable))
	}
}

// byFile runs query, whose table function reads the files (%s: their
// list), and returns its rows by its first column (file_name), the others
// as text.
func byFile(t *testing.T, ctx context.Context, db *sql.DB, query string, files []string) map[string][][]sql.NullString {
	t.Helper()
	list := make([]string, len(files))
	for i, f := range files {
		list[i] = parquetsql.Path(f)
	}
	q := fmt.Sprintf(query, "["+strings.Join(list, ", ")+"]")
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]sql.NullString{}
	for rows.Next() {
		var file string
		vals := make([]sql.NullString, len(cols)-1)
		dst := []any{&file}
		for i := range vals {
			dst = append(dst, &vals[i])
		}
		if err := rows.Scan(dst...); err != nil {
			t.Fatal(err)
		}
		out[file] = append(out[file], vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

// compareBatch compares the footers of files read in Go with what
// DuckDB's parquet_metadata and parquet_schema read of them.
func compareBatch(t *testing.T, ctx context.Context, db *sql.DB, files []string, feet map[string]*Footer) (seenShredded int) {
	t.Helper()
	// The struct-skip checks' statement.
	groups := byFile(t, ctx, db, `SELECT file_name, any_value(row_group_num_rows) FROM parquet_metadata(%s) GROUP BY file_name, row_group_id ORDER BY file_name, row_group_id`, files)
	schema := byFile(t, ctx, db, `SELECT file_name, coalesce(num_children, 0) = 0, coalesce(duckdb_type, '') FROM parquet_schema(%s)`, files)
	chunks := byFile(t, ctx, db, `SELECT file_name, row_group_id, column_id, type, path_in_schema, num_values, encodings,
		stats_null_count, stats_distinct_count, stats_min, stats_max, stats_min_value, stats_max_value
		FROM parquet_metadata(%s) ORDER BY file_name, row_group_id, column_id`, files)
	// Read's statement before its footers were read in Go.
	cands := byFile(t, ctx, db, `SELECT file_name, row_group_id, column_id, path_in_schema,
			coalesce(stats_min_value, stats_min), coalesce(stats_max_value, stats_max),
			(stats_null_count IS NOT NULL OR stats_distinct_count IS NOT NULL OR coalesce(stats_min_value, stats_min, stats_max_value, stats_max) IS NOT NULL)
				AND coalesce(stats_null_count < num_values, true),
			coalesce(encodings LIKE '%%DELTA_LENGTH_BYTE_ARRAY%%', false)
		FROM parquet_metadata(%s)
		WHERE type = 'BYTE_ARRAY' AND (contains(coalesce(stats_min_value, stats_min, ''), '\x') OR contains(coalesce(stats_max_value, stats_max, ''), '\x')
			OR coalesce(stats_min_value, stats_min) IS NULL OR coalesce(stats_max_value, stats_max) IS NULL
			OR encodings LIKE '%%DELTA_LENGTH_BYTE_ARRAY%%')
		ORDER BY file_name, row_group_id, column_id`, files)
	// The chunks of a VARIANT's shredded values: a typed_value below a
	// group with a metadata chunk.
	shredded := byFile(t, ctx, db, `WITH m AS (SELECT * FROM parquet_metadata(%s))
		SELECT file_name, row_group_id, column_id, path_in_schema FROM m
		WHERE path_in_schema LIKE '%%, typed_value' AND EXISTS (SELECT 1 FROM m r WHERE r.file_name = m.file_name
			AND r.row_group_id = m.row_group_id AND r.path_in_schema LIKE '%%, metadata'
			AND starts_with(m.path_in_schema, r.path_in_schema[:-len('metadata') - 1]))
		ORDER BY file_name, row_group_id, column_id`, files)
	// The schema's leaves as the wide-DECIMAL check reads them.
	leaves := byFile(t, ctx, db, `SELECT file_name, type, coalesce(converted_type = 'DECIMAL', false), precision
		FROM parquet_schema(%s) WHERE coalesce(num_children, 0) = 0`, files)
	text := func(v any, valid bool) sql.NullString {
		if !valid {
			return sql.NullString{}
		}
		return sql.NullString{String: fmt.Sprint(v), Valid: true}
	}
	for _, f := range files {
		foot := feet[f]
		rg, err := RowGroupRows(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, r := range groups[f] {
			n, err := strconv.ParseInt(r[0].String, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, n)
		}
		if !slices.Equal(rg, want) {
			t.Errorf("%s: row groups %v, parquet_metadata %v", f, rg, want)
		}
		var varchar []bool // by column_id
		for _, r := range schema[f] {
			if r[0].String == "true" {
				varchar = append(varchar, r[1].String == "VARCHAR" || r[1].String == "JSON")
			}
		}
		var mine [][]sql.NullString
		for g, rg := range foot.RowGroups {
			for c, cc := range rg.Columns {
				st := cc.Stats
				var encs []string
				for _, e := range cc.Encodings {
					encs = append(encs, encodingName(e))
				}
				row := []sql.NullString{text(g, true), text(c, true), text(physicalTypes[min(max(cc.Type, 0), int32(len(physicalTypes)-1))], true),
					text(cc.PathInSchema(), true), text(cc.NumValues, true), text(strings.Join(encs, ", "), true),
					text(st.NullCount, st.HasNullCount), text(st.DistinctCount, st.HasDistinctCount)}
				for _, b := range []struct {
					v   []byte
					set bool
				}{{st.Min, st.HasMin}, {st.Max, st.HasMax}, {st.MinValue, st.HasMinValue}, {st.MaxValue, st.HasMaxValue}} {
					if c < len(varchar) && varchar[c] {
						row = append(row, text(renderVarchar(b.v), b.set))
					} else {
						// Rendered by the column's type (NULL where that
						// fails), which no footer check reads.
						row = append(row, sql.NullString{String: "-"})
					}
				}
				mine = append(mine, row)
			}
		}
		theirs := chunks[f]
		for _, r := range theirs {
			c, _ := strconv.Atoi(r[1].String)
			if c >= len(varchar) || !varchar[c] {
				for i := 8; i < 12; i++ {
					r[i] = sql.NullString{String: "-"}
				}
			}
		}
		if fmt.Sprint(mine) != fmt.Sprint(theirs) {
			t.Errorf("%s: chunks read in Go\n%v\nparquet_metadata\n%v", f, mine, theirs)
		}
		// Only VARCHAR columns concern a quirk (chunkHits): a BLOB's
		// bounds, which candidates render as a VARCHAR's, render as a blob
		// in the statement.
		var got, wantC, gotShredded [][]sql.NullString
		for _, c := range candidates(foot) {
			if c.shredded {
				gotShredded = append(gotShredded, []sql.NullString{text(c.rowGroup, true), text(c.column, true), text(c.path, true)})
				continue
			}
			if int(c.column) < len(varchar) && varchar[c.column] {
				got = append(got, []sql.NullString{text(c.rowGroup, true), text(c.column, true), text(c.path, true), c.min, c.max, text(c.hasStats, true), text(c.deltaLength, true)})
			}
		}
		for _, r := range cands[f] {
			if c, _ := strconv.Atoi(r[1].String); c < len(varchar) && varchar[c] {
				wantC = append(wantC, r)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(wantC) {
			t.Errorf("%s: candidate chunks read in Go\n%v\nparquet_metadata\n%v", f, got, wantC)
		}
		var gotLeaves [][]sql.NullString
		for _, l := range foot.Leaves {
			gotLeaves = append(gotLeaves, []sql.NullString{text(physicalTypes[min(max(l.Type, 0), int32(len(physicalTypes)-1))], l.HasType),
				text(l.HasConverted && l.ConvertedType == convertedDecimal, true), text(l.Precision, l.HasPrec)})
		}
		if fmt.Sprint(gotLeaves) != fmt.Sprint(leaves[f]) {
			t.Errorf("%s: schema leaves read in Go\n%v\nparquet_schema\n%v", f, gotLeaves, leaves[f])
		}
		if fmt.Sprint(gotShredded) != fmt.Sprint(shredded[f]) {
			t.Errorf("%s: shredded VARIANT chunks read in Go\n%v\nparquet_metadata\n%v", f, gotShredded, shredded[f])
		}
		seenShredded += len(gotShredded)
	}
	return seenShredded
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

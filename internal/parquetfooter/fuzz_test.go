package parquetfooter

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// The fuzz targets below feed the footer checks what a corrupt or hostile
// Parquet file's footer can hold, as DuckDB renders it: statistics bounds,
// the "geo" key-value metadata, and chunks naming any column. None may
// panic. Their seeds run with the ordinary tests; `go test
// ./internal/parquetfooter -run '^$' -fuzz '^FuzzChunkHits$' -fuzztime
// 10m` runs one for longer.

func FuzzRenderedInvalidUTF8(f *testing.F) {
	for _, s := range []string{`\xC3(clair`, `abc\xFF`, `\xC3\xA9clair`, "éclair", "plain", `C:\x`, `\x`, `\xF`, `\xZZ\xC3`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := RenderedInvalidUTF8(s)
		if got && !strings.Contains(s, `\x`) {
			t.Fatalf("%q: taken for invalid without an escape", s)
		}
		if got && !utf8.ValidString(s) {
			t.Fatalf("%q: not valid UTF-8 itself, so not as DuckDB renders a bound", s)
		}
	})
}

func FuzzNullCRSColumns(f *testing.F) {
	for _, s := range []string{
		`{"version":"1.1.0","primary_column":"g","columns":{"g":{"encoding":"WKB","crs":null},"h":{"crs":{"id":1}}}}`,
		`{"columns":{"g":{"crs":  null  }}}`, `{"columns":[]}`, `[1]`, `not json`, `{"columns":{"g":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, geo []byte) {
		cols := NullCRSColumns(geo)
		if !slices.IsSorted(cols) {
			t.Fatalf("NullCRSColumns = %q, not sorted", cols)
		}
	})
}

// FuzzChunkHits: a footer's chunks (any column index, any bounds) over
// the leaf types read from the same footer.
func FuzzChunkHits(f *testing.F) {
	f.Add(int64(0), int64(0), "a", `\xC3(`, true, "b", false, true, true, "VARCHAR", "JSON")
	f.Add(int64(1), int64(1), "j", "x", true, "", false, true, true, "INTEGER", "JSON")
	f.Add(int64(0), int64(-1), "a", "", false, "", false, false, false, "VARCHAR", "")
	f.Add(int64(0), int64(1<<40), "a", "", false, "", false, false, false, "VARCHAR", "")
	f.Fuzz(func(t *testing.T, rowGroup, column int64, path, min string, minValid bool, max string, maxValid, hasStats, deltaLength bool, duck0, duck1 string) {
		types := []leafType{{duck: duck0, json: duck0 == "JSON"}, {duck: duck1, json: strings.EqualFold(duck1, "json")}}
		c := chunk{rowGroup: rowGroup, column: column, path: path, min: sql.NullString{String: min, Valid: minValid},
			max: sql.NullString{String: max, Valid: maxValid}, hasStats: hasStats, deltaLength: deltaLength}
		hits := chunkHits([]chunk{c, c}, types)
		for _, h := range hits {
			if h.Column != path || h.Quirk == "" {
				t.Fatalf("hit %+v for column %q", h, path)
			}
		}
	})
}

// FuzzParseFooter: any bytes as a footer's Thrift (FileMetaData); real
// footers DuckDB writes are the seeds, among them one with VARIANT columns
// shredded at two depths (on DECIMAL(4,2) and BLOB) and one whose
// DECIMAL(18,2) column is patched to precision 20 (footertest.Rewrite),
// each checked to reach the schema and shredding checks they seed.
// parseFooter, candidates and wideDecimalHits must not panic; a footer
// parsed has only row groups, chunks and schema leaves it holds, and a
// wide-DECIMAL hit names a leaf of precision 19 to 38 stored as INT32 or
// INT64.
func FuzzParseFooter(f *testing.F) {
	db := testduck.Open(f, "")
	dir := f.TempDir()
	for i, sel := range []string{
		"SELECT 1 AS id, 'x' AS s",
		"SELECT i AS id, i::VARCHAR AS s, {'a': i, 'b': [i::VARCHAR]} AS n, MAP {i::VARCHAR: i} AS m FROM range(3000) r(i)",
		"SELECT TIMESTAMP_NS '1677-09-21 12:00:00' AS ts, NULL::VARCHAR AS s",
		"SELECT i AS id, (i / 100)::DECIMAL(4,2)::VARIANT AS v, {a: ('\\x01' || i)::BLOB, b: [i]}::VARIANT AS w FROM range(5) r(i)",
		"SELECT i AS id, (i * 1000003 / 100)::DECIMAL(18,2) AS d FROM range(5) r(i)",
	} {
		p := filepath.Join(dir, fmt.Sprintf("%d.parquet", i))
		if _, err := db.Exec(fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 1024)", sel, p)); err != nil {
			f.Fatal(err)
		}
		if strings.Contains(sel, "DECIMAL(18,2)") {
			if _, _, err := footertest.Rewrite(context.Background(), db, p, "", "{id: 1, d: 2}", formats.FooterDecimalWideInInt, "", ""); err != nil {
				f.Fatal(err)
			}
		}
		b, err := footerBytes(p)
		if err != nil {
			f.Fatal(err)
		}
		foot, err := parseFooter(b)
		if err != nil {
			f.Fatalf("%s: %v", sel, err)
		}
		shredded := 0
		for _, c := range candidates(foot) {
			if c.shredded {
				shredded++
			}
		}
		switch {
		case strings.Contains(sel, "VARIANT") && shredded < 2:
			f.Fatalf("%s: %d chunks of shredded VARIANT values, want 2 or more", sel, shredded)
		case strings.Contains(sel, "DECIMAL(18,2)") && len(wideDecimalHits(foot)) != 1:
			f.Fatalf("%s patched to precision 20: wide-DECIMAL hits %v, want 1", sel, wideDecimalHits(foot))
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0x19, 0xfc, 0xff, 0xff, 0xff, 0x0f}) // a list claiming far more elements than bytes
	f.Add(bytes.Repeat([]byte{0x1c}, 200))            // structs nested deeper than maxDepth
	f.Add([]byte{0x29, 0xf5, 0xff, 0xff, 0xff, 0x0f}) // a schema of i32 elements claiming far more than bytes
	// A schema whose leaf is a DECIMAL of precision 20 in INT64 without
	// a name (required): refused, not read.
	f.Add([]byte{0x29, 0x1c, 0x15, 0x04, 0x55, 0x0a, 0x25, 0x28, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		foot, err := parseFooter(b)
		if err != nil {
			return
		}
		chunks := 0
		for _, g := range foot.RowGroups {
			chunks += len(g.Columns)
		}
		if chunks > len(b) {
			t.Fatalf("%d chunks from %d bytes", chunks, len(b))
		}
		if len(foot.Leaves) > len(b) {
			t.Fatalf("%d schema leaves from %d bytes", len(foot.Leaves), len(b))
		}
		candidates(foot)
		for _, h := range wideDecimalHits(foot) {
			if h.Quirk != formats.FooterDecimalWideInInt || !strings.Contains(h.Detail, "precision") {
				t.Fatalf("wide-DECIMAL hit %+v", h)
			}
		}
		for _, l := range foot.Leaves {
			if l.HasPrec && (l.Precision <= 18 || l.Precision > 38) && len(wideDecimalHits(&Footer{Leaves: []SchemaLeaf{l}})) > 0 {
				t.Fatalf("leaf %+v taken for a wide DECIMAL", l)
			}
		}
	})
}

package parquetfooter_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestReadFindsFooterQuirks writes one real Parquet file per footer quirk
// (and clean ones) with DuckDB and reads their footers in one batch.
func TestReadFindsFooterQuirks(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	write := func(name, sel, opts string) string {
		p := filepath.Join(dir, name)
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet%s)", sel, p, opts)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const words = "SELECT * FROM (VALUES (1, 'éclair'), (2, 'zèbre'), (3, 'apple')) v(id, s)"
	const jsons = "SELECT i AS id, json_object('a', i) AS j FROM range(5000) r(i)"
	cases := []struct {
		name  string
		file  func() string
		quirk string
		col   string
	}{
		{"clean strings", func() string { return write("clean.parquet", words, "") }, "", ""},
		{"blob bounds with high bytes", func() string {
			return write("blob.parquet", "SELECT '\\xC3\\x28'::BLOB AS b", "")
		}, "", ""},
		{"invalid UTF-8 max", func() string {
			p := write("utf.parquet", words, "")
			if _, _, err := footertest.Rewrite(ctx, db, p, "", "{id: 1, s: 2}", formats.FooterStringStatsInvalidUTF8, "éclair", "\xC3(clair"); err != nil {
				t.Fatal(err)
			}
			return p
		}, formats.FooterStringStatsInvalidUTF8, "s"},
		{"long non-ASCII string without bounds", func() string {
			return write("cjk.parquet", "SELECT * FROM (VALUES (1, repeat('日本語', 100)), (2, 'apple')) v(id, s)", "")
		}, formats.FooterStringStatsMissingBound, "s"},
		{"JSON V2 without dictionary", func() string {
			return write("json.parquet", jsons, ", PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 1")
		}, formats.FooterJSONDeltaLength, "j"},
		{"all-NULL strings", func() string {
			return write("nulls.parquet", "SELECT i AS id, NULL::VARCHAR AS s FROM range(3) r(i)", "")
		}, "", ""},
		{"JSON V1", func() string { return write("json1.parquet", jsons, "") }, "", ""},
		{"GeoParquet crs null", func() string {
			return write("geo.parquet", words, ", KV_METADATA {geo: '"+footertest.GeoCRSNull+"'}")
		}, formats.FooterGeoCRSNull, "g"},
		{"VARIANT shredded on DECIMAL(4,2)", func() string {
			return write("variant4.parquet", "SELECT i AS id, (i / 100)::DECIMAL(4,2)::VARIANT AS v FROM range(5) r(i)", "")
		}, formats.FooterVariantDecimal2, "v, typed_value"},
		{"VARIANT object with a field shredded on DECIMAL(3,1)", func() string {
			return write("variant3.parquet", "SELECT i AS id, {a: (i / 10)::DECIMAL(3,1), b: 'x'}::VARIANT AS v FROM range(5) r(i)", "")
		}, formats.FooterVariantDecimal2, "v, typed_value, a, typed_value"},
		{"VARIANT shredded on DECIMAL(9,2)", func() string {
			return write("variant9.parquet", "SELECT i AS id, (i / 100)::DECIMAL(9,2)::VARIANT AS v FROM range(5) r(i)", "")
		}, "", ""},
		{"VARIANT shredded on BLOB", func() string {
			return write("variantblob.parquet", "SELECT i AS id, ('\\x00\\xFF' || i)::BLOB::VARIANT AS v FROM range(5) r(i)", "")
		}, formats.FooterVariantBlobBase64, "v, typed_value"},
		{"VARIANT object with a BLOB field", func() string {
			return write("variantobjblob.parquet", "SELECT i AS id, {a: ('\\x01' || i)::BLOB, b: i}::VARIANT AS v FROM range(5) r(i)", "")
		}, formats.FooterVariantBlobBase64, "v, typed_value, a, typed_value"},
		{"VARIANT of strings", func() string {
			return write("variantstr.parquet", "SELECT i AS id, ('s' || i)::VARIANT AS v FROM range(5) r(i)", "")
		}, "", ""},
		{"struct of DECIMAL(4,2) named typed_value, no metadata", func() string {
			return write("struct4.parquet", "SELECT i AS id, {value: 'x'::BLOB, typed_value: (i / 100)::DECIMAL(4,2)} AS v FROM range(5) r(i)", "")
		}, "", ""},
		{"DECIMAL(20,2) stored as INT64", func() string {
			p := write("dec20.parquet", "SELECT i AS id, (i * 1000003 / 100)::DECIMAL(18,2) AS d FROM range(5) r(i)", "")
			if _, _, err := footertest.Rewrite(ctx, db, p, "", "{id: 1, d: 2}", formats.FooterDecimalWideInInt, "", ""); err != nil {
				t.Fatal(err)
			}
			return p
		}, formats.FooterDecimalWideInInt, "d"},
		{"DECIMAL(4,2) stored as BYTE_ARRAY with a zero-length zero", func() string {
			p := write("decba.parquet", "SELECT i AS id, CASE WHEN i = 0 THEN ''::BLOB ELSE unhex(printf('%04X', i * 100)) END AS d FROM range(5) r(i)", "")
			if _, _, err := footertest.Rewrite(ctx, db, p, "", "{id: 1, d: 2}", formats.FooterDecimalByteArray, "d", "4,2"); err != nil {
				t.Fatal(err)
			}
			var zeros int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FILTER (WHERE d = 0) FROM read_parquet('"+p+"') WHERE typeof(d) = 'DECIMAL(4,2)'").Scan(&zeros); err != nil || zeros != 1 {
				t.Fatalf("the rewritten file reads %d zeros (%v), want 1 DECIMAL(4,2) zero", zeros, err)
			}
			return p
		}, formats.FooterDecimalByteArray, "d"},
		{"DECIMAL(20,2) stored as FIXED_LEN_BYTE_ARRAY of length 0", func() string {
			p := write("decfl0.parquet", "SELECT i AS id, (i - 2)::DECIMAL(20,2) AS d FROM range(5) r(i)", "")
			if _, _, err := footertest.Rewrite(ctx, db, p, "", "{id: 1, d: 2}", formats.FooterDecimalByteArray, "d", "0"); err != nil {
				t.Fatal(err)
			}
			return p
		}, formats.FooterDecimalByteArray, "d"},
		{"UUID as FIXED_LEN_BYTE_ARRAY listing DELTA_BYTE_ARRAY", func() string {
			p := write("uuiddelta.parquet", "SELECT i AS id, uuid() AS u FROM range(5) r(i)", "")
			if _, _, err := footertest.Rewrite(ctx, db, p, "", "{id: 1, u: 2}", formats.FooterDeltaByteArray, "u", ""); err != nil {
				t.Fatal(err)
			}
			return p
		}, formats.FooterDeltaByteArray, "u"},
		{"DECIMAL(18,2) as INT64, DECIMAL(38,2) as FIXED_LEN_BYTE_ARRAY", func() string {
			return write("dec18.parquet", "SELECT i AS id, (i / 100)::DECIMAL(18,2) AS d, (i / 100)::DECIMAL(38,2) AS w FROM range(5) r(i)", "")
		}, "", ""},
		{"GeoParquet crs object", func() string {
			return write("geo2.parquet", words, `, KV_METADATA {geo: '{"version":"1.0.0","columns":{"g":{"encoding":"WKB","geometry_types":[],"crs":{"id":{"authority":"EPSG","code":4326}}}}}'}`)
		}, "", ""},
	}
	var files []string
	for _, c := range cases {
		files = append(files, c.file())
	}
	files = append(files, filepath.Join(dir, "missing.parquet"))
	got, err := parquetfooter.Read(ctx, db, files)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got[files[len(files)-1]]; ok {
		t.Errorf("a missing file is answered")
	}
	for i, c := range cases {
		hits, ok := got[files[i]]
		if !ok {
			t.Errorf("%s: not read", c.name)
			continue
		}
		var names []string
		for _, h := range hits {
			names = append(names, h.Quirk+" "+h.Column)
		}
		var want []string
		if c.quirk != "" {
			want = []string{c.quirk + " " + c.col}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: hits %v (%+v), want %v", c.name, names, hits, want)
		}
	}
}

func TestRenderedInvalidUTF8(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{`\xC3(clair`, true},
		{`abc\xFF`, true},
		{`\xC3\xA9clair`, false}, // valid UTF-8 spelled as escapes
		{"éclair", false},
		{`plain`, false},
		{`C:\x`, false},
	} {
		if got := parquetfooter.RenderedInvalidUTF8(c.s); got != c.want {
			t.Errorf("%q: %t, want %t", c.s, got, c.want)
		}
	}
}

// TestReadEarlyTimestampNS: files whose TIMESTAMP_NS column has a bound
// before 1677-09-22, which DuckDB 1.5.6's parquet_metadata cannot render
// ("Date out of range in timestamp_ns conversion"), are read: one with an
// invalid UTF-8 bound of its VARCHAR column is found, one without answers
// no hit, and their row groups are read. Before, Read read the chunks
// with parquet_metadata and left such a file out of its answer, as if it
// could not be read, so its quirks went unreported.
func TestReadEarlyTimestampNS(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	dir := t.TempDir()
	const rows = `SELECT i AS id, CASE WHEN i = 1 THEN TIMESTAMP_NS '1677-09-21 12:00:00' ELSE make_timestamp_ns(946684800000000000 + i) END AS ts,
		CASE i WHEN 1 THEN 'éclair' WHEN 2 THEN 'zèbre' ELSE 'apple' END AS s FROM range(5000) r(i)`
	var files []string
	for _, name := range []string{"utf.parquet", "clean.parquet"} {
		p := filepath.Join(dir, name)
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (%s) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 2048)", rows, p)); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if _, _, err := footertest.Rewrite(ctx, db, files[0], "", "{id: 1, ts: 2, s: 3}", formats.FooterStringStatsInvalidUTF8, "éclair", "\xC3(clair"); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM parquet_metadata('%s')", files[1])).Scan(&n); err != nil {
		t.Logf("DuckDB's parquet_metadata fails on the file: %v", err)
	}
	got, err := parquetfooter.Read(ctx, db, files)
	if err != nil {
		t.Fatal(err)
	}
	if hits, ok := got[files[0]]; !ok || len(hits) != 1 || hits[0].Quirk != formats.FooterStringStatsInvalidUTF8 || hits[0].Column != "s" {
		t.Errorf("%s: answered %t, hits %+v; want %s on column s", files[0], ok, hits, formats.FooterStringStatsInvalidUTF8)
	}
	if hits, ok := got[files[1]]; !ok || len(hits) != 0 {
		t.Errorf("%s: answered %t, hits %+v; want answered, no hit", files[1], ok, hits)
	}
	for i, want := range [][]int64{{5000}, {2048, 2048, 904}} { // Rewrite writes one row group
		if groups, err := parquetfooter.RowGroupRows(ctx, files[i]); err != nil || !slices.Equal(groups, want) {
			t.Errorf("%s: row groups %v (%v), want %v", files[i], groups, err, want)
		}
	}
}

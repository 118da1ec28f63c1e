package formats_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// readParquet is the statement that reads a Parquet file whole as it is
// (no Hive columns from its folders).
func readParquet(path string) string {
	return "SELECT * FROM read_parquet(" + sqlLit(path) + ", hive_partitioning = false)"
}

// readParquetValues is a readParquet statement (read) with the top-level columns whose text
// differs between releases for equal values read as values: a BLOB as
// hex (DuckDB 2.0 quotes it inside a row's text, 1.5.6 does not) and a
// TIMESTAMP_NS as epoch_ns (DuckDB 1.3.0 prints the fraction of
// 2200-01-01 00:00:00.000000001 as '.\0\0\0\0\0\0001'). types are the
// file's columns and types as DuckDB 1.5.6 describes them.
func readParquetValues(read string, cols, types []string) string {
	return "SELECT " + strings.Join(valueColumns(cols, types), ", ") + strings.TrimPrefix(read, "SELECT *")
}

// valueColumns are the select list of readParquetValues: each column
// quoted, a BLOB as hex and a TIMESTAMP_NS as epoch_ns.
func valueColumns(cols, types []string) []string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		q := sqlIdent(c)
		switch types[i] {
		case "BLOB":
			sel[i] = "hex(" + q + ") AS " + q
		case "TIMESTAMP_NS":
			sel[i] = "epoch_ns(" + q + ") AS " + q
		default:
			sel[i] = q
		}
	}
	return sel
}

func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func sqlLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readings runs the statements with the linked DuckDB and with every
// release of realduckdb.Releases (a probe each, built once; a probe that
// cannot be built fails the test), and returns the linked reading and
// each release's.
func readings(t *testing.T, ctx context.Context, db *sql.DB, stmts []string) (*realduckdb.Report, map[string]*realduckdb.Report) {
	t.Helper()
	ref, err := realduckdb.ReadQueriesLinked(ctx, db, stmts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*realduckdb.Report{}
	for _, rel := range realduckdb.Releases {
		bin, err := realduckdb.Build(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := realduckdb.ReadQueries(ctx, bin, stmts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.DuckDB != rel.DuckDB {
			t.Fatalf("the DuckDB %s probe runs DuckDB %s", rel.DuckDB, rep.DuckDB)
		}
		out[rel.DuckDB] = rep
	}
	return ref, out
}

// sameRows reports whether a release's reading of a statement is the
// linked DuckDB's.
func sameRows(got, want realduckdb.Query) bool {
	return got.Error == "" && want.Error == "" && got.Rows == want.Rows && got.Digest == want.Digest
}

// conformanceParquetFiles lists the data and delete files of every lake of
// the conformance set (the Parquet files below a lake's data folder), one
// path per distinct content, sorted.
func conformanceParquetFiles(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, a := range testlakes.Archives {
		root := testlakes.Dir(t, a)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			if parts := strings.Split(filepath.ToSlash(rel), "/"); len(parts) < 3 || parts[1] != "data" {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			if k := hex.EncodeToString(sum[:]); !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// conformanceRead is one conformance data or delete file as the sweeps
// read it: Read, the readParquet statement (with the file's key when it is
// encrypted), and its columns and types as DuckDB 1.5.6 describes them.
type conformanceRead struct {
	Path, Read  string
	Cols, Types []string
}

// conformanceReads describes every file of conformanceParquetFiles with
// the linked DuckDB. Encrypted files (magic PARE) are read with the key
// their lake's catalogs hold (footer_key_value, as DuckLake reads them);
// one no catalog names has no key and is left out, counted (keyless). It
// fails the test unless hundreds of files, some encrypted, are read.
func conformanceReads(t *testing.T, ctx context.Context, db *sql.DB) (reads []conformanceRead, encrypted, keyless int) {
	t.Helper()
	keys := map[string]string{}   // an encrypted file's name: its key, from its lake's catalogs
	keysRead := map[string]bool{} // the lakes whose keys are in keys
	for _, f := range conformanceParquetFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		read := readParquet(f)
		if len(b) >= 4 && string(b[len(b)-4:]) == "PARE" {
			lakeKeys(t, ctx, db, f, keys, keysRead)
			key, ok := keys[filepath.Base(f)]
			if !ok {
				// A file no catalog names (a delete file a later one
				// replaced): its key went with its row.
				keyless++
				continue
			}
			encrypted++
			read = strings.TrimSuffix(read, ")") + ", encryption_config = {footer_key_value: from_base64(" + sqlLit(key) + ")})"
		}
		rows, err := db.QueryContext(ctx, "DESCRIBE "+read)
		if err != nil {
			t.Fatalf("%s: DuckDB 1.5.6: %v", f, err)
		}
		r := conformanceRead{Path: f, Read: read}
		for rows.Next() {
			var name, typ string
			var null, key, def, extra sql.NullString
			if err := rows.Scan(&name, &typ, &null, &key, &def, &extra); err != nil {
				t.Fatal(err)
			}
			r.Cols, r.Types = append(r.Cols, name), append(r.Types, typ)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: DuckDB 1.5.6: %v", f, err)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		reads = append(reads, r)
	}
	if len(reads) < 500 || encrypted == 0 {
		t.Fatalf("%d conformance data and delete files read (%d encrypted), want hundreds and some encrypted", len(reads), encrypted)
	}
	return reads, encrypted, keyless
}

// newerTypes are the column types DuckDB 1.5.6 reads a Parquet file's
// columns as that older releases do not have: they read the same values as
// another type (GEOMETRY as its WKB BLOB; VARIANT, Parquet's variant
// group, as a STRUCT of its metadata and value BLOBs), so their text
// differs. No Parquet reader bug, nothing to model: a release before
// Since may read a file with such a column otherwise than 1.5.6, and
// TestRealReleasesReadConformanceParquet requires each entry to explain at
// least one difference (a stale entry fails).
// NoFormat says no format those releases open has such a column (checked
// against the registry).
var newerTypes = []struct {
	Type, Since string
	NoFormat    bool
	Why         string
}{
	{"GEOMETRY", "1.5.0", false, "core GEOMETRY type first in DuckDB 1.5.0; before, read_parquet reads the WKB as BLOB (the spatial extension, which DuckLake 0.3 needs for a geometry column, is not loaded by the probes)"},
	{"VARIANT", "1.5.0", true, "VARIANT first in DuckDB 1.5.0; before, the variant group reads as a STRUCT of BLOBs"},
}

// TestRealReleasesReadConformanceParquet reads every data and delete file
// of the conformance lakes whole with each real release: each reads the
// rows DuckDB 1.5.6 reads, except where a footer quirk the file triggers
// (parquetfooter) names the release (it must fail or misread there), and
// the files with a column of a type the release does not have
// (newerTypes). Encrypted files (magic PARE) are read with the key their
// lake's catalogs hold (footer_key_value, as DuckLake reads them); one no
// catalog names has no key and is left out, counted.
func TestRealReleasesReadConformanceParquet(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	reads, encrypted, keyless := conformanceReads(t, ctx, db)
	var plain, stmts []string
	fileTypes := map[string][]string{}
	for _, r := range reads {
		plain, stmts, fileTypes[r.Path] = append(plain, r.Path), append(stmts, readParquetValues(r.Read, r.Cols, r.Types)), r.Types
	}
	t.Logf("%d distinct data and delete files (%d encrypted) read by %d releases and 1.5.6; %d encrypted files no catalog names left out", len(plain), encrypted, len(realduckdb.Releases), keyless)
	hits, err := parquetfooter.Read(ctx, db, plain) // encrypted files are left out of its answer
	if err != nil {
		t.Fatal(err)
	}
	ref, got := readings(t, ctx, db, stmts)
	explained := make([]int, len(newerTypes))
	for i, f := range plain {
		want := ref.Queries[i]
		if want.Error != "" {
			t.Errorf("%s: DuckDB 1.5.6: %s", f, want.Error)
			continue
		}
		var quirks []string
		for _, h := range hits[f] {
			quirks = append(quirks, h.Quirk)
		}
		for _, rel := range realduckdb.Releases {
			g := got[rel.DuckDB].Queries[i]
			affected := false
			for _, name := range quirks {
				q, _ := formats.FooterQuirkNamed(name)
				affected = affected || slices.Contains(q.Releases, rel.DuckDB)
			}
			same := sameRows(g, want)
			if !affected && !same {
				newer := false
				for k, nt := range newerTypes {
					if olderThan(rel.DuckDB, nt.Since) && slices.ContainsFunc(fileTypes[f], func(typ string) bool { return strings.Contains(typ, nt.Type) }) {
						newer = true
						explained[k]++
					}
				}
				if newer {
					continue
				}
			}
			switch {
			case affected && same:
				t.Errorf("%s: DuckDB %s reads the rows 1.5.6 reads; the model says %v fails or misreads there", f, rel.DuckDB, quirks)
			case !affected && !same:
				t.Errorf("%s: DuckDB %s: %s rows, digest %s, error %q; DuckDB 1.5.6: %s rows, digest %s", f, rel.DuckDB, g.Rows, g.Digest, g.Error, want.Rows, want.Digest)
			}
		}
	}
	for k, nt := range newerTypes {
		if explained[k] == 0 {
			t.Errorf("newerTypes %s (before DuckDB %s) explains no difference: remove it", nt.Type, nt.Since)
		}
		for _, rel := range realduckdb.Releases {
			for _, v := range formats.All {
				if nt.NoFormat && olderThan(rel.DuckDB, nt.Since) && v.Opens(rel.DuckDB) && v.SupportsType(strings.ToLower(nt.Type)) {
					t.Errorf("newerTypes %s: format %s, which DuckDB %s opens, has the type", nt.Type, v.Name, rel.DuckDB)
				}
			}
		}
	}
}

// olderThan reports whether release a is older than release b ("1.4.3" <
// "1.5.0").
func olderThan(a, b string) bool {
	va, err1 := goversion.NewVersion(a)
	vb, err2 := goversion.NewVersion(b)
	return err1 == nil && err2 == nil && va.LessThan(vb)
}

// TestRealReleasesFooterQuirks holds formats.FooterQuirks to the real
// releases: for each quirk a Parquet file that triggers it
// (footertest.Rewrite, or DuckDB's own writer), which parquetfooter must
// flag, is read whole (and, for a quirk that skips row groups, under a
// filter on the column) by each release of realduckdb.Releases. A release
// the quirk names (FooterQuirk.Releases) fails with its Error, or, when it
// has none, reads other rows than 1.5.6; every other release reads 1.5.6's
// rows, but one that reads a column of the file as another type
// (newerTypes: VARIANT before DuckDB 1.5.0). A quirk none of whose
// releases is run here is still held to the others reading the file right.
func TestRealReleasesFooterQuirks(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	// Each case: the rows written, then footertest.Rewrite's arguments
	// (fieldIDs "": the file as DuckDB writes it), and a filter on the
	// column for a quirk that skips row groups under one; newer names the
	// newerTypes entry of a column type that releases before its Since
	// read as another type (their rows are not held to 1.5.6's); read, when
	// set, is the select list the file is read with instead of * (DuckDB
	// 2.0 prints a BLOB inside a VARIANT otherwise than 1.5.6: its type
	// and bytes are read instead).
	cases := []struct {
		quirk, rows, fieldIDs, sel, from, to, filter, newer, read string
	}{
		{formats.FooterStringStatsInvalidUTF8, "SELECT * FROM (VALUES (1, 'éclair'), (2, 'zèbre'), (3, 'apple')) v(id, s)", "{id: 1, s: 2}", "", "éclair", "\xC3(clair", "", "", ""},
		{formats.FooterStringStatsMissingBound, "SELECT * FROM (VALUES (1, repeat('日本語', 100)), (2, 'apple')) v(id, s)", "", "", "", "", "s = repeat('日本語', 100)", "", ""},
		{formats.FooterJSONDeltaLength, "SELECT i::INTEGER AS id, json_object('a', i) AS s FROM range(3000) r(i)", "{id: 1, s: 2}", "id, s::JSON AS s", "", "", "", "", ""},
		{formats.FooterGeoCRSNull, "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(id, s)", "{id: 1, s: 2}", "", "", "", "", "", ""},
		{formats.FooterDecimalWideInInt, "SELECT i::INTEGER AS id, (i * 1000003 / 100)::DECIMAL(18,2) AS d FROM range(3000) r(i)", "{id: 1, d: 2}", "", "", "", "", "", ""},
		{formats.FooterDecimalByteArray, "SELECT i::INTEGER AS id, " + footertest.ByteArrayDecimalSQL("i", "(i * 100)::INTEGER") + " AS d FROM range(5) r(i)", "{id: 1, d: 2}", "", "d", "4,2", "", "", ""},
		{formats.FooterDecimalByteArray, "SELECT i::INTEGER AS id, (i * 100 - 200)::DECIMAL(20,2) AS d FROM range(5) r(i)", "{id: 1, d: 2}", "", "d", "0", "", "", ""},
		{formats.FooterVariantDecimal2, "SELECT i::INTEGER AS id, (i % 999 / 100)::DECIMAL(4,2)::VARIANT AS v FROM range(3000) r(i)", "", "", "", "", "", "VARIANT", ""},
		{formats.FooterVariantBlobBase64, "SELECT i::INTEGER AS id, ('\\x00\\xFF' || i)::BLOB::VARIANT AS v FROM range(3000) r(i)", "", "", "", "", "", "VARIANT",
			"id, variant_typeof(v) AS ty, hex(v::BLOB) AS h"},
		{formats.FooterVariantBlobBase64, "SELECT i::INTEGER AS id, {a: ('\\x01' || i)::BLOB, b: i}::VARIANT AS v FROM range(3000) r(i)", "", "", "", "", "", "VARIANT",
			"id, variant_typeof(variant_extract(v, 'a')) AS ty, hex(variant_extract(v, 'a')::BLOB) AS h"},
	}
	var stmts []string
	var stmtQuirk, stmtNewer []string
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("q%d.parquet", i))
		if _, err := db.ExecContext(ctx, "COPY ("+c.rows+") TO "+sqlLit(path)+" (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
		if c.fieldIDs != "" {
			if _, _, err := footertest.Rewrite(ctx, db, path, c.sel, c.fieldIDs, c.quirk, c.from, c.to); err != nil {
				t.Fatal(err)
			}
		}
		hits, err := parquetfooter.Read(ctx, db, []string{path})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(hits[path], func(h parquetfooter.Hit) bool { return h.Quirk == c.quirk }) {
			t.Fatalf("%s: the footer model flags %v, want %s", path, hits[path], c.quirk)
		}
		read := readParquet(path)
		if c.read != "" {
			read = "SELECT " + c.read + strings.TrimPrefix(read, "SELECT *")
		}
		stmts, stmtQuirk, stmtNewer = append(stmts, read), append(stmtQuirk, c.quirk), append(stmtNewer, c.newer)
		if c.filter != "" {
			stmts, stmtQuirk, stmtNewer = append(stmts, readParquet(path)+" WHERE "+c.filter), append(stmtQuirk, c.quirk), append(stmtNewer, c.newer)
		}
	}
	ref, got := readings(t, ctx, db, stmts)
	for i, s := range stmts {
		q, ok := formats.FooterQuirkNamed(stmtQuirk[i])
		if !ok {
			t.Fatalf("no footer quirk %s", stmtQuirk[i])
		}
		want := ref.Queries[i]
		if want.Error != "" || want.Rows == "0" {
			t.Errorf("%s: %s: DuckDB 1.5.6 reads %s rows, error %q", q.Name, s, want.Rows, want.Error)
			continue
		}
		since := ""
		for _, nt := range newerTypes {
			if nt.Type == stmtNewer[i] {
				since = nt.Since
			}
		}
		if stmtNewer[i] != "" && since == "" {
			t.Fatalf("no newerTypes entry %s", stmtNewer[i])
		}
		var run []string
		for _, rel := range realduckdb.Releases {
			g := got[rel.DuckDB].Queries[i]
			affected := slices.Contains(q.Releases, rel.DuckDB)
			switch {
			case !affected && since != "" && olderThan(rel.DuckDB, since):
				// Reads the column as another type.
			case affected && q.Error != "" && !strings.HasPrefix(g.Error, q.Error):
				t.Errorf("%s: %s: DuckDB %s: %s rows, error %q; the model says it fails with %q", q.Name, s, rel.DuckDB, g.Rows, g.Error, q.Error)
			case affected && q.Error == "" && sameRows(g, want):
				t.Errorf("%s: %s: DuckDB %s reads the rows 1.5.6 reads; the model says it misses rows", q.Name, s, rel.DuckDB)
			case !affected && !sameRows(g, want):
				t.Errorf("%s: %s: DuckDB %s: %s rows, digest %s, error %q; DuckDB 1.5.6: %s rows, digest %s (the model says it reads them)", q.Name, s, rel.DuckDB, g.Rows, g.Digest, g.Error, want.Rows, want.Digest)
			}
			if affected {
				run = append(run, rel.DuckDB)
			}
		}
		t.Logf("%s: affected releases run %v of %v", q.Name, run, q.Releases)
	}
}

// TestRealReleasesStructSkip holds QuirkStructNullsAfterSkippedVector to
// the real releases: a file of 8192 rows (one row group) of t(id, col) is
// read with a filter that leaves out the positions skipped (the same skip
// path as a deletion filter). Where the model (SkippedVectorReads over the
// footer's row groups, StructSkipColumns over its schema, StructSkipSQL
// over its rows) flags the file, the releases whose reader has the quirk
// (their quirk set in the registry) read other rows than 1.5.6 and the
// others read 1.5.6's; where it does not, every release reads 1.5.6's.
func TestRealReleasesStructSkip(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	const rows = 8192
	cases := []struct {
		name, col string   // col: the column's value for row i
		skip      [2]int64 // the positions [lo, hi) the filter leaves out
		keep      int64    // a position in skip the filter keeps (-1: none)
		flagged   bool     // what the model says, checked too
	}{
		{"NULL structs skipped", "CASE WHEN i >= 2048 AND i < 4096 THEN NULL ELSE {a: 'hello', b: 42.0} END", [2]int64{2048, 4096}, -1, true},
		{"NULL inner struct skipped", "CASE WHEN i >= 2048 AND i < 4096 THEN {a: NULL, b: 1.0} ELSE {a: {x: 'hello'}, b: 42.0} END", [2]int64{2048, 4096}, -1, true},
		{"vector partly kept", "CASE WHEN i >= 2048 AND i < 4096 THEN NULL ELSE {a: 'hello', b: 42.0} END", [2]int64{2048, 4096}, 3000, false},
		{"skipped vector at the row group's end", "CASE WHEN i >= 6144 THEN NULL ELSE {a: 'hello', b: 42.0} END", [2]int64{6144, 8192}, -1, false},
		{"non-NULL structs skipped", "CASE WHEN i >= 2048 AND i < 4096 THEN {a: 'gone', b: 1.0} ELSE {a: 'hello', b: 42.0} END", [2]int64{2048, 4096}, -1, false},
		{"NULL fields of a non-NULL struct", "CASE WHEN i >= 2048 AND i < 4096 THEN {a: NULL, b: NULL} ELSE {a: 'hello', b: 42.0} END", [2]int64{2048, 4096}, -1, false},
		{"list of structs", "CASE WHEN i >= 2048 AND i < 4096 THEN [NULL] ELSE [{a: 'hello', b: 42.0}] END", [2]int64{2048, 4096}, -1, false},
	}
	dir := t.TempDir()
	var stmts []string
	for k, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("skip%d.parquet", k))
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT i AS id, %s AS col FROM range(%d) r(i)) TO %s (FORMAT parquet)", c.col, rows, sqlLit(path))); err != nil {
			t.Fatal(err)
		}
		var deleted []int64
		for p := c.skip[0]; p < c.skip[1]; p++ {
			if p != c.keep {
				deleted = append(deleted, p)
			}
		}
		if got := structSkipFlagged(t, ctx, db, path, deleted, rows); got != c.flagged {
			t.Fatalf("%s: the model flags %v, want %v", c.name, got, c.flagged)
		}
		filter := fmt.Sprintf("id NOT BETWEEN %d AND %d", c.skip[0], c.skip[1]-1)
		if c.keep >= 0 {
			filter = fmt.Sprintf("(%s OR id = %d)", filter, c.keep)
		}
		stmts = append(stmts, readParquet(path)+" WHERE "+filter)
	}
	ref, got := readings(t, ctx, db, stmts)
	for k, c := range cases {
		want := ref.Queries[k]
		if want.Error != "" {
			t.Fatalf("%s: DuckDB 1.5.6: %s", c.name, want.Error)
		}
		for _, rel := range realduckdb.Releases {
			quirks, ok := formats.ReleaseReaderQuirks[rel.DuckDB]
			if !ok {
				t.Fatalf("formats.ReleaseReaderQuirks has no DuckDB %s", rel.DuckDB)
			}
			misreads := c.flagged && quirks&formats.QuirkStructNullsAfterSkippedVector != 0
			g := got[rel.DuckDB].Queries[k]
			switch same := sameRows(g, want); {
			case misreads && (same || g.Error != "" || g.Rows != want.Rows):
				t.Errorf("%s: DuckDB %s: %s rows, digest %s, error %q; the model says it misreads 1.5.6's %s rows (digest %s)", c.name, rel.DuckDB, g.Rows, g.Digest, g.Error, want.Rows, want.Digest)
			case !misreads && !same:
				t.Errorf("%s: DuckDB %s: %s rows, digest %s, error %q; DuckDB 1.5.6: %s rows, digest %s (the model says it reads them)", c.name, rel.DuckDB, g.Rows, g.Digest, g.Error, want.Rows, want.Digest)
			}
		}
	}
}

// structSkipFlagged applies the model of QuirkStructNullsAfterSkippedVector
// to a file with the deleted positions, as compare and convert do.
func structSkipFlagged(t *testing.T, ctx context.Context, db *sql.DB, path string, deleted []int64, records int64) bool {
	t.Helper()
	var groups []int64
	rows, err := db.QueryContext(ctx, "SELECT any_value(row_group_num_rows) FROM parquet_metadata("+sqlLit(path)+") GROUP BY row_group_id ORDER BY row_group_id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		groups = append(groups, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	var schema []formats.ParquetSchemaRow
	rows, err = db.QueryContext(ctx, "SELECT name, coalesce(num_children, 0), coalesce(repetition_type, ''), concat_ws(' ', converted_type, logical_type::VARCHAR) FROM parquet_schema("+sqlLit(path)+")")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r formats.ParquetSchemaRow
		if err := rows.Scan(&r.Name, &r.Children, &r.Repetition, &r.Annotation); err != nil {
			t.Fatal(err)
		}
		schema = append(schema, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	cols, err := formats.StructSkipColumns(schema)
	if err != nil {
		t.Fatal(err)
	}
	windows := formats.SkippedVectorReads(groups, deleted, records)
	if len(cols) == 0 || len(windows) == 0 {
		return false
	}
	rows, err = db.QueryContext(ctx, formats.StructSkipSQL("read_parquet("+sqlLit(path)+", file_row_number = true)", cols, windows))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	flagged := false
	for rows.Next() {
		vals := make([]any, 1+len(cols))
		var idx int64
		bs := make([]bool, len(cols))
		vals[0] = &idx
		for j := range bs {
			vals[1+j] = &bs[j]
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		flagged = flagged || slices.Contains(bs, true)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return flagged
}

// lakeKeys adds to keys the encryption keys (base64, as DuckLake stores
// them) of the data and delete files the catalogs of the lake that holds
// path name, by file name, once per lake (read): the lake is the folder
// above path's data folder, its catalogs versions/*/ducklake.duckdb.
func lakeKeys(t *testing.T, ctx context.Context, db *sql.DB, path string, keys map[string]string, read map[string]bool) {
	t.Helper()
	lake := path
	for filepath.Base(lake) != "data" {
		if lake = filepath.Dir(lake); lake == "/" || lake == "." {
			t.Fatalf("%s: in no data folder", path)
		}
	}
	if read[lake] {
		return
	}
	read[lake] = true
	catalogs, err := filepath.Glob(filepath.Join(filepath.Dir(lake), "versions", "*", "ducklake.duckdb"))
	if err != nil || len(catalogs) == 0 {
		t.Fatalf("%s: no catalog of its lake (%v)", path, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range catalogs {
		if _, err := conn.ExecContext(ctx, "ATTACH "+sqlLit(c)+" AS keys_cat (READ_ONLY)"); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		rows, err := conn.QueryContext(ctx, `SELECT path, encryption_key FROM keys_cat.ducklake_data_file WHERE encryption_key IS NOT NULL
			UNION ALL SELECT path, encryption_key FROM keys_cat.ducklake_delete_file WHERE encryption_key IS NOT NULL`)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		for rows.Next() {
			var p, k string
			if err := rows.Scan(&p, &k); err != nil {
				t.Fatal(err)
			}
			keys[filepath.Base(p)] = k
		}
		// A key lost to a read error would leave its file unread, counted
		// keyless, not fail.
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		rows.Close()
		if _, err := conn.ExecContext(ctx, "DETACH keys_cat"); err != nil {
			t.Fatal(err)
		}
	}
}

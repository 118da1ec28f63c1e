package formats_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/realduckdb"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// filterTypes are the column types a filtered read of the sweep filters
// on: the primitive types whose Parquet statistics a reader may prune row
// groups by (DECIMAL(p,s) by its prefix). INTERVAL, JSON and the nested and
// newer types are not filtered on.
var filterTypes = []string{
	"BOOLEAN", "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
	"UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT",
	"FLOAT", "DOUBLE", "DECIMAL(", "VARCHAR", "BLOB", "UUID",
	"DATE", "TIME", "TIME WITH TIME ZONE",
	"TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE",
}

// newerType reports whether typ is or holds a type of newerTypes.
func newerType(typ string) bool {
	for _, nt := range newerTypes {
		if strings.Contains(typ, nt.Type) {
			return true
		}
	}
	return false
}

func filterable(typ string) bool {
	return slices.ContainsFunc(filterTypes, func(f string) bool {
		return typ == f || strings.HasSuffix(f, "(") && strings.HasPrefix(typ, f)
	})
}

// columnFilter is one filtered read of a file: WHERE Filter, on Column.
// Matches says DuckDB 1.5.6 reads a row under it at least (its literal is
// one of the column's values), so that a literal that does not round-trip
// is caught.
type columnFilter struct {
	Column, Filter string
	Matches        bool
}

// columnFilters are the filters of a column of type typ built from its
// values in the file as DuckDB 1.5.6 reads them, as text: min, a middle
// value (quantile_disc 0.5) and max, all NULL when the column holds only
// NULLs. They are equality with each value, a range below and from the
// middle, one from the max and one up to the min, an IN list of min and
// max (when they differ), IS NULL and IS NOT NULL; each value is a literal cast to the
// column's type, as DuckLake pushes a user's constant into read_parquet.
func columnFilters(col, typ string, vals [3]sql.NullString) []columnFilter {
	q := sqlIdent(col)
	out := []columnFilter{{col, q + " IS NULL", false}, {col, q + " IS NOT NULL", vals[0].Valid}}
	if !vals[0].Valid {
		return out
	}
	lit := func(k int) string { return "CAST(" + sqlLit(vals[k].String) + " AS " + typ + ")" }
	const lo, mid, hi = 0, 1, 2
	for _, f := range []columnFilter{
		{col, q + " = " + lit(lo), true},
		{col, q + " = " + lit(mid), true},
		{col, q + " = " + lit(hi), true},
		{col, q + " < " + lit(mid), false},
		{col, q + " >= " + lit(mid), true},
		{col, q + " >= " + lit(hi), true},
		{col, q + " <= " + lit(lo), true},
		{col, q + " IN (" + lit(lo) + ", " + lit(hi) + ")", true},
	} {
		if vals[lo].String == vals[hi].String && strings.Contains(f.Filter, " IN (") {
			continue // "= min" already
		}
		if !slices.ContainsFunc(out, func(o columnFilter) bool { return o.Filter == f.Filter }) {
			out = append(out, f)
		}
	}
	return out
}

// filterSampleOf is the share of the filters keepFilter keeps: one in so
// many.
const filterSampleOf = 8

// keepFilter says whether the sweep reads a file (path) under a filter f on
// a column of type typ, and the filter's hash (of the file's name, column
// and filter), deterministic wherever the lakes are unpacked (the path's
// folders, a cache's, are left out): a file with more than one row group (multiGroup;
// the only ones where a reader prunes some row groups and reads others)
// keeps every filter; the first filter of each (column type, filter form)
// is kept (seen); the others are kept when their hash is 0 modulo
// filterSampleOf. The caller keeps one filter of each file at least.
func keepFilter(path string, multiGroup bool, typ string, f columnFilter, seen map[string]bool) (bool, uint64) {
	sum := sha256.Sum256([]byte(filepath.Base(path) + "\x00" + f.Column + "\x00" + f.Filter))
	h := binary.BigEndian.Uint64(sum[:8])
	form := typ + "|" + filterForm(f)
	if multiGroup || !seen[form] {
		seen[form] = true
		return true, h
	}
	return h%filterSampleOf == 0, h
}

// filterForm is the filter's form, its column and literals left out ("=
// mid" and "= min" are both "=").
func filterForm(f columnFilter) string {
	rest := strings.TrimPrefix(f.Filter, sqlIdent(f.Column)+" ")
	if i := strings.IndexByte(rest, ' '); i > 0 && !strings.HasPrefix(rest, "IS ") {
		return rest[:i]
	}
	return rest
}

// filtersPerStatement bounds the filtered reads of one statement: a UNION
// ALL of more than 1000 fails on DuckDB 1.3 and 1.4 ("Parser Error: Max
// expression depth limit of 1000 exceeded"; 1.5 reads 1114).
const filtersPerStatement = 200

// filterException is a difference of a filtered read the sweep found and
// names: a release reads other rows than DuckDB 1.5.6 under a filter, for
// a reason written down in Why (docs/compare.md, "Footer quirks").
type filterException struct {
	Release, File, Column, Filter string
	Why                           string
}

// filterExceptions are the known differences of filtered reads; none so
// far. A stale entry (no difference it explains) fails the test.
var filterExceptions = []filterException{}

// TestRealReleasesReadConformanceParquetFiltered reads the conformance
// data and delete files (those of TestRealReleasesReadConformanceParquet)
// under filters pushed down into read_parquet, as a DuckLake reader pushes
// a user's: for each top-level column of a type in filterTypes the filters
// of columnFilters, built from the column's own values (min, a middle
// value, max, taken by the linked DuckDB), a deterministic sample of them
// (keepFilter). Each release of realduckdb.Releases reads, under each
// filter, the rows DuckDB 1.5.6 reads, except where a footer quirk the file
// triggers names the release (TestRealReleasesReadConformanceParquet holds
// those to the model) and the differences filterExceptions names. The
// columns of a newer type (newerTypes), which older releases read as
// another type, are left out of what is read. The filters of one file
// are read as one statement (a UNION ALL of the filtered reads, each row
// tagged with its filter); a file a release reads otherwise is read again
// one filter a statement, so that a failure names file, column, filter,
// release and rows.
func TestRealReleasesReadConformanceParquetFiltered(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	reads, _, _ := conformanceReads(t, ctx, db)
	var plain []string
	for _, r := range reads {
		if !strings.Contains(r.Read, "encryption_config") {
			plain = append(plain, r.Path)
		}
	}
	hits, err := parquetfooter.Read(ctx, db, plain)
	if err != nil {
		t.Fatal(err)
	}
	type fileFilters struct {
		read    conformanceRead
		rows    int64  // the file's, as 1.5.6 reads it
		sel     string // the select list, without newer types
		filters []columnFilter
	}
	var files []fileFilters
	var stmts []string
	seen := map[string]bool{}
	total, kept, multi, none, all := 0, 0, 0, 0, 0
	for _, r := range reads {
		var cols, types, aggs []string
		var fcols, ftypes []string
		for i, c := range r.Cols {
			if newerType(r.Types[i]) {
				continue
			}
			cols, types = append(cols, c), append(types, r.Types[i])
			if filterable(r.Types[i]) {
				q := sqlIdent(c)
				fcols, ftypes = append(fcols, c), append(ftypes, r.Types[i])
				aggs = append(aggs, "CAST(min("+q+") AS VARCHAR)", "CAST(quantile_disc("+q+", 0.5) AS VARCHAR)", "CAST(max("+q+") AS VARCHAR)")
			}
		}
		if len(fcols) == 0 || len(cols) == 0 {
			continue
		}
		from := strings.TrimPrefix(r.Read, "SELECT * ")
		// An encrypted file's footer is not read (parquet_metadata takes
		// no key): one row group is assumed.
		groups := 1
		if !strings.Contains(r.Read, "encryption_config") {
			if err := conn.QueryRowContext(ctx, "SELECT count(DISTINCT row_group_id) FROM parquet_metadata("+sqlLit(r.Path)+")").Scan(&groups); err != nil {
				t.Fatalf("%s: DuckDB 1.5.6: row groups: %v", r.Path, err)
			}
		}
		var rows int64 // the file's
		vals := make([]sql.NullString, len(aggs))
		ptrs := []any{&rows}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := conn.QueryRowContext(ctx, "SELECT count(*), "+strings.Join(aggs, ", ")+" "+from).Scan(ptrs...); err != nil {
			t.Fatalf("%s: DuckDB 1.5.6: the columns' values: %v", r.Path, err)
		}
		ff := fileFilters{read: r, rows: rows, sel: strings.Join(valueColumns(cols, types), ", ")}
		if groups > 1 {
			multi++
		}
		var first columnFilter // the file's filter of least hash, kept when no other is
		var firstHash uint64
		for i, c := range fcols {
			for _, cf := range columnFilters(c, ftypes[i], [3]sql.NullString{vals[3*i], vals[3*i+1], vals[3*i+2]}) {
				keep, h := keepFilter(r.Path, groups > 1, ftypes[i], cf, seen)
				if keep {
					ff.filters = append(ff.filters, cf)
				}
				if total++; first.Filter == "" || h < firstHash {
					first, firstHash = cf, h
				}
			}
		}
		if len(ff.filters) == 0 {
			ff.filters = []columnFilter{first}
		}
		kept += len(ff.filters)
		rest := ff.filters
		for len(rest) > 0 {
			ff.filters = rest[:min(len(rest), filtersPerStatement)]
			rest = rest[len(ff.filters):]
			var parts []string
			for k, f := range ff.filters {
				parts = append(parts, "SELECT "+strconv.Itoa(k)+` AS "fdl filter", `+ff.sel+" "+from+" WHERE "+f.Filter)
			}
			files, stmts = append(files, ff), append(stmts, strings.Join(parts, " UNION ALL "))
		}
	}
	// What 1.5.6 reads under each filter: a filter whose literal is one of
	// the column's values reads a row at least.
	for i, ff := range files {
		stmt, r := stmts[i], ff.read
		// What 1.5.6 reads under each filter: a filter whose literal is
		// one of the column's values reads a row at least.
		read := make([]int64, len(ff.filters))
		res, err := conn.QueryContext(ctx, `SELECT "fdl filter", count(*) FROM (`+stmt+`) GROUP BY ALL`)
		if err != nil {
			t.Fatalf("%s: DuckDB 1.5.6: %v", r.Path, err)
		}
		for res.Next() {
			var k int
			var n int64
			if err := res.Scan(&k, &n); err != nil {
				t.Fatal(err)
			}
			read[k] = n
		}
		if err := res.Err(); err != nil {
			t.Fatalf("%s: DuckDB 1.5.6: %v", r.Path, err)
		}
		if err := res.Close(); err != nil {
			t.Fatal(err)
		}
		for k, f := range ff.filters {
			switch n := read[k]; {
			case n == 0 && f.Matches:
				t.Errorf("%s, column %s, WHERE %s: DuckDB 1.5.6 reads no row; the literal is one of the column's values", r.Path, f.Column, f.Filter)
			case n == 0:
				none++
			case n == ff.rows:
				all++
			}
		}
	}
	t.Logf("%d statements, %d of %d filtered reads (%d forms of filter and column type; all of the %d files of several row groups) by %d releases and 1.5.6; 1.5.6 reads no row under %d, every row under %d, some under the others",
		len(files), kept, total, len(seen), multi, len(realduckdb.Releases), none, all)
	ref, got := readings(t, ctx, db, stmts)
	// The files some release reads otherwise, and those releases.
	again := map[int][]string{}
	skipped := 0
	for i, ff := range files {
		want := ref.Queries[i]
		if want.Error != "" {
			t.Errorf("%s: DuckDB 1.5.6: %s", ff.read.Path, want.Error)
			continue
		}
		for _, rel := range realduckdb.Releases {
			affected := slices.ContainsFunc(hits[ff.read.Path], func(h parquetfooter.Hit) bool {
				q, _ := formats.FooterQuirkNamed(h.Quirk)
				return slices.Contains(q.Releases, rel.DuckDB)
			})
			if affected {
				skipped++
				continue
			}
			if !sameRows(got[rel.DuckDB].Queries[i], want) {
				again[i] = append(again[i], rel.DuckDB)
			}
		}
	}
	if skipped > 0 {
		t.Logf("%d (file, release) pairs left out: a footer quirk the file triggers names the release", skipped)
	}
	if len(again) == 0 {
		for _, e := range filterExceptions {
			t.Errorf("filterExceptions: DuckDB %s, %s, %s: %s explains no difference: remove it", e.Release, e.File, e.Column, e.Filter)
		}
		return
	}
	// Each filter of those files a statement of its own.
	var one []string
	type at struct{ file, filter int }
	var where []at
	for i := range files {
		if _, ok := again[i]; !ok {
			continue
		}
		ff := files[i]
		from := strings.TrimPrefix(ff.read.Read, "SELECT * ")
		for k, f := range ff.filters {
			one, where = append(one, "SELECT "+ff.sel+" "+from+" WHERE "+f.Filter), append(where, at{i, k})
		}
	}
	oneRef, oneGot := readings(t, ctx, db, one)
	explained := make([]int, len(filterExceptions))
	type fileRelease struct {
		file int
		rel  string
	}
	found := map[fileRelease]bool{} // a statement and a release that reads a filter of it otherwise
	for j, w := range where {
		ff, f, want := files[w.file], files[w.file].filters[w.filter], oneRef.Queries[j]
		for _, rel := range again[w.file] {
			g := oneGot[rel].Queries[j]
			if sameRows(g, want) {
				continue
			}
			found[fileRelease{w.file, rel}] = true
			k := slices.IndexFunc(filterExceptions, func(e filterException) bool {
				return e.Release == rel && strings.HasSuffix(ff.read.Path, e.File) && e.Column == f.Column && e.Filter == f.Filter
			})
			if k >= 0 {
				explained[k]++
				continue
			}
			t.Errorf("%s, column %s, WHERE %s: DuckDB %s: %s rows, digest %s, error %q; DuckDB 1.5.6: %s rows, digest %s, error %q",
				ff.read.Path, f.Column, f.Filter, rel, g.Rows, g.Digest, g.Error, want.Rows, want.Digest, want.Error)
		}
	}
	for i, rels := range again {
		for _, rel := range rels {
			if g, want := got[rel].Queries[i], ref.Queries[i]; !found[fileRelease{i, rel}] {
				t.Errorf("%s: DuckDB %s reads its filtered reads, together, otherwise than 1.5.6 (%s rows, digest %s, error %q; 1.5.6: %s rows, digest %s), and each alone as 1.5.6: %s",
					files[i].read.Path, rel, g.Rows, g.Digest, g.Error, want.Rows, want.Digest, stmts[i])
			}
		}
	}
	for k, e := range filterExceptions {
		if explained[k] == 0 {
			t.Errorf("filterExceptions: DuckDB %s, %s, %s: %s explains no difference: remove it", e.Release, e.File, e.Column, e.Filter)
		}
	}
}

// TestKeepFilterSampleIgnoresFolder: the filtered sweep's sample is the same
// wherever the conformance lakes are unpacked (the user cache, or
// $FDL_CONFORMANCE_CACHE on CI): keepFilter hashes the file's name, not
// its path, so that a difference found on one machine is read again on
// another. It hashed the whole path, so each machine read another eighth.
func TestKeepFilterSampleIgnoresFolder(t *testing.T) {
	t.Parallel()
	f := columnFilter{Column: "id", Filter: `"id" = 7`}
	name := "ducklake-0193a2b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b.parquet"
	_, h1 := keepFilter("/home/a/.cache/fdl-formats-test/conformance/01_lake/data/main/t/"+name, false, "BIGINT", f, map[string]bool{})
	_, h2 := keepFilter("/ci/cache/conformance/01_lake/data/main/t/"+name, false, "BIGINT", f, map[string]bool{})
	if h1 != h2 {
		t.Errorf("keepFilter hashes the same file and filter %x under one folder, %x under another", h1, h2)
	}
}

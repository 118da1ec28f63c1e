package convert

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
)

// dump reads every DuckLake table of a catalog file as sorted row texts,
// with the column names in order as the first entry. skip names columns
// ("table.column") or whole tables ("table") to leave out.
func dump(t *testing.T, path string, skip ...string) map[string][]string {
	t.Helper()
	return readDump(t, path).without(skip...)
}

// catalogDump is every DuckLake table of a catalog file: its columns in
// order and its rows, each value as DuckDB casts it to VARCHAR.
type catalogDump map[string]*tableDump

type tableDump struct {
	columns []string
	rows    [][]sql.NullString
}

// readDump reads every DuckLake table of a catalog file (dump), in one
// statement: each table's rows as lists of their values cast to VARCHAR,
// tagged with the table's name (a statement a table cost several times
// the CPU: most of a dump is preparing statements).
func readDump(t *testing.T, path string) catalogDump {
	t.Helper()
	ctx := context.Background()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	rows, err := conn.QueryContext(ctx, `SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = 'c' AND table_name LIKE 'ducklake_%' ORDER BY table_name, column_index`)
	if err != nil {
		t.Fatal(err)
	}
	out := catalogDump{}
	var tables []string
	for rows.Next() {
		var tab, col string
		if err := rows.Scan(&tab, &col); err != nil {
			t.Fatal(err)
		}
		if out[tab] == nil {
			out[tab] = &tableDump{}
			tables = append(tables, tab)
		}
		out[tab].columns = append(out[tab].columns, col)
	}
	rows.Close()
	if len(tables) == 0 {
		return out
	}
	selects := make([]string, len(tables))
	for k, tab := range tables {
		td := out[tab]
		casts := make([]string, len(td.columns))
		for i, c := range td.columns {
			casts[i] = quote(c) + "::VARCHAR"
		}
		selects[k] = fmt.Sprintf("SELECT %s AS t, [%s]::VARCHAR[] AS v FROM c.%s", literal(tab), strings.Join(casts, ", "), quote(tab))
	}
	rs, err := conn.QueryContext(ctx, strings.Join(selects, " UNION ALL "))
	if err != nil {
		t.Fatalf("dump %s: %v", path, err)
	}
	defer rs.Close()
	for rs.Next() {
		var tab string
		var list any
		if err := rs.Scan(&tab, &list); err != nil {
			t.Fatal(err)
		}
		td, items := out[tab], list.([]any)
		if td == nil || len(items) != len(td.columns) {
			t.Fatalf("dump %s: a row of %d values for table %s", path, len(items), tab)
		}
		vals := make([]sql.NullString, len(items))
		for i, v := range items {
			if v != nil {
				vals[i] = sql.NullString{String: v.(string), Valid: true}
			}
		}
		td.rows = append(td.rows, vals)
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("dump %s: %v", path, err)
	}
	return out
}

// without is the dump's tables as dump returns them: sorted row texts
// (each value quoted, NULL bare), the column names first, leaving out the
// columns ("table.column") and tables ("table") of skip.
func (d catalogDump) without(skip ...string) map[string][]string {
	out := map[string][]string{}
	for tab, td := range d {
		if slices.Contains(skip, tab) {
			continue
		}
		var keep []int
		var cs []string
		for i, c := range td.columns {
			if !slices.Contains(skip, tab+"."+c) {
				keep, cs = append(keep, i), append(cs, c)
			}
		}
		if len(keep) == 0 {
			continue
		}
		lines := make([]string, len(td.rows))
		for r, row := range td.rows {
			vals := make([]string, len(keep))
			for k, i := range keep {
				vals[k] = "NULL"
				if row[i].Valid {
					vals[k] = strconv.Quote(row[i].String)
				}
			}
			lines[r] = "(" + strings.Join(vals, ", ") + ")"
		}
		sort.Strings(lines)
		out[tab] = append([]string{strings.Join(cs, ",")}, lines...)
	}
	return out
}

// dumpMemo reads each catalog file's dump once, for a test that compares
// one file with several others, each with other columns left out (the
// files must not change while it is in use).
type dumpMemo map[string]catalogDump

func (m dumpMemo) dump(t *testing.T, path string, skip ...string) map[string][]string {
	t.Helper()
	d, ok := m[path]
	if !ok {
		d = readDump(t, path)
		m[path] = d
	}
	return d.without(skip...)
}

// diffDumps describes how two dumps differ, table by table.
func diffDumps(a, b map[string][]string) []string {
	var diffs []string
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	var sorted []string
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, tab := range sorted {
		ra, okA := a[tab]
		rb, okB := b[tab]
		switch {
		case !okA:
			diffs = append(diffs, "only in second: "+tab)
		case !okB:
			diffs = append(diffs, "only in first: "+tab)
		case !slices.Equal(ra, rb):
			diffs = append(diffs, fmt.Sprintf("%s differs:\n  first:  %s\n  second: %s", tab, firstDiff(ra, rb), firstDiff(rb, ra)))
		}
	}
	return diffs
}

func firstDiff(a, b []string) string {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return x
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("(%d rows vs %d)", len(a), len(b))
	}
	return "(same rows, different multiplicity)"
}

// query runs a statement against a catalog file attached read-only as c.
func query(t *testing.T, path, q string) [][]string {
	t.Helper()
	ctx := context.Background()
	conn, release := attached(t, path, "READ_ONLY")
	defer release()
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
			if !v.Valid {
				row[i] = "NULL"
			}
		}
		out = append(out, row)
	}
	return out
}

// execOn runs statements against a writable catalog file attached as c.
func execOn(t *testing.T, path string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, release := attached(t, path, "")
	defer release()
	if _, err := conn.ExecContext(ctx, "USE c"); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	// Detaching writes everything to the file before anyone reads it.
	if _, err := conn.ExecContext(ctx, "USE memory; DETACH c"); err != nil {
		t.Fatal(err)
	}
}

// editedCopy copies the catalog src into a temporary folder of the test,
// runs stmts on the copy (execOn) and returns its path.
func editedCopy(t *testing.T, src string, stmts ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "edited.duckdb")
	copyFile(t, src, dst)
	execOn(t, dst, stmts...)
	return dst
}

// helperDBs lends the tests' helpers (dump, query, execOn, attach) their
// DuckDB databases: starting one costs about as much CPU as reading a small
// catalog, and the round trips and conformance sweeps read thousands. A
// helper's database goes back clean (duckpool.Release) or is closed.
var helperDBs = duckpool.New(4)

// attach opens a catalog file as database c on a private connection that is
// released when the test ends; mode is "READ_ONLY" or "".
func attach(t *testing.T, path, mode string) *sql.Conn {
	t.Helper()
	conn, release := attached(t, path, mode)
	t.Cleanup(release)
	return conn
}

// attached is attach for a helper done with the catalog before it returns:
// it calls release (detach c, give the database back) itself.
func attached(t *testing.T, path, mode string) (conn *sql.Conn, release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := helperDBs.Get()
	if err != nil {
		t.Fatal(err)
	}
	conn, err = db.Conn(ctx)
	if err != nil {
		helperDBs.Discard(db)
		t.Fatal(err)
	}
	release = func() {
		if duckpool.Release(conn, "c") {
			helperDBs.Put(db)
		} else {
			helperDBs.Discard(db)
		}
	}
	q := fmt.Sprintf("ATTACH %s AS c", literal(path))
	if mode != "" {
		q += " (" + mode + ")"
	}
	if _, err := conn.ExecContext(ctx, q); err != nil {
		release()
		t.Fatal(err)
	}
	return conn, release
}

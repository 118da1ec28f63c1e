// Package expectedrows checks, in tests, that compare's reader returns from
// a catalog exactly the rows DuckLake returned: the conformance lakes'
// expected/<snapshot>/<table>.parquet files (or <table>.error.txt where the
// real reader failed). Package compare's own tests cannot import it (it
// imports compare); they keep their own check.
package expectedrows

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
)

// Options tune Check.
type Options struct {
	// Failures accepts a <table>.error.txt (the real reader failed): our
	// reader must then fail with a modelled failure whose message begins
	// the recorded one. Without it an expected failure is an error.
	Failures bool
	// Counts, when set, is the manifest of what DuckLake returned: snapshot
	// -> table -> row count. The expected files must then be exactly these
	// tables at these snapshots, and our reader must return these counts.
	Counts map[string]map[string]int64
	// Typed also compares the rows as Go values (%#v of what the driver
	// scans, which tells column types apart) without the Parquet round
	// trip. Only for expected files written with the table's own types:
	// lakes-0.3-reader stores HUGEINT columns as DOUBLE, for one.
	Typed bool
}

// Check reads every table at every snapshot of expected (a folder of
// <snapshot>/<table>.parquet and <table>.error.txt) from catalog with
// compare's reader and requires, for each, the same rows as a multiset of
// DuckDB row text after a Parquet round trip at TimeZone UTC (and, with
// Typed, of Go values). It fails the test when nothing was checked, and
// returns the number of tables checked.
func Check(t testing.TB, catalog, data, expected string, opts Options) int {
	t.Helper()
	ctx := context.Background()
	r, err := compare.Open(ctx, catalog, compare.ReaderOptions{DataPath: data})
	if err != nil {
		t.Fatalf("open %s: %v", catalog, err)
	}
	defer r.Close()
	db, err := duckpool.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Our queries name the catalog's tables (inlined rows) as cat.
	if _, err := conn.ExecContext(ctx, "SET TimeZone = 'UTC'; ATTACH "+literal(catalog)+" AS cat (READ_ONLY)"); err != nil {
		t.Fatalf("attach %s: %v", catalog, err)
	}

	snaps, err := os.ReadDir(expected)
	if err != nil {
		t.Fatalf("expected rows: %v", err)
	}
	sort.Slice(snaps, func(i, j int) bool {
		a, _ := strconv.ParseInt(snaps[i].Name(), 10, 64)
		b, _ := strconv.ParseInt(snaps[j].Name(), 10, 64)
		return a < b
	})
	seen := map[string]map[string]bool{} // snapshot -> table, for Counts
	checked := 0
	for _, sd := range snaps {
		snap, err := strconv.ParseInt(sd.Name(), 10, 64)
		if err != nil || !sd.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(expected, sd.Name()))
		if err != nil {
			t.Fatalf("expected rows: %v", err)
		}
		failed := map[string]bool{}
		for _, f := range files {
			if table, ok := strings.CutSuffix(f.Name(), ".error.txt"); ok {
				failed[table] = true
			}
		}
		for _, f := range files {
			path := filepath.Join(expected, sd.Name(), f.Name())
			table, isErr := strings.CutSuffix(f.Name(), ".error.txt")
			if !isErr {
				var ok bool
				if table, ok = strings.CutSuffix(f.Name(), ".parquet"); !ok {
					continue
				}
				if failed[table] {
					continue // an empty placeholder beside the failure
				}
			}
			if seen[sd.Name()] == nil {
				seen[sd.Name()] = map[string]bool{}
			}
			seen[sd.Name()][table] = true
			where := fmt.Sprintf("%s snapshot %d table %s", filepath.Base(catalog), snap, table)
			tb, err := r.Table(ctx, table, snap)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			checked++
			q, qerr := r.Query(ctx, tb, snap, compare.ScanOptions{})
			if isErr {
				msg, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				u, ok := compare.AsUnreadable(qerr)
				switch {
				case !opts.Failures:
					t.Errorf("%s: expected rows hold a failure", where)
				case !ok:
					t.Errorf("%s: real reader failed with %q; our model read it (err %v)", where, strings.TrimSpace(string(msg)), qerr)
				case u.Quirk.Error == "" || !strings.HasPrefix(string(msg), u.Quirk.Error):
					t.Errorf("%s: real reader failed with %q; our model fails with %q", where, strings.TrimSpace(string(msg)), u.Quirk.Error)
				}
				continue
			}
			if qerr != nil {
				t.Errorf("%s: %v", where, qerr)
				continue
			}
			n := compareText(ctx, t, conn, q, path, where)
			if opts.Typed {
				compareValues(ctx, t, r, conn, table, snap, path, where)
			}
			if want, ok := opts.Counts[sd.Name()][table]; opts.Counts != nil && !ok {
				t.Errorf("%s: not in the manifest", where)
			} else if ok && n != want {
				t.Errorf("%s: our reader returns %d rows, DuckLake returned %d", where, n, want)
			}
		}
	}
	for s, tables := range opts.Counts {
		for table := range tables {
			if !seen[s][table] {
				t.Errorf("snapshot %s table %s: in the manifest, no expected rows in %s", s, table, expected)
			}
		}
	}
	if checked == 0 {
		t.Errorf("nothing checked in %s", expected)
	}
	return checked
}

// compareValues compares our rows with the expected file's as multisets of
// Go values.
func compareValues(ctx context.Context, t testing.TB, r *compare.Reader, conn *sql.Conn, table string, snap int64, path, where string) {
	t.Helper()
	rows, err := r.Rows(ctx, table, snap, compare.ScanOptions{})
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	got, err := multiset(rows)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	rows, err = conn.QueryContext(ctx, "SELECT * FROM read_parquet("+literal(path)+")")
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	want, err := multiset(rows)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if d := differ(got, want); len(d) > 0 {
		t.Errorf("%s: rows (as Go values) differ from DuckLake's (%s): %v", where, path, d)
	}
}

// compareText compares the rows of q, written to Parquet and read back,
// with the expected file's as multisets of DuckDB row text, and returns how
// many rows q returned (-1 when it failed).
func compareText(ctx context.Context, t testing.TB, conn *sql.Conn, q, path, where string) int64 {
	t.Helper()
	ours := filepath.Join(t.TempDir(), "ours.parquet")
	var n int64
	if err := conn.QueryRowContext(ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", q, literal(ours))).Scan(&n); err != nil {
		t.Errorf("%s: %v\n%s", where, err, q)
		return -1
	}
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`SELECT side, row, n FROM (
		(SELECT 'ours' AS side, t::VARCHAR AS row, count(*) AS n FROM read_parquet(%[1]s) t GROUP BY ALL
		 EXCEPT SELECT 'ours', t::VARCHAR, count(*) FROM read_parquet(%[2]s) t GROUP BY ALL)
		UNION ALL
		(SELECT 'real', t::VARCHAR, count(*) FROM read_parquet(%[2]s) t GROUP BY ALL
		 EXCEPT SELECT 'real', t::VARCHAR, count(*) FROM read_parquet(%[1]s) t GROUP BY ALL)) ORDER BY ALL LIMIT 6`, literal(ours), literal(path)))
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	defer rows.Close()
	var diff []string
	for rows.Next() {
		var side, row string
		var n int64
		if err := rows.Scan(&side, &row, &n); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		diff = append(diff, fmt.Sprintf("%s %s x%d", side, row, n))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if len(diff) > 0 {
		t.Errorf("%s: rows (as text) differ from DuckLake's (%s): %v", where, path, diff)
	}
	return n
}

// multiset reads rows as Go-syntax text with their multiplicities.
func multiset(rows *sql.Rows) (map[string]int, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out[fmt.Sprintf("%#v", vals)]++
	}
	return out, rows.Err()
}

// differ lists up to six rows whose multiplicities differ.
func differ(got, want map[string]int) []string {
	var out []string
	for k, n := range got {
		if want[k] != n {
			out = append(out, fmt.Sprintf("ours %s x%d, real x%d", clip(k), n, want[k]))
		}
	}
	for k, n := range want {
		if _, ok := got[k]; !ok {
			out = append(out, fmt.Sprintf("real %s x%d, ours x0", clip(k), n))
		}
	}
	sort.Strings(out)
	if len(out) > 6 {
		out = out[:6]
	}
	return out
}

// clip shortens a row's text for a message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

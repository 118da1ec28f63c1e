package compare

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// tsNSEarlyLake is testlakes.TimestampNSEarly on the last version of
// lakes' 01_primitive_types.
func tsNSEarlyLake(t *testing.T, ts, pick string) (catalog, data string) {
	t.Helper()
	lake, src := lastVersion(t, "lakes", "01_primitive_types")
	return testlakes.TimestampNSEarly(t, src, filepath.Join(lake, "data"), ts, pick)
}

// TestTimestampNSEarlyData proves lakes whose TIMESTAMP_NS column holds
// 1677-09-21 12:00:00 (DuckDB reads it; its text fails: "Date out of range
// in timestamp_ns conversion"). Before, a proof whose rows differ stopped
// on that error ("catalogs could not be compared") instead of listing the
// first differing rows.
func TestTimestampNSEarlyData(t *testing.T) {
	a, dataA := tsNSEarlyLake(t, "1677-09-21 12:00:00", "id = 1")
	for _, tc := range []struct {
		name, ts, pick string // B's data: ts in the rows where pick
		onlyA, onlyB   string // in the differing rows; "" when equivalent
	}{
		{"same rows", "1677-09-21 12:00:00", "id = 1", "", ""},
		{"B's ts_ns differs", "1677-09-21 12:00:00", "id = 2", "'ts_ns': '1677-09-21 12:00:00'", "'ts_ns': '1677-09-21 12:00:00'"},
		{"B's early value differs in nanoseconds", "1677-09-21 12:00:00.000000007", "id = 1", "'ts_ns': '1677-09-21 12:00:00',", "'ts_ns': '1677-09-21 12:00:00.000000007',"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dataB := tsNSEarlyLake(t, tc.ts, tc.pick)
			// B is A's catalog over B's data: a changed file is read.
			rep, err := Catalogs(context.Background(), a, a, Options{DataPath: dataA, DataPathB: dataB, Engines: readerDBs})
			if tc.onlyA == "" {
				if err != nil {
					t.Fatalf("%v\n%v", err, rep.Differences)
				}
				return
			}
			rows := primRowsDiffer(t, rep, err)
			if !slices.ContainsFunc(rows.OnlyA, func(s string) bool { return strings.Contains(s, tc.onlyA) }) ||
				!slices.ContainsFunc(rows.OnlyB, func(s string) bool { return strings.Contains(s, tc.onlyB) }) {
				t.Errorf("want rows only in A with %q and only in B with %q, got\nA: %q\nB: %q", tc.onlyA, tc.onlyB, rows.OnlyA, rows.OnlyB)
			}
		})
	}
}

// tsNSEarlyNestedLake is testlakes.TimestampNSEarlyNested on the last
// version of lakes' 01_primitive_types.
func tsNSEarlyNestedLake(t *testing.T, pick string, ts map[string]string) (catalog, data string) {
	t.Helper()
	lake, src := lastVersion(t, "lakes", "01_primitive_types")
	return testlakes.TimestampNSEarlyNested(t, src, filepath.Join(lake, "data"), pick, ts)
}

// TestTimestampNSEarlyNestedData proves lakes whose TIMESTAMP_NS values
// nested in a STRUCT, a LIST, a MAP (key and value) and deeper hold
// 1677-09-21 12:00:00 (DuckDB reads it; its text fails), against copies
// with one nested value changed: the proof lists the first differing rows
// with the nested values' text. Before, it stopped on DuckDB's "Date out
// of range in timestamp_ns conversion" ("catalogs could not be compared"):
// only a top-level TIMESTAMP_NS column was rendered from epoch_ns.
func TestTimestampNSEarlyNestedData(t *testing.T) {
	const early = "1677-09-21 12:00:00"
	all := func(ts string) map[string]string {
		m := map[string]string{}
		for _, c := range testlakes.NestedTimestampNSColumns {
			m[c] = ts
		}
		return m
	}
	a, dataA := tsNSEarlyNestedLake(t, "id = 1", all(early))
	for _, tc := range []struct {
		name         string
		pick         string
		ts           map[string]string
		onlyA, onlyB []string // in the differing row of each side; none when equivalent
	}{
		{"same rows", "id = 1", all(early), nil, nil},
		{"B's map differs in nanoseconds", "id = 1", map[string]string{"ns_s": early, "ns_l": early, "ns_m": early + ".000000007", "ns_d": early},
			[]string{"'ns_m': {'1677-09-21 12:00:00'=['1677-09-21 12:00:00', NULL], '2000-01-01 00:00:00.001001007'=[]}",
				"'ns_s': {'t': '1677-09-21 12:00:00', 'n': 1}", "'ns_d': {'ls': [{'t': '1677-09-21 12:00:00'}, NULL, {'t': NULL}], 'm': {k=['1677-09-21 12:00:00']}}"},
			[]string{"'ns_m': {'1677-09-21 12:00:00.000000007'=['1677-09-21 12:00:00.000000007', NULL], '2000-01-01 00:00:00.001001007'=[]}",
				"'ns_l': ['1677-09-21 12:00:00', NULL, '2000-01-01 00:00:00.001000007']"}},
		{"B's list holds no early value", "id = 1", map[string]string{"ns_s": early, "ns_m": early, "ns_d": early},
			[]string{"'ns_l': ['1677-09-21 12:00:00', NULL, '2000-01-01 00:00:00.001000007']"},
			[]string{"'ns_l': ['2000-01-01 00:00:00.001000007', NULL, '2000-01-01 00:00:00.001000007']"}},
		{"B's struct field is early in another row", "id = 2", map[string]string{"ns_s": early},
			[]string{"'ns_s': {'t': '1677-09-21 12:00:00', 'n': 1}"},
			[]string{"'ns_s': {'t': '1677-09-21 12:00:00', 'n': 2}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, dataB := tsNSEarlyNestedLake(t, tc.pick, tc.ts)
			// B is A's catalog over B's data: a changed file is read.
			rep, err := Catalogs(context.Background(), a, a, Options{DataPath: dataA, DataPathB: dataB, Engines: readerDBs})
			if tc.onlyA == nil {
				if err != nil {
					t.Fatalf("%v\n%v", err, rep.Differences)
				}
				return
			}
			rows := primRowsDiffer(t, rep, err)
			has := func(got []string, want []string) bool {
				return slices.ContainsFunc(got, func(s string) bool {
					for _, w := range want {
						if !strings.Contains(s, w) {
							return false
						}
					}
					return true
				})
			}
			if !has(rows.OnlyA, tc.onlyA) || !has(rows.OnlyB, tc.onlyB) {
				t.Errorf("want a row only in A with %q and one only in B with %q, got\nA: %q\nB: %q", tc.onlyA, tc.onlyB, rows.OnlyA, rows.OnlyB)
			}
		})
	}
}

func TestScannedMinMaxTimestampNSEarly(t *testing.T) {
	ctx := context.Background()
	catalog, data := tsNSEarlyLake(t, "1677-09-21 12:00:00", "id = 1")
	r := openForTest(t, catalog, data)
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := latestSnapshot(snaps)
	tables, err := r.Tables(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	tb := Table{ID: 1}
	for _, x := range tables {
		if x.ID == 1 {
			tb = x
		}
	}
	cols, err := r.Columns(ctx, tb.ID, s)
	if err != nil {
		t.Fatal(err)
	}
	var need []*Column
	for _, c := range cols {
		if c.Name == "ts_ns" {
			need = append(need, c)
		}
	}
	got, err := r.scannedMinMax(ctx, tb, s, need)
	if err != nil {
		t.Fatal(err)
	}
	if m := got[need[0].ID]; m.min != "1677-09-21 12:00:00" || m.max != "2200-01-01 00:00:00.000000001" {
		t.Errorf("ts_ns: %v", m)
	}
}

// TestTimestampNSRowText checks the SQL text of timestampNSRowText and of
// renderedText against DuckDB's own text where it renders one, and against
// timestampNSText (Go, from epoch_ns) where it does not. Before, every
// early value failed the query.
func TestTimestampNSRowText(t *testing.T) {
	db := testduck.Open(t, "")
	ctx := context.Background()
	for _, tc := range []struct {
		in   string // SQL of the value
		want string
	}{
		{"make_timestamp_ns(-9223372036854775806)", "1677-09-21 00:12:43.145224194"}, // the first after -infinity
		{"CAST('1677-09-21 00:12:43.145225' AS TIMESTAMP_NS)", "1677-09-21 00:12:43.145225"},
		{"CAST('1677-09-21 12:00:00' AS TIMESTAMP_NS)", "1677-09-21 12:00:00"},
		{"CAST('1677-09-21 12:00:00.5' AS TIMESTAMP_NS)", "1677-09-21 12:00:00.5"},
		{"CAST('1677-09-21 23:59:59.999999999' AS TIMESTAMP_NS)", "1677-09-21 23:59:59.999999999"},
		{"CAST('1677-09-22 00:00:00' AS TIMESTAMP_NS)", "1677-09-22 00:00:00"},
		{"CAST('1969-12-31 23:59:59.999999999' AS TIMESTAMP_NS)", "1969-12-31 23:59:59.999999999"},
		{"CAST('2000-01-01 00:00:00.123456789' AS TIMESTAMP_NS)", "2000-01-01 00:00:00.123456789"},
		{"CAST('2262-04-11 23:47:16.854775806' AS TIMESTAMP_NS)", "2262-04-11 23:47:16.854775806"},
		{"CAST('-infinity' AS TIMESTAMP_NS)", "-infinity"},
		{"CAST('infinity' AS TIMESTAMP_NS)", "infinity"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			v := tc.in
			x := newRenderedText(v, "TIMESTAMP_NS")
			var row string
			if err := db.QueryRowContext(ctx, "SELECT "+timestampNSRowText(v)+", "+strings.Join(x.exprs, ", ")).Scan(append([]any{&row}, x.dest()...)...); err != nil {
				t.Fatal(err)
			}
			if row != tc.want {
				t.Errorf("timestampNSRowText: %q, want %q", row, tc.want)
			}
			if got := x.value(); got == nil || *got != tc.want {
				t.Errorf("renderedText: %v, want %q", got, tc.want)
			}
			var ns int64
			if err := db.QueryRowContext(ctx, "SELECT epoch_ns("+v+")").Scan(&ns); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tc.want, "infinity") && timestampNSText(ns) != tc.want {
				t.Errorf("timestampNSText: %q, want %q", timestampNSText(ns), tc.want)
			}
		})
	}
	var null sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT "+timestampNSRowText("CAST(NULL AS TIMESTAMP_NS)")).Scan(&null); err != nil || null.Valid {
		t.Errorf("NULL: %v, %v", null, err)
	}
}

// TestTimestampNSNestedText renders values holding TIMESTAMP_NS inside a
// STRUCT, LIST, ARRAY or MAP, at any depth, through timestampNSAsText:
// as DuckDB's own text where DuckDB renders the value (the text keeps
// DuckDB's quoting, which differs between a LIST and an ARRAY), and with
// the early values written from epoch_ns where it does not. Before, only
// a top-level TIMESTAMP_NS column was rewritten, and every early value
// nested in another type failed with "Date out of range in timestamp_ns
// conversion".
func TestTimestampNSNestedText(t *testing.T) {
	db := testduck.Open(t, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	render := func(v string) (string, error) {
		q, err := timestampNSAsText(ctx, conn, "SELECT "+v+" AS c")
		if err != nil {
			return "", err
		}
		var s sql.NullString
		if err := conn.QueryRowContext(ctx, "SELECT CAST(c AS VARCHAR) FROM ("+q+")").Scan(&s); err != nil {
			return "", err
		}
		if !s.Valid {
			return "NULL", nil
		}
		return s.String, nil
	}
	// DuckDB renders these: the text must be its own.
	for _, v := range []string{
		"TIMESTAMP_NS '2000-01-01 00:00:00.123456789'",
		"{'t': TIMESTAMP_NS '2000-01-01 00:00:00.5', 'n': 1, 'a b''c': TIMESTAMP_NS 'infinity', 'd': NULL::TIMESTAMP_NS}",
		"[TIMESTAMP_NS '2000-01-01', NULL, TIMESTAMP_NS '-infinity']",
		"array_value(TIMESTAMP_NS '2000-01-01 00:00:01', NULL)",
		"array_value(array_value({'t': TIMESTAMP_NS '1677-09-22 00:00:00'}))",
		"MAP {TIMESTAMP_NS '2000-01-01': [TIMESTAMP_NS '2262-04-11 23:47:16.854775806'], TIMESTAMP_NS '2001-01-01': NULL}",
		"{'ls': [{'t': TIMESTAMP_NS '2000-01-01'}, NULL, {'t': NULL}], 'm': MAP {'k': array_value([TIMESTAMP_NS '2000-01-01', NULL])}}",
		"NULL::STRUCT(t TIMESTAMP_NS)",
		"NULL::TIMESTAMP_NS[]",
		"NULL::MAP(TIMESTAMP_NS, INTEGER)",
		"[]::TIMESTAMP_NS[]",
		"MAP {}::MAP(TIMESTAMP_NS, INTEGER)",
		"[NULL::STRUCT(t TIMESTAMP_NS), {'t': NULL}]",
		"{'a': 1, 'b': 'x:y'}",
	} {
		var want string
		if err := conn.QueryRowContext(ctx, "SELECT coalesce(CAST("+v+" AS VARCHAR), 'NULL')").Scan(&want); err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got, err := render(v); err != nil || got != want {
			t.Errorf("%s: %q, %v; want DuckDB's %q", v, got, err, want)
		}
	}
	// DuckDB renders none of these (each holds a value before 1677-09-22).
	for _, tc := range []struct{ v, want string }{
		{"{'t': TIMESTAMP_NS '1677-09-21 12:00:00', 'n': 1}", "{'t': '1677-09-21 12:00:00', 'n': 1}"},
		{"[make_timestamp_ns(-9223372036854775806), NULL, TIMESTAMP_NS '2000-01-01']", "['1677-09-21 00:12:43.145224194', NULL, '2000-01-01 00:00:00']"},
		{"array_value(TIMESTAMP_NS '1677-09-21 12:00:00.5', TIMESTAMP_NS '2000-01-01')", "[1677-09-21 12:00:00.5, 2000-01-01 00:00:00]"},
		{"MAP {TIMESTAMP_NS '1677-09-21 12:00:00': [TIMESTAMP_NS '1677-09-21 12:00:00.000000007'], TIMESTAMP_NS '2000-01-01': []}",
			"{'1677-09-21 12:00:00'=['1677-09-21 12:00:00.000000007'], '2000-01-01 00:00:00'=[]}"},
		{"{'ls': [{'t': TIMESTAMP_NS '1677-09-21 23:59:59.999999999'}, NULL, {'t': NULL}], 'm': MAP {'k': array_value([TIMESTAMP_NS '1677-09-21 01:00:00'])}}",
			"{'ls': [{'t': '1677-09-21 23:59:59.999999999'}, NULL, {'t': NULL}], 'm': {k=[['1677-09-21 01:00:00']]}}"},
	} {
		if got, err := render(tc.v); err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.v, got, err, tc.want)
		}
	}
}

// TestRowTextsTimestampNSEarlyNested: RowTexts reads a table with early
// TIMESTAMP_NS values nested in its columns, the early values written from
// epoch_ns and the others as DuckDB renders them. Before, it returned
// DuckDB's "Date out of range in timestamp_ns conversion".
func TestRowTextsTimestampNSEarlyNested(t *testing.T) {
	ctx := context.Background()
	catalog, data := tsNSEarlyNestedLake(t, "id = 1", map[string]string{"ns_l": "1677-09-21 12:00:00.5", "ns_d": "1677-09-21 12:00:00"})
	r := openForTest(t, catalog, data)
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := latestSnapshot(snaps)
	tables, err := r.Tables(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tables, func(x Table) bool { return x.ID == 1 })
	if i < 0 {
		t.Fatalf("no table 1 in %v", tables)
	}
	texts, err := r.RowTexts(ctx, tables[i], s, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"'ns_s': {'t': '2000-01-01 00:00:00.001000007', 'n': 1}", "'ns_l': ['1677-09-21 12:00:00.5', NULL, '2000-01-01 00:00:00.001000007']",
		"'ns_d': {'ls': [{'t': '1677-09-21 12:00:00'}, NULL, {'t': NULL}], 'm': {k=['1677-09-21 12:00:00']}}"}
	var found bool
	for s := range texts {
		if strings.HasPrefix(s, "{'id': 1,") {
			found = true
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("row 1 lacks %q: %s", w, s)
				}
			}
		}
	}
	if !found || len(texts) != 203 {
		t.Errorf("want 203 rows with row 1, got %d (row 1: %t)", len(texts), found)
	}
}

// primRowsDiffer fails the test unless the proof (rep, err) found the rows
// of main.prim different, and returns their first differing rows.
func primRowsDiffer(t *testing.T, rep *Report, err error) *RowDiff {
	t.Helper()
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want ErrNotEquivalent, got %v", err)
	}
	var rows *RowDiff
	for _, tr := range rep.Tables {
		if tr.Rows != nil {
			rows = tr.Rows
		}
	}
	if rows == nil || !hasDifference(rep, "rows", "main.prim: rows differ") {
		t.Fatalf("want the rows of main.prim to differ, got %v (%v)", rep.Differences, err)
	}
	return rows
}

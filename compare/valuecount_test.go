package compare

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestValueCountText: the value_count of a statistics entry's text, per
// row, and whether every row of an entry is 0 (a reader that skips files
// with value_count 0 keeps the file when one row passes).
func TestValueCountText(t *testing.T) {
	for _, tc := range []struct {
		text    string
		first   string
		allZero bool
	}{
		{`column_size_bytes="31" value_count="0" null_count="0" min_value=NULL`, `"0"`, true},
		{`column_size_bytes="31" value_count=NULL null_count="0"`, "NULL", false},
		{`value_count="3" null_count="0"`, `"3"`, false},
		{`value_count="0" null_count="3" | value_count="0" null_count=NULL`, `"0"`, true},
		{`value_count="0" null_count="3" | value_count="2" null_count="1"`, `"0"`, false},
		{`extra_stats="x value_count=\"5\"" null_count="0"`, "", false},
	} {
		if got := valueCountOf(tc.text); got != tc.first {
			t.Errorf("valueCountOf(%s) = %q, want %q", tc.text, got, tc.first)
		}
		if got := allValueCountsZero(tc.text); got != tc.allZero {
			t.Errorf("allValueCountsZero(%s) = %v, want %v", tc.text, got, tc.allZero)
		}
	}
}

// TestValueCountZeroRows: value_count 0 (formats.QuirkValueCountZeroPruned)
// in a comparison of two tampered 06_deletes catalogs (1.0; data file 12
// is main.kill_list's only file, column 1 its id). A 0.4 catalog's readers
// keep a file whatever its value_count, a 1.0 catalog's (DuckDB 1.5.3+)
// skip it under a filter where every row of its statistics for the column
// has value_count 0.
func TestValueCountZeroRows(t *testing.T) {
	ctx := context.Background()
	lake, orig := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	as04 := as04SQL()
	const row = ` WHERE data_file_id = 12 AND column_id = 1`
	twice := `INSERT INTO ducklake_file_column_stats SELECT * FROM ducklake_file_column_stats` + row
	zeroFirst := `UPDATE ducklake_file_column_stats SET value_count = 0 WHERE rowid = (SELECT min(rowid) FROM ducklake_file_column_stats` + row + `)`
	for _, tc := range []struct {
		name   string
		a, b   []string
		want   []string // substrings of the stats differences, each in one; none: equivalent
		reason string   // a substring of some difference's reason
		count  int      // when not 0: the number of differences
	}{
		// B's NULL is A's 0 only where each side has one row for the
		// column: two rows are not read as one.
		{name: "two rows, 0 in A, NULL in B", a: append(slices.Clone(as04), `UPDATE ducklake_file_column_stats SET value_count = 0`+row, twice),
			b:    []string{`UPDATE ducklake_file_column_stats SET value_count = NULL` + row, twice},
			want: []string{`data_file_id="12" column_id="1" differs: value_count`}},
		{name: "one row, 0 in A, NULL in B", a: append(slices.Clone(as04), `UPDATE ducklake_file_column_stats SET value_count = 0`+row),
			b: []string{`UPDATE ducklake_file_column_stats SET value_count = NULL` + row}},
		// A's readers skip the file only where every row of it is 0.
		{name: "A rows 0 and not 0, B row 0", a: []string{twice, zeroFirst},
			b:      []string{`UPDATE ducklake_file_column_stats SET value_count = 0` + row},
			want:   []string{`data_file_id="12" column_id="1"`},
			reason: "A's value_count is not 0, so format 1.0 readers keep it"},
		// B's readers keep a file one of whose rows for the column is not
		// 0: the same two rows on both sides are equivalent (before, B's
		// row 0 was a difference by itself).
		{name: "rows 0 and not 0 on both sides", a: []string{twice, zeroFirst}, b: []string{twice, zeroFirst}},
		// A row only B has is the row comparison's alone.
		{name: "row 0 only in B", a: []string{`DELETE FROM ducklake_file_column_stats` + row},
			b:    []string{`UPDATE ducklake_file_column_stats SET value_count = 0` + row},
			want: []string{`data_file_id="12" column_id="1" only in B`}, count: 1},
		// A table B has no name for (a column of table 999, no table
		// 999) is named by its id.
		{name: "row 0 of a table B lacks", b: []string{`UPDATE ducklake_file_column_stats SET value_count = 0, table_id = 999` + row,
			`INSERT INTO ducklake_column SELECT * REPLACE (999 AS table_id) FROM ducklake_column WHERE table_id = 4 AND column_id = 1`},
			want: []string{`data_file_id="12" column_id="1"`}, reason: "of table id 999 in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tamper(t, orig, tc.a...)
			b := tamper(t, orig, tc.b...)
			rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			var lines []string
			if rep != nil {
				for _, d := range rep.Differences {
					lines = append(lines, d.String()+" / "+d.Reason)
				}
			}
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("not proved equivalent: %v\n%s", err, strings.Join(lines, "\n"))
				}
				return
			}
			if err == nil || rep == nil {
				t.Fatalf("proved equivalent (%v)", err)
			}
			for _, w := range tc.want {
				if !hasDifference(rep, "stats", w) {
					t.Errorf("no stats difference with %q in:\n%s", w, strings.Join(lines, "\n"))
				}
			}
			if tc.reason != "" && !slices.ContainsFunc(rep.Differences, func(d Difference) bool { return strings.Contains(d.Reason, tc.reason) }) {
				t.Errorf("no difference with reason %q in:\n%s", tc.reason, strings.Join(lines, "\n"))
			}
			if tc.count != 0 && len(rep.Differences) != tc.count {
				t.Errorf("%d differences, want %d:\n%s", len(rep.Differences), tc.count, strings.Join(lines, "\n"))
			}
		})
	}
}

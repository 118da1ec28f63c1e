package compare

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// TestFileStatsTiedToFiles: file statistics rows are compared as the
// statistics of the data file their data_file_id names on each side (by
// path, as files are compared), not by bare id (fileTies). In
// 06_deletes (1.0), data file 12 is main.kill_list's only file and files
// 10 and 11 are main.trunc's (before and after a truncation). Before, B with file 12 renamed 13 (no row of
// statistics for it: DuckDB 1.5.0/1.5.1 skip it under a filter) and B
// with files 10 and 11 swapping ids (each read with the other's min/max)
// were equivalent, and B with every data_file_id renumbered alike in every
// table that names one was a `stats` difference.
func TestFileStatsTiedToFiles(t *testing.T) {
	ctx := context.Background()
	lake, orig := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	renumber := func(stats bool) []string {
		s := []string{`UPDATE ducklake_data_file SET data_file_id = data_file_id + 100`,
			`UPDATE ducklake_delete_file SET data_file_id = data_file_id + 100`,
			`UPDATE ducklake_file_partition_value SET data_file_id = data_file_id + 100`,
			`UPDATE ducklake_snapshot SET next_file_id = next_file_id + 100`}
		if stats {
			s = append(s, `UPDATE ducklake_file_column_stats SET data_file_id = data_file_id + 100`,
				`UPDATE ducklake_file_variant_stats SET data_file_id = data_file_id + 100`)
		}
		return s
	}
	as04 := as04SQL()
	renamed := `UPDATE ducklake_data_file SET data_file_id = 13 WHERE data_file_id = 12`
	swapped := `UPDATE ducklake_data_file SET data_file_id = CASE data_file_id WHEN 10 THEN 11 ELSE 10 END WHERE data_file_id IN (10, 11)`
	dup := `INSERT INTO ducklake_data_file SELECT * REPLACE (13 AS data_file_id) FROM ducklake_data_file WHERE data_file_id = 12`
	dupStats := `INSERT INTO ducklake_file_column_stats SELECT * REPLACE (13 AS data_file_id) FROM ducklake_file_column_stats WHERE data_file_id = 12`
	kill := `table_id="4" column_size_bytes="37" value_count="3" null_count="0" min_value="1" max_value="15003" contains_nan=NULL extra_stats=NULL`
	moved := func(by int) string {
		return fmt.Sprintf(`INSERT INTO ducklake_table SELECT * REPLACE ('moved/' AS path, begin_snapshot + %d AS begin_snapshot) FROM ducklake_table WHERE table_id = 4 AND end_snapshot IS NULL`, by)
	}
	for _, tc := range []struct {
		name  string
		a     []string // tampering A (none: A is the lake's catalog)
		stmts []string
		// want: substrings of the stats differences (as many as given,
		// and no other difference); none: equivalent.
		want []string
		// others: differences of other kinds are allowed (B's data files
		// differ from A's too); with no want, no stats difference.
		others bool
		// notWant: substrings no difference has.
		notWant []string
		// fail: the sides ("A", "B" or "AB") whose file listing fails,
		// with failErr (a plain error when nil); wantErr: then the error's
		// text, and errIs its kind.
		fail, wantErr string
		failErr       error
		errIs         error
	}{
		{name: "renumbered alike", stmts: renumber(true)},
		{name: "0.4 renumbered alike", stmts: append(as04, renumber(true)...)},
		{name: "renumbered without the statistics", stmts: renumber(false), want: []string{
			`data_file_id="0" column_id="1" only in A`, `data_file_id="0" (no data file in B (A's data file main/del/`}},
		{name: "id renamed", stmts: []string{renamed}, want: []string{
			`data_file_id="12" column_id="1" only in A`,
			`data_file_id="12" (no data file in B (A's data file main/kill_list/ducklake-01a229fa-2ab5-7484-84b3-23146dc1c4ac.parquet)) column_id="1" only in B`}},
		{name: "0.4 id renamed", stmts: append(as04, renamed), want: []string{
			`format 0.4 readers skip data file ducklake-01a229fa-2ab5-7484-84b3-23146dc1c4ac.parquet (data_file_id 13) under any filter on column id (id 1)`,
			`data_file_id="12" column_id="1" only in A`, `data_file_id="12" (no data file in B`}},
		{name: "ids swapped", stmts: []string{swapped}, want: []string{
			`data_file_id="10" column_id="1" differs: column_size_bytes, max_value, min_value, value_count`, `data_file_id="11" column_id="1" differs: column_size_bytes, max_value, min_value, value_count`}},
		{name: "statistics swapped", stmts: []string{`UPDATE ducklake_file_column_stats SET data_file_id = CASE data_file_id WHEN 10 THEN 11 ELSE 10 END WHERE data_file_id IN (10, 11)`}, want: []string{
			`data_file_id="10" column_id="1" differs: column_size_bytes, max_value, min_value, value_count`, `data_file_id="11" column_id="1" differs: column_size_bytes, max_value, min_value, value_count`}},
		// Every other id coincides: B's rows of file 12 are not A's rows
		// of file 12 when B has no file 12, or its file 12 is at a path A
		// has no file at.
		{name: "data file dropped", stmts: []string{`DELETE FROM ducklake_data_file WHERE data_file_id = 12`}, others: true, want: []string{
			`data_file_id="12" column_id="1" only in A`, `data_file_id="12" (no data file in B (A's data file main/kill_list/ducklake-01a229fa-2ab5-7484-84b3-23146dc1c4ac.parquet)) column_id="1" only in B`}},
		{name: "data file moved", stmts: []string{`UPDATE ducklake_data_file SET path = 'moved-' || path WHERE data_file_id = 12`}, others: true, want: []string{
			`data_file_id="12" column_id="1" only in A`, `data_file_id="12" (B's data file main/kill_list/moved-ducklake-01a229fa-2ab5-7484-84b3-23146dc1c4ac.parquet, which A names otherwise) column_id="1" only in B`}},
		// B naming file 12 under ids 12 and 13 too: both its rows for the
		// column are read, as two rows of A's file 12 (joined in text
		// order, as rows of one key are).
		{name: "file under two ids", stmts: []string{dup, dupStats}, others: true, want: []string{
			`data_file_id="12" column_id="1" differs: | ` + kill + ` (A: ` + kill + `; B: ` + kill + ` | ` + kill + `)`}},
		{name: "file under two ids, rows differ", stmts: []string{dup, dupStats, `UPDATE ducklake_file_column_stats SET value_count = 1 WHERE data_file_id = 13 AND column_id = 1`}, others: true, want: []string{
			`; B: ` + strings.Replace(kill, `value_count="3"`, `value_count="1"`, 1) + ` | ` + kill + `)`}},
		// An id is read as A's only where it names exactly the paths A's
		// id does: not B's file 12 at A's path and another; B's file 12
		// at the path A names under ids 12 and 13 is A's 12, and A's 13
		// has no rows in B.
		{name: "file at a second path", stmts: []string{`INSERT INTO ducklake_table SELECT * REPLACE ('moved/' AS path) FROM ducklake_table WHERE table_id = 4 AND end_snapshot IS NULL`}, others: true, want: []string{
			`data_file_id="12" column_id="1" only in A`, `data_file_id="12" (B's data file main/kill_list/ducklake-01a229fa-2ab5-7484-84b3-23146dc1c4ac.parquet, main/moved/ducklake-01a229fa-2ab5-7484-84b3-23146dc1c4ac.parquet, which A names otherwise) column_id="1" only in B`}},
		{name: "A's file under two ids", a: []string{dup, dupStats}, others: true, want: []string{
			`data_file_id="13" column_id="1" only in A`}, notWant: []string{`data_file_id="12"`}},
		// A and B naming file 12 under ids 12 and 13 alike (B a copy of
		// A): each id's rows are the same file's on both sides.
		{name: "both sides' file under two ids", a: []string{dup, dupStats}, stmts: []string{dup, dupStats}},
		{name: "both sides' file under two ids, rows of one id differ", a: []string{dup, dupStats},
			stmts: []string{dup, dupStats, `UPDATE ducklake_file_column_stats SET value_count = 1 WHERE data_file_id = 13 AND column_id = 1`},
			want:  []string{`data_file_id="13" column_id="1" differs: value_count`}},
		// 0.4 B's readers skip a file without statistics rows only where
		// it is A's file: not B's file 12 at a path A has no file at.
		{name: "0.4 data file moved without the statistics", stmts: append(slices.Clone(as04), `UPDATE ducklake_data_file SET path = 'moved-' || path WHERE data_file_id = 12`,
			`DELETE FROM ducklake_file_column_stats WHERE data_file_id = 12`), others: true,
			want: []string{`data_file_id="12" column_id="1" only in A`}, notWant: []string{"readers skip data file"}},
		// A's and B's file 12 under the same two table folders, listed
		// in the other order (by the folders' begin_snapshot): the same
		// paths.
		{name: "file at two paths, listed in another order", a: []string{moved(+1)}, stmts: []string{moved(-1)}, others: true},
		// A side's files cannot be listed: the rows cannot be tied to
		// files, and by bare id a B with ids 10 and 11 swapped (each file
		// pruned by the other's statistics) was proved equivalent.
		{name: "B's files not listed", stmts: []string{swapped}, fail: "B", errIs: ErrNotEquivalent,
			wantErr: "B cannot be read where A can: tie the file statistics rows of "},
		{name: "B's files not listed, B a copy", fail: "B", errIs: ErrNotEquivalent, wantErr: "B cannot be read where A can"},
		{name: "A's files not listed", stmts: []string{swapped}, fail: "A", errIs: ErrIncomparable,
			wantErr: "could not be compared: tie the file statistics rows of "},
		// Neither side's files can be listed: A's failure, listed first,
		// is what stops the comparison, not "B cannot be read where A
		// can"; B's listing failing with an I/O error (a *fs.PathError,
		// kept in the chain) is no difference of B either (mutation test,
		// session 24: each held with B listed first, or with the listing's
		// error flattened to text).
		{name: "neither side's files listed", stmts: []string{swapped}, fail: "AB", errIs: ErrIncomparable,
			wantErr: "could not be compared: tie the file statistics rows of "},
		{name: "B's files not listed, an I/O error", stmts: []string{swapped}, fail: "B", errIs: ErrIncomparable,
			failErr: &fs.PathError{Op: "read", Path: "injected", Err: syscall.EIO},
			wantErr: "could not be compared: tie the file statistics rows of "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := orig
			if len(tc.a) > 0 {
				a = tamper(t, orig, tc.a...)
			}
			b := tamper(t, orig, tc.stmts...)
			ctx := ctx
			if tc.fail != "" {
				failing := map[string]bool{}
				if strings.Contains(tc.fail, "A") {
					failing[a] = true
				}
				if strings.Contains(tc.fail, "B") {
					failing[b] = true
				}
				failErr := tc.failErr
				if failErr == nil {
					failErr = errors.New("injected: the files cannot be listed")
				}
				ctx = faults.With(ctx, func(p faults.Point) error {
					if p.Name == "compare/list" && failing[p.Path] {
						return failErr
					}
					return nil
				})
			}
			rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
			var lines []string
			if rep != nil {
				for _, d := range rep.Differences {
					lines = append(lines, d.String())
				}
			}
			if tc.fail != "" {
				if !errors.Is(err, tc.errIs) || !strings.Contains(fmt.Sprint(err), tc.wantErr) {
					t.Fatalf("error %v, want %v with %q\n%s", err, tc.errIs, tc.wantErr, strings.Join(lines, "\n"))
				}
				return
			}
			if len(tc.want) == 0 && tc.others {
				if rep == nil {
					t.Fatalf("no report: %v", err)
				}
				for _, d := range rep.Differences {
					if d.Kind == "stats" {
						t.Errorf("stats difference: %s\n%s", d, strings.Join(lines, "\n"))
					}
				}
				return
			}
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("not proved equivalent: %v\n%s", err, strings.Join(lines, "\n"))
				}
				return
			}
			if err == nil {
				t.Fatal("proved equivalent")
			}
			for _, d := range rep.Differences {
				for _, w := range tc.notWant {
					if strings.Contains(d.String(), w) {
						t.Errorf("difference with %q: %s", w, d)
					}
				}
			}
			for _, w := range tc.want {
				if !hasDifference(rep, "stats", w) {
					t.Errorf("no stats difference with %q in:\n%s", w, strings.Join(lines, "\n"))
				}
			}
			for _, d := range rep.Differences {
				if d.Kind != "stats" && !tc.others {
					t.Errorf("difference of kind %s: %s", d.Kind, d)
				}
			}
		})
	}
}

package convert

import (
	"context"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestExecInTransaction runs execInTransaction on a real DuckDB connection
// in an open transaction: a batch that runs leaves every statement's work;
// one whose statement fails names that statement (its what) and leaves
// the work of those before it; and a batch that fails while each of its
// statements runs alone (a statement ending in a "--" comment, which
// swallows the ";" the batch joins it to the next with) is an error
// naming the batch ("each alone ran"), not a success, with the work of
// every statement done.
func TestExecInTransaction(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		stmts []namedStmt
		// err: what the error must say, from its start (nil: no error);
		// rows: t's rows after.
		err  []string
		rows int
	}{
		{"every statement runs", []namedStmt{
			{"create t", "CREATE TABLE t (i INTEGER)"},
			{"write t", "INSERT INTO t VALUES (1), (2)"},
		}, nil, 2},
		{"a statement fails", []namedStmt{
			{"create t", "CREATE TABLE t (i INTEGER)"},
			{"write t", "INSERT INTO t VALUES (1)"},
			{"write missing", "INSERT INTO missing VALUES (1)"},
			{"write t again", "INSERT INTO t VALUES (2)"},
		}, []string{"write missing: ", "missing"}, 1},
		{"the batch fails, each alone runs", []namedStmt{
			{"create t", "CREATE TABLE t (i INTEGER) -- the table"},
			{"write t", "INSERT INTO t VALUES (1), (2), (3)"},
		}, []string{"2 statements in one batch (each alone ran): ", "Parser Error"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := testduck.Open(t, "")
			defer db.Close()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
				t.Fatal(err)
			}
			err = execInTransaction(ctx, conn, tc.stmts)
			switch {
			case tc.err == nil && err != nil:
				t.Fatalf("execInTransaction = %v, want nil", err)
			case tc.err != nil && err == nil:
				t.Fatalf("execInTransaction = nil, want an error saying %q", tc.err)
			}
			for i, s := range tc.err {
				// The first names what failed, first.
				if i == 0 && !strings.HasPrefix(err.Error(), s) || !strings.Contains(err.Error(), s) {
					t.Errorf("execInTransaction = %v, want it to say %q", err, s)
				}
			}
			// The caller's transaction is still open and holds the work.
			var n int
			if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
				t.Fatalf("read t in the open transaction: %v", err)
			}
			if n != tc.rows {
				t.Errorf("t holds %d rows, want %d", n, tc.rows)
			}
			if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
				t.Errorf("the caller's transaction is not open: COMMIT: %v", err)
			}
		})
	}
}

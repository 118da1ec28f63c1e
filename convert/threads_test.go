package convert

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
)

// TestAllThreads checks that a conversion's connection runs on one thread
// and that duckpool.AllThreads gives fn DuckDB's default threads (what a fresh
// database has) and puts the connection back on one thread, also when fn
// fails, so the statements after a data-reading check stay on one thread.
func TestAllThreads(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"succeeds", nil},
		{"fails", boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, want, current := threadsConn(t, ctx)
			if got := current(); got != 1 {
				t.Fatalf("threads of a conversion's connection = %d, want 1", got)
			}
			var inside int64
			err := duckpool.AllThreads(ctx, conn, func() error { inside = current(); return tc.err })
			if !errors.Is(err, tc.err) {
				t.Errorf("AllThreads = %v, want %v", err, tc.err)
			}
			if inside != want {
				t.Errorf("threads inside = %d, want %d (a fresh database's)", inside, want)
			}
			if got := current(); got != 1 {
				t.Errorf("threads after = %d, want 1", got)
			}
		})
	}
}

// TestReadsDataThreads checks a data-reading check's threads (run.readsData):
// one until its first read of rows (run.dataThreads), DuckDB's default from
// there, one again after it, also when it fails; and that a check that
// reads no rows, or dataThreads outside such a check, leaves one thread.
func TestReadsDataThreads(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		reads bool
		err   error
	}{
		{"reads and succeeds", true, nil},
		{"reads and fails", true, boom},
		{"reads nothing", false, nil},
		{"reads nothing and fails", false, boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, want, current := threadsConn(t, ctx)
			r := &run{ctx: ctx, w: &work{conn: conn, db: workDB}}
			if err := r.dataThreads(); err != nil || current() != 1 {
				t.Fatalf("dataThreads outside a check: %v, threads %d, want 1", err, current())
			}
			var before, inside int64
			_, err := r.readsData(func(r *run) ([]string, error) {
				before = current()
				if tc.reads {
					if err := r.dataThreads(); err != nil {
						return nil, err
					}
					if err := r.dataThreads(); err != nil { // a second read
						return nil, err
					}
				}
				inside = current()
				return nil, tc.err
			})
			if !errors.Is(err, tc.err) {
				t.Errorf("readsData = %v, want %v", err, tc.err)
			}
			wantInside := int64(1)
			if tc.reads {
				wantInside = want
			}
			if before != 1 || inside != wantInside {
				t.Errorf("threads before the first read %d, after it %d, want 1 and %d", before, inside, wantInside)
			}
			if got := current(); got != 1 {
				t.Errorf("threads after = %d, want 1", got)
			}
			if err := r.dataThreads(); err != nil || current() != 1 {
				t.Errorf("dataThreads after the check: %v, threads %d, want 1", err, current())
			}
		})
	}
}

// threadsConn gives a test a conversion's connection (openWork, from a
// pool), the threads a fresh database has (want), and a reading of the
// connection's threads setting.
func threadsConn(t *testing.T, ctx context.Context) (conn *sql.Conn, want int64, current func() int64) {
	t.Helper()
	engines := NewEngines(1)
	t.Cleanup(func() { engines.Close() })
	fresh, closeFresh, err := openDuckDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&want); err != nil {
		t.Fatal(err)
	}
	closeFresh()
	conn, release, err := openWork(ctx, engines, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	current = func() int64 {
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return conn, want, current
}

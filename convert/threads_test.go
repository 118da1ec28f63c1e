package convert

import (
	"context"
	"errors"
	"testing"
)

// TestOneThread checks that oneThread runs its function with DuckDB on one
// thread and gives the connection its threads back, also when the function
// fails, so the steps after the copy-in still read data files in parallel.
func TestOneThread(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	cases := []struct {
		name    string
		threads int64
		err     error
	}{
		{"succeeds", 3, nil},
		{"fails", 2, boom},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, closeDB, err := openDuckDB(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			if _, err := conn.ExecContext(ctx, "SET threads = ?", tc.threads); err != nil {
				t.Fatal(err)
			}
			threads := func() int64 {
				var n int64
				if err := conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			var inside int64
			err = oneThread(ctx, conn, func() error { inside = threads(); return tc.err })
			if !errors.Is(err, tc.err) {
				t.Errorf("oneThread = %v, want %v", err, tc.err)
			}
			if inside != 1 {
				t.Errorf("threads inside = %d, want 1", inside)
			}
			if got := threads(); got != tc.threads {
				t.Errorf("threads after = %d, want %d", got, tc.threads)
			}
		})
	}
}

package compare

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestReaderMaxSpill: ReaderOptions.MaxSpill bounds the reader's database's
// spill (max_temp_directory_size), with a database of its own and with one
// of Engines bounded otherwise; without it the Engines' bound holds.
// resolve --verify reads a catalog whole through such a reader, which
// spilled up to duckpool.MaxSpill whatever --max-spill said.
func TestReaderMaxSpill(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	versions, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
	if len(versions) == 0 {
		t.Fatal("no catalog in the lake")
	}
	engines := NewEngines(1)
	defer engines.Close()
	engines.SpillAtMost(64 << 20)
	for _, tc := range []struct {
		name string
		opts ReaderOptions
		want string
	}{
		{"own database", ReaderOptions{MaxSpill: 4 << 20}, "4.0 MiB"},
		{"engines bounded otherwise", ReaderOptions{MaxSpill: 4 << 20, Engines: engines}, "4.0 MiB"},
		{"engines' bound", ReaderOptions{Engines: engines}, "64.0 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := Open(ctx, versions[0], tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var got string
			if err := rd.conn.QueryRowContext(ctx, "SELECT current_setting('max_temp_directory_size')").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("max_temp_directory_size %s, want %s", got, tc.want)
			}
		})
	}
}

package convert

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestConversionMaxSpill: Options.MaxSpill bounds the conversion's
// database's spill (max_temp_directory_size), with a database of its own
// and with one of Engines bounded otherwise; without it the Engines' bound
// holds. The convert command's conversion spilled up to duckpool.MaxSpill
// whatever it was told (it had no --max-spill).
func TestConversionMaxSpill(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	engines := NewEngines(1)
	defer engines.Close()
	engines.SpillAtMost(64 << 20)
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"own database", Options{MaxSpill: 4 << 20}, "4.0 MiB"},
		{"engines bounded otherwise", Options{MaxSpill: 4 << 20, Engines: engines}, "4.0 MiB"},
		{"engines' bound", Options{Engines: engines}, "64.0 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.DataPath = filepath.Join(lake, "data")
			p, closeDB, err := prepare(ctx, src, []string{filepath.Join(t.TempDir(), "out.duckdb")}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			var got string
			if err := p.conn.QueryRowContext(ctx, "SELECT current_setting('max_temp_directory_size')").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("max_temp_directory_size %s, want %s", got, tc.want)
			}
		})
	}
}

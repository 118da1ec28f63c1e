package parquetsql

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestPathReadsThatFileOnly writes Parquet files whose names are glob
// patterns beside files those patterns match, and requires read_parquet of
// Path(name) to read the named file alone: as a plain path, as a file://
// URL, in a folder whose name is a pattern, and with a backslash in the
// name (which DuckDB's glob cannot match on Linux, so the literal path is
// read).
func TestPathReadsThatFileOnly(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	write := func(name string, v int) string {
		p := filepath.Join(dir, name)
		if _, err := db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT %d AS v) TO %s (FORMAT parquet)", v, literal(p))); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
		return p
	}
	// Decoys first: each is a file a pattern below would match.
	for i, name := range []string{"p1.parquet", "axxb.parquet", "q_r.parquet", "qzr.parquet"} {
		write(name, 100+i)
	}
	cases := []struct {
		name string
		path func(p string) string
	}{
		{"p[1].parquet", nil},
		{"a*b.parquet", nil},
		{"q?r.parquet", nil},
		{"p[1].parquet", func(p string) string { return "file://" + p }},
	}
	if runtime.GOOS != "windows" {
		cases = append(cases, struct {
			name string
			path func(p string) string
		}{`a\b[1].parquet`, nil})
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%s %d", tc.name, i), func(t *testing.T) {
			p := write(tc.name, i)
			if tc.path != nil {
				p = tc.path(p)
			}
			var n, v int
			if err := db.QueryRowContext(ctx, "SELECT count(*), max(v) FROM read_parquet("+Path(p)+")").Scan(&n, &v); err != nil {
				t.Fatalf("read_parquet(%s): %v", Path(p), err)
			}
			if n != 1 || v != i {
				t.Fatalf("read_parquet(%s): %d rows, max %d; want the file's one row, %d", Path(p), n, v, i)
			}
		})
	}
}

func TestPathLeavesURLsAndPlainPaths(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/data/a.parquet", "'/data/a.parquet'"},
		{"/data/it's.parquet", "'/data/it''s.parquet'"},
		{"/data/x=1/p[1]*?.parquet", "'/data/x=1/p[[]1][*][?].parquet'"},
		{"https://example.com/p[1].parquet", "'https://example.com/p[1].parquet'"},
		{"HTTP://example.com/a*.parquet", "'HTTP://example.com/a*.parquet'"},
		{"file:///data/p[1].parquet", "'file:///data/p[[]1].parquet'"},
	} {
		if got := Path(tc.in); got != tc.want {
			t.Errorf("Path(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

package convert

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestRewriteDeletesPublishNothingOnFailure: with --rewrite-deletes the
// rewritten delete files were linked into the data folder before the
// catalog was written, and stayed there when writing it failed (an output
// path in a missing folder). The catalog is now written first, under its
// temporary name: a conversion that cannot write it leaves the data
// folder as it was, and one that can publishes the files.
func TestRewriteDeletesPublishNothingOnFailure(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	ctx := context.Background()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dst string
		opts      Options
	}{
		{"missing folder", filepath.Join(t.TempDir(), "missing", "out.duckdb"), Options{}},
		{"folder is a file", filepath.Join(notDir, "out.duckdb"), Options{}},
		{"catalog write fails", filepath.Join(t.TempDir(), "out.duckdb"), Options{Storage: "v0.0.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, filepath.Join(lake, "data"), data)
			before := listTree(t, data)
			opts := tc.opts
			opts.RewriteDeletes, opts.DataPath = true, data
			if _, err := Catalog(ctx, src, tc.dst, formats.V0_3, opts); err == nil {
				t.Fatal("converted, want an error")
			}
			if got := listTree(t, data); !slices.Equal(got, before) {
				t.Errorf("a failed conversion left %d files in the data folder", len(got)-len(before))
			}
		})
	}
	data := filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	before := listTree(t, data)
	if _, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_3, Options{RewriteDeletes: true, DataPath: data}); err != nil {
		t.Fatal(err)
	}
	if got := listTree(t, data); len(got) <= len(before) {
		t.Error("no rewritten delete file published: the test tests nothing")
	}
}

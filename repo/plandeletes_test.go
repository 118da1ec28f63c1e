package repo

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestRemotePlanDeleteFileFooters: plan's conversion check of a bucket
// reads of a Parquet delete file what it reads of it, its columns (the
// two-column and partial-deletion checks: its footer, by ranged reads, as
// a data file's), not the whole file, and gives every cell the local
// plan's verdict. It downloaded every delete file whole into the cache
// before the check: here a delete file of 200,000 positions, about the
// size of the lake's data. A web site's plan, its server honouring Range
// or not, gives the same verdicts.
func TestRemotePlanDeleteFileFooters(t *testing.T) {
	if testing.Short() {
		t.Skip("checks conversions")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lake")
	if _, err := lakegen.Repository(ctx, dir, lakegen.Spec{Name: "dels", Versions: []lakegen.Version{{Message: "v1", Snapshots: []lakegen.Snapshot{
		{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}}}},
		{lakegen.Insert{Table: "t", Select: "SELECT i FROM range(400000) t(i)"}},
		{lakegen.Delete{Table: "t", Where: "id % 2 = 0"}},
	}}}}); err != nil {
		t.Fatal(err)
	}
	st, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var deletes int64
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "-delete.parquet") {
			if fi, err := d.Info(); err == nil {
				deletes += fi.Size()
			}
		}
		return nil
	})
	if deletes < 100<<10 {
		t.Fatalf("delete files of %d bytes, want a large one", deletes)
	}
	m, err := Plan(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := verdicts(m)

	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	m, err = Plan(ctx, bst, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(m)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("bucket plan: cell %s is %q, the local plan's %q", k, got[k], w)
		}
	}
	// Everything but the frozen catalogs: fdl.json, the versions' JSON
	// files, footers; not the delete files' rows.
	var frozen int64
	for _, v := range m.Versions {
		if fi, err := os.Stat(filepath.Join(dir, "versions", v.ID, "ducklake.duckdb")); err == nil {
			frozen += fi.Size()
		}
	}
	rest := m.Transfer.Downloaded - frozen
	t.Logf("downloaded %d bytes: frozen catalogs %d, the rest %d; delete files %d", m.Transfer.Downloaded, frozen, rest, deletes)
	if rest >= deletes/4 {
		t.Errorf("bucket plan downloaded %d bytes besides the frozen catalogs (%d), want less than a quarter of the delete files' %d: their footers alone", rest, frozen, deletes)
	}
	filepath.WalkDir(filepath.Join(cache, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, "-delete.parquet") && !strings.Contains(p, footersSuffix+string(os.PathSeparator)) {
			t.Errorf("bucket plan: delete file %s downloaded whole", p)
		}
		return nil
	})
	// A web site's delete files are fetched whole (its server may ignore
	// Range): one that honours Range and one that answers every read with
	// the whole file give the local plan's verdicts too.
	for _, ignore := range []bool{false, true} {
		wst, err := httpstore.New(webtest.Serve(t, dir, webtest.Options{IgnoreRange: ignore})+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Plan(ctx, wst, Options{Cache: t.TempDir()})
		if err != nil {
			t.Fatalf("web site (ignoring Range: %v) plan: %v", ignore, err)
		}
		got := verdicts(m)
		for k, w := range want {
			if got[k] != w {
				t.Errorf("web site (ignoring Range: %v) plan: cell %s is %q, the local plan's %q", ignore, k, got[k], w)
			}
		}
	}
}

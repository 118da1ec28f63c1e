package repo

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestCheckSelfReadsKeptOnWebSite: on a web site (a remote store, whose
// self-reads are not taken from the cache before the catalog is copied),
// a check again with the cache of the first finds every self-read kept,
// and check --json says so as in a folder: cached, nothing carried. It
// said cached false and gave each read the carried_snapshots of the run
// that kept it, though nothing was walked.
func TestCheckSelfReadsKeptOnWebSite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a seven-version lake twice on a web site")
	}
	ctx := context.Background()
	golden, res := carryHistory7(t)
	root := filepath.Join(t.TempDir(), "site")
	dir := filepath.Join(root, "lake")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(golden, dir); err != nil {
		t.Fatal(err)
	}
	setFormats(t, dir, frozenOnly)
	site, err := httpstore.New(webtest.Serve(t, root, webtest.Options{Validators: webtest.ETag})+"/lake", nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := coldRemote(t)
	first, err := Check(ctx, site, opts)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	carried := 0
	for _, sr := range first.SelfReads {
		carried += sr.CarriedSnapshots
	}
	if len(first.SelfReads) != len(res.Versions) || carried == 0 {
		t.Fatalf("first check: %d self-reads carrying %d snapshots in all, want %d and some carried", len(first.SelfReads), carried, len(res.Versions))
	}
	again, err := Check(ctx, site, opts)
	if err != nil {
		t.Fatalf("check again: %v", err)
	}
	if len(again.SelfReads) != len(res.Versions) {
		t.Fatalf("check again: %d self-reads, want %d", len(again.SelfReads), len(res.Versions))
	}
	for i, sr := range again.SelfReads {
		if !sr.OK || !sr.Cached || sr.CarriedSnapshots != 0 {
			t.Errorf("check again, version %d: self-read reported %+v, want ok, cached, nothing carried", i+1, *sr)
		}
	}
}

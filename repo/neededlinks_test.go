package repo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestUploadNewWalksDataFolderOnce: the readers with which a backfill of a
// remote repository lists the data files of each conversion's source and
// output (remote.needed, for uploadNew) share the run's Listings, as its
// other readers do, so the data folder (the cache's, which holds every
// data file the run fetched) is walked for symbolic links once while it
// does not change. They had none: each opened reader walked the whole
// folder again, two walks per cell (26 ms each for a folder of 10,000
// files, here).
func TestUploadNewWalksDataFolderOnce(t *testing.T) {
	_, root := deletesLake(t)
	site, err := httpstore.New(webtest.Serve(t, filepath.Dir(root), webtest.Options{Validators: webtest.ETag})+"/"+filepath.Base(root), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := coldRemote(t)
	r, err := load(context.Background(), site, &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if r.remote == nil {
		t.Fatal("a web site's repository has no remote")
	}
	var catalogs []string
	for _, p := range listFiles(t, filepath.Join(root, "versions")) {
		if strings.HasSuffix(p, ".duckdb") {
			catalogs = append(catalogs, filepath.Join(root, "versions", filepath.FromSlash(p)))
		}
	}
	if len(catalogs) < 2 {
		t.Fatalf("catalogs %v, want two or more", catalogs)
	}
	ctx, counts := countPoints(context.Background())
	for _, c := range catalogs[:2] {
		if _, err := r.remote.needed(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	walks := 0
	for _, n := range counts.at("compare/links") {
		walks += n
	}
	if walks != 1 {
		t.Errorf("two listings walked the data folder %d times (%v), want once", walks, counts.at("compare/links"))
	}
}

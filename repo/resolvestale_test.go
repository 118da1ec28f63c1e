package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
)

// TestResolveVerifyWholeGETFromStaleCopy: resolve --verify downloads the
// catalog it verifies. A web site whose whole GETs come from a stale copy
// (a CDN edge or replica: webtest's StaleRoot) while its HEADs and ranged
// GETs, which DuckDB reads, come from the origin: the origin's version 3
// has another frozen catalog (version 2's bytes) than version.json
// records, the edge the recorded one. resolve --verify verified the
// edge's bytes and told DuckDB to attach the catalog, which reads the
// origin's. Now the download is held to the ranged read of the object's
// end (copyHeld, as check's downloads are) and the catalog is passed
// over, naming it; from the origin alone it verifies.
func TestResolveVerifyWholeGETFromStaleCopy(t *testing.T) {
	ctx := context.Background()
	stale, _ := demoRepo(ctx, t)
	origin := t.TempDir()
	if err := copyTree(stale, origin); err != nil {
		t.Fatal(err)
	}
	ids := versionIDs(t, origin)
	frozen := func(i int) string { return filepath.Join(origin, "versions", ids[i], "ducklake.duckdb") }
	if err := os.Remove(frozen(2)); err != nil {
		t.Fatal(err)
	}
	copyFile(t, frozen(1), frozen(2))
	for _, tc := range []struct {
		name string
		opts webtest.Options
		ok   bool
	}{
		{"honest origin", webtest.Options{Validators: webtest.ETag}, true},
		{"stale whole GETs", webtest.Options{Validators: webtest.ETag, StaleRoot: stale}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			served := origin
			if tc.ok {
				served = stale // the origin is the recorded catalog
			}
			site, err := httpstore.New(webtest.Serve(t, served, tc.opts)+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Resolve(ctx, site, ResolveOptions{Version: ids[2], DuckDB: "1.5.2", Verify: true})
			key := "versions/" + ids[2] + "/ducklake.duckdb"
			if tc.ok {
				if err != nil || res.File == nil || res.File.Key != key || !res.File.Verified {
					t.Fatalf("Resolve = %v, file %+v; want %s verified", err, res.File, key)
				}
				return
			}
			if !errors.Is(err, ErrNoCatalog) {
				t.Fatalf("Resolve = %v (file %+v), want ErrNoCatalog: DuckDB reads the origin's bytes, not the recorded catalog", err, res.File)
			}
			var reasons []string
			for _, f := range res.Files {
				reasons = append(reasons, f.Key+": "+f.Reason)
			}
			if all := strings.Join(reasons, "\n"); !strings.Contains(all, key+": ") || !strings.Contains(all, "the store gave its size as") {
				t.Errorf("the frozen catalog is not passed over for the stale download:\n%s", all)
			}
		})
	}
}

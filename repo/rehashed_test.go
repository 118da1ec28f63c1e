package repo

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// TestRehashedOfCached: data_files_rehashed counts the reused copies that
// were read again and held to the bytes the store delivered, "of those"
// data_files_cached counts, as the field says. A restored cache (copied:
// every copy a new inode) without its kept proofs, so that the proofs read
// every copy, with one copy edited in the middle (same size and last
// bytes): that copy is found changed and downloaded again, counted as
// downloaded, neither cached nor re-hashed. Before, it was counted as
// re-hashed and then downloaded, so more copies read "read again" than
// reused.
func TestRehashedOfCached(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	site := webSite(t, webtest.Handler(lake11(t), webtest.Options{Validators: webtest.ETag}))
	first := t.TempDir()
	opts := Options{Formats: []string{"1.1"}, Jobs: 2, Cache: first, WorkDir: t.TempDir()}
	if _, err := Check(ctx, site, opts); err != nil {
		t.Fatalf("first check: %v", err)
	}
	restored := filepath.Join(t.TempDir(), "restored")
	if err := copyTree(first, restored); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(restored, "digests")); err != nil {
		t.Fatal(err)
	}
	edited := ""
	err := filepath.WalkDir(filepath.Join(restored, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || edited != "" || d.IsDir() || !strings.HasSuffix(p, ".parquet") || strings.Contains(p, "delete") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b[len(b)/2] ^= 0xff
		edited = p
		return os.WriteFile(p, b, 0o644)
	})
	if err != nil || edited == "" {
		t.Fatalf("no data file copy to edit in %s: %v", restored, err)
	}
	opts.Cache, opts.WorkDir = restored, t.TempDir()
	rep, err := Check(ctx, site, opts)
	if err != nil {
		t.Fatalf("check with the restored cache: %v (findings %q)", err, findingLines(rep))
	}
	tr := rep.Transfer
	t.Logf("transfer %+v (edited %s)", tr, edited)
	if tr.DataFiles != 1 || tr.Cached == 0 || tr.Rehashed == 0 || tr.Rehashed > tr.Cached {
		t.Errorf("transfer: %d data files downloaded, %d reused, %d of them read again; want the edited copy downloaded (1) and at most the %d reused read again",
			tr.DataFiles, tr.Cached, tr.Rehashed, tr.Cached)
	}
}

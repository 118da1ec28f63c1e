package repo

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestFooterCacheHygiene: stand-ins of the first layout (directly in
// <hash>.footers/) were never read again yet stayed, counted toward the
// cache's bound, until the whole mirror was pruned; temporary files a
// crashed run left in a key's folder stayed for good. A warm plan now
// removes both, keeps the v2 stand-ins it reads, and leaves the
// temporary files of live runs (and fresh ones it cannot tell) alone.
func TestFooterCacheHygiene(t *testing.T) {
	if testing.Short() {
		t.Skip("checks conversions")
	}
	ctx := context.Background()
	st := quirksLake(t)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, st.Root(), bucket, "lake")
	bst, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Formats: []string{"0.3", "0.4"}, Cache: t.TempDir()}
	if _, err := Plan(ctx, bst, opts); err != nil {
		t.Fatalf("cold plan: %v", err)
	}
	v2, err := filepath.Glob(filepath.Join(opts.Cache, "objects", "*"+footersSuffix, footersLayout, "*", "*.parquet"))
	if err != nil || len(v2) == 0 {
		t.Fatalf("cold plan kept no stand-in (%v)", err)
	}
	keyDir := filepath.Dir(v2[0])
	flat := filepath.Dir(filepath.Dir(keyDir))

	write := func(path string, age time.Duration) string {
		t.Helper()
		if err := os.WriteFile(path, []byte("PAR1"), 0o644); err != nil {
			t.Fatal(err)
		}
		if age > 0 {
			old := time.Now().Add(-age)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	oldLayout := write(filepath.Join(flat, "0123456789abcdef0123456789abcdef-0123456789abcdef0123456789abcdef.parquet"), 0)
	staleTemp := write(filepath.Join(keyDir, footerTemp+"123456789"), 48*time.Hour)
	freshTemp := write(filepath.Join(keyDir, footerTemp+"987654321"), 0)
	live, err := scratch.CreateTemp(keyDir, footerTemp, "")
	if err != nil {
		t.Fatal(err)
	}
	live.Close()

	m, err := Plan(ctx, bst, opts)
	if err != nil {
		t.Fatalf("warm plan: %v", err)
	}
	if m.Transfer.FootersCached == 0 {
		t.Fatalf("warm plan: transfer %+v, want footers from the cache", m.Transfer)
	}
	gone := func(p string) bool { _, err := os.Lstat(p); return os.IsNotExist(err) }
	for _, p := range []string{oldLayout, staleTemp} {
		if !gone(p) {
			t.Errorf("warm plan left %s", p)
		}
	}
	for _, p := range append([]string{freshTemp, live.Name()}, v2...) {
		if gone(p) {
			t.Errorf("warm plan removed %s", p)
		}
	}
}

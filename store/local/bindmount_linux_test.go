package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
)

// TestCreateIntoBindMount publishes into versions/, a bind mount of a
// folder of the root's own file system (as a container's volume is): the
// same device number as the root, yet link(2) from the root's .fdl-tmp
// fails with EXDEV, so the temporary file is staged at the mount's top.
// Mounting needs privileges: skipped without them (the test across file
// systems, TestCreateOnAnotherFileSystem, runs everywhere).
func TestCreateIntoBindMount(t *testing.T) {
	ctx := context.Background()
	l := newLocal(t)
	src := filepath.Join(t.TempDir(), "versions")
	dst := filepath.Join(l.Root(), "versions")
	for _, d := range []string{src, dst} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount %s on %s: %v (needs privileges)", src, dst, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dst, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dst, err)
		}
	})
	// What Create did before: link from the root's temporary folder.
	probe := filepath.Join(l.Root(), "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(probe, filepath.Join(dst, "probe")); !errors.Is(err, syscall.EXDEV) {
		t.Fatalf("link across the bind mount: %v, want EXDEV (else this test proves nothing)", err)
	}
	os.Remove(probe)
	key := "versions/v/catalogs/1.0.duckdb"
	if err := l.Create(ctx, key, strings.NewReader("catalog")); err != nil {
		t.Fatalf("Create into a bind mount: %v", err)
	}
	if err := l.Create(ctx, key, strings.NewReader("other")); !errors.Is(err, store.ErrExists) {
		t.Errorf("second Create error = %v, want ErrExists", err)
	}
	if got, err := store.ReadAll(ctx, l, key); err != nil || string(got) != "catalog" {
		t.Errorf("read = %q, %v", got, err)
	}
	if got, _ := l.StageDir("versions/v/catalogs"); got != filepath.Join(dst, TempDirName) {
		t.Errorf("StageDir = %s, want the mount's top", got)
	}
}

package store

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCounter(t *testing.T) {
	ctx := context.Background()
	c := NewCounter(NewMem())
	if err := c.Create(ctx, "a", strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := c.Create(ctx, "b", f); err != nil {
		t.Fatal(err)
	}
	// Refused: already there; nothing uploaded.
	if err := c.Create(ctx, "a", strings.NewReader("again")); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create = %v", err)
	}
	if got := c.Uploaded(); got != 15 {
		t.Errorf("Uploaded = %d, want 15", got)
	}
	rc, err := c.Open(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	io.CopyN(io.Discard, rc, 4)
	rc.Close()
	if got := c.Downloaded(); got != 4 {
		t.Errorf("Downloaded = %d, want 4 (bytes read, not object sizes)", got)
	}
}

package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// TestCreateSyncsNamesOnce: a Store syncs a folder's parent for the
// folder's own name once, not at every Create below it: a backfill
// published each of its 40 catalogs with four folder syncs (the catalogs
// folder, the version's, versions/ and the root). The folder holding the
// new file is synced every time (its new entry); a folder's parent is
// synced again once the folder changed (an entry added: the version's
// folder for its catalogs/ at the version's second catalog) or another
// folder took its path.
func TestCreateSyncsNamesOnce(t *testing.T) {
	l := newLocal(t)
	// A repository's version folders are there before its catalogs.
	for _, v := range []string{"versions/v", "versions/w"} {
		if err := os.MkdirAll(filepath.Join(l.Root(), v), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var synced []string
	ctx := faults.With(context.Background(), func(p faults.Point) error {
		if p.Name == "local/syncdir" {
			rel, err := filepath.Rel(l.Root(), p.Path)
			if err != nil {
				return err
			}
			synced = append(synced, filepath.ToSlash(rel))
		}
		return nil
	})
	for _, step := range []struct {
		key    string
		before func()
		want   []string
	}{
		{key: "versions/v/catalogs/0.4.duckdb", want: []string{"versions/v/catalogs", "versions/v", "versions", "."}},
		// catalogs/ changed (0.4's entry): its name is synced again, not
		// versions/v's nor versions/'s.
		{key: "versions/v/catalogs/1.1.duckdb", want: []string{"versions/v/catalogs", "versions/v"}},
		{key: "versions/w/catalogs/0.4.duckdb", want: []string{"versions/w/catalogs", "versions/w", "versions"}},
		{key: "fdl.json", want: []string{"."}},
		{
			// Another writer moved the version folder away and a new one
			// took its path: its names are synced again (the rename
			// changed versions/ too).
			key: "versions/v/catalogs/1.0.duckdb",
			before: func() {
				if err := os.Rename(filepath.Join(l.Root(), "versions/v"), filepath.Join(l.Root(), "versions/old")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"versions/v/catalogs", "versions/v", "versions", "."},
		},
	} {
		if step.before != nil {
			step.before()
		}
		synced = nil
		if err := l.Create(ctx, step.key, strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
		if strings.Join(synced, " ") != strings.Join(step.want, " ") {
			t.Errorf("Create %s synced %q, want %q", step.key, synced, step.want)
		}
	}
}

// TestCreateSyncsNameAfterFailedSync: a folder sync that fails leaves the
// names it would have made durable unrecorded: the next Create syncs them.
func TestCreateSyncsNameAfterFailedSync(t *testing.T) {
	l := newLocal(t)
	fail := true
	var synced []string
	ctx := faults.With(context.Background(), func(p faults.Point) error {
		if p.Name != "local/syncdir" {
			return nil
		}
		rel, err := filepath.Rel(l.Root(), p.Path)
		if err != nil {
			return err
		}
		if rel == "versions" && fail {
			fail = false
			return os.ErrPermission
		}
		synced = append(synced, filepath.ToSlash(rel))
		return nil
	})
	if err := l.Create(ctx, "versions/v/catalogs/0.4.duckdb", strings.NewReader("x")); err == nil {
		t.Fatal("Create with a failing folder sync succeeded")
	}
	synced = nil
	if err := l.Create(ctx, "versions/v/catalogs/1.1.duckdb", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if want := "versions/v/catalogs versions/v versions ."; strings.Join(synced, " ") != want {
		t.Errorf("Create after a failed sync synced %q, want %q", synced, want)
	}
}

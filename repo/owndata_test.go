package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOwnDataFolder: Check and Backfill of a repository in a local folder
// take no Options.DataPath other than its own data folder (the CLI refused
// --data so; the library went on, proving and converting on files the
// repository's readers never open), naming both folders; its own folder,
// by any path, is taken, and Plan takes any folder.
func TestOwnDataFolder(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	own := filepath.Join(root, "data")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	check := func(dp string) error {
		_, err := Check(ctx, st, Options{Formats: []string{"1.1"}, Versions: []string{"1"}, DataPath: dp, WorkDir: t.TempDir()})
		return err
	}
	backfill := func(dp string) error {
		_, err := Backfill(ctx, st, Options{Formats: []string{"1.1"}, Versions: []string{"1"}, DryRun: true, DataPath: dp, WorkDir: t.TempDir()})
		return err
	}
	plan := func(dp string) error {
		_, err := Plan(ctx, st, Options{Formats: []string{"1.1"}, Versions: []string{"1"}, DataPath: dp, WorkDir: t.TempDir()})
		return err
	}
	for _, tc := range []struct {
		name    string
		run     func(string) error
		dp      string
		refused bool
	}{
		{"check, another folder", check, elsewhere, true},
		{"backfill, another folder", backfill, elsewhere, true},
		{"check, a folder that does not exist", check, filepath.Join(elsewhere, "none"), true},
		{"check, its own folder", check, own, false},
		{"check, no folder given", check, "", false}, // mutation test, session 23
		{"backfill, no folder given", backfill, "", false},
		{"check, a link to its own folder", check, link, false},
		{"backfill, its own folder", backfill, own, false},
		{"plan, another folder", plan, elsewhere, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(tc.dp)
			var e *NotOwnDataFolderError
			if got := errors.As(err, &e); got != tc.refused {
				t.Fatalf("err = %v; want refused: %t", err, tc.refused)
			}
			if tc.refused && (e.DataPath != tc.dp || e.Own != own) {
				t.Errorf("refusal names %s and %s, want %s and %s", e.DataPath, e.Own, tc.dp, own)
			}
			if !tc.refused && err != nil && !errors.Is(err, ErrWorkMissing) {
				t.Errorf("err = %v", err)
			}
			if !tc.refused {
				if err := OwnDataFolder(ctx, st, tc.dp); err != nil && tc.name != "plan, another folder" {
					t.Errorf("OwnDataFolder(%s) = %v", tc.dp, err)
				}
			}
		})
	}
}

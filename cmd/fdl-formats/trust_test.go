package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/repo"
)

// TestS3PublishedOnlyDataFile: a data file in the bucket of another size
// than recorded, which only a published catalog names (a delete file
// --rewrite-deletes wrote for catalogs/0.3.duckdb; the frozen catalog,
// whose content pass checks its own files, does not name it), makes check
// exit 3 with a difference naming the file: with a local --data folder
// holding the right bytes (the store is asked for the file's size: before
// 68ca657 its other size was "unverifiable", exit 4) and with the data
// cache (the bucket's bytes are downloaded and proved).
func TestS3PublishedOnlyDataFile(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	dir := copyRepo(t, "lakes", "06_deletes")
	if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	for _, p := range dataFiles(t, dir) {
		before[p] = true
	}
	only := []string{"--versions=2", "--formats=0.3"}
	if _, errOut, code := runApp(t, append(append([]string{"--log-level", "error", "backfill", remoteNow}, only...), "--rewrite-deletes", dir)...); code != exitOK {
		t.Fatalf("backfill --rewrite-deletes: exit %d\n%s", code, errOut)
	}
	var rewritten string
	for _, p := range dataFiles(t, dir) {
		if !before[p] {
			rewritten = p
		}
	}
	if rewritten == "" {
		t.Fatal("backfill --rewrite-deletes wrote no delete file")
	}
	rel, err := filepath.Rel(dir, rewritten)
	if err != nil {
		t.Fatal(err)
	}
	rel = filepath.ToSlash(rel) // data/main/...
	srv := s3test.Start(t)
	client := srv.Client()
	for _, tc := range []struct {
		name   string
		bucket bool
		args   []string
		detail string
	}{
		{"folder", false, nil, ""},
		{"bucket with a data folder", true, []string{"--data=" + filepath.Join(dir, "data")}, "bytes in the store, the catalog records"},
		{"bucket through the data cache", true, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"--cache=" + t.TempDir()}, tc.args...), only...)
			if tc.bucket {
				bucket := srv.Bucket(t)
				srv.Upload(t, dir, bucket, "lake")
				key := "lake/" + rel
				putObject(t, client, bucket, key, getObject(t, client, bucket, key)+"longer")
				args = append(args, "s3://"+bucket+"/lake")
			} else {
				local := filepath.Join(t.TempDir(), "lake")
				if err := os.CopyFS(local, os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(filepath.Join(local, filepath.FromSlash(rel)), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString("longer"); err != nil {
					t.Fatal(err)
				}
				f.Close()
				args = append(args, local)
			}
			rep, errOut, code := checkReport(t, args...)
			if code != exitDifferent || rep == nil {
				t.Fatalf("check: exit %d, want %d\n%s", code, exitDifferent, errOut)
			}
			found := false
			for _, f := range rep.Findings {
				found = found || (f.Kind == repo.KindDifference && strings.Contains(f.Detail, strings.TrimPrefix(rel, "data/")) && strings.Contains(f.Detail, tc.detail))
			}
			if !found {
				t.Errorf("no difference naming %s (and %q): %+v", rel, tc.detail, rep.Findings)
			}
		})
	}
}

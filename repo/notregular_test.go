package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDataNotRegularFile: a data or delete file of a local repository
// replaced by a FIFO (what a hung network mount looks like too: open(2)
// blocks) made check hang with no word. It is now found with stat before
// anything opens it, and reported as a difference naming the file, in the
// words of an entry of catalogs/ that is not a regular file ("a special
// file in ..., where only regular files may be"): with missing cells
// (their checks read the files), and with published catalogs (their
// proofs read them).
func TestDataNotRegularFile(t *testing.T) {
	ctx := context.Background()
	golden, popts := publishedLake(t)
	for _, tc := range []struct {
		name      string
		file      string
		published bool
	}{
		{"data file, cells missing", delData, false},
		{"delete file, cells missing", delDelete, false},
		{"data file, catalogs published", delData, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			opts := Options{Versions: []string{"3"}, Formats: []string{"1.0", "1.1"}, Jobs: 2}
			if tc.published {
				st, root = cloneRepo(t, golden)
				opts = popts
			}
			p := filepath.Join(root, "data", "main", "del", tc.file)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			type result struct {
				rep *CheckReport
				err error
			}
			done := make(chan result, 1)
			go func() {
				rep, err := Check(ctx, st, opts)
				done <- result{rep, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("check still running after 2 minutes: it opened the FIFO")
			}
			if !errors.Is(res.err, ErrDifferences) {
				t.Fatalf("Check = %v, want a difference", res.err)
			}
			want := "main/del/" + tc.file + ", a special file in data_dir, where only regular files may be"
			found := false
			for _, f := range res.rep.Findings {
				if f.Kind == KindDifference && strings.Contains(f.Detail, want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no difference naming %q in %+v", want, res.rep.Findings)
			}
		})
	}
}

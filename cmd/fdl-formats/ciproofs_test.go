package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/repo"
)

// TestS3CopiedCacheKeepsProofs: a check of a bucket with a copy of an
// earlier check's cache folder (cp -a, or through tar as actions/cache
// restores it), at another path, finds every proof kept, downloads no data
// file and reads no copy again (no proof reads one); a copy changed in the
// cache is left unread while every proof is kept, and downloaded again
// before a proof that is not reads it; an object replaced in the bucket by
// the same bytes under a new ETag makes the proofs that name it prove
// again.
func TestS3CopiedCacheKeepsProofs(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv, bucket, url, first := backfilledBucket(t)
	// One published format's proofs: they read every data file, which
	// the 0.4 proofs read again.
	one := "--formats=1.1"
	rep, errOut, code := checkReport(t, one, "--cache="+first, url)
	if code != exitOK || len(rep.Proofs) == 0 {
		t.Fatalf("check: exit %d\n%s", code, errOut)
	}
	for _, how := range []struct {
		name string
		copy func(t *testing.T, src, dst string)
	}{{"cp -a", cpArchive}, {"tar", tarCopy}} {
		dst := filepath.Join(t.TempDir(), "restored")
		how.copy(t, first, dst)
		rep, errOut, code := checkReport(t, one, "--cache="+dst, url)
		if code != exitOK {
			t.Fatalf("%s: check: exit %d\n%s", how.name, code, errOut)
		}
		if n := cachedProofs(rep); n != len(rep.Proofs) {
			t.Errorf("%s: %d of %d proofs taken from the copied cache, want all", how.name, n, len(rep.Proofs))
		}
		if tr := rep.Transfer; tr.DataFiles != 0 || tr.Cached == 0 || tr.Rehashed != 0 {
			t.Errorf("%s: transfer %+v, want every data file reused, none read again", how.name, tr)
		}
	}

	// A copy changed in the cache (same size, same last bytes, same
	// record): while every proof is kept nothing reads it; with no proof
	// kept it is downloaded again before the proofs read it.
	edited := filepath.Join(t.TempDir(), "edited")
	cpArchive(t, first, edited)
	var copyPath string
	filepath.WalkDir(filepath.Join(edited, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && copyPath == "" && strings.HasSuffix(p, ".parquet") {
			copyPath = p
		}
		return err
	})
	b := editMiddle(t, copyPath)
	rep, errOut, code = checkReport(t, one, "--cache="+edited, url)
	if tr := rep.Transfer; code != exitOK || tr.DataFiles != 0 || tr.Rehashed != 0 || cachedProofs(rep) != len(rep.Proofs) {
		t.Fatalf("check with a copy changed in the cache, every proof kept: exit %d, transfer %+v, %d of %d proofs kept; want none read nor downloaded\n%s", code, tr, cachedProofs(rep), len(rep.Proofs), errOut)
	}
	if err := os.RemoveAll(filepath.Join(edited, "digests")); err != nil {
		t.Fatal(err)
	}
	rep, errOut, code = checkReport(t, one, "--cache="+edited, url)
	if code != exitOK || rep.Transfer.DataFiles != 1 || cachedProofs(rep) != 0 {
		t.Fatalf("check with a copy changed in the cache: exit %d, transfer %+v, %d proofs kept; want that file downloaded again and every proof made\n%s", code, rep.Transfer, cachedProofs(rep), errOut)
	}
	if got, err := os.ReadFile(copyPath); err != nil || bytes.Equal(got, b) {
		t.Errorf("the changed copy is still in the cache (%v)", err)
	}

	// The same bytes under a new ETag (a multipart upload's): the proofs
	// naming the object prove again, the others stay kept.
	var key string
	for _, k := range srv.Keys(t, bucket) {
		if strings.HasPrefix(k, "lake/data/") && strings.HasSuffix(k, ".parquet") {
			key = k
			break
		}
	}
	client := srv.Client()
	s3test.PutMultipart(t, client, bucket, key, []byte(getObject(t, client, bucket, key)))
	rep, errOut, code = checkReport(t, one, "--cache="+first, url)
	if code != exitOK || rep.Transfer.DataFiles != 1 || cachedProofs(rep) == len(rep.Proofs) {
		t.Fatalf("check after %s got a new ETag: exit %d, transfer %+v, %d of %d proofs kept; want it downloaded and the proofs naming it made again\n%s", key, code, rep.Transfer, cachedProofs(rep), len(rep.Proofs), errOut)
	}
}

// TestS3CopiedCachePlanHoldsFooters: plan's conversion check of a missing
// cell reads the footers of the data files whose copies are in the cache
// (field ids: lake 06_deletes is 1.0, whose readers and 0.4's read unmapped
// files differently, so its missing 0.4 cell reads them). With a restored
// cache whose copies have a byte of their footer changed (same size, same
// last 8 bytes), plan and check read the store's bytes: the footers by
// ranged reads of the objects, and the cell is missing (check exit 5), not an error
// read from the changed footers (before: plan showed the cell in error,
// check exited 4). The footer stand-ins the first run's downloads left
// beside the mirror are changed too: each is held to the sha256 its name
// records, and not used.
func TestS3CopiedCachePlanHoldsFooters(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv, bucket, url, first := backfilledBucket(t)
	var missing string
	for _, k := range srv.Keys(t, bucket) {
		if strings.HasSuffix(k, "/catalogs/0.4.duckdb") {
			missing = k // the newest version's, keys sorting by version id
		}
	}
	if _, err := srv.Client().DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &bucket, Key: &missing}); err != nil {
		t.Fatal(err)
	}
	edited := func() string {
		dst := filepath.Join(t.TempDir(), "restored")
		cpArchive(t, first, dst)
		n := 0
		filepath.WalkDir(filepath.Join(dst, "objects"), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, "-delete.parquet") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			footer := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
			b[len(b)-8-footer/2] ^= 0xff
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			n++
			return nil
		})
		if n == 0 {
			t.Fatal("no data file copied in the cache")
		}
		return dst
	}

	out, errOut, code := runApp(t, "--log-level", "error", "plan", remoteNow, "--cache="+edited(), url)
	if code != exitOK || strings.Contains(out, "error") || !strings.Contains(out, "missing") {
		t.Errorf("plan with footers changed in the cache: exit %d, want the cell missing, not in error\n%s\n%s", code, out, errOut)
	}
	rep, errOut, code := checkReport(t, "--cache="+edited(), url)
	if code != exitMissing {
		t.Fatalf("check with footers changed in the cache: exit %d, want %d (missing)\n%s", code, exitMissing, errOut)
	}
	// The conversion's check reads the footers of copies not yet held to
	// the store's bytes from the store (ranged reads), not the copies: no
	// copy is read again or downloaded (before: every one, re-hashed and
	// downloaded again).
	if tr := rep.Transfer; tr.Footers == 0 || tr.Rehashed != 0 || tr.DataFiles != 0 {
		t.Errorf("check with footers changed in the cache: transfer %+v, want the footers read from the store and no copy read again", tr)
	}
}

// TestWebCopiedCacheWeakValidators: a web server whose files have only a
// Last-Modified time and size (Go's file server; nginx's and Apache's
// ETags are made of them) names no bytes: a copy of the cache folder finds
// no proof kept. One with strong ETags, made from the content, does.
func TestWebCopiedCacheWeakValidators(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	for _, tc := range []struct {
		name       string
		validators webtest.Validators
		kept       bool
	}{{"last-modified", webtest.LastModified, false}, {"etag", webtest.ETag, true}} {
		t.Run(tc.name, func(t *testing.T) {
			url := webtest.Serve(t, root, webtest.Options{Validators: tc.validators}) + "/lake"
			first := t.TempDir()
			// One published format's proofs: they read every data
			// file, which the 0.4 proofs read again.
			one := "--formats=1.1"
			if rep, errOut, code := checkReport(t, one, "--cache="+first, url); code != exitOK || rep.Transfer.DataFiles == 0 {
				t.Fatalf("check: exit %d\n%s", code, errOut)
			}
			dst := filepath.Join(t.TempDir(), "restored")
			tarCopy(t, first, dst)
			rep, errOut, code := checkReport(t, one, "--cache="+dst, url)
			if code != exitOK {
				t.Fatalf("check with the copied cache: exit %d\n%s", code, errOut)
			}
			want := 0
			if tc.kept {
				want = len(rep.Proofs)
			}
			if n := cachedProofs(rep); n != want {
				t.Errorf("%d of %d proofs taken from the copied cache, want %d", n, len(rep.Proofs), want)
			}
		})
	}
}

func cachedProofs(rep *repo.CheckReport) int {
	n := 0
	for _, p := range rep.Proofs {
		if p.Cached {
			n++
		}
	}
	return n
}

// cpArchive copies folder src to dst as `cp -a` does.
func cpArchive(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
}

// tarCopy copies folder src to dst through a tar archive, as actions/cache
// saves and restores a folder: the files' modification times kept, their
// inodes new.
func tarCopy(t *testing.T, src, dst string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.AddFS(os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fs.FileMode(h.Mode))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, tr); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, h.ModTime, h.ModTime); err != nil {
			t.Fatal(err)
		}
	}
}

// backfilledBucket is s3Lake's bucket backfilled with the cache folder
// first: its repository's url, and first holding the copies and proofs.
func backfilledBucket(t *testing.T) (srv *s3test.Server, bucket, url, first string) {
	t.Helper()
	srv, bucket = s3Lake(t)
	url = "s3://" + bucket + "/lake"
	first = t.TempDir()
	if rep, errOut, code := backfillJSON(t, "--cache="+first, url); code != exitOK || rep.Counts[repo.Written] == 0 {
		t.Fatalf("backfill: exit %d\n%s", code, errOut)
	}
	return srv, bucket, url, first
}

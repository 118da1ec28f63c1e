package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// TestS3RestoredCacheNewVersion: the nightly CI case. A bucket's
// repository was checked and its cache kept; one version is published
// (two new data files); the check with the cache restored (cp -a, at
// another path: every copy a new inode) finds every older proof kept and
// reads again only the copies the new version's proofs read: the delete
// file of version 3, still visible (a proof reads the positions it
// deletes), not the data files, whose digests, schemas and footers the
// cache holds. A copy edited in the cache that no proof reads stays unread
// (the bucket is sound: exit 0); an edited copy of the file the new proofs
// read is found and downloaded again before they read it.
func TestS3RestoredCacheNewVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("backfills and checks a lake in a bucket")
	}
	dir := fourVersionHistory(t)
	if _, errOut, code := runApp(t, "backfill", remoteNow, dir); code != exitOK {
		t.Fatalf("local backfill: exit %d\n%s", code, errOut)
	}
	ids := versionDirs(t, dir)
	last := ids[len(ids)-1]
	held, names, added := holdBackLastVersion(t, dir)

	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	url := "s3://" + bucket + "/lake"
	first := t.TempDir()
	if rep, errOut, code := checkReport(t, "--cache="+first, url); code != exitOK || len(rep.Proofs) == 0 {
		t.Fatalf("check before the new version: exit %d\n%s", code, errOut)
	}
	kept := len(ids) - 1 // versions whose proofs the first check kept
	srv.Upload(t, held, bucket, "lake")

	// The copies in the cache: the delete file is read by the new
	// version's proofs; no data file is.
	readByNew, unread := deleteFileBefore(t, names, added), names[0]
	for _, tc := range []struct {
		name   string
		edited string // a copy edited in the restored cache
		// data files downloaded: the new version's, and an edited copy
		// a proof reads
		downloads int
	}{
		{"restored", "", len(added)},
		{"copy no proof reads edited", unread, len(added)},
		{"copy the new proofs read edited", readByNew, len(added) + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			restored := filepath.Join(t.TempDir(), "restored")
			cpArchive(t, first, restored)
			var before []byte
			if tc.edited != "" {
				before = editMiddle(t, cachedCopy(t, restored, tc.edited))
			}
			rep, errOut, code := checkReport(t, "--cache="+restored, url)
			if code != exitOK || rep == nil {
				t.Fatalf("check: exit %d\n%s", code, errOut)
			}
			n, want := 0, 0
			for _, p := range rep.Proofs {
				if p.Cached {
					n++
				}
				if p.Version != last {
					want++
				}
			}
			if n != want || want == 0 {
				t.Errorf("%d of %d proofs kept, want the %d of the %d older versions", n, len(rep.Proofs), want, kept)
			}
			// Only the one old copy the new proofs read is read again
			// (held to the bytes downloaded), not every copy: before,
			// every one of them. Edited, it is downloaded again instead of
			// reused: counted as downloaded, not as read again.
			rehashed := 1
			if tc.edited == readByNew {
				rehashed = 0
			}
			if tr := rep.Transfer; tr.DataFiles != tc.downloads || tr.Rehashed != rehashed {
				t.Errorf("transfer %+v: want %d data files downloaded and %d copy read again (of %d reused)", tr, tc.downloads, rehashed, tr.Cached)
			}
			if tc.edited != "" {
				after, err := os.ReadFile(cachedCopy(t, restored, tc.edited))
				if err != nil {
					t.Fatal(err)
				}
				if changed := !slices.Equal(before, after); changed != (tc.edited == readByNew) {
					t.Errorf("edited copy of %s downloaded again: %v, want %v", tc.edited, changed, tc.edited == readByNew)
				}
			}
		})
	}
}

// versionDirs lists a local repository's version ids, oldest first.
func versionDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "versions"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	slices.Sort(ids)
	return ids
}

// TestS3RestoredCacheBackfillNewVersion: backfill of a bucket repository
// with a restored cache (cp -a: new stamps) after one new version was
// published converts and proves the new version's cells, holding to the
// store's bytes only the copies its conversion and proofs read: the
// conversion's footer checks read the footers of the copies they would
// otherwise hash by ranged reads (convert.ReadGate, Options.Footers). An
// edited copy no read opens stays as it is; one a proof reads is caught
// and downloaded again. Before, every reused copy was read again first.
func TestS3RestoredCacheBackfillNewVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("backfills a lake in a bucket")
	}
	dir := fourVersionHistory(t)
	held, names, added := holdBackLastVersion(t, dir)
	if _, errOut, code := runApp(t, "backfill", remoteNow, dir); code != exitOK {
		t.Fatalf("local backfill: exit %d\n%s", code, errOut)
	}

	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	url := "s3://" + bucket + "/lake"
	first := t.TempDir()
	if rep, errOut, code := checkReport(t, "--cache="+first, url); code != exitOK || len(rep.Proofs) == 0 {
		t.Fatalf("check before the new version: exit %d\n%s", code, errOut)
	}
	srv.Upload(t, held, bucket, "lake")

	restored := filepath.Join(t.TempDir(), "restored")
	cpArchive(t, first, restored)
	// Edited copies: same size, same footer and last bytes. The delete
	// file is read by the new version's proofs; the first data file by
	// nothing but the footer checks.
	readByNew, unread := deleteFileBefore(t, names, added), names[0]
	edited := map[string][]byte{}
	for _, n := range []string{unread, readByNew} {
		edited[n] = editMiddle(t, cachedCopy(t, restored, n))
	}

	rep, errOut, code := backfillJSON(t, "--cache="+restored, url)
	if code != exitOK {
		t.Fatalf("backfill: exit %d\n%s", code, errOut)
	}
	tr := rep.Transfer
	// The edited copy a proof reads, read again and found changed, is
	// downloaded again: not counted as read again (data_files_rehashed is
	// of the copies reused).
	if tr == nil || tr.Rehashed != 0 || tr.DataFiles != len(added)+1 {
		t.Errorf("transfer %+v: want %d data files downloaded (the new version's and the edited copy a proof reads) and no reused copy read again", tr, len(added)+1)
	}
	for n, b := range edited {
		after, err := os.ReadFile(cachedCopy(t, restored, n))
		if err != nil {
			t.Fatal(err)
		}
		if changed := !slices.Equal(b, after); changed != (n == readByNew) {
			t.Errorf("edited copy of %s downloaded again: %v, want %v", n, changed, n == readByNew)
		}
	}
}

// holdBackLastVersion moves the last version of the lakegen history in dir
// (its folder and the data files written after the version before it) to
// a new folder, held, to be published later under the same paths. names
// are every data and delete file, oldest first (UUIDv7 names), added those
// of the last version.
func holdBackLastVersion(t *testing.T, dir string) (held string, names, added []string) {
	t.Helper()
	events := filepath.Join(dir, "data", "main", "events")
	entries, err := os.ReadDir(events)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	ids := versionDirs(t, dir)
	last := ids[len(ids)-1]
	earlier := testlakes.NamedBefore(t, dir, ids[:len(ids)-1])
	held = t.TempDir()
	for _, n := range names {
		if !earlier[n] {
			added = append(added, n)
		}
	}
	moves := [][2]string{{filepath.Join(dir, "versions", last), filepath.Join(held, "versions", last)}}
	for _, n := range added {
		moves = append(moves, [2]string{filepath.Join(events, n), filepath.Join(held, "data", "main", "events", n)})
	}
	for _, m := range moves {
		if err := os.MkdirAll(filepath.Dir(m[1]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(m[0], m[1]); err != nil {
			t.Fatal(err)
		}
	}
	return held, names, added
}

// deleteFileBefore is the newest delete file of names not among added
// (the last version's files).
func deleteFileBefore(t *testing.T, names, added []string) string {
	t.Helper()
	var last string
	for _, n := range names {
		if strings.Contains(n, "delete") {
			last = n
		}
	}
	if last == "" || slices.Contains(added, last) {
		t.Fatalf("no delete file before the last version: %v (added %v)", names, added)
	}
	return last
}

// cachedCopy is the path of the mirrored copy of the data or delete file
// name in the cache folder cache.
func cachedCopy(t *testing.T, cache, name string) string {
	t.Helper()
	var p string
	filepath.WalkDir(filepath.Join(cache, "objects"), func(path string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(path) == name {
			p = path
		}
		return err
	})
	if p == "" {
		t.Fatalf("no copy of %s in %s", name, cache)
	}
	return p
}

// editMiddle flips a byte in the middle of the file at path: the same
// size, footer and last bytes, other contents. It returns the new bytes.
func editMiddle(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// fourVersionHistory copies a lakegen history of 4 versions of 300 rows in
// 2 files (historyCopy) into a folder of the test's; version 3 deletes
// id % 997 = 3: row 3 only, of version 1's first file (one delete file).
func fourVersionHistory(t *testing.T) string {
	t.Helper()
	dir, _ := historyCopy(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: 3})
	return dir
}

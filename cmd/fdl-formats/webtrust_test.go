package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/duckblocks"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/repo"
)

// backfilledOnce is lake 06_deletes backfilled once for every test of this
// file (each works on its own copy).
var backfilledOnce struct {
	sync.Mutex
	dir string
}

// backfilledLake returns root, a private folder holding lake/, a copy of
// the backfilled lake 06_deletes.
func backfilledLake(t *testing.T) string {
	t.Helper()
	backfilledOnce.Lock()
	defer backfilledOnce.Unlock()
	if backfilledOnce.dir == "" {
		dir := copyRepo(t, "lakes", "06_deletes")
		if _, errOut, code := runApp(t, "backfill", remoteNow, dir); code != exitOK {
			t.Fatalf("local backfill: exit %d\n%s", code, errOut)
		}
		// The first test's temporary folder goes with it: keep a copy in
		// the tests' private cache folder (TestMain removes it).
		keep, err := os.MkdirTemp(os.Getenv(cacheEnv), "webtrust-lake-")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(keep, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		backfilledOnce.dir = keep
	}
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "lake"), os.DirFS(backfilledOnce.dir)); err != nil {
		t.Fatal(err)
	}
	return root
}

// checkReport runs check --json and returns its report (nil if it printed
// none) and exit code.
func checkReport(t *testing.T, args ...string) (*repo.CheckReport, string, int) {
	t.Helper()
	out, errOut, code := runAppStderr(t, append([]string{"check", "--json", remoteNow}, args...)...)
	var rep repo.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return nil, errOut, code
	}
	return &rep, errOut, code
}

// TestWebListings: check of a repository on web servers that list folders
// in each way servers do proves every published catalog; on a server that
// lists none (404 for folders) or whose listings link elsewhere, it exits
// 4 naming the folder, never 0 having checked nothing; an empty versions/
// exits 4 too unless --allow-empty. The relative links of Go's, nginx's,
// Apache's and python's listings are TestWebListingsRelative's, which
// changes the working folder and so runs alone.
func TestWebListings(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	local := localCheck(t, root)
	for _, tc := range []struct {
		name    string
		listing webtest.Listing
		want    int
	}{
		{"absolute paths (Jetty, IIS, Tomcat, node)", webtest.AbsolutePath, exitOK},
		{"full URLs", webtest.FullURL, exitOK},
		{"folder links without slash", webtest.NoSlash, exitOK},
		{"404 for folders (GitHub Pages, S3 website, Netlify)", webtest.None, exitIncomparable},
		{"listings linking elsewhere", webtest.Stray, exitIncomparable},
		{"403 for folders (nginx autoindex off, Apache -Indexes)", webtest.Forbidden, exitIncomparable},
		{"401 for folders (listings behind a login, files open)", webtest.Unauthorized, exitIncomparable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			webListing(t, root, local, tc.listing, "--cache="+t.TempDir(), tc.want)
		})
	}

	// A listed, empty versions/: nothing to check.
	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "lake", "versions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "lake", "fdl.json"), []byte(`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	url := webtest.Serve(t, empty, webtest.Options{}) + "/lake"
	rep, errOut, code := checkReport(t, "--cache="+t.TempDir(), url)
	if code != exitIncomparable || rep == nil || len(rep.Findings) != 1 || rep.Findings[0].Key != "versions/" || !strings.Contains(rep.Findings[0].Detail, url) {
		t.Errorf("check of an empty repository: exit %d, want %d; report %+v\n%s", code, exitIncomparable, rep, errOut)
	}
	if _, errOut, code := checkReport(t, "--allow-empty", "--cache="+t.TempDir(), url); code != exitOK {
		t.Errorf("check --allow-empty of an empty repository: exit %d\n%s", code, errOut)
	}
}

// TestWebListingsRelative: TestWebListings with the relative links of Go's,
// nginx's, Apache's and python's listings, and a relative --cache, which
// works as well.
func TestWebListingsRelative(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	local := localCheck(t, root)
	t.Chdir(t.TempDir())
	webListing(t, root, local, webtest.Relative, "--cache=cache", exitOK)
}

// localCheck checks the lake in root/lake and returns its report, which
// must pass with proofs.
func localCheck(t *testing.T, root string) *repo.CheckReport {
	t.Helper()
	local, _, code := checkReport(t, filepath.Join(root, "lake"))
	if code != exitOK || len(local.Proofs) == 0 {
		t.Fatalf("local check: exit %d, report %+v", code, local)
	}
	return local
}

// webListing checks root/lake on a web server listing folders so: its exit
// code must be want; a check that passes proves what the local check did,
// one that fails names the folder and the fix.
func webListing(t *testing.T, root string, local *repo.CheckReport, listing webtest.Listing, cache string, want int) {
	t.Helper()
	url := webtest.Serve(t, root, webtest.Options{Listing: listing}) + "/lake"
	rep, errOut, code := checkReport(t, cache, url)
	if code != want {
		t.Fatalf("check %s: exit %d, want %d\n%s", url, code, want, errOut)
	}
	if want != exitOK {
		if !strings.Contains(errOut, url+"/versions/") || !strings.Contains(errOut, "folder listing") || !strings.Contains(errOut, "Try: serve the repository with folder listings on") {
			t.Errorf("check %s: the error does not name the folder and the fix:\n%s", url, errOut)
		}
		return
	}
	if len(rep.Proofs) != len(local.Proofs) || len(rep.Plan.Versions) != len(local.Plan.Versions) {
		t.Errorf("check %s: %d versions, %d proofs; a local check has %d, %d", url, len(rep.Plan.Versions), len(rep.Proofs), len(local.Plan.Versions), len(local.Proofs))
	}
}

// TestWebCacheValidators: a data file changed on the server, same size,
// is downloaded again by a warm check and found (exit 3, as a local check
// finds it) whatever validators the server sends: none (always downloaded
// again), Last-Modified only (Go's file server), or an ETag.
func TestWebCacheValidators(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	// One published format proved: its proofs read every data file, and
	// the other formats' proofs read the same ones again.
	one := "--formats=1.1"
	// A local check of the lake with the data file changed, once: every
	// case's warm check must exit as it does.
	localDir := filepath.Join(backfilledLake(t), "lake")
	changeDataFile(t, localDir)
	_, errOut, localCode := checkReport(t, one, localDir)
	if localCode != exitDifferent {
		t.Fatalf("local check after a data file changed: exit %d, want %d\n%s", localCode, exitDifferent, errOut)
	}
	for _, tc := range []struct {
		name       string
		validators webtest.Validators
		reuse      bool // an unchanged file is reused from the cache
	}{
		{"no validators", webtest.NoValidators, false},
		{"Last-Modified only", webtest.LastModified, true},
		{"ETag", webtest.ETag, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := backfilledLake(t)
			dir := filepath.Join(root, "lake")
			url := webtest.Serve(t, root, webtest.Options{Validators: tc.validators}) + "/lake"
			cache := "--cache=" + t.TempDir()
			rep, errOut, code := checkReport(t, one, cache, url)
			if code != exitOK || rep.Transfer.DataFiles == 0 {
				t.Fatalf("cold check: exit %d, transfer %+v\n%s", code, rep.Transfer, errOut)
			}
			files := rep.Transfer.DataFiles
			rep, errOut, code = checkReport(t, one, cache, url)
			if code != exitOK {
				t.Fatalf("warm check: exit %d\n%s", code, errOut)
			}
			if tc.reuse && (rep.Transfer.DataFiles != 0 || rep.Transfer.Cached != files) {
				t.Errorf("warm check: transfer %+v, want the %d data files reused", rep.Transfer, files)
			}
			if !tc.reuse && (rep.Transfer.DataFiles != files || rep.Transfer.Cached != 0) {
				t.Errorf("warm check: transfer %+v, want the %d data files downloaded again (nothing proves the cache current)", rep.Transfer, files)
			}
			// The frozen catalogs likewise: from the cache under a
			// validator, downloaded again without one.
			versions, err := os.ReadDir(filepath.Join(dir, "versions"))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: len(versions)}[tc.reuse]; rep.Transfer.CatalogsCached != want {
				t.Errorf("warm check: transfer %+v, want %d frozen catalogs from the cache", rep.Transfer, want)
			}

			changeDataFile(t, dir)
			rep, errOut, code = checkReport(t, one, cache, url)
			if code != localCode {
				t.Fatalf("warm check after a data file changed: exit %d, local check %d, want %d\n%s", code, localCode, exitDifferent, errOut)
			}
			if rep.Transfer.DataFiles == 0 {
				t.Errorf("warm check after a data file changed: transfer %+v, want it downloaded again", rep.Transfer)
			}
		})
	}
}

// TestWebWholeGETOfAnotherETag: a server whose whole-file GETs carry
// another ETag than its HEADs and ranged GETs (a CDN edge or replica
// serving downloads from an older copy of the same size and last bytes)
// leaves the data files unverifiable (exit 4), naming both ETags, on every
// run. Before, the download was compared by size and last bytes only:
// check passed (exit 0) and each run downloaded every file again.
func TestWebWholeGETOfAnotherETag(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	url := webtest.Serve(t, root, webtest.Options{Validators: webtest.ETag, StaleWholeGET: "/data/"}) + "/lake"
	cache := "--cache=" + t.TempDir()
	for _, run := range []string{"cold", "warm"} {
		// One published format: its proofs read every data file, which
		// the 0.4 proofs read again.
		rep, errOut, code := checkReport(t, "--formats=1.1", cache, url)
		if code != exitIncomparable || rep == nil {
			t.Fatalf("%s check: exit %d, want %d\n%s", run, code, exitIncomparable, errOut)
		}
		named := false
		for _, f := range rep.Findings {
			named = named || (strings.Contains(f.Detail, "by its HEAD and ranged GET, stale-replica by the GET that downloaded it") && strings.Contains(f.Detail, "data file data/"))
		}
		if !named {
			t.Errorf("%s check: no finding names the file and both ETags: %+v", run, rep.Findings)
		}
		if rep.Transfer.Cached != 0 {
			t.Errorf("%s check: %d data files reused from the cache; none was verified", run, rep.Transfer.Cached)
		}
	}
}

// TestWebCatalogWholeGETFromStaleCopy: a server whose whole-file GETs of a
// catalog come from an older copy (a CDN edge or replica), while its HEADs
// and ranged GETs, which DuckDB reads catalogs by, come from the origin.
// The data files' downloads were held to the ETag of the HEAD and ranged
// read, the catalogs' were not: check proved the stale copy and exited 0
// while readers attached the origin's catalog (here a damaged one; a
// frozen catalog's stale copy matched version.json, the origin's, of the
// same size, did not). Both are now unverifiable (exit 4), naming the
// catalog and both ETags, with and without the cache. A server that sends
// no ETag (Go's http.FileServer: Last-Modified only) was compared by size
// and last bytes only, and still passed the stale copy (exit 0); the
// whole GET's Last-Modified must now be the ranged read's (exit 4, naming
// both).
func TestWebCatalogWholeGETFromStaleCopy(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	for _, tc := range []struct {
		name     string
		versions string                  // the check's: the changed catalog's version
		file     func(dir string) string // the catalog changed at the origin
	}{
		{"published catalog", "--versions=1", func(dir string) string {
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "catalogs", "1.1.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no published 1.1 catalog")
			}
			return cats[0]
		}},
		{"frozen catalog", "--versions=3", func(dir string) string {
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no frozen catalog")
			}
			return cats[len(cats)-1]
		}},
	} {
		for _, v := range []struct {
			name       string
			validators webtest.Validators
			names      string // what the finding says after the key
		}{
			{"ETag", webtest.ETag, ": ETag "},
			{"Last-Modified only", webtest.LastModified, ": Last-Modified "},
		} {
			t.Run(tc.name+", "+v.name, func(t *testing.T) {
				stale := backfilledLake(t) // what the edge serves whole
				root := backfilledLake(t)  // the origin, which DuckDB reads
				// The edge's copy of every file but the one changed has
				// the origin's Last-Modified: copies made on either side
				// of a second's turn (under load) made every frozen
				// catalog differ, and the check stopped before the target.
				sameModTimes(t, filepath.Join(root, "lake"), filepath.Join(stale, "lake"))
				target := tc.file(filepath.Join(root, "lake"))
				st, err := os.Stat(target)
				if err != nil {
					t.Fatal(err)
				}
				flipBlockByte(t, target, "ducklake_data_file") // same size
				// Changed an hour after the edge's copy (Last-Modified has
				// whole seconds).
				later := st.ModTime().Add(time.Hour)
				if err := os.Chtimes(target, later, later); err != nil {
					t.Fatal(err)
				}
				key := filepath.ToSlash(strings.TrimPrefix(target, filepath.Join(root, "lake")+string(filepath.Separator)))
				url := webtest.Serve(t, root, webtest.Options{Validators: v.validators, StaleRoot: stale}) + "/lake"
				// 1.1 alone: its catalog is the changed published one, and
				// the frozen one is read for it; a 0.4 proof adds nothing.
				// The changed catalog's version alone: the others' proofs
				// add nothing either.
				for _, cache := range []string{"--no-cache", "--cache=" + t.TempDir()} {
					rep, errOut, code := checkReport(t, "--formats=1.1", tc.versions, cache, url)
					if code != exitIncomparable || rep == nil {
						t.Fatalf("check %s: exit %d, want %d\n%s", cache, code, exitIncomparable, errOut)
					}
					named := false
					for _, f := range rep.Findings {
						named = named || (f.Kind == repo.KindUnverifiable && strings.Contains(f.Detail, key+v.names) && strings.Contains(f.Detail, "by the GET that downloaded it"))
					}
					if !named {
						t.Errorf("check %s: no unverifiable finding names %s and both validators: %+v", cache, key, rep.Findings)
					}
				}
			})
		}
	}
}

// sameModTimes gives each regular file under dst the modification time of
// the file of the same path under src.
func sameModTimes(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return os.Chtimes(filepath.Join(dst, rel), info.ModTime(), info.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// changeDataFile zeroes the last 8 bytes (footer length and magic) of the
// first data file of the lake in dir: same size, another modification
// time (an hour later than the copy: Last-Modified has whole seconds).
func changeDataFile(t *testing.T, dir string) {
	t.Helper()
	data := dataFiles(t, dir)[0]
	f, err := os.OpenFile(data, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	if _, err := f.WriteAt(make([]byte, 8), st.Size()-8); err != nil {
		t.Fatal(err)
	}
	f.Close()
	later := st.ModTime().Add(time.Hour)
	if err := os.Chtimes(data, later, later); err != nil {
		t.Fatal(err)
	}
}

// dataFiles lists the Parquet files under dir/data.
func dataFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatal("no data files")
	}
	return out
}

// flipBlockByte flips a byte of the block that holds the first rows of
// table in the DuckDB file path (duckblocks): a reader of that table fails
// on the block.
func flipBlockByte(t *testing.T, path, table string) {
	t.Helper()
	off, err := duckblocks.Offset(path, table)
	if err == nil {
		err = duckblocks.FlipByte(path, off)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// damageFrozen flips a byte in the ducklake_table_stats block of the last
// version's frozen catalog and reseals it (resealCatalog).
func damageFrozen(t *testing.T, dir string) {
	t.Helper()
	cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
	if len(cats) == 0 {
		t.Fatal("no frozen catalogs")
	}
	last := cats[len(cats)-1]
	flipBlockByte(t, last, "ducklake_table_stats")
	testlakes.EditVersion(t, filepath.Dir(last), nil) // the damaged bytes hashed
}

// TestRemoteExitCodesMatchLocal: the same defect gives the same exit code
// whether the repository is a folder, on a web server or in a bucket (the
// bucket's in TestS3ExitCodesMatchLocal, which starts the S3 test server
// and so runs alone: it sets AWS_* with t.Setenv). A
// catalog with a block DuckDB cannot read is a difference (3) when it is
// a published one (remove it, backfill writes it again) and an invalid
// version (6) when it is the frozen one and its bytes are the ones
// version.json hashes (nothing to restore: the version itself is
// damaged), whether or not a published catalog's proof reads it; before,
// check said 0 of the latter with only the source's format declared, and
// 3 (blaming the published catalog) with the others.
func TestRemoteExitCodesMatchLocal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	for _, tc := range exitCodeDefects() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := backfilledLake(t)
			dir := filepath.Join(root, "lake")
			tc.defect(t, dir)
			_, errOut, local := checkReport(t, tc.versions, dir)
			if local != tc.want {
				t.Fatalf("local check: exit %d, want %d\n%s", local, tc.want, errOut)
			}
			url := webtest.Serve(t, root, webtest.Options{}) + "/lake"
			if _, errOut, code := checkReport(t, tc.versions, "--cache="+t.TempDir(), url); code != local {
				t.Errorf("check %s: exit %d, a local check %d\n%s", url, code, local, errOut)
			}
		})
	}
}

// TestS3ExitCodesMatchLocal: each defect of TestRemoteExitCodesMatchLocal
// gives in a bucket the exit code a local check gives (tc.want, which that
// test holds the local check to).
func TestS3ExitCodesMatchLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a lake")
	}
	srv := s3test.Start(t)
	for _, tc := range exitCodeDefects() {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(backfilledLake(t), "lake")
			tc.defect(t, dir)
			bucket := srv.Bucket(t)
			srv.Upload(t, dir, bucket, "lake")
			if _, errOut, code := checkReport(t, tc.versions, "--cache="+t.TempDir(), "s3://"+bucket+"/lake"); code != tc.want {
				t.Errorf("check s3://%s/lake: exit %d, a local check %d\n%s", bucket, code, tc.want, errOut)
			}
		})
	}
}

// exitCodeDefect is a defect made in a copy of the backfilled lake, and the
// exit code a check of it gives. The check selects the version the defect
// is in (versions): a check of the other two, proved whole, added nothing
// to the exit code and was over half of each check's CPU. A data file's
// defect is checked in the last version, whose catalog holds every
// snapshot and so every data file.
type exitCodeDefect struct {
	name     string
	versions string // the check's --versions
	want     int
	defect   func(t *testing.T, dir string)
}

// exitCodeDefects are the defects the exit code tests make.
func exitCodeDefects() []exitCodeDefect {
	return []exitCodeDefect{
		{"corrupt published catalog", "--versions=1", exitDifferent, func(t *testing.T, dir string) {
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "catalogs", "*.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no published catalogs")
			}
			f, err := os.OpenFile(cats[0], os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteAt(make([]byte, 8192), 0); err != nil {
				t.Fatal(err)
			}
		}},
		{"published catalog with a corrupt block", "--versions=3", exitDifferent, func(t *testing.T, dir string) {
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "catalogs", "1.1.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no published 1.1 catalogs")
			}
			flipBlockByte(t, cats[len(cats)-1], "ducklake_table_stats")
		}},
		{"frozen catalog with a corrupt block hashed so", "--versions=3", exitInvalid, damageFrozen},
		{"source format alone and its frozen catalog with a corrupt block", "--versions=3", exitInvalid, func(t *testing.T, dir string) {
			damageFrozen(t, dir)
			if err := os.WriteFile(filepath.Join(dir, "fdl.json"), []byte(`{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0"}]}`), 0o644); err != nil {
				t.Fatal(err)
			}
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "catalogs"))
			for _, c := range cats {
				if err := os.RemoveAll(c); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"data file longer than its catalog records", "--versions=3", exitDifferent, func(t *testing.T, dir string) {
			f, err := os.OpenFile(dataFiles(t, dir)[0], os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("extra")); err != nil {
				t.Fatal(err)
			}
		}},
		{"data file footer changed", "--versions=3", exitDifferent, func(t *testing.T, dir string) {
			data := dataFiles(t, dir)[0]
			f, err := os.OpenFile(data, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			if _, err := f.WriteAt(make([]byte, 8), st.Size()-8); err != nil {
				t.Fatal(err)
			}
		}},
		{"data file missing", "--versions=3", exitIncomparable, func(t *testing.T, dir string) {
			if err := os.Remove(dataFiles(t, dir)[0]); err != nil {
				t.Fatal(err)
			}
		}},
		{"frozen catalog changed", "--versions=1", exitDifferent, func(t *testing.T, dir string) {
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no frozen catalogs")
			}
			f, err := os.OpenFile(cats[0], os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte{0}); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

// TestWebServesTheBytesReadersGet: a host that serves FILE.gz for FILE to
// requests accepting gzip (nginx gzip_static) must not show the checks
// another file than DuckDB gets (it sends no Accept-Encoding and reads by
// ranges); a host whose HEAD gives no size serves a sound repository.
func TestWebServesTheBytesReadersGet(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	gzipTo := func(t *testing.T, src string) {
		t.Helper()
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(src+".gz", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// rewrite changes n bytes at off (from the end when off < 0), keeping
	// the size.
	rewrite := func(t *testing.T, p string, off int64, b []byte) {
		t.Helper()
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if off < 0 {
			st, _ := f.Stat()
			off += st.Size()
		}
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	// One published format proved: its proofs read every frozen catalog
	// and data file, which the 0.4 proofs read again.
	one := "--formats=1.1"
	for _, tc := range []struct {
		name   string
		opts   webtest.Options
		tamper func(t *testing.T, dir string) // nil: the repository is sound
		// versions selects the version the tamper is in (a data file:
		// the last, whose catalog holds every one), and the checks of a
		// sound repository check every version.
		versions string
	}{
		{"data file's original gzipped beside a changed footer length", webtest.Options{Precompressed: true}, func(t *testing.T, dir string) {
			data := dataFiles(t, dir)[0]
			gzipTo(t, data)
			b, err := os.ReadFile(data)
			if err != nil {
				t.Fatal(err)
			}
			footer := binary.LittleEndian.Uint32(b[len(b)-8:])
			rewrite(t, data, -8, binary.LittleEndian.AppendUint32(nil, footer+16))
		}, "--versions=3"},
		{"frozen catalog's original gzipped beside a changed copy", webtest.Options{Precompressed: true}, func(t *testing.T, dir string) {
			cats, _ := filepath.Glob(filepath.Join(dir, "versions", "*", "ducklake.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no frozen catalog")
			}
			gzipTo(t, cats[0])
			rewrite(t, cats[0], 4096, []byte("changed"))
		}, "--versions=1"},
		{"HEAD without a size", webtest.Options{HeadWithoutLength: true}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := backfilledLake(t)
			dir := filepath.Join(root, "lake")
			sel := []string{one}
			if tc.versions != "" {
				sel = append(sel, tc.versions)
			}
			want := exitOK
			if tc.tamper != nil {
				tc.tamper(t, dir)
				want = exitDifferent
				if _, _, code := checkReport(t, append(sel, dir)...); code != want {
					t.Fatalf("local check: exit %d, want %d", code, want)
				}
			}
			url := webtest.Serve(t, root, tc.opts) + "/lake"
			_, errOut, code := checkReport(t, append(sel, "--cache="+t.TempDir(), url)...)
			if code != want {
				t.Fatalf("web check: exit %d, want %d (as the local check)\n%s", code, want, errOut)
			}
		})
	}
}

// TestLocalDataFolderIsTheRepositorys: on a local folder, readers open the
// repository's own data folder, so check and backfill take no other:
// check --data elsewhere passed (exit 0) with the repository's data gone.
func TestLocalDataFolderIsTheRepositorys(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("proves a lake")
	}
	root := backfilledLake(t)
	dir := filepath.Join(root, "lake")
	if _, errOut, code := checkReport(t, "--data="+filepath.Join(dir, "data"), dir); code != exitOK {
		t.Fatalf("check --data of the repository's own folder: exit %d\n%s", code, errOut)
	}
	elsewhere := filepath.Join(root, "copy")
	if err := os.CopyFS(elsewhere, os.DirFS(filepath.Join(dir, "data"))); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"check", "backfill"} {
		_, errOut, code := runAppStderr(t, verb, remoteNow, "--data="+elsewhere, dir)
		if code != exitUsage || !strings.Contains(errOut, "whose readers open its own data folder") {
			t.Errorf("%s --data elsewhere with the repository's data gone: exit %d, want %d\n%s", verb, code, exitUsage, errOut)
		}
	}
}

// TestRemoteArgumentMessages: a bucket prefix or web folder without
// fdl.json is "not an FDL repository" naming where it looked (the bucket,
// prefix and endpoint, or the URL; before, only "no fdl.json"); a web URL
// with a query string (a signed URL, whose signature the requests of the
// repository's other files would not carry) is a usage error (exit 2)
// that does not repeat the query. Before, the query was dropped unseen.
func TestRemoteArgumentMessages(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "dem"), 0o755); err != nil {
		t.Fatal(err)
	}
	site := webtest.Serve(t, root, webtest.Options{})
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	for _, tc := range []struct {
		cmd, arg string
		want     int
		says     string
	}{
		{"check", site + "/dem", exitInvalid, "not an FDL repository: no fdl.json in " + site + "/dem/"},
		{"plan", "s3://" + bucket + "/dem", exitInvalid, "not an FDL repository: no fdl.json in s3://" + bucket + "/dem at " + srv.Endpoint},
		{"check", site + "/dem?sig=SECRET", exitUsage, "repository URL " + site + "/dem?…: query strings (signed URLs) are not supported"},
		{"resolve", site + "/dem?sig=SECRET", exitUsage, "query strings (signed URLs) are not supported"},
	} {
		args := []string{tc.cmd, tc.arg}
		if tc.cmd != "resolve" {
			args = []string{tc.cmd, "--cache=" + t.TempDir(), tc.arg}
		}
		_, errOut, code := runAppStderr(t, args...)
		if code != tc.want || !strings.Contains(errOut, tc.says) || strings.Contains(errOut, "SECRET") {
			t.Errorf("%s %s: exit %d, want %d saying %q (and no query)\n%s", tc.cmd, tc.arg, code, tc.want, tc.says, errOut)
		}
	}
}

// TestWebEncodedAnswers: a server that sends the repository's files with
// Content-Encoding gzip though none was asked for (nginx `gzip_static
// always`, a CDN compressing application/octet-stream and JSON) gives
// readers the encoded bytes. Met in the folder walk (a version's
// files.json), it stops the run with one line naming the file and the
// site and a Try: line saying to serve the files without Content-Encoding
// (exit 1, as the other setup errors; it said Go's wording and no Try:);
// met on the data files, each is unverifiable (exit 4), its finding
// saying the same.
func TestWebEncodedAnswers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a lake")
	}
	root := backfilledLake(t)
	const cause = `the server sends the file with Content-Encoding "gzip" though none was asked for`
	t.Run("files.json, in the folder walk", func(t *testing.T) {
		url := webtest.Serve(t, root, webtest.Options{Encode: "/files.json"}) + "/lake"
		_, errOut, code := runAppStderr(t, "check", remoteNow, "--no-cache", url)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != exitFailure || len(lines) != 2 || !strings.Contains(lines[0], " "+url+"/versions/") || !strings.Contains(lines[0], "/files.json: "+cause+" (") ||
			!strings.HasPrefix(lines[1], "Try: serve the repository's files as stored, without Content-Encoding") {
			t.Errorf("check: exit %d, want %d, an Error: line naming files.json, %s and the cause, and a Try: line; got:\n%s", code, exitFailure, url, errOut)
		}
	})
	t.Run("data files", func(t *testing.T) {
		url := webtest.Serve(t, root, webtest.Options{Encode: "/data/"}) + "/lake"
		// One published format: its proofs read every data file, which
		// the 0.4 proofs read again.
		rep, errOut, code := checkReport(t, "--formats=1.1", "--no-cache", url)
		if code != exitIncomparable || rep == nil {
			t.Fatalf("check: exit %d, want %d\n%s", code, exitIncomparable, errOut)
		}
		named := false
		for _, f := range rep.Findings {
			named = named || (f.Kind == repo.KindUnverifiable && strings.Contains(f.Detail, " "+url+"/") && strings.Contains(f.Detail, ".parquet: "+cause))
		}
		if !named {
			t.Errorf("check: no unverifiable finding names a data file, the site and the cause; first: %+v", rep.Findings[0])
		}
	})
}

// TestWebFrozenCatalogHeadLength: a server whose HEAD gives a frozen
// catalog another Content-Length than its GETs deliver (a proxy, cache or
// application answering HEAD otherwise) disagrees with itself: check said
// "N bytes, version.json says M" and exit 3, blaming a version whose file
// the GETs serve as recorded. A GET of the first byte now tells the two
// apart, only when the HEAD disagrees with version.json: the server
// disagreeing with itself is unverifiable (exit 4) naming the HEAD's
// Content-Length; a file whose every answer agrees, and not with
// version.json, is still a difference (exit 3).
func TestWebFrozenCatalogHeadLength(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a lake")
	}
	for _, tc := range []struct {
		name   string
		head   func(size int64) int64 // the HEAD's Content-Length; nil: the file's
		grow   int64                  // bytes appended to the frozen catalog
		code   int
		detail func(size int64) string // what the finding says after the key
	}{
		{"HEAD Content-Length 0", func(int64) int64 { return 0 }, 0, exitIncomparable, func(size int64) string {
			return fmt.Sprintf(": 0 bytes by the server's HEAD (Content-Length), but %d by a GET, as version.json records: the server disagrees with itself", size)
		}},
		{"HEAD 10 bytes short", func(size int64) int64 { return size - 10 }, 0, exitIncomparable, func(size int64) string {
			return fmt.Sprintf(": %d bytes by the server's HEAD (Content-Length), but %d by a GET, as version.json records", size-10, size)
		}},
		{"HEAD short, file grown", func(size int64) int64 { return size - 10 }, 5, exitIncomparable, func(size int64) string {
			return fmt.Sprintf(": %d bytes by the server's HEAD (Content-Length), %d by a GET, %d by version.json: the server disagrees with itself", size-10, size+5, size)
		}},
		{"file grown, HEAD and GET agree", nil, 5, exitDifferent, func(size int64) string {
			return fmt.Sprintf(": %d bytes, version.json says %d", size+5, size)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := backfilledLake(t)
			cats, _ := filepath.Glob(filepath.Join(root, "lake", "versions", "*", "ducklake.duckdb"))
			if len(cats) == 0 {
				t.Fatal("no frozen catalog")
			}
			st, err := os.Stat(cats[0])
			if err != nil {
				t.Fatal(err)
			}
			size := st.Size()
			if tc.grow > 0 {
				f, err := os.OpenFile(cats[0], os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(make([]byte, tc.grow))
				f.Close()
			}
			key := filepath.ToSlash(strings.TrimPrefix(cats[0], filepath.Join(root, "lake")+string(filepath.Separator)))
			opts := webtest.Options{}
			if tc.head != nil {
				opts.HeadLengths = map[string]int64{"/" + key: tc.head(size)}
			}
			url := webtest.Serve(t, root, opts) + "/lake"
			// The changed catalog's version alone: the others' proofs
			// add nothing to the exit code and finding asserted.
			rep, errOut, code := checkReport(t, "--versions=1", "--no-cache", url)
			if code != tc.code || rep == nil {
				t.Fatalf("check: exit %d, want %d\n%s", code, tc.code, errOut)
			}
			want := key + tc.detail(size)
			named := false
			for _, f := range rep.Findings {
				named = named || strings.Contains(f.Detail, want)
			}
			if !named {
				t.Errorf("check: no finding says %q; first: %+v", want, rep.Findings[0])
			}
		})
	}
}

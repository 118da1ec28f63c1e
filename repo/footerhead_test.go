package repo

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestFooterReadAfterOneHEAD: plan's conversion check reads the footer of
// each data file the mirror lacks by two ranged reads of its end, the
// last 8 bytes (its footer's length) and then the footer. Each read was a
// store ReadTail, a HEAD and a ranged GET: the second HEAD asked what the
// first had told in the same run (400 requests of a warm plan of 200
// versions on a web site without strong ETags, whose footers are read
// again on every run; a cold plan of a bucket too). Now the footer is
// read by its ranged GET alone, held to the size, ETag and Last-Modified
// the first read gave, as DuckDB reads a footer after one HEAD: one HEAD
// and two ranged GETs per data file.
//
// files.json records each data file's footer length (footer_bytes): the
// read of a data file's end for its footer then asks for the footer with
// its last 8 bytes in one ranged GET, held to the HEAD as every ranged
// read is, and the footer is the one those last bytes say: one HEAD and
// one ranged GET per data file (1,200 requests fewer in a warm plan of
// 200 versions on a web site). A footer_bytes that is not the footer's
// length costs the second ranged GET again, and changes nothing else
// (TestFooterReadWrongRecord).
func TestFooterReadAfterOneHEAD(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a lake on a web site and in a bucket")
	}
	ctx := context.Background()
	dir, files := historyDataFiles(t, lakegen.HistoryOptions{Versions: 3, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: -1})
	want := map[string]int{"HEAD": 1, "GET ranged": 1}

	// Go's file server: Last-Modified only, so the footers are read again
	// on every run, warm or cold.
	log := &requestLog{}
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.note(r)
		http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
	}))
	cache := t.TempDir()
	for _, run := range []string{"cold", "warm"} {
		plannedOnce(ctx, t, "web site, "+run, site, cache, log, files, want)
	}

	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	t.Setenv("AWS_CA_BUNDLE", "") // a custom HTTP client takes no CA bundle
	blog := &requestLog{}
	bst, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: loggedTransport{blog, http.DefaultTransport}}})
	if err != nil {
		t.Fatal(err)
	}
	// A bucket's ETags are strong: a warm plan takes the footers kept.
	plannedOnce(ctx, t, "bucket, cold", bst, t.TempDir(), blog, files, want)
}

// TestFooterReadWrongRecord: files.json's footer_bytes is only a guess
// of how much of a data file's end to ask for with its last 8 bytes: a
// record shorter than the footer costs the footer's own ranged GET (one
// HEAD and two ranged GETs, as before the guess), a longer one a longer
// answer, and either gives the same plan as the right record.
func TestFooterReadWrongRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a lake on a web site")
	}
	ctx := context.Background()
	orig, files := historyDataFiles(t, lakegen.HistoryOptions{Versions: 3, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: -1})
	var served atomic.Value // the folder the site serves
	served.Store(orig)
	log := &requestLog{}
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.note(r)
		http.FileServer(http.Dir(served.Load().(string))).ServeHTTP(w, r)
	}))
	plan := func(name string, want map[string]int) string {
		t.Helper()
		plannedOnce(ctx, t, name, site, t.TempDir(), log, files, want)
		m, err := Plan(ctx, site, Options{Cache: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		m.Now, m.Transfer = time.Time{}, nil
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	right := plan("footer_bytes right", map[string]int{"HEAD": 1, "GET ranged": 1})
	footerBytes := regexp.MustCompile(`"footer_bytes": *([0-9]+)`)
	for _, tc := range []struct {
		name string
		edit func(n int) int
		want map[string]int
	}{
		{"footer_bytes short", func(n int) int { return n / 2 }, map[string]int{"HEAD": 1, "GET ranged": 2}},
		{"footer_bytes long", func(n int) int { return n + 100 }, map[string]int{"HEAD": 1, "GET ranged": 1}},
	} {
		dir := t.TempDir()
		if err := copyTree(orig, dir); err != nil {
			t.Fatal(err)
		}
		edited := 0
		for _, id := range versionIDs(t, dir) {
			vdir := filepath.Join(dir, "versions", id)
			p := filepath.Join(vdir, "files.json")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = footerBytes.ReplaceAllFunc(data, func(m []byte) []byte {
				n, _ := strconv.Atoi(string(footerBytes.FindSubmatch(m)[1]))
				edited++
				return fmt.Appendf(nil, `"footer_bytes": %d`, tc.edit(n))
			})
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			testlakes.EditVersion(t, vdir, nil, "catalog", "files")
		}
		if edited == 0 {
			t.Fatal("no footer_bytes in files.json")
		}
		served.Store(dir)
		if got := plan(tc.name, tc.want); got != right {
			t.Errorf("%s: plan\n%s\nwant, as with the right record,\n%s", tc.name, got, right)
		}
	}
}

// plannedOnce plans st with the cache folder cache and wants each of the
// data files read footer by footer, with the requests want.
func plannedOnce(ctx context.Context, t *testing.T, name string, st store.Store, cache string, log *requestLog, files []string, want map[string]int) {
	t.Helper()
	log.take()
	m, err := Plan(ctx, st, Options{Cache: cache})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if tr := m.Transfer; tr == nil || tr.Footers != len(files) {
		t.Fatalf("%s: transfer %+v, want the %d data files' footers read by ranged reads", name, tr, len(files))
	}
	calls := log.take()
	for _, f := range files {
		if got := of(calls, f); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: requests of %s: %v, want %v", name, f, got, want)
		}
	}
}

// TestCatalogHEADOncePerRun: a web site's folder walk asks the HEAD of
// every file it finds, catalogs among them; the ranged read of a
// catalog's end, which holds its download (or its cached copy) to what
// readers read, asked a HEAD of its own: two per frozen catalog a plan
// revalidates and per published catalog a check proves. Now that read is
// its ranged GET alone, held to the walk's HEAD: one HEAD per catalog and
// run, cold or warm, plan or check.
func TestCatalogHEADOncePerRun(t *testing.T) {
	ctx := context.Background()
	dir := lake11(t)
	log := &requestLog{}
	site := webSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.note(r)
		http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
	}))
	opts := Options{Cache: t.TempDir(), Formats: []string{"1.1"}}
	for _, run := range []struct {
		name string
		run  func() error
	}{
		{"cold plan", func() error { _, err := Plan(ctx, site, opts); return err }},
		{"warm plan", func() error { _, err := Plan(ctx, site, opts); return err }},
		{"check", func() error { _, err := Check(ctx, site, opts); return err }},
		{"warm check", func() error { _, err := Check(ctx, site, opts); return err }},
	} {
		log.take()
		if err := run.run(); err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		calls := log.take()
		catalogs := 0
		for k, n := range calls {
			what, p, _ := strings.Cut(k, " /")
			if !strings.HasSuffix(p, ".duckdb") {
				continue
			}
			switch what {
			case "HEAD":
				if n != 1 {
					t.Errorf("%s: %s asked %d times, want once (the folder walk's)", run.name, k, n)
				}
			case "GET ranged":
				catalogs++
			}
		}
		if catalogs == 0 {
			t.Errorf("%s: no catalog's end read (%v)", run.name, calls)
		}
	}
}

// TestS3FrozenLogFromListing: the write-ahead log beside each version's
// frozen catalog (a violation: DuckDB replays it) is looked for in a
// bucket's listing, which shows every object: a HEAD of it was asked for
// every version, whose answer the listing of the same run had given. A
// log there is still found.
func TestS3FrozenLogFromListing(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a lake in a bucket")
	}
	ctx := context.Background()
	_, root := smallLake(t)
	srv := s3test.Start(t)
	t.Setenv("AWS_CA_BUNDLE", "") // a custom HTTP client takes no CA bundle
	for _, withLog := range []bool{false, true} {
		dir := t.TempDir()
		copyParts(t, root, dir)
		id := versionIDs(t, dir)[1]
		if withLog {
			writeFile(t, filepath.Join(dir, "versions", id, "ducklake.duckdb.wal"), "junk")
		}
		bucket := srv.Bucket(t)
		srv.Upload(t, dir, bucket, "lake")
		log := &requestLog{}
		st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: loggedTransport{log, http.DefaultTransport}}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := Plan(ctx, st, Options{Cache: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for k, n := range log.take() {
			if strings.HasSuffix(k, ".wal") {
				t.Errorf("log beside the frozen catalog %t: %s asked %d times, want none (the listing shows every object)", withLog, k, n)
			}
		}
		var found []string
		for _, vp := range m.Versions {
			for _, x := range vp.Violations {
				found = append(found, x.Key)
			}
		}
		want := []string(nil)
		if withLog {
			want = []string{"versions/" + id + "/ducklake.duckdb.wal"}
		}
		if fmt.Sprint(found) != fmt.Sprint(want) {
			t.Errorf("log beside the frozen catalog %t: violations %v, want %v", withLog, found, want)
		}
	}
}

package repo

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// requestLog counts a store's HTTP requests by method, kind (a ranged GET
// or a whole one) and object path.
type requestLog struct {
	mu    sync.Mutex
	calls map[string]int // "METHOD[ ranged] /path"
}

func (l *requestLog) note(r *http.Request) {
	what := r.Method
	if r.Header.Get("Range") != "" {
		what += " ranged"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		l.calls = map[string]int{}
	}
	l.calls[what+" "+r.URL.Path]++
}

// take returns the requests counted so far and starts again.
func (l *requestLog) take() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// of is the requests of calls whose path ends with suffix, by kind.
func of(calls map[string]int, suffix string) map[string]int {
	out := map[string]int{}
	for k, n := range calls {
		what, p, _ := strings.Cut(k, " /")
		if strings.HasSuffix("/"+p, suffix) {
			out[what] += n
		}
	}
	return out
}

// dataHistories are historyDataFiles' shared fixtures, by options.
var dataHistories struct {
	sync.Mutex
	byOpts map[lakegen.HistoryOptions]*sharedFixture
}

type loggedTransport struct {
	log  *requestLog
	base http.RoundTripper
}

func (t loggedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.log.note(r)
	return t.base.RoundTrip(r)
}

// historyDataFiles copies a lakegen history into a new folder and lists
// its data files (not delete files) by their path under the repository.
// Each set of options is generated once per test binary (a shared fixture,
// read only by the copy).
func historyDataFiles(t *testing.T, opts lakegen.HistoryOptions) (string, []string) {
	t.Helper()
	dataHistories.Lock()
	f := dataHistories.byOpts[opts]
	if f == nil {
		f = &sharedFixture{name: fmt.Sprintf("history-%d", len(dataHistories.byOpts))}
		if dataHistories.byOpts == nil {
			dataHistories.byOpts = map[lakegen.HistoryOptions]*sharedFixture{}
		}
		dataHistories.byOpts[opts] = f
	}
	dataHistories.Unlock()
	golden, _ := f.generate(t, func(dir string) (*lakegen.Result, error) {
		return lakegen.History(context.Background(), dir, opts)
	})
	dir := filepath.Join(t.TempDir(), "history")
	if err := copyTree(golden, dir); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.HasSuffix(p, "-delete.parquet") {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no data file generated")
	}
	return dir, files
}

// TestS3RestoredCacheKeepsFooters: a CI runner restores the cache folder
// (cp -a, as actions/cache: every file a new inode) that a check filled,
// then plans a bucket repository. The conversion check of its missing
// cells reads the footers of data files whose copies are not yet held to
// the bytes the store delivered: each file's end was read again for its
// footer (a HEAD and a ranged GET, and a second ranged GET for the footer
// where no stand-in was kept), though the earlier run downloaded every
// one whole. Now a copy's footer stand-in is kept when it is downloaded,
// and the ranged read that held the copy to its object serves for it: one
// HEAD and one ranged GET per data file, no footer read by ranges.
func TestS3RestoredCacheKeepsFooters(t *testing.T) {
	if testing.Short() {
		t.Skip("checks and plans a lake in a bucket")
	}
	ctx := context.Background()
	dir, files := historyDataFiles(t, lakegen.HistoryOptions{Versions: 3, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: -1})
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, dir, bucket, "lake")
	log := &requestLog{}
	t.Setenv("AWS_CA_BUNDLE", "") // a custom HTTP client takes no CA bundle
	st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: loggedTransport{log, http.DefaultTransport}}})
	if err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(t.TempDir(), "cache")
	if rep, err := Check(ctx, st, Options{Cache: first}); err != nil && rep == nil {
		t.Fatalf("cold check: %v", err)
	} else if rep.Transfer == nil || rep.Transfer.DataFiles < len(files) {
		t.Fatalf("cold check: transfer %+v, want its %d data files downloaded", rep.Transfer, len(files))
	}
	restored := filepath.Join(t.TempDir(), "restored")
	if out, err := exec.Command("cp", "-a", first, restored).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	log.take()
	m, err := Plan(ctx, st, Options{Cache: restored})
	if err != nil {
		t.Fatal(err)
	}
	calls := log.take()
	if tr := m.Transfer; tr == nil || tr.Footers != 0 || tr.FootersCached != len(files) || tr.DataFiles != 0 {
		t.Errorf("restored plan: transfer %+v, want no data file downloaded, no footer read by ranged reads and all %d from the cache", tr, len(files))
	}
	for _, f := range files {
		want := map[string]int{"HEAD": 1, "GET ranged": 1}
		if got := of(calls, f); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("restored plan: requests of %s: %v, want %v", f, got, want)
		}
	}

	// The object replaced (another data file's bytes under its key): its
	// copy is downloaded again, with the stand-in of its new identity,
	// and the one of the identity it no longer has is removed.
	replaced := files[0]
	if err := exec.Command("cp", filepath.Join(dir, files[1]), filepath.Join(dir, replaced)).Run(); err != nil {
		t.Fatal(err)
	}
	srv.Upload(t, dir, bucket, "lake")
	m, err = Plan(ctx, st, Options{Cache: restored})
	if err != nil {
		t.Fatal(err)
	}
	if tr := m.Transfer; tr == nil || tr.DataFiles != 1 || tr.Footers != 0 {
		t.Errorf("plan after %s was replaced: transfer %+v, want it downloaded again and no footer read by ranged reads", replaced, tr)
	}
	kept, err := filepath.Glob(filepath.Join(restored, "objects", "*"+footersSuffix, footersLayout, "*", "*.parquet"))
	if err != nil || len(kept) != len(files) {
		t.Errorf("stand-ins kept after %s was replaced: %d (%v), want one per data file (%d)", replaced, len(kept), err, len(files))
	}
}

// TestWebIgnoringRangesDownloadsOnce: a web server that ignores Range
// answers the ranged read of a file's end with the whole file. That
// answer was read for the last bytes and thrown away, and the file then
// downloaded again (a catalog or data file a check reads: twice; a data
// file whose footer plan's conversion check reads: twice for its
// stand-in; a published catalog copied for its proof: twice). Now the
// whole answer is the download: every file is sent once per run.
func TestWebIgnoringRangesDownloadsOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks and plans a lake on a web server")
	}
	ctx := context.Background()
	dir, files := historyDataFiles(t, lakegen.HistoryOptions{Versions: 3, RowsPerVersion: 300, FilesPerVersion: 2, DeleteEvery: 2})
	// Backfilled but for the last version: plan converts it, and check
	// proves the published catalogs of the others (copies of their own).
	last := versionIDs(t, dir)[2]
	aside := filepath.Join(t.TempDir(), last)
	if err := os.Rename(filepath.Join(dir, "versions", last), aside); err != nil {
		t.Fatal(err)
	}
	lst, err := local.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Backfill(ctx, lst, Options{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, filepath.Join(dir, "versions", last)); err != nil {
		t.Fatal(err)
	}
	log := &requestLog{}
	h := webtest.Handler(dir, webtest.Options{IgnoreRange: true, Validators: webtest.ETag})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.note(r)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	st, err := httpstore.New(srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every GET is answered with the whole file: count them by file.
	gets := func(what string, calls map[string]int, max int) {
		t.Helper()
		sent := map[string]int{}
		for k, n := range calls {
			what, p, _ := strings.Cut(k, " /")
			if strings.HasPrefix(what, "GET") && (strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, ".duckdb")) {
				sent[p] += n
			}
		}
		if len(sent) == 0 {
			t.Fatalf("%s: no file sent (requests %v)", what, calls)
		}
		for p, n := range sent {
			if n > max {
				t.Errorf("%s: %s sent %d times, want at most %d", what, path.Base(p), n, max)
			}
		}
	}
	m, err := Plan(ctx, st, Options{Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	calls := log.take()
	gets("cold plan", calls, 1)
	if tr := m.Transfer; tr == nil || tr.Footers != 0 {
		t.Errorf("cold plan: transfer %+v, want no footer read by ranged reads (the files were sent whole)", tr)
	}
	for _, f := range files {
		if n := calls["GET ranged /"+f]; n == 0 {
			t.Errorf("cold plan: %s not read (requests %v)", f, of(calls, f))
		}
	}
	rep, err := Check(ctx, st, Options{Cache: t.TempDir()})
	if rep == nil {
		t.Fatalf("cold check: %v", err)
	}
	gets("cold check", log.take(), 1)
}

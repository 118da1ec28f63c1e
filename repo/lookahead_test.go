package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
)

// counted serves files and counts the requests by method, path and
// whether they ask a range ("GET /versions/…/files.json", "GET range
// /data/…").
type counted struct {
	files http.Handler
	mu    sync.Mutex
	n     map[string]int
}

func (c *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Method + " " + r.URL.Path
	if r.Header.Get("Range") != "" {
		key = r.Method + " range " + r.URL.Path
	}
	c.mu.Lock()
	c.n[key]++
	c.mu.Unlock()
	c.files.ServeHTTP(w, r)
}

// take returns the counts so far and starts again.
func (c *counted) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// TestVersionFilesReadOnce: a plan, and a check (its plan and its content
// pass), read each version's dataset.json and files.json once: the plan
// read each twice (hashed, then parsed) and check's content pass a third
// time, a round trip each on a site far away. On a web site that one read
// is the walk's of versions/, which asked each JSON file's HEAD and then
// its GET: now it asks the GET in the HEAD's place, and that is its only
// request (version.json's too).
func TestVersionFilesReadOnce(t *testing.T) {
	ctx := context.Background()
	dir, _ := sharedDemo(ctx, t)
	c := &counted{files: http.FileServer(http.Dir(dir)), n: map[string]int{}}
	site := webSite(t, c)
	opts := Options{Cache: t.TempDir()}
	for _, run := range []struct {
		name string
		run  func() error
	}{
		{"plan", func() error { _, err := Plan(ctx, site, opts); return err }},
		{"check", func() error {
			_, err := Check(ctx, site, opts)
			if ce := (*CheckError)(nil); errors.As(err, &ce) {
				return nil // the demo's declared catalogs are missing: a finding
			}
			return err
		}},
	} {
		if err := run.run(); err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		n := c.take()
		asked := map[string][]string{} // path -> requests of it
		for key, times := range n {
			method, p, _ := strings.Cut(key, " /")
			if !strings.HasSuffix(p, "/dataset.json") && !strings.HasSuffix(p, "/files.json") && !strings.HasSuffix(p, "/version.json") {
				continue
			}
			for range times {
				asked[p] = append(asked[p], method)
			}
		}
		for p, got := range asked {
			// The walk's ranged GET of it, in place of its HEAD.
			if fmt.Sprint(got) != "[GET]" {
				t.Errorf("%s: /%s asked %v, want once, by the walk of versions/ (a GET, no HEAD)", run.name, p, got)
			}
		}
		if len(asked) < 6 {
			t.Errorf("%s read %d version.json, dataset.json and files.json, want those of the demo's versions (%v)", run.name, len(asked), n)
		}
	}
}

// TestWarmPlanRevalidatesAhead: a warm plan (its data files' copies in the
// cache) revalidates them askJobs at a time, ahead of the checks that use
// them, each once: a check's own requests went Options.Downloads (4) at a
// time, as it reached them (200 versions 20 ms away: most of a 99 s plan).
func TestWarmPlanRevalidatesAhead(t *testing.T) {
	ctx := context.Background()
	dir, _ := carryHistory7(t)
	gate := &atOnce{want: askJobs, open: make(chan struct{})}
	// Strong ETags: the footers' stand-ins are kept between runs, so a
	// warm plan reads only each file's end (webtest.ETag).
	c := &counted{files: gate.wrap(webtest.Handler(dir, webtest.Options{Validators: webtest.ETag})), n: map[string]int{}}
	site := webSite(t, c)
	// 0.4's check reads every data file's footer.
	opts := Options{Formats: []string{"0.4"}, Cache: t.TempDir(), Jobs: 1}
	if _, err := Plan(ctx, site, opts); err != nil {
		t.Fatal(err)
	}
	c.take()
	gate.arm()
	m, err := Plan(ctx, site, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Transfer == nil || m.Transfer.Cached == 0 {
		t.Fatalf("the second plan reused no data file (%+v): not warm", m.Transfer)
	}
	if most := gate.most(); most < askJobs {
		t.Errorf("the warm plan had at most %d data file requests in flight, want %d", most, askJobs)
	}
	files := 0
	for key, times := range c.take() {
		if !strings.HasPrefix(key, "HEAD /data/") && !strings.HasPrefix(key, "GET range /data/") {
			continue
		}
		files++
		if times != 1 {
			t.Errorf("the warm plan asked %s %d times, want once", key, times)
		}
	}
	if files < 2*askJobs {
		t.Errorf("the warm plan asked %d HEADs and ranged GETs of data files, want those of the history's files", files)
	}
}

// TestReadAheadKeepsWholeAnswers: on a server that ignores Range, the
// whole answers to the data files' ranged reads made ahead of need are
// adopted as their downloads, as those of the checks' own reads are: each
// data file is sent once per plan, cold or warm, never again for its copy
// or its footer.
func TestReadAheadKeepsWholeAnswers(t *testing.T) {
	ctx := context.Background()
	dir, _ := carryHistory7(t)
	c := &counted{files: webtest.Handler(dir, webtest.Options{Validators: webtest.ETag, IgnoreRange: true}), n: map[string]int{}}
	site := webSite(t, c)
	opts := Options{Formats: []string{"0.4"}, Cache: t.TempDir(), Jobs: 1}
	for _, run := range []string{"cold", "warm"} {
		if _, err := Plan(ctx, site, opts); err != nil {
			t.Fatal(err)
		}
		files := 0
		for key, times := range c.take() {
			if !strings.HasPrefix(key, "GET range /data/") {
				continue
			}
			files++
			if times != 1 {
				t.Errorf("the %s plan had %s sent %d times, want once", run, key, times)
			}
		}
		if files < askJobs {
			t.Errorf("the %s plan asked %d data files, want those of the history", run, files)
		}
	}
}

// atOnce holds, once armed, each HEAD of a data file until want are in
// flight at once (or 5 s have passed since one arrived: 500 ms was too
// short on a loaded 2-core machine, where the 16 HEADs of a sound look
// ahead arrived over more than that), and records the most in flight. A
// read ahead that asks fewer at once still peaks below want: the wait only
// ends sooner or later.
type atOnce struct {
	want int
	open chan struct{}

	mu        sync.Mutex
	armed     bool
	now, peak int
	once      sync.Once
}

func (a *atOnce) arm() {
	a.mu.Lock()
	a.armed = true
	a.mu.Unlock()
}

func (a *atOnce) most() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}

func (a *atOnce) wrap(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		armed := a.armed && r.Method == http.MethodHead && strings.HasPrefix(r.URL.Path, "/data/")
		if armed {
			a.now++
			a.peak = max(a.peak, a.now)
			if a.now >= a.want {
				a.once.Do(func() { close(a.open) })
			}
		}
		a.mu.Unlock()
		if !armed {
			files.ServeHTTP(w, r)
			return
		}
		select {
		case <-a.open:
		case <-time.After(5 * time.Second):
			a.once.Do(func() { close(a.open) })
		}
		files.ServeHTTP(w, r)
		a.mu.Lock()
		a.now--
		a.mu.Unlock()
	})
}

// TestWalkReadsSelectedVersions: the walk of a web site's versions/ reads
// whole the dataset.json and files.json of the versions a run may select
// only (--versions by ID, --shard): those of the others, which the run
// does not read, keep their HEADs, not a download each. Every version's
// version.json is read (the listing's reader reads them all).
func TestWalkReadsSelectedVersions(t *testing.T) {
	ctx := context.Background()
	dir, _ := sharedDemo(ctx, t)
	c := &counted{files: http.FileServer(http.Dir(dir)), n: map[string]int{}}
	site := webSite(t, c)
	ids := versionIDs(t, dir)
	if _, err := Plan(ctx, site, Options{Cache: t.TempDir(), Versions: []string{ids[0]}}); err != nil {
		t.Fatal(err)
	}
	n := c.take()
	for _, id := range ids {
		for _, name := range []string{"version.json", "dataset.json", "files.json"} {
			p := "/versions/" + id + "/" + name
			want := map[string]int{"GET": 1}
			if id != ids[0] && name != "version.json" {
				want = map[string]int{"HEAD": 1}
			}
			got := map[string]int{}
			for _, m := range []string{"HEAD", "GET", "GET range"} {
				if k := n[m+" "+p]; k > 0 {
					got[m] = k
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: %v, want %v", p, got, want)
			}
		}
	}
}

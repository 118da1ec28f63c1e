package repo

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/lakegen"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// sentBytes counts, by URL path, the GETs a server answered and the body
// bytes it wrote for them (those its connection took: a client that
// closes an answer unread stops the count).
type sentBytes struct {
	h     http.Handler
	mu    sync.Mutex
	gets  map[string]int
	bytes map[string]int64
}

func (s *sentBytes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		s.h.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.gets[r.URL.Path]++
	s.mu.Unlock()
	s.h.ServeHTTP(&sentWriter{ResponseWriter: w, s: s, path: r.URL.Path}, r)
}

// take returns the counts so far and starts again.
func (s *sentBytes) take() (map[string]int, map[string]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, b := s.gets, s.bytes
	s.gets, s.bytes = map[string]int{}, map[string]int64{}
	return g, b
}

type sentWriter struct {
	http.ResponseWriter
	s    *sentBytes
	path string
}

func (w *sentWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.s.mu.Lock()
	w.s.bytes[w.path] += int64(n)
	w.s.mu.Unlock()
	return n, err
}

func (w *sentWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestWebIgnoredRangeDataCache: on a server that ignores Range (python -m
// http.server: every ranged GET answered with 200 and the whole file), a
// warm check takes each data file from the cache where the whole answer's
// validator vouches for the cached copy's bytes (Last-Modified and size,
// or a strong ETag), closing the answer after its headers: the server
// sends a few chunks of each file, not the file. Before, every answer was
// read to its end for the file's last 8 bytes: a warm check was sent
// every data file whole again. A weak ETag names no bytes: the answers
// are read whole and the last bytes compared, as before. A copy changed
// in a restored cache is still held to the bytes delivered before it is
// read, and downloaded again; a data file changed on the server (another
// validator) is still sent whole, taken as the new copy and its change
// reported.
func TestWebIgnoredRangeDataCache(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills and checks a lake on a web server")
	}
	ctx := context.Background()
	// Data files of about 1 MB: a closed answer is told from a whole one
	// by the bytes sent.
	golden, _ := historyDataFiles(t, lakegen.HistoryOptions{Versions: 2, RowsPerVersion: 120_000, FilesPerVersion: 1, DeleteEvery: -1})
	lst, err := local.New(golden)
	if err != nil {
		t.Fatal(err)
	}
	// One format written and proved: the data files every proof reads
	// are the same, and the other formats' catalogs and proofs only
	// cost time.
	formats := []string{"1.1"}
	if _, err := Backfill(ctx, lst, Options{Jobs: 2, Formats: formats}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		validators webtest.Validators
		drop       bool // warm answers closed unread
	}{
		{"Last-Modified only", webtest.LastModified, true},
		{"strong ETag", webtest.ETag, true},
		{"weak ETag", webtest.WeakETag, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "lake")
			if err := copyTree(golden, dir); err != nil {
				t.Fatal(err)
			}
			sizes := map[string]int64{}
			var total int64
			filepath.WalkDir(filepath.Join(dir, "data"), func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					info, err := d.Info()
					if err != nil {
						t.Fatal(err)
					}
					rel, _ := filepath.Rel(dir, p)
					sizes["/"+filepath.ToSlash(rel)] = info.Size()
					total += info.Size()
				}
				return nil
			})
			if len(sizes) == 0 || total < 1<<20 {
				t.Fatalf("data files %v: want some, of 1 MB or more in all", sizes)
			}
			// 16 KiB at a time: a client that closes the answer stops the
			// server within a few chunks, whatever its socket buffers.
			files := webtest.Trickle(webtest.Handler(dir, webtest.Options{Validators: tc.validators, IgnoreRange: true}),
				func(r *http.Request) bool { return r.Method == http.MethodGet }, 16<<10, time.Millisecond)
			srv := &sentBytes{h: files, gets: map[string]int{}, bytes: map[string]int64{}}
			site := webSite(t, srv)
			opts := Options{Cache: t.TempDir(), Jobs: 2, Formats: formats}

			rep, err := Check(ctx, site, opts)
			if err != nil {
				t.Fatalf("cold check: %v", err)
			}
			gets, sent := srv.take()
			for p, n := range sizes {
				if gets[p] != 1 || sent[p] != n {
					t.Errorf("cold check: %s: %d GETs, %d bytes sent; want it sent whole once (%d bytes)", p, gets[p], sent[p], n)
				}
			}
			if tr := rep.Transfer; tr == nil || tr.DataFiles != len(sizes) {
				t.Fatalf("cold check: transfer %+v, want the %d data files downloaded", tr, len(sizes))
			}

			rep, err = Check(ctx, site, opts)
			if err != nil {
				t.Fatalf("warm check: %v", err)
			}
			gets, sent = srv.take()
			var warm, others int64
			for p, n := range sent {
				if _, ok := sizes[p]; !ok {
					others += n
				}
			}
			for p := range sizes {
				warm += sent[p]
				if gets[p] != 1 {
					t.Errorf("warm check: %s: %d GETs, want one", p, gets[p])
				}
			}
			tr := rep.Transfer
			t.Logf("warm check: data files sent %d of %d bytes, other files %d; downloaded %d bytes in all", warm, total, others, tr.Downloaded)
			if tr.Cached != len(sizes) || tr.DataFiles != 0 {
				t.Errorf("warm check: transfer %+v, want the %d data files from the cache", tr, len(sizes))
			}
			if tc.drop {
				// The client counts no byte of a closed answer: the
				// data files' bytes are not downloaded again.
				if warm > total/4 || tr.Downloaded > others+total/4 {
					t.Errorf("warm check: data files sent %d bytes, %d downloaded in all; want at most %d sent (a quarter of their %d: the answers closed after their headers), at most %d downloaded (the %d bytes of the other files sent, and that quarter)",
						warm, tr.Downloaded, total/4, total, others+total/4, others)
				}
			} else if warm != total {
				t.Errorf("warm check: data files sent %d bytes, want all %d (a weak ETag vouches for no bytes: each read whole)", warm, total)
			}
			if tc.validators == webtest.WeakETag {
				return
			}

			var changed string
			for p := range sizes {
				if !strings.HasSuffix(p, "-delete.parquet") && (changed == "" || p < changed) {
					changed = p
				}
			}

			// A copy of the cache (every file new to this machine, as
			// actions/cache restores it) with one copy's bytes changed
			// inside, its size and last bytes kept: the answer is still
			// dropped (the server's validator is the record's), but the
			// copy is held to the sha256 of the bytes delivered before
			// any reader reads it, and downloaded again; the check passes
			// on the server's bytes.
			restored := Options{Cache: filepath.Join(t.TempDir(), "restored"), Jobs: 2, Formats: formats}
			if err := copyTree(opts.Cache, restored.Cache); err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(changed, "/") // the mirror holds the store's data folder
			copies, _ := filepath.Glob(filepath.Join(restored.Cache, "objects", "*", filepath.FromSlash(rel)))
			if len(copies) != 1 {
				t.Fatalf("cached copies of %s: %v, want one", changed, copies)
			}
			good, err := os.ReadFile(copies[0])
			if err != nil {
				t.Fatal(err)
			}
			bad := append([]byte(nil), good...)
			for i := len(bad) / 2; i < len(bad)/2+64; i++ {
				bad[i] ^= 0xff
			}
			if err := os.WriteFile(copies[0], bad, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err = Check(ctx, site, restored)
			if err != nil {
				t.Fatalf("check with a restored cache, %s changed in it: %v", changed, err)
			}
			_, sent = srv.take()
			if got, err := os.ReadFile(copies[0]); err != nil || string(got) != string(good) {
				t.Errorf("check with a restored cache: %s not downloaded again (%v)", copies[0], err)
			}
			// Its dropped answer sent a chunk or so, its download all.
			if sent[changed] < sizes[changed] || rep.Transfer.DataFiles != 1 {
				t.Errorf("check with a restored cache: %d bytes of %s sent, transfer %+v; want it sent whole (%d bytes), downloaded again", sent[changed], changed, *rep.Transfer, sizes[changed])
			}

			// A data file changed on the server, at the same size (its
			// footer's length): another validator, so sent whole, taken
			// as the copy, and the change found.
			fp := filepath.Join(dir, filepath.FromSlash(changed))
			b, err := os.ReadFile(fp)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-8]++
			if err := os.WriteFile(fp, b, 0o644); err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(2 * time.Second)
			if err := os.Chtimes(fp, later, later); err != nil {
				t.Fatal(err)
			}
			rep, err = Check(ctx, site, opts)
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("check after %s changed on the server: %v, want %v", changed, err, ErrDifferences)
			}
			var details []string
			for _, f := range rep.Findings {
				details = append(details, f.Detail)
			}
			if all := strings.Join(details, "\n"); !strings.Contains(all, "footer") {
				t.Errorf("check after %s changed on the server: findings lack its footer:\n%s", changed, all)
			}
			_, sent = srv.take()
			if sent[changed] != sizes[changed] {
				t.Errorf("check after %s changed on the server: %d bytes of it sent, want all %d", changed, sent[changed], sizes[changed])
			}
			if tr := rep.Transfer; tr == nil || tr.DataFiles != 1 || tr.Cached != len(sizes)-1 {
				t.Errorf("check after %s changed on the server: transfer %+v, want it downloaded, the %d others from the cache", changed, tr, len(sizes)-1)
			}
		})
	}
}

// TestCopyGate: the whole answers a data file's cached copy drops unread
// (copyGate) are those whose validator and size are its record's, by a
// validator that vouches for the bytes (Last-Modified and size, a strong
// ETag, a time-and-size ETag), and only for a copy larger than
// smallAnswer: a small answer is read (its last bytes compared, the
// connection kept), as every one was before. Before, a delete file of a
// few KB was dropped too.
func TestCopyGate(t *testing.T) {
	t.Parallel()
	mod := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	const big = smallAnswer + 1
	// nginx's default ETag: the modification time and size in hex.
	nginx := strconv.FormatInt(mod.Unix(), 16) + "-" + strconv.FormatInt(big, 16)
	for _, tc := range []struct {
		name   string
		copy   int64            // the cached copy's size on disk
		record copyRecord       // its record (size 0: the copy's)
		info   store.ObjectInfo // the answer
		gate   bool             // a gate is made (a copy to drop answers for)
		drop   bool
	}{
		{"Last-Modified", big, copyRecord{validator: validator(store.ObjectInfo{ModTime: mod, Size: big})},
			store.ObjectInfo{ModTime: mod, Size: big}, true, true},
		{"Last-Modified, a later one", big, copyRecord{validator: validator(store.ObjectInfo{ModTime: mod, Size: big})},
			store.ObjectInfo{ModTime: mod.Add(time.Second), Size: big}, true, false},
		{"Last-Modified, another size", big, copyRecord{validator: validator(store.ObjectInfo{ModTime: mod, Size: big})},
			store.ObjectInfo{ModTime: mod, Size: big + 1}, true, false},
		{"small file", smallAnswer, copyRecord{validator: validator(store.ObjectInfo{ModTime: mod, Size: smallAnswer})},
			store.ObjectInfo{ModTime: mod, Size: smallAnswer}, false, false},
		{"copy not its record's size", big - 1, copyRecord{validator: validator(store.ObjectInfo{ModTime: mod, Size: big}), size: big},
			store.ObjectInfo{ModTime: mod, Size: big}, false, false},
		{"strong ETag", big, copyRecord{validator: "etag abc", strong: true},
			store.ObjectInfo{ETag: "abc", ModTime: mod, Size: big}, true, true},
		{"another strong ETag", big, copyRecord{validator: "etag abc", strong: true},
			store.ObjectInfo{ETag: "abd", ModTime: mod, Size: big}, true, false},
		{"strong ETag now weak", big, copyRecord{validator: "etag abc", strong: true},
			store.ObjectInfo{ETag: "abc", WeakETag: true, ModTime: mod, Size: big}, true, false},
		{"weak ETag", big, copyRecord{validator: "etag abc"},
			store.ObjectInfo{ETag: "abc", WeakETag: true, ModTime: mod, Size: big}, true, false},
		{"weak ETag now strong", big, copyRecord{validator: "etag abc"},
			store.ObjectInfo{ETag: "abc", ModTime: mod, Size: big}, true, false},
		{"time-and-size ETag", big, copyRecord{validator: "etag " + nginx},
			store.ObjectInfo{ETag: nginx, ModTime: mod, Size: big}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rm := &remote{cacheDir: dir, local: filepath.Join(dir, "data"), dataKey: "data/"}
			key := "data/main/t/f.parquet"
			path := rm.localPath(key)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, make([]byte, tc.copy), 0o644); err != nil {
				t.Fatal(err)
			}
			c := tc.record
			c.sha256, c.stamp = "sum", "stamp"
			if c.size == 0 {
				c.size = tc.copy
			}
			if err := os.WriteFile(path+validatorSuffix, []byte(c.encode()), 0o644); err != nil {
				t.Fatal(err)
			}
			gate := rm.copyGate(key)
			if (gate != nil) != tc.gate {
				t.Fatalf("copyGate gives a gate: %t, want %t", gate != nil, tc.gate)
			}
			if gate != nil && gate(tc.info) != tc.drop {
				t.Errorf("the gate drops %+v: %t, want %t", tc.info, !tc.drop, tc.drop)
			}
		})
	}
}

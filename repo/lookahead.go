package repo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// A web site or bucket far away costs a round trip per request, and a
// request that waits for the one before it costs another. A warm plan of
// 200 versions 20 ms away took 99-117 s, most of it waiting: each version's
// frozen catalog, dataset.json and files.json were read one after the
// other (dataset.json and files.json twice: hashed, then parsed; check's
// content pass read them a third time), and every data file of a checked
// version was revalidated (its HEAD and ranged GET of its end) only when
// its conversion check reached it, four at a time. So:
//
//   - planVersion starts the reads of the frozen catalog, dataset.json and
//     files.json at once (lookAhead), beside the probes of catalogs/, and
//     reads each JSON file once: the bytes hashed are the bytes parsed, and
//     in a check those its content pass compares (held);
//   - checkCells reads the ends of the data files the checked versions'
//     files.json list ahead of need, askJobs at a time, in the versions'
//     order (remote.readAhead): the delete files and the cached copies,
//     which every check revalidates, at once; the others once a check has
//     asked for footers (their stand-ins start with that read). A cell's
//     readTail then finds its answer there.
//
// Nothing is asked twice, nor, but for the footers of files a check that
// reads footers for other files may not read, anything the run would not
// ask anyway.

// askJobs bounds the requests of the read ahead in flight at once: a warm
// plan's checks of 200 versions read 4,500 files' ends (a HEAD and a
// ranged GET each): 20 ms away the whole plan took 52 s with 8 at a time,
// 44 s with 16 (one run each, scripts/benchrtt -only web).
const askJobs = 16

// aheadRead is a read of a file started ahead of need.
type aheadRead struct {
	done chan struct{}
	data []byte
	err  error
}

// lookAhead starts, on a remote store, the reads planVersion makes of v's
// frozen catalog (remote.catalog, shared by every caller of the run), its
// dataset.json and its files.json (readVerified takes them), where the
// listing shows each at the size version.json records (else nothing is
// read: the plan reports it as before). wait waits for them.
func (r *repository) lookAhead(ctx context.Context, v *version) (wait func()) {
	if r.remote == nil || v.meta == nil || v.expired != nil || v.err != nil {
		return func() {}
	}
	var wg sync.WaitGroup
	listed := func(ref fdljson.FileRef) bool {
		info, ok := v.objects[ref.Path]
		return ok && info.Size == ref.Bytes
	}
	if ref := v.meta.Catalog.FileRef; listed(ref) {
		wg.Go(func() { r.remote.catalog(ctx, v.prefix()+ref.Path, &ref) })
	}
	for _, ref := range []*fdljson.FileRef{v.meta.Dataset, v.meta.Files} {
		if ref == nil || !listed(*ref) || ref.Path == v.meta.Catalog.Path {
			continue
		}
		if _, ok := v.reads[ref.Path]; ok {
			continue
		}
		if v.reads == nil {
			v.reads = map[string]*aheadRead{}
		}
		a := &aheadRead{done: make(chan struct{})}
		v.reads[ref.Path] = a
		if b, ok := v.takeBody(ref.Path); ok {
			// The walk of versions/ read it (walkReads).
			a.data = b
			close(a.done)
			continue
		}
		wg.Go(func() {
			defer close(a.done)
			a.data, a.err = store.ReadAll(ctx, r.st, v.prefix()+ref.Path)
		})
	}
	return wg.Wait
}

// readVerified reads a file beside version.json (dataset.json, files.json)
// once per run and holds its bytes to the size and sha256 version.json
// records; in a check, the bytes that match are kept for its content pass
// (heldRef).
func (r *repository) readVerified(ctx context.Context, v *version, ref fdljson.FileRef) ([]byte, Problem, error) {
	if problem, err := r.listedRef(ctx, v, ref); err != nil {
		return nil, problem, err
	}
	key := v.prefix() + ref.Path
	var data []byte
	var err error
	if a, ok := v.reads[ref.Path]; ok {
		delete(v.reads, ref.Path)
		<-a.done
		data, err = a.data, a.err
	} else {
		data, err = r.readFile(ctx, v, ref.Path)
	}
	if err != nil {
		return nil, ProblemUnreadable, err
	}
	sum := sha256.Sum256(data)
	if problem, err := matchRef(key, ref.Bytes, ref.SHA256, int64(len(data)), hex.EncodeToString(sum[:])); err != nil {
		return nil, problem, err
	}
	if r.keepJSON {
		if v.held == nil {
			v.held = map[string][]byte{}
		}
		v.held[ref.Path] = data
	}
	return data, "", nil
}

// heldRef gives the bytes of the file ref (of v's version.json) names that
// the plan read and found to be those it records (readVerified).
func (v *version) heldRef(ref *fdljson.FileRef) ([]byte, bool) {
	data, ok := v.held[ref.Path]
	return data, ok
}

// indexedFile is a data or delete file a version's files.json lists.
type indexedFile struct {
	key    string
	delete bool
}

// indexedKeys are the data and delete files files lists, under data_dir
// (others are not the mirror's: never read ahead).
func (r *repository) indexedKeys(files *fdljson.Files) []indexedFile {
	if r.remote == nil {
		return nil
	}
	var out []indexedFile
	add := func(p string, del bool) string {
		key := path.Clean(r.remote.dataKey + p)
		if strings.HasPrefix(key, r.remote.dataKey) && store.ValidateKey(key) == nil {
			out = append(out, indexedFile{key, del})
			return key
		}
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(files.Tables)) {
		t := files.Tables[name]
		if t == nil {
			continue
		}
		for _, f := range t.Files {
			if key := add(f.Path, false); key != "" && f.FooterBytes != nil {
				r.remote.expectFooter(key, *f.FooterBytes, f.Bytes)
			}
			if f.Deletes != nil {
				add(f.Deletes.Path, true)
			}
		}
	}
	return out
}

// expectFooter notes the footer length files.json records for the data
// file key of size bytes (footer_bytes), where it can be one: the read
// ahead of its end for its footer (readAhead's later reads) then asks for
// the footer and its last 8 bytes in one ranged GET (footerRead). A first
// record wins; the record is only a guess of what to ask, never trusted:
// the footer's length is the one the answer's last bytes give.
func (rm *remote) expectFooter(key string, n, size int64) {
	if n <= 0 || n > maxFooterGuess || n+int64(2*len(footerMagic))+4 > size {
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.footerLens == nil {
		rm.footerLens = map[string]int64{}
	}
	if _, ok := rm.footerLens[key]; !ok {
		rm.footerLens[key] = n
	}
}

// maxFooterGuess bounds the footer a read ahead asks for on files.json's
// word (footer_bytes): a larger one is read as before, its last 8 bytes
// first, so that a wrong record costs no large download.
const maxFooterGuess = 4 << 20

// footerRead is how many of the data file key's last bytes a read of its
// end for its footer asks for: its footer and the 8 bytes after it where
// files.json records the footer's length and no stand-in of the file is
// kept in the cache (whose footer a run takes from there, reading only
// the 8 bytes that revalidate it), else those 8 bytes alone.
func (rm *remote) footerRead(key string) int64 {
	rm.mu.Lock()
	n, ok := rm.footerLens[key]
	rm.mu.Unlock()
	if !ok || rm.standInsKept(key) {
		return tailBytes
	}
	return n + tailBytes
}

// tailRead is a ranged read of an object's end (readTailKeep into
// answerDir) started ahead of need.
type tailRead struct {
	key  string
	n    int64 // the last bytes asked: tailBytes, or a footer's too (footerRead)
	done chan struct{}
	tail []byte
	info store.ObjectInfo
	ans  *keptAnswer // a Range-ignoring server's whole answer, kept in dir
	// dropped: that whole answer was closed unread, the cache holding
	// the file under its validator (copyGate); tail is nil.
	dropped bool
	dir     string
	took    time.Duration
	err     error
}

// readAhead reads the ends of the objects sure and, once a check has
// asked for footers (Footers), later (readTail), askJobs at a time, each
// list in its order, each object once and only where no readTail of it
// was made in this run, so that the readTail each gets when its turn comes
// is answered already: the requests the run makes are the same, made
// earlier. stop ends the reads not yet made (a readTail of those asks the
// store then), waits for those in flight and drops the answers not taken.
func (rm *remote) readAhead(ctx context.Context, sure, later []string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	todo := make(chan *tailRead)
	var wg, producers sync.WaitGroup
	for range askJobs {
		wg.Go(func() {
			for t := range todo {
				// As fillCache reads a data file's end: a whole
				// answer is kept for the copy's download to adopt, or
				// closed unread where the cache holds the file under
				// its validator (copyGate).
				w := &wholeAnswer{dir: t.dir, drop: rm.copyGate(t.key)}
				start := time.Now()
				var kept bool
				t.tail, t.info, kept, t.err = rm.readEnd(ctx, t.key, t.n, w)
				t.ans, t.took = w.finish(kept && t.err == nil, t.info.Size), time.Since(start)
				t.dropped = w.dropped && t.err == nil
				close(t.done)
			}
		})
	}
	send := func(keys []string, footers bool) {
		for _, key := range keys {
			n := int64(tailBytes)
			if footers {
				// Read for its footer: the footer with its last bytes
				// where files.json tells its length.
				n = rm.footerRead(key)
			}
			rm.mu.Lock()
			_, asked := rm.asked[key]
			var t *tailRead
			if !asked {
				t = &tailRead{key: key, n: n, dir: rm.answerDir(), done: make(chan struct{})}
				rm.asked[key] = struct{}{}
				rm.ahead[key] = t
			}
			rm.mu.Unlock()
			if t == nil {
				continue
			}
			select {
			case todo <- t:
			case <-ctx.Done():
				rm.mu.Lock()
				delete(rm.ahead, key) // never asked: readTail asks it
				rm.mu.Unlock()
				return
			}
		}
	}
	producers.Go(func() { send(sure, false) })
	producers.Go(func() {
		select {
		case <-rm.footersAsked:
			send(later, true)
		case <-ctx.Done():
		}
	})
	wg.Go(func() {
		producers.Wait()
		close(todo)
	})
	return func() {
		cancel()
		wg.Wait()
		rm.mu.Lock()
		for _, keys := range [][]string{sure, later} {
			for _, key := range keys {
				if t := rm.ahead[key]; t != nil {
					// Not taken: a later readTail asks anew.
					t.ans.discard()
					delete(rm.ahead, key)
				}
			}
		}
		rm.mu.Unlock()
	}
}

// takeAhead is the read ahead of the object key's end (readAhead), done,
// nil where none was made (or it was cut short by its stop, or ctx ended
// meanwhile): the caller asks the store now. Each is taken once.
func (rm *remote) takeAhead(ctx context.Context, key string) *tailRead {
	rm.mu.Lock()
	t := rm.ahead[key]
	delete(rm.ahead, key)
	rm.asked[key] = struct{}{}
	rm.mu.Unlock()
	if t == nil {
		return nil
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		go func() { <-t.done; t.ans.discard() }()
		return nil
	}
	if t.err != nil && ctx.Err() == nil && errors.Is(t.err, context.Canceled) {
		t.ans.discard()
		return nil
	}
	return t
}

// indexedFiles are the data and delete files the files.json of the cells'
// versions list (indexed), each once, in the cells' order: sure those a
// check of the cells revalidates whatever it checks (the delete files, and
// the files whose copy is in the cache: fetchConversion), later the others,
// whose ends a check reads only where it asks for their footers.
func (r *repository) indexedFiles(cells []*Cell) (sure, later []string) {
	seen := map[string]bool{}
	for _, c := range cells {
		v := r.find(c.Version)
		if v == nil || seen[v.prefix()] {
			continue
		}
		seen[v.prefix()] = true
		for _, f := range v.indexed {
			if seen[f.key] {
				continue
			}
			seen[f.key] = true
			if f.delete || r.remote.hasCopy(f.key) {
				sure = append(sure, f.key)
			} else {
				later = append(later, f.key)
			}
		}
	}
	return sure, later
}

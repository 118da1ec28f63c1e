package repo

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/fileid"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// A repository whose store has no local folder (an S3 bucket, a web site)
// is read through two local folders:
//
//   - the run's private work folder, which holds the catalogs the run opens:
//     each downloaded once, and a frozen catalog used only after its size and
//     sha256 match version.json;
//   - the data cache, <Options.Cache>/objects/<store>/, which mirrors the data
//     files proofs and conversions read, keyed by their path in the store,
//     each downloaded at most once per run and kept between runs; a cached
//     file is reused only when the object's validator is the one it was
//     downloaded with: its ETag, else its Last-Modified time and size; an
//     object with neither is downloaded again on every run. A copy that is
//     not the file this machine wrote (a restored cache) is read again and
//     held to the sha256 of the bytes delivered before anything of the run
//     reads it, and not at all when nothing does (mirror.go, which also
//     says how kept proofs name the copies).

// Transfer counts what a run moved between the store and this machine.
type Transfer struct {
	// Store names the repository (no credentials).
	Store string `json:"store"`
	// Downloaded and Uploaded are bytes read from and written to the store.
	Downloaded int64 `json:"bytes_downloaded"`
	Uploaded   int64 `json:"bytes_uploaded"`
	// DataFiles is how many data files were downloaded into the cache;
	// Cached how many were already there and reused.
	DataFiles int `json:"data_files_downloaded"`
	Cached    int `json:"data_files_cached"`
	// Rehashed is how many of those were read again to hold them to the
	// sha256 of the bytes the store delivered, their files not being the
	// ones this machine wrote (a restored or copied cache folder): only
	// those a reader of the run read (a proof not found kept). A copy
	// found changed so is downloaded again: counted in DataFiles, in
	// neither of these.
	Rehashed int `json:"data_files_rehashed"`
	// CatalogsCached is how many frozen catalogs were taken from the cache
	// (the store still holding the same bytes) instead of downloaded.
	CatalogsCached int `json:"frozen_catalogs_cached"`
	// Footers is how many data files' footers plan's conversion check read
	// by ranged reads instead of their files (footers.go); FootersCached
	// how many it took from the cache, the objects unchanged.
	Footers       int `json:"footers_read"`
	FootersCached int `json:"footers_cached"`
	// DownloadSeconds is the time spent downloading, summed over the
	// downloads (parallel ones overlap, so it can exceed the run's time).
	DownloadSeconds float64 `json:"download_seconds"`
}

// DownloadProgress reports one finished data-file download.
type DownloadProgress struct {
	Key   string
	Bytes int64 // this file's
	// Downloaded is every byte read from the store so far in the run.
	Downloaded int64
}

// remote is the state of a run over a store without local paths.
type remote struct {
	counter  *store.Counter
	work     string // the run's private folder for catalogs
	cacheDir string // data cache root for this store, "" when DataPath was given
	local    string // the local folder standing for data_dir: in the cache, or DataPath
	dataKey  string // data_dir as a key prefix ("data/")
	slots    chan struct{}
	onFile   func(DownloadProgress)
	// readableHook: Options.readableHook (tests).
	readableHook func(paths []string)
	tmpDir       string // downloads in progress into the cache, outside it
	cacheMax     int64  // bound of the data cache folder (objects/), bytes
	log          *slog.Logger
	// listings is told of every data file written into the cache.
	listings *compare.Listings
	// engines are the run's readers' databases (repository.engines), set
	// by load: the readers of needed take theirs from it, so that they
	// spill where the run's do and no more than --max-spill. Nil (a
	// remote of a test of its own): each opens its own, bounded by
	// duckpool.MaxSpill.
	engines *compare.Engines

	// stopMarking ends the run's refreshing of its mirror's last-used
	// marker (markInUse); nil when the run has no mirror in a cache.
	stopMarking func()

	// catalogDir holds the frozen catalogs kept between runs, by sha256
	// (catalogcache.go); "" with --no-cache or --data.
	catalogDir string

	// md5s keeps the MD5s of the --data folder's files across runs
	// (Options.DigestCache; nil: hashed on every run), for inStore.
	md5s compare.DigestStore

	mu       sync.Mutex
	catalogs map[string]*fetch // key -> local copy in work
	files    map[string]*fetch // key -> cached data file
	footers  map[string]*fetch // key -> stand-in holding its footer (footers.go)
	// unread are the copies reused but not yet held to the bytes the
	// store delivered (heldCopy: a restored cache), by key; reread holds
	// each once, before a reader reads it (readable).
	unread map[string]unreadCopy
	reread map[string]*fetch
	// published holds the published catalogs this run proved or wrote
	// (keepPublished): key -> local copy in work.
	published map[string]string
	// heads holds the start of each catalog copyHeld downloaded and held
	// in this run, for the reader matrix (catalogHeader).
	heads map[string]heldHead
	stats Transfer
	// tailOnly counts the --data files whose object has no MD5 ETag
	// (inStore compared only their size and last bytes).
	tailOnly int
	// ignoredRanges are the objects whose ranged read (readTail) the
	// server answered with the whole object, sorted when read
	// (rangesIgnored).
	ignoredRanges []string
	// ahead are the ranged reads of objects' ends started ahead of need
	// (readAhead), by key: the next readTail of the key takes its answer.
	ahead map[string]*tailRead
	// asked are the keys whose end was read (readTail) or read ahead in
	// this run: never read ahead again.
	asked map[string]struct{}
	// described are the catalogs a web site's folder walk (or a probe)
	// described by a HEAD in this run (describeCatalogs), by key: the
	// ranged read of such a catalog's end asks its ranged GET alone,
	// held to that HEAD's answer (readEnd).
	described map[string]store.ObjectInfo
	// footersAsked is closed when a check first asks for stand-ins
	// (Footers): from then on readAhead reads ahead the ends of the files
	// without a copy too.
	footersAsked     chan struct{}
	footersAskedOnce sync.Once
	// footerLens are the footer lengths files.json records for data files
	// (expectFooter), by key: a read of such a file's end for its footer
	// asks for the footer with it (footerRead).
	footerLens map[string]int64
	// footersTidied removes, once a run, what the first stand-in layout
	// left in <hash>.footers/ (tidyFooters).
	footersTidied sync.Once
}

// fetch is one download shared by every caller that needs the same key.
type fetch struct {
	done    chan struct{}
	path    string
	header  *duckfile.Header // a catalog's headers, from the bytes downloaded
	problem Problem
	err     error
}

func newRemote(counter *store.Counter, cfg *fdljson.Repo, opts *Options, listings *compare.Listings) (*remote, error) {
	work, err := scratch.MkdirTemp(opts.workDir(), remoteWorkPrefix)
	if err != nil {
		return nil, fmt.Errorf("create work folder: %w", err)
	}
	rm := &remote{
		counter: counter, work: work,
		dataKey: strings.TrimSuffix(cfg.DataDir, "/") + "/",
		slots:   make(chan struct{}, max(opts.Downloads, 1)),
		onFile:  opts.OnDownload, listings: listings, readableHook: opts.readableHook,
		catalogs: map[string]*fetch{}, files: map[string]*fetch{}, footers: map[string]*fetch{}, published: map[string]string{},
		heads: map[string]heldHead{}, unread: map[string]unreadCopy{}, reread: map[string]*fetch{},
		ahead: map[string]*tailRead{}, asked: map[string]struct{}{}, footersAsked: make(chan struct{}),
		md5s: opts.DigestCache,
	}
	if opts.Downloads == 0 {
		rm.slots = make(chan struct{}, 4)
	}
	rm.stats.Store = location(counter.Unwrap())
	if opts.DataPath != "" {
		if rm.local, err = filepath.Abs(opts.DataPath); err != nil {
			os.RemoveAll(work)
			return nil, err
		}
	} else if opts.NoDataCache {
		rm.cacheDir = filepath.Join(work, "objects")
		rm.local = filepath.Join(rm.cacheDir, filepath.FromSlash(strings.TrimSuffix(rm.dataKey, "/")))
	} else {
		cache := opts.Cache
		if cache == "" {
			if cache, err = os.UserCacheDir(); err != nil {
				os.RemoveAll(work)
				return nil, fmt.Errorf("no data cache folder: %w (set --cache DIR)", err)
			}
			cache = filepath.Join(cache, "fdl-formats")
		}
		sum := sha256.Sum256([]byte(rm.stats.Store))
		if cache, err = filepath.Abs(cache); err != nil {
			os.RemoveAll(work)
			return nil, err
		}
		rm.cacheDir = filepath.Join(cache, "objects", hex.EncodeToString(sum[:8]))
		rm.tmpDir = rm.cacheDir + tmpSuffix
		rm.catalogDir = rm.cacheDir + catalogsSuffix
		touch(rm.cacheDir + lastUsedSuffix) // before any download: a concurrent prune spares it
		if err := errors.Join(os.MkdirAll(rm.cacheDir, 0o755), os.MkdirAll(rm.tmpDir, 0o755)); err != nil {
			os.RemoveAll(work)
			return nil, fmt.Errorf("create data cache %s: %w", rm.cacheDir, err)
		}
		rm.local = filepath.Join(rm.cacheDir, filepath.FromSlash(strings.TrimSuffix(rm.dataKey, "/")))
		rm.cacheMax, rm.log = opts.DataCacheMax, opts.log()
		if rm.cacheMax == 0 {
			rm.cacheMax = DefaultDataCacheMax
		}
		rm.stopMarking = markInUse(rm.cacheDir+lastUsedSuffix, markEvery)
	}
	// Catalogs resolve data paths to absolute ones, which the checks then
	// match against this folder: a relative --cache or work folder would
	// match nothing (every file reported as differing).
	if rm.local, err = filepath.Abs(rm.local); err != nil {
		if rm.stopMarking != nil {
			rm.stopMarking()
		}
		os.RemoveAll(work)
		return nil, err
	}
	if rm.cacheDir != "" {
		// Its copies are held to the store's objects (fillCache): proofs
		// name them by those (mirror.go).
		listings.SetMirror(rm.local, rm)
	}
	return rm, nil
}

// markEvery is how often a run marks its mirror in use, well within
// dataCacheGrace: another run's prune spares a mirror used within it.
const markEvery = 5 * time.Minute

// markInUse touches marker every interval until the returned stop is
// called: a run that downloads or proves for longer than dataCacheGrace
// without a cache hit (a cold check of a large repository) kept its
// mirror's marker at its start time, and another run's prune removed the
// mirror under it.
func markInUse(marker string, every time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				touch(marker)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}

func location(st store.Store) string {
	if l, ok := st.(store.Location); ok {
		return l.Location()
	}
	return fmt.Sprintf("%T", st)
}

// dataPath is the local folder that stands for data_dir.
func (rm *remote) dataPath() string { return rm.local }

// localPath is where the data file key is at hand.
func (rm *remote) localPath(key string) string {
	return filepath.Join(rm.local, filepath.FromSlash(strings.TrimPrefix(key, rm.dataKey)))
}

// close removes the run's work folder and keeps the data cache within its
// bound (pruneObjects), sparing this repository's mirror.
func (rm *remote) close() {
	if rm.stopMarking != nil {
		rm.stopMarking()
	}
	os.RemoveAll(rm.work)
	if rm.cacheMax <= 0 || rm.cacheDir == "" || strings.HasPrefix(rm.cacheDir, rm.work) {
		return
	}
	touch(rm.cacheDir + lastUsedSuffix)
	pruneObjects(filepath.Dir(rm.cacheDir), rm.cacheDir, rm.cacheMax, rm.log)
}

func (rm *remote) transfer() *Transfer {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	t := rm.stats
	t.Downloaded, t.Uploaded = rm.counter.Downloaded(), rm.counter.Uploaded()
	return &t
}

// once runs get for key at most once per run; every caller gets its result.
func (rm *remote) once(m map[string]*fetch, key string, get func(*fetch)) *fetch {
	rm.mu.Lock()
	f, ok := m[key]
	if !ok {
		f = &fetch{done: make(chan struct{})}
		m[key] = f
	}
	rm.mu.Unlock()
	if !ok {
		get(f)
		close(f.done)
	}
	<-f.done
	return f
}

// catalog downloads a catalog into the work folder once per run, held to
// the ranged read of its end that DuckDB's reads are (readTail,
// downloadHeld). With ref, the copy is hashed while it is written and
// refused unless its size and sha256 match; such a frozen catalog is taken
// from the cache instead when the store still has the bytes it holds
// (cachedFrozen), and a download that matched is kept there (keepFrozen).
// It returns the copy and what its DuckDB headers say (nil for a file that
// is not a DuckDB file), taken from the bytes copied.
func (rm *remote) catalog(ctx context.Context, key string, ref *fdljson.FileRef) (string, *duckfile.Header, Problem, error) {
	f := rm.once(rm.catalogs, key, func(f *fetch) {
		f.path = filepath.Join(rm.work, filepath.FromSlash(key))
		hd := &head{}
		// A server that ignores the range sends the whole catalog
		// instead: kept (ans), it is the download (wholeanswer.go);
		// where the cache holds the catalog under that answer's
		// validator, it is closed unread (dropped) and the cached copy
		// taken (frozenGate).
		var drop func(store.ObjectInfo) bool
		if ref != nil {
			drop = rm.frozenGate(ref)
		}
		tail, info, ans, _, err := rm.readTailGated(ctx, key, tailBytes, rm.work, hd, drop)
		var sum string
		var n int64
		var got *store.ObjectInfo
		switch {
		case err != nil:
		case ans != nil:
			sum, n, got = ans.sum, ans.n, &info
			if err = os.MkdirAll(filepath.Dir(f.path), 0o755); err == nil {
				err = os.Rename(ans.path, f.path)
			}
			if err != nil {
				ans.discard()
				err = fmt.Errorf("%s: keep the whole answer to its ranged read: %w", key, err)
			}
		case ref != nil && rm.cachedFrozen(key, ref, f.path, hd, tail, info):
			f.header = hd.header()
			return
		default:
			sum, n, got, err = rm.downloadHeld(ctx, key, f.path, hd, tail, info)
		}
		if err == nil {
			f.header = hd.header()
		}
		switch {
		case err != nil:
			f.problem, f.err = dataProblem(err), err
			if errors.Is(err, fs.ErrNotExist) {
				f.problem = ProblemInvalid
			}
		case ref != nil && n != ref.Bytes:
			f.problem, f.err = ProblemMismatch, fmt.Errorf("%s: %d bytes, version.json says %d", key, n, ref.Bytes)
		case ref != nil && sum != ref.SHA256:
			f.problem, f.err = ProblemMismatch, fmt.Errorf("%s: sha256 %s, version.json says %s", key, sum, ref.SHA256)
		}
		if f.err != nil {
			os.Remove(f.path)
		} else if ref != nil {
			rm.keepFrozen(f.path, ref, got)
		}
	})
	return f.path, f.header, f.problem, f.err
}

// download copies an object to dst (through a temporary file beside it)
// and returns its sha256 and size, retrying transient failures; hd, when
// not nil, keeps the first bytes of the attempt that succeeded.
func (rm *remote) download(ctx context.Context, key, dst string, hd *head) (string, int64, error) {
	sum, n, _, err := rm.downloadDescribed(ctx, key, dst, hd)
	return sum, n, err
}

// downloadDescribed is download, and also returns what the response that
// delivered the bytes said of the object (nil when the store cannot tell):
// its validator is what a cached copy may be reused under, its ETag what
// the whole GET is held to.
func (rm *remote) downloadDescribed(ctx context.Context, key, dst string, hd *head) (string, int64, *store.ObjectInfo, error) {
	start := time.Now()
	defer func() {
		rm.mu.Lock()
		rm.stats.DownloadSeconds += time.Since(start).Seconds()
		rm.mu.Unlock()
	}()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", 0, nil, err
	}
	var err error
	for attempt, wait := 0, 200*time.Millisecond; ; attempt, wait = attempt+1, wait*2 {
		var sum string
		var n int64
		var info *store.ObjectInfo
		sum, n, info, err = rm.downloadOnce(ctx, key, dst, hd)
		if err == nil {
			return sum, n, info, nil
		}
		if errors.Is(err, fs.ErrNotExist) || ctx.Err() != nil || attempt == 2 {
			return "", 0, nil, err
		}
		select {
		case <-ctx.Done():
			return "", 0, nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func (rm *remote) downloadOnce(ctx context.Context, key, dst string, hd *head) (string, int64, *store.ObjectInfo, error) {
	// Into the cache through its own temporary folder, outside the mirror
	// whose listing keys proofs (same file system: the rename stays atomic);
	// elsewhere (catalogs, into the work folder) beside dst.
	dir := filepath.Dir(dst)
	if rm.tmpDir != "" && strings.HasPrefix(dst, rm.cacheDir+string(filepath.Separator)) {
		dir = rm.tmpDir
	}
	return downloadInfo(ctx, rm.counter, key, dst, dir, hd)
}

// downloadInfo downloads the object key of c to dst (through a temporary
// file in tmpDir), hashed as it is written, and returns its sha256, its
// size and the description of the response that delivered it (nil where
// the store gives none).
func downloadInfo(ctx context.Context, c *store.Counter, key, dst, tmpDir string, hd *head) (string, int64, *store.ObjectInfo, error) {
	rc, info, described, err := c.OpenInfo(ctx, key)
	if err != nil {
		return "", 0, nil, err
	}
	defer rc.Close()
	sum, n, err := writeHashed(rc, dst, tmpDir, hd)
	if err != nil {
		return "", 0, nil, fmt.Errorf("download %s: %w", objectName(c, key), err)
	}
	if !described {
		return sum, n, nil, nil
	}
	if info.Size < 0 {
		info.Size = n // a response without a length (chunked)
	}
	return sum, n, &info, nil
}

// ensureFiles puts data files of a catalog, all under data_dir (the inside
// of compare.Outside, resolved against dataPath), into the cache (with
// fetchDeletes or fetchConversion only the delete files and the merged
// data files whose rows a conversion reads: compare.StoredFile.Split; with
// fetchConversion and a bucket's cache no Parquet delete file the cache
// lacks, whose footer the conversion reads, or the whole file where it
// reads its rows, through convert.FooterSource), at
// most Options.Downloads at a time. With fetchConversion, a data file whose copy is in the cache
// already is held to its object too: a conversion's reader checks read the
// footers of the data files they find in the data folder (field ids, footer
// quirks), and a copy not held to the store (a restored cache's, changed in
// the cache; or an object replaced since) gave plan a verdict on bytes the
// store does not hold.
//
// With a local --data folder (Options.DataPath) nothing is downloaded: the
// folder's files are what is read and checked, and the store is asked only
// whether it holds each file at the size the catalog records (inStore), so
// that a run does not pass on files the store's readers cannot get.
//
// A copy reused from a restored cache is read again only when a reader
// needs it (readable): by the run's gated reader (compare.ReadGate) or
// conversion (convert.ReadGate) that reads it.
func (rm *remote) ensureFiles(ctx context.Context, stored []compare.StoredFile, dataPath string, scope fetchScope) error {
	files := rm.cached(stored, dataPath)
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		if scope != fetchAll && !f.Delete && !f.Split && (scope != fetchConversion || !rm.hasCopy(f.key)) {
			continue
		}
		if scope == fetchConversion && f.Delete && !f.pastTail && !f.Split && rm.cacheDir != "" && !store.IsReadOnly(store.Base(rm.counter)) && !rm.hasCopy(f.key) {
			// A bucket's Parquet delete file: a conversion's checks read
			// its columns from its footer, by ranged reads, and fetch it
			// where they read its rows (convert.FooterSource), as a data
			// file's; it downloaded every delete file whole
			// (TestRemotePlanDeleteFileFooters). A Puffin one's first
			// bytes tell a container: it is fetched (a deletion vector,
			// small). A web site's are fetched: its server may ignore
			// Range and send each file whole for its footer, which the
			// download then sent again (TestWebIgnoringRangesDownloadsOnce).
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rm.cacheDir == "" {
				errs[i] = rm.inStore(ctx, f)
			} else {
				errs[i] = rm.dataFile(ctx, f)
			}
			if rm.cacheDir != "" && scope == fetchConversion && f.Delete && errors.Is(errs[i], fs.ErrNotExist) && ctx.Err() == nil {
				// A delete file the store lacks: left to the proof, as
				// a conversion's check leaves one the data folder lacks
				// (a local plan's); it failed a web site's plan, whose
				// delete files are fetched here
				// (TestRemotePlanMissingDeleteFile).
				errs[i] = nil
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fetchScope says which of a catalog's files ensureFiles fetches and
// holds to the store, and whether it makes them readable at once.
type fetchScope int

const (
	// fetchAll: every file, for a proof or self-read, whose readers pass
	// the run's gate and make each copy readable as they read it.
	fetchAll fetchScope = iota
	// fetchDeletes: the delete files and merged data files, for the delete
	// hints, whose reader passes the gate too.
	fetchDeletes
	// fetchConversion: those and every data file whose copy is cached
	// (held to its object), for a conversion's check, which passes
	// convert.ReadGate: a copy not yet held to the store's bytes gives its
	// footer by ranged reads (convert.Options.Footers), and is read again
	// only where a check reads its rows.
	fetchConversion
)

// hasCopy reports whether the data cache holds anything at the copy's path
// of the object key, which a conversion would find (os.Stat, following
// links, as it does) and read in the data folder. With a --data folder
// there is no cache: its files are the user's, read in place.
func (rm *remote) hasCopy(key string) bool {
	if rm.cacheDir == "" {
		return false
	}
	_, err := os.Stat(rm.localPath(key))
	return err == nil
}

// cachedFile is a data file of the store: its key, the size its catalog
// records, and whether it is a delete file.
type cachedFile struct {
	key    string
	size   int64 // what the catalog records (inStore compares it)
	Delete bool
	Split  bool // a merged data file, which a conversion reads (compare.StoredFile.Split)
	// pastTail: the content pass's footer check (compare.DiskCheck)
	// reads more of its end than the ranged read holds (a Puffin delete
	// file's footer size), so a restored copy is read again at once.
	pastTail bool
}

// errListFiles is matched by the errors that come from reading a catalog
// itself rather than from the store.
var errListFiles = errors.New("list the data files of")

// needed lists the files of a catalog that live under data_dir (for
// uploadNew: the catalogs it compares passed ensureData). Its reader shares
// the run's Listings, so that the data folder is walked for links once
// while it does not change, not once per reader. It has no Gate: it reads
// the catalog's tables alone, never a data or delete file's bytes (which a
// gate makes readable, downloading them).
func (rm *remote) needed(ctx context.Context, catalog string) ([]cachedFile, error) {
	rd, err := compare.Open(ctx, catalog, compare.ReaderOptions{DataPath: rm.dataPath(), Engines: rm.engines, Listings: rm.listings})
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", errListFiles, catalog, err)
	}
	defer rd.Close()
	all, err := rd.AllFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", errListFiles, catalog, err)
	}
	inside, _ := compare.Outside(all, rd.DataPath(), catalog)
	return rm.cached(inside, rd.DataPath()), nil
}

// cached is the cache entries of files under data_dir, resolved against
// dataPath (the inside of compare.Outside: the others ensureData refuses,
// with an OutsideError, before anything is proved or published).
func (rm *remote) cached(files []compare.StoredFile, dataPath string) []cachedFile {
	out := make([]cachedFile, 0, len(files))
	for _, f := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(f.Path, dataPath))
		out = append(out, cachedFile{key: rm.dataKey + rel, size: f.SizeBytes, Delete: f.Delete, Split: f.Split, pastTail: f.Format == "puffin"})
	}
	return out
}

// dataFile makes one data file present and verified in the cache.
func (rm *remote) dataFile(ctx context.Context, cf cachedFile) error {
	f := rm.once(rm.files, cf.key, func(f *fetch) {
		f.err = rm.fillCache(ctx, cf)
	})
	return f.err
}

// errStoreDiffers is matched by the errors of inStore for a file the store
// holds at another size than its catalog records: a difference, not an
// input to restore.
var errStoreDiffers = errors.New("the store's file differs from the catalog's record")

// inStore checks, once per run, that the store holds a data file at the
// size its catalog records, with the --data folder's copy's last bytes and,
// where the object's ETag is an MD5 (sameMD5), the copy's MD5 (a local
// --data folder stands in for the files themselves).
func (rm *remote) inStore(ctx context.Context, cf cachedFile) error {
	f := rm.once(rm.files, cf.key, func(f *fetch) {
		select {
		case rm.slots <- struct{}{}:
			defer func() { <-rm.slots }()
		case <-ctx.Done():
			f.err = ctx.Err()
			return
		}
		tail, info, err := rm.readTail(ctx, cf.key)
		switch {
		case err != nil:
			f.err = fmt.Errorf("data file %s, as the store holds it (the --data folder's copy is read in its place): %w", oneline.Name(cf.key), err)
		case info.Size != cf.size:
			f.err = fmt.Errorf("data file %s: %d bytes in the store, the catalog records %d (the --data folder's copy is not what readers get): %w", oneline.Name(cf.key), info.Size, cf.size, errStoreDiffers)
		case tail != nil:
			if mine, err := fileTail(rm.localPath(cf.key), int64(len(tail))); err == nil && !bytes.Equal(mine, tail) {
				f.err = fmt.Errorf("data file %s: its last %d bytes in the store are not the --data folder's copy's (readers get another file): %w", oneline.Name(cf.key), len(tail), errStoreDiffers)
			}
		}
		if f.err == nil {
			f.err = rm.sameMD5(cf.key, info.ETag)
		}
	})
	return f.err
}

// sameMD5 compares an object's ETag, where it is an MD5 (isMD5ETag), with
// the MD5 of the --data folder's copy: the same size and last bytes do not
// make the same file (bytes changed inside it keep both, and readers of
// the store's copy may fail on them while the proofs read the folder's).
// A mismatch is unverifiable, not a difference: the store's ETags may not
// be MD5s of the bytes (SSE-KMS or SSE-C encryption, some S3-compatible
// stores). Objects without an MD5 ETag are counted for tailWarning.
func (rm *remote) sameMD5(key, etag string) error {
	if !isMD5ETag(etag) {
		rm.mu.Lock()
		rm.tailOnly++
		rm.mu.Unlock()
		return nil
	}
	mine, err := rm.localMD5(rm.localPath(key))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // the content pass reports the folder's missing file
	case err != nil:
		return fmt.Errorf("data file %s: MD5 of the --data folder's copy: %w", oneline.Name(key), err)
	case mine != etag:
		return fmt.Errorf("data file %s: the store's ETag %s is not the MD5 of the --data folder's copy (%s): either the store holds other bytes than the copy, which readers of the store may fail to read, or the store's ETags are not MD5s of the bytes (SSE-KMS or SSE-C encryption, some S3-compatible stores); check without --data, which reads the store's own bytes, settles it", oneline.Name(key), etag, mine)
	}
	return nil
}

// isMD5ETag tells an ETag that is the MD5 of the object's bytes: 32
// lower-case hex digits, what S3, R2, MinIO and versitygw give a
// single-part upload (a multipart upload's is an MD5 of MD5s with "-N").
func isMD5ETag(etag string) bool {
	return len(etag) == 32 && strings.Trim(etag, "0123456789abcdef") == ""
}

// localMD5 is the MD5 (hex) of a local file, kept in the digest cache
// under the file's identity on disk (path, size, modification time, and
// its inode change time, device and inode: fileid.Inode, as the proofs'
// digests are keyed), so that a warm check does not read the folder again.
func (rm *remote) localMD5(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return "", err
	}
	id := func(st fs.FileInfo) string {
		sum := sha256.Sum256(fmt.Appendf(nil, "fdl-formats local md5 v1\x00%s\x00%s", path, fileid.Stamp(st)))
		return hex.EncodeToString(sum[:])
	}
	key := id(before)
	if rm.md5s != nil {
		if got, ok := rm.md5s.Get(key); ok && isMD5ETag(string(got)) {
			return string(got), nil
		}
	}
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	// Kept only when the file is still what it was (not rewritten while
	// read); a failed write only costs a hash next time.
	if after, err := os.Stat(path); rm.md5s != nil && err == nil && id(after) == key {
		_ = rm.md5s.Put(key, []byte(sum))
	}
	return sum, nil
}

// tailWarning is the run's warning about the --data files whose objects
// have no MD5 ETag, "" when there were none.
func (rm *remote) tailWarning() string {
	rm.mu.Lock()
	n := rm.tailOnly
	rm.mu.Unlock()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("--data: %d data file(s) in the store have no MD5 ETag (a multipart upload's, most web servers', or none), so only their size and last %d bytes were compared with the --data folder's copies, not their bytes; check without --data reads the store's own bytes", n, tailBytes)
}

// tailBytes is how much of a data file's end a run reads to revalidate it:
// a Parquet file's footer length and magic, what DuckDB reads first.
const tailBytes = 8

// fileTail reads the last n bytes of a local file (all of it when shorter).
func fileTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-n, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf, nil
}

func (rm *remote) fillCache(ctx context.Context, cf cachedFile) error {
	select {
	case rm.slots <- struct{}{}:
		defer func() { <-rm.slots }()
	case <-ctx.Done():
		return ctx.Err()
	}
	path := rm.localPath(cf.key)
	// A ranged GET of the file's end, not a HEAD: it proves the object can
	// still be read (an S3 object moved to an archive storage class
	// answers HEAD, not GET), through the ranged reads DuckDB makes, and
	// its bytes must be the cached copy's.
	// A server that ignores the range sends the whole file instead: kept
	// (ans), it is the download where one is needed (wholeanswer.go);
	// where the cache's copy was delivered under that answer's validator,
	// the answer is closed unread (copyGate) and the copy held to the
	// object without its last bytes (tail nil).
	tail, info, ans, _, err := rm.readTailGated(ctx, cf.key, tailBytes, rm.answerDir(), nil, rm.copyGate(cf.key))
	if err != nil {
		// Named where it is (store.KeyName: its s3:// URL at the
		// endpoint, its URL on a web site), so that check's "restore the
		// file the first finding names" can be acted on: it said
		// data/main/..., a key inside a bucket the user had to put
		// together with the repository's URL and endpoint.
		return nameOnce("data file", oneline.Name(store.KeyName(rm.counter, cf.key)), err)
	}
	// The cache mirrors the store's bytes, also where their size is not
	// the one the catalog records: that is for the checks to find, as in
	// a local folder (a difference, not a failed download).
	held, unread := rm.heldCopy(path, tail, info)
	if ans != nil && (!held || unread) {
		// Rather than read the copy again, take the bytes just sent.
		return rm.adoptCopy(cf.key, path, ans, info)
	}
	ans.discard()
	if held && (!unread || !cf.pastTail || rm.sameBytes(path, cf.key, info.Size)) {
		touch(rm.cacheDir + lastUsedSuffix) // the file keeps its time: proof keys name it
		rm.mu.Lock()
		rm.stats.Cached++
		if unread && !cf.pastTail {
			rm.unread[cf.key] = unreadCopy{tail: tail, info: info}
		}
		rm.mu.Unlock()
		if !unread || cf.pastTail {
			// A copy held to the bytes delivered: its footer for a
			// restored cache's conversion checks (a cache written before
			// stand-ins were kept from copies).
			rm.keepStandIn(cf.key, path, info)
		}
		return nil
	}
	return rm.downloadCopy(ctx, cf.key, path, tail, info)
}

// unreadCopy is a copy reused from a restored cache, held to its object by
// the ranged read of this run (tail, info) but not yet to the bytes the
// store delivered (heldCopy).
type unreadCopy struct {
	tail []byte
	info store.ObjectInfo
}

// Readable makes the copies at paths (local paths in the mirror) readable
// (readable), nil every copy (readableAll): the compare.ReadGate of the
// run's readers, called before they read a file's bytes. A path outside
// the mirror is no copy: nothing to do.
func (rm *remote) Readable(ctx context.Context, paths []string) error {
	if rm.readableHook != nil {
		rm.readableHook(paths)
	}
	if paths == nil {
		return rm.readableAll(ctx)
	}
	keys := make([]string, 0, len(paths))
	for _, p := range paths {
		if key, ok := rm.copyKey(p); ok {
			keys = append(keys, key)
		}
	}
	return rm.readable(ctx, keys)
}

// Ready reports whether the copy at path may be read as it is: not one
// reused unread, or one already held to the bytes the store delivered
// (compare.ReadGate: a read ahead takes only such copies).
func (rm *remote) Ready(path string) bool {
	key, ok := rm.copyKey(path)
	if !ok {
		return true
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if _, unread := rm.unread[key]; !unread {
		return true
	}
	f, ok := rm.reread[key]
	if !ok {
		return false
	}
	select {
	case <-f.done:
		return f.err == nil
	default:
		return false
	}
}

// copyKey is the object key of the copy at path, a local path in the
// mirror as a reader with the mirror for its data path resolves it: the
// key cached gives the file, spelt the same way (keyOf cleans the path,
// and a key spelt otherwise would find no unread copy to hold).
func (rm *remote) copyKey(path string) (string, bool) {
	dp := rm.local
	if abs, err := filepath.Abs(dp); err == nil {
		dp = abs
	}
	rel, ok := strings.CutPrefix(path, strings.TrimSuffix(dp, "/")+"/")
	if !ok {
		return "", false
	}
	return rm.dataKey + filepath.ToSlash(rel), true
}

// readableAll is readable for every copy the run reused unread, for a
// reader that cannot name the files it reads.
func (rm *remote) readableAll(ctx context.Context) error {
	rm.mu.Lock()
	keys := make([]string, 0, len(rm.unread))
	for k := range rm.unread {
		keys = append(keys, k)
	}
	rm.mu.Unlock()
	return rm.readable(ctx, keys)
}

// readable holds every copy of keys that was reused unread to the bytes
// the store delivered, once per run (sameBytes), and downloads again one
// that is not them, before the caller reads any: what a reader reads is
// the store's bytes, as when the copy was downloaded.
func (rm *remote) readable(ctx context.Context, keys []string) error {
	rm.mu.Lock()
	var todo []string
	for _, k := range keys {
		if _, ok := rm.unread[k]; ok {
			todo = append(todo, k)
		}
	}
	rm.mu.Unlock()
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, key := range todo {
		wg.Go(func() {
			f := rm.once(rm.reread, key, func(f *fetch) { f.err = rm.readAgain(ctx, key) })
			errs[i] = f.err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readAgain holds one unread copy to the bytes the store delivered, or
// downloads it again.
func (rm *remote) readAgain(ctx context.Context, key string) error {
	select {
	case rm.slots <- struct{}{}:
		defer func() { <-rm.slots }()
	case <-ctx.Done():
		return ctx.Err()
	}
	rm.mu.Lock()
	u := rm.unread[key]
	rm.mu.Unlock()
	path := rm.localPath(key)
	if rm.sameBytes(path, key, u.info.Size) {
		rm.keepStandIn(key, path, u.info)
		return nil
	}
	rm.mu.Lock()
	rm.stats.Cached--
	rm.mu.Unlock()
	return rm.downloadCopy(ctx, key, path, u.tail, u.info)
}

// downloadCopy downloads the object key into the cache at path, held to
// this run's ranged read of its end (tail, info), with its record.
func (rm *remote) downloadCopy(ctx context.Context, key, path string, tail []byte, info store.ObjectInfo) error {
	// From here the data folder changes (files written or removed): the
	// next proof key lists it again.
	defer rm.listings.Changed()
	os.Remove(path + validatorSuffix) // the copy is not proven until written again
	sum, n, got, err := rm.downloadHeld(ctx, key, path, nil, tail, info)
	if err != nil {
		// downloadHeld's error names the file once: the store's where
		// it is (a *store.ObjectError), its own checks' by the key
		// ("KEY: ...").
		if store.Named(err) {
			return fmt.Errorf("data file: %w", err)
		}
		return fmt.Errorf("data file %w", err)
	}
	return rm.downloaded(key, path, got, info, sum, n)
}

// downloaded records a data file's new copy at path, n bytes of sha256
// sum, delivered under the validators got, and its footer stand-in, named
// by the ranged read's identity info, which the download was held to
// (holdToTail) and its record names: what a later run's footer check
// looks it up by.
func (rm *remote) downloaded(key, path string, got *store.ObjectInfo, info store.ObjectInfo, sum string, n int64) error {
	if err := rm.keepCopyRecord(path, got, sum, n); err != nil {
		return fmt.Errorf("data file %s: %w", oneline.Name(key), err)
	}
	rm.keepStandIn(key, path, info)
	rm.mu.Lock()
	rm.stats.DataFiles++
	rm.mu.Unlock()
	if rm.onFile != nil {
		rm.onFile(DownloadProgress{Key: key, Bytes: n, Downloaded: rm.counter.Downloaded()})
	}
	return nil
}

// readTail reads the last tailBytes of the object key as DuckDB reads an
// object, by a HEAD and a ranged GET (store.TailReader), and notes an
// object whose server answered the range with the whole object
// (rangesIgnored). Where the run read it ahead (readAhead), that answer is
// taken instead.
func (rm *remote) readTail(ctx context.Context, key string) ([]byte, store.ObjectInfo, error) {
	var tail []byte
	var info store.ObjectInfo
	var err error
	if t := rm.takeAhead(ctx, key); t != nil && !t.dropped {
		t.ans.discard() // a whole answer nobody adopts here
		tail, info, err = t.tail, t.info, t.err
	} else {
		tail, info, _, err = rm.readEnd(ctx, key, tailBytes, nil)
	}
	if err == nil && info.IgnoredRange {
		rm.mu.Lock()
		rm.ignoredRanges = append(rm.ignoredRanges, key)
		rm.mu.Unlock()
	}
	return tail, info, err
}

// readEnd is the ranged read of the last tailBytes of the object key, a
// whole answer to it written to whole (when not nil) and reported (kept):
// a HEAD and a ranged GET, as DuckDB reads an object, or the ranged GET
// alone where a HEAD of this run described the object already
// (describeCatalogs), held to that HEAD's answer as the GET is held to
// its own HEAD (store.KnownTailReader).
// It asks for the last n bytes (tailBytes, or more where a footer is read
// with them: footerRead).
func (rm *remote) readEnd(ctx context.Context, key string, n int64, whole io.Writer) ([]byte, store.ObjectInfo, bool, error) {
	rm.mu.Lock()
	head, known := rm.described[key]
	rm.mu.Unlock()
	switch {
	case known:
		return rm.counter.ReadTailOf(ctx, key, n, head, whole)
	case whole == nil:
		tail, info, err := rm.counter.ReadTail(ctx, key, n)
		return tail, info, false, err
	}
	return rm.counter.ReadTailKeep(ctx, key, n, whole)
}

// describeCatalogs notes the catalogs of vs (their DuckDB files, and the
// frozen catalog under any name) as a web site's folder walk and probes
// described them, each by a HEAD of this run: readEnd then reads their
// ends without a HEAD more. Before, each catalog's HEAD was asked twice
// per run, in the walk and before its ranged read (200 requests of a
// warm plan of 200 versions). Nothing is noted of other stores (a
// bucket's listing is no HEAD).
func (rm *remote) describeCatalogs(st store.Store, vs []*version) {
	if !store.ListsPartially(st) {
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.described == nil {
		rm.described = map[string]store.ObjectInfo{}
	}
	for _, v := range vs {
		for rel, info := range v.objects {
			if strings.EqualFold(path.Ext(rel), ".duckdb") || v.meta != nil && rel == v.meta.Catalog.Path {
				rm.described[v.prefix()+rel] = info
			}
		}
	}
}

// rangesIgnored lists, sorted, the objects of the run whose ranged read
// the server answered with the whole object.
func (rm *remote) rangesIgnored() []string {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	out := slices.Clone(rm.ignoredRanges)
	slices.Sort(out)
	return slices.Compact(out)
}

// downloadHeld downloads the object key to dst (downloadDescribed) and
// holds the download to what the ranged read of its end before it gave
// (tail and info, from readTail), which is how readers read it: the same
// size, the same last bytes and the same ETag. A catalog or data file
// that a server answers differently (a CDN edge or replica serving whole
// downloads from an older copy: the checks would prove bytes readers do
// not get) is an error naming it (wrapping errStoreDiffers for other last
// bytes, a *store.ETagError for another ETag, store.ErrLastModifiedChanged
// for another Last-Modified where ETags cannot be compared), and dst is
// removed.
func (rm *remote) downloadHeld(ctx context.Context, key, dst string, hd *head, tail []byte, info store.ObjectInfo) (string, int64, *store.ObjectInfo, error) {
	sum, n, got, err := rm.downloadDescribed(ctx, key, dst, hd)
	if err != nil {
		// The store's error names the object where it is, once.
		return "", 0, nil, storeErr(rm.counter, "", key, err)
	}
	if err := holdToTail(key, dst, n, got, tail, info); err != nil {
		return "", 0, nil, err
	}
	return sum, n, got, nil
}

// holdToTail holds the download at dst of the object key (n bytes, got
// the description of the response that delivered them) to the ranged read
// of its end before it (tail and info): the same size, the same last
// bytes and the same ETag, or, where the two cannot both give one, the
// same Last-Modified (downloadHeld). Where they differ dst is removed.
func holdToTail(key, dst string, n int64, got *store.ObjectInfo, tail []byte, info store.ObjectInfo) error {
	if n != info.Size {
		os.Remove(dst)
		return store.SizeDisagrees(fmt.Errorf("%s: downloaded %d bytes, the store gave its size as %d (changed while read?)", key, n, info.Size))
	}
	// The whole GET must end with the bytes the ranged read gave, as
	// readers read it: a server answering the two differently would show
	// the checks a file readers do not get.
	if tail != nil {
		if mine, err := fileTail(dst, int64(len(tail))); err != nil || !bytes.Equal(mine, tail) {
			os.Remove(dst)
			return fmt.Errorf("%s: its last %d bytes by a ranged read, as readers read it, are not those of the whole file the store sent (changed while read, or the server answers the two differently): %w", key, len(tail), errStoreDiffers)
		}
	}
	// So must the whole GET's ETag be the one the HEAD and ranged read
	// gave, as DuckDB compares them: a stale copy (a CDN edge, a replica)
	// of the same size and last bytes would otherwise pass the checks,
	// and the next run, seeing the HEAD's validator, download it again.
	if got != nil && got.ETag != "" {
		if err := store.CheckFullETag(key, info.ETag, got.ETag); err != nil {
			os.Remove(dst)
			return err
		}
	}
	// Where no two ETags could be compared (a server without them: Go's
	// http.FileServer), Last-Modified tells the stale copy instead: it
	// passed with the same size and last bytes.
	if got != nil && (got.ETag == "" || info.ETag == "") {
		if err := store.CheckFullLastModified(key, info.ModTime, got.ModTime); err != nil {
			os.Remove(dst)
			return err
		}
	}
	return nil
}

// copyHeld copies the object key into a new file in dir, through a
// ranged read of its end and a download held to it (readTail,
// downloadHeld), and returns the file's path, the sha256 of its bytes and
// their number. The start of a copy so held is kept for the reader matrix
// (keepHead).
func (rm *remote) copyHeld(ctx context.Context, key, dir string) (string, string, int64, error) {
	hd := &head{}
	var held store.ObjectInfo
	// A server that ignores the range sends the whole object instead:
	// kept (ans), it is the copy (wholeanswer.go).
	var ans *keptAnswer
	defer func() { ans.discard() }() // once renamed, there is nothing to remove
	readTail := func(ctx context.Context, key string) ([]byte, store.ObjectInfo, error) {
		tail, info, a, err := rm.readTailKeep(ctx, key, dir, hd)
		held, ans = info, a
		return tail, info, err
	}
	local, sum, n, err := copyHeld(ctx, key, dir, readTail, func(ctx context.Context, key, dst string) (string, int64, *store.ObjectInfo, error) {
		if ans == nil {
			return rm.downloadDescribed(ctx, key, dst, hd)
		}
		if err := os.Rename(ans.path, dst); err != nil {
			// The rename's error names the cache's paths: the object
			// where it is, once, as the store's errors name it.
			return "", 0, nil, &store.ObjectError{Op: "keep the whole answer to the ranged read of", Name: store.KeyName(rm.counter, key), Err: err}
		}
		return ans.sum, ans.n, &held, nil
	})
	if err == nil {
		rm.keepHead(key, hd, held)
	}
	return local, sum, n, err
}

// copyHeld copies the object key into a new file in dir: a ranged read of
// its end first (readTail, as DuckDB reads an object), then the whole
// object (download) held to it (holdToTail). It returns the file's path,
// the sha256 of its bytes and their number. Both a run's remote store
// (remote.copyHeld) and a plain one (copyObject: resolve --verify) copy
// so.
func copyHeld(ctx context.Context, key, dir string,
	readTail func(ctx context.Context, key string) ([]byte, store.ObjectInfo, error),
	download func(ctx context.Context, key, dst string) (string, int64, *store.ObjectInfo, error)) (string, string, int64, error) {
	tail, info, err := readTail(ctx, key)
	if err != nil {
		return "", "", 0, err
	}
	f, err := os.CreateTemp(dir, "*-"+path.Base(key))
	if err != nil {
		return "", "", 0, fmt.Errorf("copy %s: %w", key, err)
	}
	f.Close()
	// download's error names the object (the store's, where it is).
	sum, n, got, err := download(ctx, key, f.Name())
	if err == nil {
		err = holdToTail(key, f.Name(), n, got, tail, info)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", 0, err
	}
	return f.Name(), sum, n, nil
}

// sameAsCached reports whether the cached frozen catalog at path still
// has the bytes the store answers with (tail and info, from a ranged read
// of the object's end): the same size, the validator its record
// (readFrozenRecord) holds from when it was downloaded, and the same last
// bytes (none for a whole answer frozenGate dropped unread, which only a
// validator that vouches for the bytes does). As a data file's copy is held
// (heldCopy), a ranged answer under a weak ETag is held by those last bytes
// too: a server sending only weak ETags is revalidated so, as before.
func sameAsCached(path string, tail []byte, info store.ObjectInfo) bool {
	want := validator(info)
	st, err := os.Stat(path)
	if err != nil || st.Size() != info.Size || want == "" {
		return false
	}
	if rec, ok := readFrozenRecord(path + validatorSuffix); !ok || rec.validator != want {
		return false
	}
	mine, err := fileTail(path, int64(len(tail)))
	return err == nil && bytes.Equal(mine, tail)
}

// validatorSuffix names the file beside a cached data file that holds the
// validator of the object it was downloaded from.
const validatorSuffix = ".validator"

// describedValidator is the validator of what a response said of its
// object ("" for nothing said).
func describedValidator(info *store.ObjectInfo) string {
	if info == nil {
		return ""
	}
	return validator(*info)
}

// validator is what proves that an object still has the bytes of a copy
// downloaded when it had the same validator: its ETag (S3, most web
// servers), else its Last-Modified time and size (weaker: a change within
// the same second that keeps the size goes unseen), else nothing ("":
// the cached copy is never reused).
func validator(info store.ObjectInfo) string {
	switch {
	case info.ETag != "":
		return "etag " + info.ETag
	case !info.ModTime.IsZero():
		return fmt.Sprintf("last-modified %s size %d", info.ModTime.UTC().Format(time.RFC3339Nano), info.Size)
	}
	return ""
}

// uploadNew puts into the store the data files the converted catalog out
// references and the source does not (delete files that --rewrite-deletes
// wrote into the local data folder), each with the store's Create, which
// never replaces an object. A file already there must have the same bytes.
func (rm *remote) uploadNew(ctx context.Context, src, out string) error {
	before, err := rm.needed(ctx, src)
	if err != nil {
		return err
	}
	after, err := rm.needed(ctx, out)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, f := range before {
		known[f.key] = true
	}
	for _, f := range after {
		if known[f.key] {
			continue
		}
		if err := rm.upload(ctx, f.key); err != nil {
			return err
		}
	}
	return nil
}

func (rm *remote) upload(ctx context.Context, key string) error {
	path := rm.localPath(key)
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("upload %s: %w", key, err)
	}
	defer file.Close()
	err = rm.counter.Create(ctx, key, file)
	if !errors.Is(err, store.ErrExists) {
		return err
	}
	// Names are deterministic: an earlier or concurrent run wrote it.
	local, _, err := hashFile(path)
	if err != nil {
		return err
	}
	other := path + ".remote"
	theirs, _, err := rm.download(ctx, key, other, nil)
	if err != nil {
		return err
	}
	if theirs == local {
		os.Remove(other)
		return nil
	}
	// Keep the store's bytes so that the next run reuses them (once it
	// downloaded them under a record: none is kept here).
	os.Remove(path + validatorSuffix)
	if err := os.Rename(other, path); err != nil {
		return err
	}
	rm.listings.Changed()
	return fmt.Errorf("upload %s: %w with other bytes (written by a concurrent run?); run again to reuse it", key, store.ErrExists)
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

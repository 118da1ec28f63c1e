package repo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
	"golang.org/x/sync/errgroup"
)

// Options tune Plan, Backfill and Check.
type Options struct {
	// Now is the time `until` is evaluated at; zero means time.Now(),
	// unless NowSet says the zero time itself was asked for.
	Now time.Time
	// NowSet makes Now the time even when it is zero: Go's zero time is
	// 0001-01-01T00:00:00Z, a date the CLI's --now may name, and taken as
	// "now" it expired formats whose until was still ahead of it.
	NowSet bool
	// Formats limits the work to these declared formats (names as in fdl.json).
	Formats []string
	// Versions limits the work to these versions (IDs or seq numbers).
	Versions []string
	// Jobs is how many cells run at once; 0 means the number of CPUs.
	Jobs int
	// DryRun makes Backfill plan and report without writing anything.
	DryRun bool
	// DataPath is the local folder holding the repository's data files (its
	// data_dir). Empty means the store's own folder for data_dir, which a
	// store.PathStore provides, or for other stores (S3, HTTP) the data
	// cache, filled from the store. For a store.PathStore, Check and
	// Backfill refuse another folder than the store's own
	// (*NotOwnDataFolderError): they would prove and convert on files its
	// readers do not open. Plan takes any.
	DataPath string
	// Cache is the folder of the data cache of stores without local paths
	// (objects/ inside it); empty means <user cache folder>/fdl-formats.
	Cache string
	// NoDataCache keeps downloaded data files in the run's work folder,
	// removed at its end, instead of Cache.
	NoDataCache bool
	// DataCacheMax bounds the data cache folder (<Cache>/objects/, every
	// repository's data files) in bytes: at the end of a run the least
	// recently used files go first, never those the run used or any run
	// used within the last hour. 0 means DefaultDataCacheMax; < 0, no bound.
	DataCacheMax int64
	// MaxSpill bounds, in bytes, what each of the run's DuckDB databases
	// may write to disk when a statement does not fit in its memory
	// (duckpool.Pool.SpillAtMost); a statement that would spill more
	// fails. 0 means DefaultMaxSpill.
	MaxSpill int64
	// Downloads is how many data files are downloaded at once; 0 means 4.
	Downloads int
	// OnDownload, if set, is called after each data file downloaded.
	OnDownload func(DownloadProgress)
	// WorkDir holds temporary work folders ("fdl-plan-*", "fdl-backfill-*",
	// "fdl-check-*", named after their process); empty means os.TempDir().
	// It must be outside the repository's versions/ folder. Every Plan,
	// Check and Backfill first removes the folders there that killed runs
	// left behind (sweepWork).
	WorkDir string
	// Convert passes lossy, inlined-data and delete-rewriting options to
	// the converter (DataPath and Logger are set per cell). Plan, Backfill
	// and Check must get the same, or they disagree on what is refused.
	Convert convert.Options
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Progress, if set, is called after each cell Backfill or Check finishes.
	Progress func(Progress)
	// DigestCache, when set, keeps the proofs' data-file digests across
	// cells and runs (compare.Options.DigestCache).
	DigestCache compare.DigestStore
	// Shard, when set, limits the work to a deterministic 1/N of the
	// versions (see Shard).
	Shard Shard
	// AllowEmpty lets Check pass a repository with no version at all (a
	// warning); otherwise that is an unverifiable finding.
	AllowEmpty bool
	// carryMinWork is compare.Options.CarryMinWork for every proof
	// (tests: small lakes carry too).
	carryMinWork int64
	// readableHook, when set (tests), runs as a remote store's copies are
	// made readable (remote.Readable), with their local paths: after the
	// keys that name them were made, before their bytes are read.
	readableHook func(paths []string)
	// beforeProof, when set (tests), runs as a proof of c starts, before
	// its key lists the data folder (l: the run's listings).
	beforeProof func(c *Cell, l *compare.Listings)
	// failures watches a remote run's requests (watchStore); nil: none.
	failures *storeFailures
}

// Progress reports one finished cell.
type Progress struct {
	Done, Total int
	Cell        *Cell
	// Result is the cell's outcome (backfill), or "proved" or the kind of
	// its finding ("difference", "unverifiable", "invalid"; check).
	Result string
	// Bytes is the size of the catalog the cell wrote (backfill; 0 when
	// it wrote none).
	Bytes int64
	// Seconds is how long the cell (its conversion and proof, or its
	// proof) took.
	Seconds float64
}

func (o *Options) now() time.Time {
	if o.Now.IsZero() && !o.NowSet {
		return time.Now().UTC()
	}
	return o.Now.UTC()
}

func (o *Options) jobs() int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	return runtime.NumCPU()
}

func (o *Options) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Keys of a repository.
const (
	FDLKey      = "fdl.json"
	VersionsDir = "versions/"
)

// CatalogKey is the key of a version's catalog in another format.
func CatalogKey(id, format string) string {
	return VersionsDir + id + "/catalogs/" + format + ".duckdb"
}

// repository is what Plan reads from the store.
type repository struct {
	st          store.Store
	digestCache compare.DigestStore
	digests     *compare.Digests // shared by the run's proofs
	// listings lists the data folder for the run's proof keys once, again
	// after the run writes into it (rewritten delete files, downloads).
	listings *compare.Listings
	carryMin int64 // Options.carryMinWork
	// selfReads are the run's clean self-reads (selfRead), offered to a
	// later version's (earlierFrozen).
	selfReads selfReads
	// histories are the rows each frozen catalog read holds at its own
	// and its first parent's snapshot (historyIssues).
	histories histories
	deletes   *compare.Deletes // delete files the run's proofs read
	// log is the run's logger, naming the repository's files (namingLogger):
	// what the proofs and self-reads warn of reaches the user.
	log         *slog.Logger
	engines     *compare.Engines // DuckDB databases the run's readers reuse
	convEngines *convert.Engines // and its conversions (a pool of their own)
	cfg         *fdljson.Repo
	dataPath    string
	versions    []*version
	paths       store.PathStore // the store, when its objects are local files
	remote      *remote         // else: downloads, cache, byte counts
	names       pathNames       // what the run's local copies stand for, for messages
	links       linksOut        // data files that resolve outside a local repository
	dataNames   foldedDirs      // the names in a local data folder's folders, for lookAlikeData
	// sweptWork is what load removed from the work folder (sweepWork).
	sweptWork []scratch.Removed
	// emptyFolders are the IDs of version folders holding no file (on a
	// web site: whose page lists none and whose probes answered absent):
	// no version, each named by a warning (dropEmpty).
	emptyFolders []string
	// hiddenFolders are the names of folders under versions/ starting
	// with "." (an upload tool's staging folder, .git, .Trash-1000),
	// whatever they hold: no version, each named by a warning
	// (hiddenFolderWarning).
	hiddenFolders []string
	// beforeProof: Options.beforeProof (tests).
	beforeProof func(*Cell, *compare.Listings)
	// keepJSON: the run's content pass compares each version's
	// dataset.json and files.json with its catalog (check), so the plan
	// keeps the bytes it read (version.held).
	keepJSON bool
}

// close removes the run's work files.
func (r *repository) close() {
	if r.engines != nil {
		r.engines.Close()
		r.convEngines.Close()
	}
	if r.remote != nil {
		r.remote.close()
	}
}

// transfer is what the run moved to and from a remote store (nil for a
// local one).
func (r *repository) transfer() *Transfer {
	if r.remote == nil {
		return nil
	}
	return r.remote.transfer()
}

// version is one folder under versions/.
type version struct {
	id      string
	meta    *fdljson.Version
	expired *fdljson.Expired
	err     error
	problem Problem
	objects map[string]store.ObjectInfo // key relative to the version folder
	// probeErrs are the names (relative to the version folder) probed on a
	// store whose listing may leave files out (probeUnlisted): nil for one
	// found absent, else why the probe failed. Found ones are in objects.
	probeErrs map[string]error
	// hidden says what each hidden regular file holds (findHidden), by its
	// name relative to the version folder.
	hidden map[string]string
	// header is what the frozen catalog's DuckDB headers say, taken from
	// the bytes the plan hashed against version.json (nil when they were
	// not read or are not a DuckDB file's); see storageClaim.
	header *duckfile.Header
	// detected is the frozen catalog's DuckLake format as a run that opened
	// it detected it ("" when none did); see formatClaim.
	detected string
	// indexesNoData: the run read the version's files.json, its bytes the
	// ones version.json hashes, and it lists no data file (versionIssues;
	// see needsNoData).
	indexesNoData bool
	// held are the bytes of dataset.json and files.json as the plan read
	// them (by name relative to the version folder; readVerified), kept
	// where they are those version.json names and the run is a check
	// (repository.keepJSON): its content pass
	// compares them with the catalog without reading them again. Written
	// by the version's plan only, read after it.
	held map[string][]byte
	// reads are the reads of dataset.json and files.json planVersion
	// started ahead of need (lookAhead), by name; taken by readVerified.
	reads map[string]*aheadRead
	// indexed are the data and delete files the version's files.json
	// lists (its bytes those version.json names), in its order: what
	// checkCells revalidates ahead of need (readAhead).
	indexed []indexedFile
	// bodies are the version's JSON files a web site's folder walk read
	// whole in place of their HEADs (store.ListRead), by name: the first
	// read of each takes its bytes from there (takeBody) instead of a GET.
	// Read and taken by one goroutine at a time (read's, then the plan's).
	bodies map[string][]byte
}

// walkReads are the names of a version folder's files that the listing of
// versions/ reads whole on a web site, in place of their HEADs: each is
// read by every run that plans or checks the version (version.json and
// expired.json by the listing's reader, dataset.json and files.json by
// the version's look), so its GET tells what the HEAD told and gives the
// bytes a GET after it gave (the bytes held to version.json's sha256 as
// before). Three round trips a version fewer in a warm plan. resolve,
// which reads no version's dataset.json or files.json but the one it
// picks, reads those of resolveReads only.
var (
	walkReads    = map[string]bool{"version.json": true, "expired.json": true, "dataset.json": true, "files.json": true}
	resolveReads = map[string]bool{"version.json": true, "expired.json": true}
)

// maxWalkRead is the largest such file the walk reads: a larger one has
// its HEAD asked, and is read by a GET when needed, as before.
const maxWalkRead = 4 << 20

// readsInWalk tells the keys whose files the walk of versions/ reads
// whole: those directly in a version folder that walk selects (nil:
// none), given the version's ID and the file's name.
func readsInWalk(walk func(id, name string) bool) func(key string) bool {
	return func(key string) bool {
		rest, ok := strings.CutPrefix(key, VersionsDir)
		if !ok || walk == nil {
			return false
		}
		id, name, ok := strings.Cut(rest, "/")
		return ok && !strings.Contains(name, "/") && walk(id, name)
	}
}

// walkOf is a walk for read that reads the files of names in every
// version folder.
func walkOf(names map[string]bool) func(id, name string) bool {
	return func(_, name string) bool { return names[name] }
}

// walkFor is the walk of a run with opts: every version's version.json
// and expired.json (read for the listing), and dataset.json and files.json
// of the versions the run may select (its shard, its --versions where each
// names a version ID; a seq could name any version), which its plan reads:
// those of the others would be bytes downloaded for nothing.
func walkFor(opts *Options) func(id, name string) bool {
	return func(id, name string) bool {
		switch {
		case !walkReads[name]:
			return false
		case resolveReads[name]:
			return true
		case opts.Shard.N > 1 && !opts.Shard.holds(id):
			return false
		}
		if len(opts.Versions) == 0 {
			return true
		}
		for _, f := range opts.Versions {
			if f == id || !fdljson.IsVersionID(f) {
				return true
			}
		}
		return false
	}
}

// takeBody gives the bytes of the version's file name that the walk read
// (once: the body is dropped), else false.
func (v *version) takeBody(name string) ([]byte, bool) {
	b, ok := v.bodies[name]
	if ok {
		delete(v.bodies, name)
	}
	return b, ok
}

// readFile reads the version's file name: the walk's bytes where it read
// them (takeBody), else a GET.
func (r *repository) readFile(ctx context.Context, v *version, name string) ([]byte, error) {
	if b, ok := v.takeBody(name); ok {
		return b, nil
	}
	return store.ReadAll(ctx, r.st, v.prefix()+name)
}

// maxJSONFile bounds the reads of fdl.json, version.json and expired.json,
// whose sizes nothing records (version.json records those of dataset.json
// and files.json): the largest of the demo's is 1 KiB, a version.json
// listing a thousand inputs some 200 KiB. A larger file is another one
// under the name (a catalog uploaded as version.json), or a server's
// endless answer: it was read whole into memory before the parse refused
// it (a 1 GiB expired.json took check 2.3 GB; TestHugeJSONFiles).
const maxJSONFile = 16 << 20

// readUnsized reads fdl.json, a version.json or an expired.json (key, the
// walk's bytes where it read them) up to maxJSONFile; past it, the file is
// invalid: a *fdljson.Error naming it and the limit.
func (r *repository) readUnsized(ctx context.Context, v *version, name string) ([]byte, error) {
	if b, ok := v.takeBody(name); ok {
		return b, nil
	}
	return readUnsized(ctx, r.st, v.prefix()+name)
}

func readUnsized(ctx context.Context, st store.Store, key string) ([]byte, error) {
	data, err := store.ReadAtMost(ctx, st, key, maxJSONFile)
	var large *store.TooLargeError
	if errors.As(err, &large) {
		return nil, &fdljson.Error{File: objectName(st, key), Err: fmt.Errorf("more than %d MiB, which no %s is: another file under its name? (read no further)", maxJSONFile>>20, path.Base(key))}
	}
	return data, err
}

func (v *version) prefix() string { return VersionsDir + v.id + "/" }

// load reads fdl.json, lists every version and finds the local data folder:
// the store's own for a store.PathStore, else the data cache (or
// Options.DataPath). The caller closes the repository.
func load(ctx context.Context, st store.Store, opts *Options) (_ *repository, err error) {
	var counter *store.Counter
	if _, ok := st.(store.PathStore); !ok {
		counter = store.NewCounter(st) // reports count every byte read
		if opts.failures != nil {
			counter.Watch(opts.failures.note)
		}
		st = counter
	}
	r, err := read(ctx, st, walkFor(opts))
	if err != nil {
		return nil, err
	}
	// Check, plan and backfill see every version's files as readers
	// fetch them, listed or not.
	if err := r.probeVersions(ctx, r.versions); err != nil {
		return nil, err
	}
	cfg := r.cfg
	// Before this run makes its own work folders: those of killed runs go.
	r.sweptWork = sweepWork(opts.workDir(), opts.log())
	r.log = r.namingLogger(opts.log())
	r.dataPath, r.digestCache = opts.DataPath, opts.DigestCache
	// Readers resolve data paths to absolute ones, which the checks then
	// match against this folder: a relative --data matched nothing.
	if r.dataPath != "" {
		if r.dataPath, err = filepath.Abs(r.dataPath); err != nil {
			return nil, fmt.Errorf("data folder %s: %w", opts.DataPath, err)
		}
	}
	r.digests = compare.NewDigests(opts.DigestCache)
	r.listings = compare.NewListings()
	r.carryMin, r.beforeProof = opts.carryMinWork, opts.beforeProof
	r.deletes = compare.NewDeletes()
	// Each running proof holds two readers.
	r.engines = compare.NewEngines(2 * opts.jobs())
	r.convEngines = convert.NewEngines(opts.jobs())
	// Their databases spill beside the run's work folder, each in a
	// folder of its own (duckpool.Reach.Spill), not in the working folder.
	r.engines.SpillIn(opts.workDir())
	r.convEngines.SpillIn(opts.workDir())
	r.engines.SpillAtMost(opts.MaxSpill)
	r.convEngines.SpillAtMost(opts.MaxSpill)
	if counter == nil {
		r.paths = st.(store.PathStore)
	} else {
		if r.remote, err = newRemote(counter, cfg, opts, r.listings); err != nil {
			return nil, err
		}
		r.remote.engines = r.engines
		r.remote.describeCatalogs(st, r.versions)
		// Catalogs are downloaded to the work folder under their keys,
		// data files to the cache's mirror of data_dir.
		r.names.add(r.remote.work, folderName(st, ""))
		if r.remote.cacheDir != "" {
			r.names.add(r.remote.local, folderName(st, cfg.DataDir))
		}
		defer func() {
			if err != nil {
				r.close()
			}
		}()
		if r.dataPath == "" {
			r.dataPath = r.remote.dataPath()
		}
	}
	if r.dataPath == "" {
		if r.dataPath, err = r.paths.Path(strings.TrimSuffix(cfg.DataDir, "/")); err != nil {
			return nil, fmt.Errorf("data_dir %s: %w", cfg.DataDir, err)
		}
	}
	if !strings.HasSuffix(r.dataPath, string(os.PathSeparator)) {
		r.dataPath += string(os.PathSeparator)
	}
	r.bound("")
	return r, nil
}

// bound bounds every DuckDB database the run's readers and conversions
// open to the run's folders (duckpool.Pool.Within; docs/compare.md, "The
// readers' sandbox"): the repository's folder (or, for a bucket or a web
// site, the run's work folder for catalogs and the data cache), the data
// folder, the folder of rewritten delete files, and the run's work folder
// (work, once made: the conversions' outputs and copies), and for a
// bucket or web site the data cache with its catalogs and footers'
// stand-ins. A database so bounded opens no other file, whatever
// statement runs in it; the run's readers and conversions share them, as
// before.
func (r *repository) bound(work string) {
	dirs := []string{r.dataPath, r.tempDir(), work}
	if r.paths != nil {
		if temp, err := r.paths.Path(store.TempDir); err == nil {
			dirs = append(dirs, filepath.Dir(temp))
		}
	}
	if rm := r.remote; rm != nil {
		dirs = append(dirs, rm.work, rm.cacheDir, rm.tmpDir, rm.catalogDir, rm.local)
		if rm.cacheDir != "" {
			dirs = append(dirs, rm.cacheDir+footersSuffix) // the footers' stand-ins
		}
	}
	r.engines.Within(dirs...)
	r.convEngines.Within(dirs...)
}

// where names a store for messages: its Location (a bucket and prefix
// with its endpoint, a URL; never credentials), else its folder.
func where(st store.Store) string {
	st = store.Base(st)
	if r, ok := st.(interface{ Root() string }); ok {
		return r.Root()
	}
	return location(st)
}

// NoAnswerError is the run's first request, for fdl.json, timing out: the
// server took the connection and sent nothing (no response, or no more of
// the file), at each attempt. One object cannot tell a dead server from a
// stuck file (store.ServerWatch needs two), but with nothing read yet the
// run cannot go on; its hint says what to check, as a server that cannot
// be reached gets. The client's error was the whole message (`open
// fdl.json: Get "…": net/http: timeout awaiting response headers`, or
// the AWS SDK's with its request IDs), naming no repository.
type NoAnswerError struct {
	Where string // the repository (folder, s3://… at endpoint, URL)
	Err   error  // the client's error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("read %s: %s in %s got no answer: the server takes the connection but sends nothing (%s)", FDLKey, FDLKey, e.Where, timeoutCause(e.Err))
}

// Unwrap is the client's error.
func (e *NoAnswerError) Unwrap() error { return e.Err }

// Hint says what to check.
func (e *NoAnswerError) Hint() string {
	return "check the server of " + e.Where + " (and any proxy, gateway or CDN in front of it): it takes connections but sends nothing; if it is only slow, raise --stall-timeout"
}

// noAnswer reports whether err is a request that timed out waiting for the
// server (its response, or more of its body), and that no store has
// already told the cause of (a hinted error: a connection refused, a
// certificate).
func noAnswer(err error) bool {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return false
	}
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// timeoutCause is the client's last words on a timeout, without the AWS
// SDK's wrapping (operation, attempts, request IDs): the stall watchdog's
// error, else the HTTP client's (`Get "URL": net/http: timeout awaiting
// response headers`).
func timeoutCause(err error) string {
	var se *store.StallError
	if errors.As(err, &se) {
		return se.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Error()
	}
	return err.Error()
}

// notJSON is the error of a store whose fdl.json is an HTML page: a REPO
// URL that points at a site that answers every path with its index page
// (a single-page app), not at a repository. It said "no fdl.json", which
// left the user to wonder why a file the browser shows was not found.
func notJSON(st store.Store) error {
	return fmt.Errorf("%w: %s in %s is not JSON (the site answers every path with a page?): the server answered with an HTML page", ErrNotRepository, FDLKey, where(st))
}

// read reads fdl.json and every version's version.json (and expired.json);
// it needs no local data folder, so it serves readers of any store. The
// walk of a web site's versions/ reads whole the version files walk
// selects (walkReads; nil: none).
func read(ctx context.Context, st store.Store, walk func(id, name string) bool) (*repository, error) {
	data, err := readUnsized(ctx, st, FDLKey)
	switch {
	case errors.Is(err, store.ErrPage):
		return nil, notJSON(st)
	case errors.Is(err, fs.ErrNotExist):
		var absent *store.AbsentError
		if errors.As(err, &absent) {
			return nil, fmt.Errorf("%w: no %s in %s; %s", ErrNotRepository, FDLKey, where(st), absent.Note)
		}
		return nil, fmt.Errorf("%w: no %s in %s", ErrNotRepository, FDLKey, where(st))
	case errors.Is(err, fdljson.ErrInvalid):
		return nil, err
	case err != nil:
		if ctx.Err() == nil && noAnswer(err) {
			return nil, &NoAnswerError{Where: where(st), Err: err}
		}
		return nil, fmt.Errorf("read %s: %w", FDLKey, err)
	}
	cfg, err := fdljson.ParseRepo(FDLKey, data)
	if err != nil {
		if store.ListsPartially(st) && strings.HasPrefix(http.DetectContentType(data), "text/html") {
			// A web site's page under another type than HTML: a site,
			// not a repository, as above. (A folder's or bucket's
			// fdl.json is a file someone wrote: its parse error says
			// what is wrong with it.)
			return nil, notJSON(st)
		}
		return nil, err
	}
	r := &repository{st: st, cfg: cfg}
	// On a web site, versions/'s listing may link a version folder whose
	// own page links no file (an empty index.html, a CDN's copy of an
	// empty page): it is a version all the same, whose files readers
	// fetch by name (probeVersions asks for them). Before, such a folder
	// was never seen: check passed without checking it. On disk, a
	// version folder holding no file is listed too, to be named by a
	// warning (dropEmpty); before, it was ignored without a word.
	objs, folders, bodies, err := store.ListRead(ctx, st, VersionsDir, readsInWalk(walk), maxWalkRead)
	if err != nil {
		return nil, fmt.Errorf("list versions: %w", err)
	}
	byID := map[string]*version{}
	hidden := map[string]bool{}
	add := func(key string) *version {
		id, _, ok := strings.Cut(strings.TrimPrefix(key, VersionsDir), "/")
		if !ok || id == store.TempDir {
			// A file directly under versions/ is not a version (a
			// .DS_Store there neither); TempDir holds a local store's
			// temporary files, staged in versions/ when it is linked
			// onto another disk (store/local's StageDir), as a copy of
			// the folder to a bucket or web site shows them.
			return nil
		}
		if hiddenName(id) {
			// The spec's versions are versions/<UUIDv7>/, and readers
			// never open a hidden folder: another tool's (an upload's
			// staging folder, .git, .Trash-1000). With a file in it, it
			// was an invalid version (exit 6); now a warning names it.
			if !hidden[id] {
				hidden[id] = true
				r.hiddenFolders = append(r.hiddenFolders, id)
			}
			return nil
		}
		v := byID[id]
		if v == nil {
			v = &version{id: id, objects: map[string]store.ObjectInfo{}}
			byID[id] = v
			r.versions = append(r.versions, v)
		}
		return v
	}
	for _, o := range objs {
		if v := add(o.Key); v != nil {
			name := strings.TrimPrefix(o.Key, v.prefix())
			v.objects[name] = o
			if b, ok := bodies[o.Key]; ok {
				if v.bodies == nil {
					v.bodies = map[string][]byte{}
				}
				v.bodies[name] = b
			}
		}
	}
	for _, f := range folders {
		add(f)
	}
	slices.Sort(r.hiddenFolders)
	// UUIDv7 IDs sort by creation time.
	slices.SortFunc(r.versions, func(a, b *version) int { return strings.Compare(a.id, b.id) })
	if !store.ListsPartially(st) {
		// Its listing shows every file: a folder holding none is no
		// version, named by the plan's warning. Web sites' are known
		// after probes (probeVersions).
		r.versions = r.dropEmpty(r.versions)
	}
	// probeJobs at a time: one at a time, a web site's or bucket's
	// repository of N versions cost N round trips here. Each reads and
	// sets its own version only.
	var g errgroup.Group
	g.SetLimit(probeJobs)
	for _, v := range r.versions {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r.readVersion(ctx, v)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return r, nil
}

// find gives the version of the repository with that ID, or nil.
func (r *repository) find(id string) *version {
	i, ok := r.index(id)
	if !ok {
		return nil
	}
	return r.versions[i]
}

// index is the place of version id in r.versions, which is sorted by ID
// (read).
func (r *repository) index(id string) (int, bool) {
	return slices.BinarySearchFunc(r.versions, id, func(v *version, id string) int { return strings.Compare(v.id, id) })
}

// Problem classifies why a version or cell is in error.
type Problem string

const (
	// ProblemInvalid: a version file is missing, not valid JSON, or breaks the spec.
	ProblemInvalid Problem = "invalid"
	// ProblemMismatch: a file's size or sha256 differs from version.json.
	ProblemMismatch Problem = "mismatch"
	// ProblemUnreadable: a catalog could not be read or compared.
	ProblemUnreadable Problem = "unreadable"
	// ProblemNotEquivalent: a published catalog is not equivalent to its source.
	ProblemNotEquivalent Problem = "not-equivalent"
	// ProblemViolation: a repository rule is broken.
	ProblemViolation Problem = "violation"
	// ProblemWarning: reported as a warning, does not fail the check
	// (something only the writer of a frozen catalog can change).
	ProblemWarning Problem = "warning"
)

func (r *repository) readVersion(ctx context.Context, v *version) {
	names := versionFiles
	if v.showsNoFile() {
		// A folder showing no file: whether it is empty or a
		// half-uploaded version hangs on its presenceFiles too.
		names = append(slices.Clone(versionFiles), r.presenceNames()...)
	}
	for _, name := range names {
		if err := v.probeErr(name); err != nil {
			// Whether readers refuse it, or what it is, is unknown.
			v.err, v.problem = err, ProblemUnreadable
			return
		}
	}
	if _, ok := v.objects["expired.json"]; ok {
		data, err := r.readUnsized(ctx, v, "expired.json")
		if err == nil {
			v.expired, err = fdljson.ParseExpired(objectName(r.st, v.prefix()+"expired.json"), data)
		}
		if err != nil {
			v.err, v.problem = err, ProblemInvalid
			return
		}
	}
	if !fdljson.IsVersionID(v.id) {
		v.err, v.problem = fmt.Errorf("%s: folder name is not a version ID (a lower-case UUIDv7)", objectName(r.st, v.prefix())), ProblemInvalid
		return
	}
	if _, ok := v.objects["version.json"]; !ok {
		if v.expired == nil {
			// Say what mends it: check's hint (restore an edited file, or
			// withdraw) fits a published version, not one still being
			// copied in.
			v.err, v.problem = fmt.Errorf("%s: missing: finish publishing the version (version.json is copied last) or restore its version.json; a withdrawn version has expired.json instead", objectName(r.st, v.prefix()+"version.json")), ProblemInvalid
		}
		return // withdrawn versions may lose version.json
	}
	data, err := r.readUnsized(ctx, v, "version.json")
	if err != nil {
		v.err, v.problem = err, ProblemUnreadable
		if errors.Is(err, fdljson.ErrInvalid) {
			v.problem = ProblemInvalid
		}
		return
	}
	// Named where it is (objectName), by the error and its hint ("fix
	// …"): the key alone left an s3:// or web site's reader to put it
	// together with the repository's URL and endpoint.
	v.meta, err = fdljson.ParseVersion(objectName(r.st, v.prefix()+"version.json"), v.id, data)
	if err != nil {
		v.err, v.problem = err, ProblemInvalid
	}
}

// listedRef checks that the store shows a file beside version.json at the
// size version.json records for it (nothing is read unless the sizes
// disagree: sizeProblem).
func (r *repository) listedRef(ctx context.Context, v *version, ref fdljson.FileRef) (Problem, error) {
	key := v.prefix() + ref.Path
	info, ok := v.objects[ref.Path]
	if !ok {
		if err := v.probeErr(ref.Path); err != nil {
			return ProblemUnreadable, err
		}
		return ProblemInvalid, fmt.Errorf("%s: missing (named in version.json)", key)
	}
	if info.Size != ref.Bytes {
		return sizeProblem(ctx, r.st, key, info.Size, ref.Bytes)
	}
	return "", nil
}

// verifyRef checks a file beside version.json against its size and sha256.
func (r *repository) verifyRef(ctx context.Context, v *version, ref fdljson.FileRef) (Problem, error) {
	if problem, err := r.listedRef(ctx, v, ref); err != nil {
		return problem, err
	}
	key := v.prefix() + ref.Path
	frozen := key == v.prefix()+v.meta.Catalog.Path
	if r.remote != nil && frozen {
		// The frozen catalog of a remote store is downloaded once per run
		// into the private work folder, verified as it is written; later
		// steps use that copy (copyFrozen).
		_, h, problem, err := r.remote.catalog(ctx, key, &ref)
		if err == nil {
			v.header = h
		}
		return problem, err
	}
	// The frozen catalog's headers come from the bytes hashed: checking
	// catalog.storage reads nothing more (storageClaim).
	var hd *head
	if frozen {
		hd = &head{}
	}
	sum, n, err := hashObject(ctx, r.st, key, hd)
	if err != nil {
		return ProblemUnreadable, err
	}
	if problem, err := matchRef(key, ref.Bytes, ref.SHA256, n, sum); err != nil {
		return problem, err
	}
	if frozen {
		v.header = hd.header()
	}
	return "", nil
}

// hashObject reads an object whole and returns its sha256 and size; hd,
// when not nil, keeps its first bytes.
func hashObject(ctx context.Context, st store.Store, key string, hd *head) (string, int64, error) {
	rc, err := st.Open(ctx, key)
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	h := sha256.New()
	var w io.Writer = h
	if hd != nil {
		w = io.MultiWriter(h, hd)
	}
	n, err := io.Copy(w, rc)
	if err != nil {
		return "", 0, storeErr(st, "read", key, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// Shard is one of N shards of a repository's versions: shard K (1-based)
// holds the versions whose ID hashes to K-1 modulo N (FNV-1a of the ID),
// before any --versions filter. The zero Shard is the whole repository.
// Runs of shards 1..N on separate machines cover every cell exactly once,
// also when a version is published between their runs: a version's shard
// depends on its ID alone, not on the versions each machine happened to
// see (by position in the list, a version published meanwhile moved the
// others between shards, and one could be checked by no shard).
type Shard struct {
	K, N int
}

// ParseShard reads "K/N" (1 <= K <= N).
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	var sh Shard
	var err1, err2 error
	if ok {
		sh.K, err1 = strconv.Atoi(strings.TrimSpace(k))
		sh.N, err2 = strconv.Atoi(strings.TrimSpace(n))
	}
	if !ok || err1 != nil || err2 != nil || sh.N < 1 || sh.K < 1 || sh.K > sh.N {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 1 <= K <= N, e.g. 2/4", s)
	}
	return sh, nil
}

func (s Shard) String() string {
	if s.N == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// selectShard keeps the versions of one shard.
func selectShard(selected []*version, s Shard) []*version {
	if s.N <= 1 {
		return selected
	}
	var out []*version
	for _, v := range selected {
		if s.holds(v.id) {
			out = append(out, v)
		}
	}
	return out
}

// holds tells whether the version id belongs to the shard.
func (s Shard) holds(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()%uint64(s.N) == uint64(s.K-1)
}

// selectVersions applies the --versions filter (IDs or seq numbers).
func selectVersions(all []*version, filter []string) ([]*version, error) {
	if len(filter) == 0 {
		return all, nil
	}
	var out []*version
	for _, f := range filter {
		found := false
		for _, v := range all {
			match := v.id == f
			if !match && v.meta != nil {
				if n, err := strconv.ParseInt(f, 10, 64); err == nil && n == v.meta.Seq {
					match = true
				}
			}
			if match && !slices.Contains(out, v) {
				out = append(out, v)
			}
			found = found || match
		}
		if !found {
			return nil, &FilterError{Option: "versions", Detail: fmt.Sprintf("no version %q (give IDs or seq numbers)", f), NamesNothing: true}
		}
	}
	slices.SortFunc(out, func(a, b *version) int { return strings.Compare(a.id, b.id) })
	return out, nil
}

// selectFormats applies the --formats filter to the declared formats.
func selectFormats(cfg *fdljson.Repo, filter []string) ([]fdljson.Format, error) {
	all := cfg.Sorted()
	if len(filter) == 0 {
		return all, nil
	}
	var out []fdljson.Format
	for _, f := range all {
		if slices.Contains(filter, f.DuckLake) {
			out = append(out, f)
		}
	}
	for _, f := range filter {
		if _, ok := cfg.Format(f); !ok {
			return nil, &FilterError{Option: "formats", Detail: fmt.Sprintf("format %q is not declared in fdl.json (declared: %s)", f, strings.Join(cfg.Names(), ", ")), NamesNothing: true}
		}
	}
	return out, nil
}

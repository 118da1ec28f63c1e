package repo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// ResolveOptions tune Resolve.
type ResolveOptions struct {
	// Version picks the version: its ID, its seq, or "latest" (the default):
	// the newest version by ID that is not expired or withdrawn.
	Version string
	// DuckDB is the reader's DuckDB version ("1.4.3"); empty means the DuckDB
	// linked into this program (LinkedDuckDB).
	DuckDB string
	// Name is the alias of the ATTACH statement; empty means the name in the
	// version's dataset.json, else "lake".
	Name string
	// DataURL is the data folder DATA_PATH names, a local folder or a URL;
	// empty means the repository's data_dir in the store (its URL for a
	// store.URLStore, its local folder for a store.PathStore).
	DataURL string
	// Verify opens each file before choosing it, from a private copy: the
	// frozen catalog must match version.json's sha256 and hold the DuckLake
	// format its ducklake.format says, a published one the format its
	// name says, and every row of every table must read (so every block a
	// DuckLake ATTACH loads passes its checksum: readCopyWhole). A file
	// that does not is passed over (its Reason says why, naming the
	// repository's file). Without it Resolve reads only the files' headers.
	Verify bool
	// MaxSpill bounds, in bytes, what each DuckDB database Verify opens may
	// spill; 0 means DefaultMaxSpill.
	MaxSpill int64
	// Now is when each declared format's until is evaluated, for what
	// NoCatalogError says of a format the version lacks; zero means the
	// current time.
	Now time.Time
}

// Resolution is which catalog of a version a DuckDB opens, and how.
type Resolution struct {
	FormatVersion int    `json:"format_version"`
	Version       string `json:"version"`
	Seq           int64  `json:"seq,omitempty"`
	// DuckDB is the reader's DuckDB version.
	DuckDB string `json:"duckdb"`
	// OK is false when no catalog of the version opens in that DuckDB.
	OK bool `json:"ok"`
	// File is the catalog to open (nil when none opens).
	File *CatalogFile `json:"file,omitempty"`
	// CatalogURL and DataURL are what the ATTACH statement names.
	CatalogURL string `json:"catalog_url,omitempty"`
	DataURL    string `json:"data_url"`
	Name       string `json:"name"`
	// Setup is what that DuckDB runs before Attach, if anything: for an
	// S3-compatible endpoint, the S3 secret naming it (a private bucket's
	// KEY_ID and SECRET are the reader's to add).
	Setup string `json:"setup,omitempty"`
	// Attach is the statement to run in that DuckDB.
	Attach string `json:"attach,omitempty"`
	// Files are the version's catalogs in the order a reader tries them:
	// catalogs/<format>.duckdb newest format first, then ducklake.duckdb.
	Files []*CatalogFile `json:"files"`
	// Error says why nothing opens (when not OK).
	Error string `json:"error,omitempty"`
	// Warnings are what the reader should know of the file picked: the
	// DuckDB is outside the range fdl.json declares for its format
	// (outsideDeclared).
	Warnings []string `json:"warnings,omitempty"`
}

// CatalogFile is one catalog of a version, and which DuckDB opens it.
type CatalogFile struct {
	Key    string `json:"key"`
	Format string `json:"format"`
	// FormatFrom is set when Format is not the name's or version.json's:
	// check detected another format in the frozen catalog.
	FormatFrom string `json:"format_from,omitempty"`
	// Frozen marks the version's own ducklake.duckdb.
	Frozen bool `json:"frozen"`
	// Readers is the DuckDB version constraint of the releases whose
	// DuckLake opens the format read-only, from the format registry: with
	// the file's storage, it decides which DuckDBs open the file. Declared
	// is the range fdl.json declares for the format, which the publisher
	// promises to serve (within Readers); empty when fdl.json does not
	// declare the format.
	Readers  string `json:"readers,omitempty"`
	Declared string `json:"declared,omitempty"`
	// Storage is the file's DuckDB storage version: version.json's
	// catalog.storage for the frozen catalog, the file's own header for a
	// published one (StorageFrom). A DuckDB older than MinDuckDB cannot open
	// the file.
	Storage     string `json:"storage,omitempty"`
	StorageFrom string `json:"storage_from,omitempty"`
	MinDuckDB   string `json:"min_duckdb,omitempty"`
	// DuckDB are the DuckDB versions that open the file (its readers and its
	// storage together); empty when no released DuckDB does.
	DuckDB string `json:"duckdb,omitempty"`
	// Opens says whether the resolution's DuckDB opens the file; Reason says
	// why not.
	Opens  bool   `json:"opens"`
	Reason string `json:"reason,omitempty"`
	// Verified: ResolveOptions.Verify opened the file and found it what
	// version.json or its name says. PassedOver: it opened the file and
	// found it not so (Reason says why), so the next file was tried.
	Verified   bool `json:"verified,omitempty"`
	PassedOver bool `json:"passed_over,omitempty"`

	readers  goversion.Constraints // the registry's: who opens the format
	declared goversion.Constraints // fdl.json's: who is promised it; nil when not declared
	min      *goversion.Version
	problem  string // the file cannot be used at all (missing, unknown format, unreadable header)
}

// NoCatalogError is returned by Resolve when no catalog of the version opens
// in the reader's DuckDB. It matches ErrNoCatalog.
type NoCatalogError struct {
	Version string
	Seq     int64
	DuckDB  string
	// Why is set when the version has no catalog at all (expired, withdrawn).
	Why string
	// Would are the version's catalogs some other DuckDB opens.
	Would []*CatalogFile
	// Declared names the formats fdl.json declares for this DuckDB, which
	// the version has no catalog in (backfill writes them).
	Declared []string
	// Expired names those of them past their until for this version
	// (fdl.json's until, "2026-06-30"): backfill writes none.
	Expired []ExpiredFormat
	// TooNew are the version's catalogs in a format this DuckDB opens,
	// saved at a storage it cannot open.
	TooNew []*CatalogFile
	// Unusable are the version's catalogs in a format this DuckDB opens
	// that cannot be used: missing, a header that does not read, or passed
	// over by ResolveOptions.Verify. Their formats are not in Declared:
	// backfill finds such a catalog there and writes nothing.
	Unusable []*CatalogFile

	// site: the repository is a web site, where backfill is refused: the
	// publisher runs it where the site is published from.
	site bool
	// remove names a key where the publisher deletes it and backfill the
	// command that writes it again (removable, backfillAgain of the
	// store: again); nil: by its key, `fdl-formats backfill REPO`.
	remove func(key string) string
	again  string
	// where names a key in the lines (objectName of the store); nil: by
	// the key.
	where func(key string) string
}

func (e *NoCatalogError) Error() string { return strings.Join(e.Lines(), "\n") }

// Lines is the message's lines: what fails, then each catalog that other
// DuckDB versions open (oneline.Lines).
func (e *NoCatalogError) Lines() []string {
	v := e.Version
	if e.Seq > 0 {
		v = fmt.Sprintf("%s (seq %d)", e.Version, e.Seq)
	}
	if e.Why != "" {
		return []string{fmt.Sprintf("version %s: %s", v, e.Why)}
	}
	msg := fmt.Sprintf("no catalog of version %s opens in DuckDB %s", v, e.DuckDB)
	var lines []string
	if len(e.Would) == 0 {
		lines = []string{msg + "; none opens in any released DuckDB"}
	} else {
		lines = []string{msg + "; these would:"}
		for _, f := range e.Would {
			lines = append(lines, fmt.Sprintf("  %s (format %s, storage %s): DuckDB %s", e.objectName(f.Key), f.Format, f.Storage, f.DuckDB))
		}
	}
	for _, f := range e.Unusable {
		// The problem names the file where it is, as its source gave it.
		lines = append(lines, fmt.Sprintf("  %s (format %s) cannot be used: %s", e.objectName(f.Key), f.Format, strings.Join(strings.Fields(f.problem), " ")))
	}
	return lines
}

// objectName names key where it is (objectName of the repository's store:
// a bucket's s3:// URL at its endpoint, a site's URL), else by its key.
func (e *NoCatalogError) objectName(key string) string {
	if e.where == nil {
		return key
	}
	return e.where(key)
}

// ExpiredFormat is a declared format past its until.
type ExpiredFormat struct {
	Format string
	Until  string
}

// Is matches ErrNoCatalog.
func (e *NoCatalogError) Is(target error) bool { return target == ErrNoCatalog }

// Hint tells the reader what to do, and who can fix it.
func (e *NoCatalogError) Hint() string {
	if e.Why != "" {
		return "pick another version (--version ID|SEQ|latest)"
	}
	// The publisher's command lines name the repository (REPO, which the
	// CLI gives the run's repository and flags: they said `fdl-formats
	// backfill` alone, run where? with which --endpoint?), and the file to
	// delete where it can be deleted (it said "deletes it", the key
	// relative to a repository the reader need not know the place of).
	// On a web site backfill is refused: it runs where the site is
	// published from.
	var hints []string
	for _, f := range e.Unusable {
		if f.Frozen {
			hints = append(hints, fmt.Sprintf("%s, the version's frozen catalog, cannot be used (above); `fdl-formats backfill` cannot replace it: only the version's publisher can restore it (`fdl-formats check REPO` reports it), else pick another version (--version)", e.objectName(f.Key)))
		} else {
			hints = append(hints, fmt.Sprintf("%s, in format %s, which DuckDB %s reads, cannot be used (above): %s, which writes it again (`fdl-formats check REPO` reports it)", e.objectName(f.Key), f.Format, e.DuckDB, e.rewrite(f.Key)))
		}
	}
	for _, f := range e.TooNew {
		if f.Frozen {
			hints = append(hints, frozenTooNew(f, e.objectName(f.Key), "DuckDB "+e.DuckDB))
		} else {
			hints = append(hints, fmt.Sprintf("%s is in format %s, which DuckDB %s reads, but saved at storage %s, which it cannot open: %s, which writes it at the oldest storage the format's readers open", e.objectName(f.Key), f.Format, e.DuckDB, f.Storage, e.rewrite(f.Key)))
		}
	}
	if len(e.Declared) > 0 {
		hints = append(hints, fmt.Sprintf("fdl.json declares format %s for DuckDB %s, but this version has no catalog in it: the publisher runs %s (`fdl-formats plan REPO` says if it is refused)", strings.Join(e.Declared, ", "), e.DuckDB, e.backfill()))
	}
	for _, x := range e.Expired {
		// Backfill writes nothing past until: it said to run it.
		hints = append(hints, fmt.Sprintf("fdl.json declares format %s for DuckDB %s until %s, which has passed for this version: no catalog in it is written any more; open it from one of the DuckDB versions listed", x.Format, e.DuckDB, x.Until))
	}
	if len(hints) == 0 {
		return "open it from one of the DuckDB versions listed, or ask the publisher to declare a format for DuckDB " + e.DuckDB + " in fdl.json and run " + e.backfill()
	}
	return strings.Join(hints, "; or ")
}

// backfill is the publisher's backfill of the repository, as a hint says
// it: `fdl-formats backfill REPO`, or on a web site, which refuses it,
// where the site is published from.
func (e *NoCatalogError) backfill() string {
	if e.site {
		return "`fdl-formats backfill` on the folder or s3:// bucket the site serves"
	}
	return "`fdl-formats backfill REPO`"
}

// rewrite says how the publisher writes the published catalog key again:
// delete it where it can be deleted (removable), and backfill.
func (e *NoCatalogError) rewrite(key string) string {
	name, backfill := key, "`fdl-formats backfill REPO`"
	if e.remove != nil {
		name, backfill = e.remove(key), e.again
	}
	return "the publisher deletes " + name + " and runs " + backfill
}

// frozenTooNew says what fixes a frozen catalog (name: resolve's hint
// names it where it is, check's finding by its key) in a format a DuckDB
// (who) reads but saved at a storage it cannot open. Backfill cannot: it
// writes no catalog in the frozen catalog's own format (the rules of
// catalogs/), so only the writer can, saving it at an older storage, as
// the spec asks ("catalog.storage should be the oldest DuckDB storage
// format the declared readers can open").
func frozenTooNew(f *CatalogFile, name, who string) string {
	older := "an older storage"
	if v, err := formats.Lookup(f.Format); err == nil && v.Storage != "" {
		older = fmt.Sprintf("storage %s (STORAGE_VERSION '%s', which every DuckDB that reads format %s opens)", v.Storage, v.Storage, f.Format)
		if old, known := duckfile.Older(v.Storage, duckfile.DictFSSTReadable); old && known {
			// DuckDB 1.3 misreads some dictionary-FSST columns a newer
			// DuckDB writes at such a storage (check finds them).
			older += " with dict_fsst disabled (`disabled_compression_methods = 'dict_fsst'`)"
		}
	}
	return fmt.Sprintf("%s, the frozen catalog, is in format %s, which %s reads, but saved at storage %s (%s), which it cannot open; `fdl-formats backfill` cannot help (it writes no catalog in the frozen catalog's own format): the writer must save the frozen catalog at %s and say so in version.json's catalog.storage (FDL: catalog.storage should be the oldest DuckDB storage format the declared readers can open)",
		name, f.Format, who, f.Storage, f.StorageFrom, older)
}

// Resolve tells a reader on a given DuckDB which catalog of a version to
// open, following the FDL rule: the newest format it opens among the
// version's catalogs/<format>.duckdb, else the frozen ducklake.duckdb if it
// opens that. A DuckDB opens a file when its DuckLake opens the format (the
// registry's range, whatever range fdl.json promises the format to) and it
// is not older than the file's storage version. The Resolution carries the
// ATTACH statement for that DuckDB.
//
// It reads fdl.json, version.json and the first 12 KiB of each catalog,
// the frozen one too: a frozen catalog whose header needs a newer storage
// than version.json's catalog.storage opens only in the DuckDBs its header
// admits. It opens no catalog, so it takes version.json's ducklake.format
// and the published files' names as they are (Check verifies both). It
// needs no local data folder. When nothing opens it returns the
// Resolution and a *NoCatalogError naming the DuckDB versions that would.
// An unknown version is ErrBadFilter; an invalid one ErrInvalidVersion; a
// DuckDB version that is none ErrMalformedDuckDB. A request to a remote
// store that fails for the whole store after fdl.json was read
// (credentials expired, the server gone or no longer answering) stops it
// with a *StoppedError, as it stops check (runWatched).
func Resolve(ctx context.Context, st store.Store, opts ResolveOptions) (*Resolution, error) {
	return runWatched(ctx, "resolve", Options{}, false, func(ctx context.Context, _ Options, failures *storeFailures) (*Resolution, error) {
		watched := st
		if _, ok := st.(store.PathStore); !ok {
			c := store.NewCounter(st)
			c.Watch(failures.note)
			watched = c
		}
		return resolve(ctx, st, watched, opts)
	})
}

// resolve is Resolve; its requests go to watched (st under the run's
// watcher), st itself naming the objects (URLs, the reader's secret).
func resolve(ctx context.Context, st, watched store.Store, opts ResolveOptions) (*Resolution, error) {
	duckdb := opts.DuckDB
	if duckdb == "" {
		var err error
		if duckdb, err = LinkedDuckDB(ctx); err != nil {
			return nil, err
		}
	}
	dv, err := duckDBVersion(duckdb)
	if err != nil {
		return nil, err
	}
	r, err := read(ctx, watched, walkOf(resolveReads))
	if err != nil {
		return nil, err
	}
	if opts.Verify {
		sweepWork(os.TempDir(), slog.New(slog.DiscardHandler)) // where verifyFile works
	}
	v, err := r.pickProbed(ctx, opts.Version)
	if err != nil {
		return nil, err
	}
	res := &Resolution{FormatVersion: 1, Version: v.id, DuckDB: dv.String(), Files: []*CatalogFile{}}
	if v.meta != nil {
		res.Seq = v.meta.Seq
	}
	if v.expired != nil {
		e := &NoCatalogError{Version: v.id, Seq: res.Seq, DuckDB: res.DuckDB,
			Why: fmt.Sprintf("%s (expired.json): its catalogs are deleted, nothing to open", v.expired.Reason)}
		res.Error = e.Error()
		return res, e
	}
	if v.err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidVersion, v.err)
	}
	if res.DataURL, err = dataURL(st, r.cfg, opts.DataURL); err != nil {
		return nil, err
	}
	res.Name = opts.Name
	if res.Name == "" {
		res.Name = r.datasetName(ctx, v)
	}
	if res.Files, err = r.catalogFiles(ctx, v, true); err != nil {
		return nil, err
	}
	for _, f := range res.Files {
		f.Opens, f.Reason = f.opensIn(dv)
		if f.Opens && res.File == nil {
			if opts.Verify {
				if err := r.verifyFile(ctx, v, f, opts.MaxSpill); err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					// No DuckDB is sent to it, nor told it would open it.
					f.problem, f.Opens, f.Reason, f.DuckDB = err.Error(), false, err.Error(), ""
					f.PassedOver = true
					continue
				}
				f.Verified = true
			}
			res.File = f
		}
	}
	if res.File == nil {
		now := opts.Now
		if now.IsZero() {
			now = time.Now()
		}
		e := r.noCatalog(res, dv, v, now)
		e.site = store.IsReadOnly(st)
		e.remove = func(key string) string { return removable(st, key) }
		e.again = backfillAgain(st)
		e.where = func(key string) string { return objectName(st, key) }
		res.Error = e.Error()
		return res, e
	}
	if e, err := rangesRead(ctx, watched, res.File.Key, dv); err != nil {
		return nil, err
	} else if e != nil {
		// Every file of the server fails so in that DuckDB: none opens.
		res.File.Opens, res.File.Reason, res.File = false, e.Error(), nil
		res.Error = e.Error()
		return res, e
	}
	res.OK = true
	if w := r.outsideDeclared(res.File, dv); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	if res.CatalogURL, err = objectURL(st, res.File.Key); err != nil {
		return nil, err
	}
	res.Attach = AttachSQL(res.CatalogURL, res.Name, res.DataURL, !dv.LessThan(overrideDataPathFrom))
	if ss, ok := st.(interface{ DuckDBSecret() string }); ok {
		res.Setup = ss.DuckDBSecret()
	}
	return res, nil
}

// NoRangesError is returned by Resolve for a DuckDB before
// rangeFallbackFrom when the web server answers a ranged read of the
// catalog it would open with the whole file: that DuckDB fails every such
// read. It matches ErrNoCatalog.
type NoRangesError struct {
	Server, Key, DuckDB string
	// name names Key where it is (objectName: the site's URL); "": Key.
	name string
}

func (e *NoRangesError) Error() string {
	name := e.name
	if name == "" {
		name = e.Key
	}
	return fmt.Sprintf("DuckDB %s cannot read %s: %s ignores Range requests (it answered the ranged GET of the last %d bytes of it with 200 and the whole file), and DuckDB before %s fails every read so answered (httpfs: \"HTTP GET error: Content-Length from server mismatches requested range, server may not support range requests.\"), reading catalogs and data files by ranged GETs",
		e.DuckDB, name, e.Server, tailBytes, rangeFallbackFrom)
}

// Is matches ErrNoCatalog.
func (e *NoRangesError) Is(target error) bool { return target == ErrNoCatalog }

// Hint tells the reader what to do, and who can fix it.
func (e *NoRangesError) Hint() string {
	return fmt.Sprintf("read it with DuckDB %s or later, whose httpfs downloads the whole file when a server ignores a range; in DuckDB 1.3, httpfs's `SET force_download = true` downloads each file whole before reading it, without ranged GETs; the publisher can serve the repository from a server that honours Range requests (nginx, Apache, Caddy, S3)", rangeFallbackFrom)
}

// outsideDeclared says, where fdl.json declares f's format for a DuckDB
// range that dv is outside of, that dv opens f all the same (its DuckLake
// opens the format, and a DuckDB opens the newest format it can, whatever
// fdl.json says) but is not promised it, and which formats fdl.json does
// promise dv; "" otherwise (dv within the range, or the format not
// declared).
func (r *repository) outsideDeclared(f *CatalogFile, dv *goversion.Version) string {
	if f.declared == nil || f.declared.Check(dv) {
		return ""
	}
	var promised []string
	for _, d := range r.cfg.Sorted() {
		if d.Readers != nil && d.Readers.Check(dv) {
			promised = append(promised, d.DuckLake)
		}
	}
	msg := fmt.Sprintf("DuckDB %s is outside the range fdl.json declares for format %s (%s): it opens %s all the same (its DuckLake opens format %s: %s), but fdl.json does not promise the format to it (check reads a format for the DuckDBs of its declared range, which the publisher serves)", dv, f.Format, f.Declared, objectName(r.st, f.Key), f.Format, f.Readers)
	if len(promised) == 0 {
		return msg + fmt.Sprintf("; fdl.json declares no format for DuckDB %s", dv)
	}
	return msg + fmt.Sprintf("; fdl.json declares format %s for DuckDB %s", strings.Join(promised, ", "), dv)
}

// rangesRead reads the end of the object key by a ranged GET, as DuckDB dv
// reads it, where dv is older than rangeFallbackFrom and the store is read
// over the network (a store.TailReader that is not a local folder), and
// returns a *NoRangesError when the server answered with the whole file;
// nil, nil when it did not, or there was nothing to ask.
func rangesRead(ctx context.Context, st store.Store, key string, dv *goversion.Version) (*NoRangesError, error) {
	if !dv.LessThan(rangeFallbackFrom) {
		return nil, nil
	}
	if _, local := store.Base(st).(store.PathStore); local {
		return nil, nil
	}
	tr, ok := st.(store.TailReader)
	if !ok {
		return nil, nil
	}
	_, info, err := tr.ReadTail(ctx, key, tailBytes)
	if err != nil {
		// The store's error names the object where it is, once.
		return nil, fmt.Errorf("DuckDB %s's ranged read of a catalog's end: %w", dv, err)
	}
	if !info.IgnoredRange {
		return nil, nil
	}
	return &NoRangesError{Server: storeName(st), Key: key, DuckDB: dv.String(), name: objectName(st, key)}, nil
}

// verifyFile opens a catalog of v from a private copy and checks that it is
// what version.json (the frozen catalog: sha256 and ducklake.format) or its
// name (a published one) says. Its DuckDB databases spill at most maxSpill
// bytes (0: DefaultMaxSpill).
func (r *repository) verifyFile(ctx context.Context, v *version, f *CatalogFile, maxSpill int64) error {
	dir, err := scratch.MkdirTemp(os.TempDir(), resolveWorkPrefix)
	if err != nil {
		return fmt.Errorf("create work folder: %w", err)
	}
	defer os.RemoveAll(dir)
	// Its errors name the file where it is (resolve's lines and --json's
	// reason give them as they are).
	name := objectName(r.st, f.Key)
	local, sum, n, err := copyObject(ctx, r, f.Key, dir)
	if err != nil {
		// The store's error names the object where it is (a bucket's
		// s3:// URL at the endpoint, a site's URL, a folder's path), once.
		return err
	}
	if f.Frozen {
		ref := v.meta.Catalog.FileRef
		if _, err := matchRef(name, ref.Bytes, ref.SHA256, n, sum); err != nil {
			return err
		}
	}
	detected, err := convert.Detect(ctx, local, maxSpill)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, &copyError{err: err, local: local, key: name})
	}
	switch {
	case f.Frozen:
		if err := formatClaim(name, v, detected.Name); err != nil {
			return err
		}
	case detected.Name != f.Format:
		return fmt.Errorf("%s holds DuckLake format %s (detected from its version row and tables), not %s as its name says", name, detected.Name, f.Format)
	}
	return readCopyWhole(ctx, local, name, maxSpill)
}

// copyError is err, about the local copy of key (a name: objectName),
// naming key instead (and
// without compare's "could not compare" prefix: no comparison is made).
type copyError struct {
	err        error
	local, key string
}

func (e *copyError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), compare.ErrIncomparable.Error()+": ")
	return strings.ReplaceAll(msg, e.local, e.key)
}
func (e *copyError) Unwrap() error { return e.err }

// readCopyWhole reads the local copy of key whole, as check reads every
// catalog (compare.Reader.ReadEveryTable: every row of every table, so
// DuckDB verifies the checksum of every block that holds data, and the
// file as long as its header says). A DuckLake ATTACH reads the metadata,
// the latest snapshot, the schema, tables, columns and their statistics:
// blocks that detecting the format never reads, so a file with a corrupt
// one passed --verify while every reader's ATTACH failed (and check exited
// 3). Its error names key (objectName's name), not the copy.
func readCopyWhole(ctx context.Context, local, key string, maxSpill int64) error {
	rd, err := compare.Open(ctx, local, compare.ReaderOptions{MaxSpill: maxSpill})
	if err == nil {
		err = rd.ReadEveryTable(ctx)
		rd.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("read %s whole: %w", key, &copyError{err: err, local: local, key: key})
	}
	return nil
}

// noCatalog says which catalogs of the version other DuckDBs open, which
// declared formats this one would open but the version lacks, and which
// files it would open but for their storage.
func (r *repository) noCatalog(res *Resolution, dv *goversion.Version, v *version, now time.Time) *NoCatalogError {
	e := &NoCatalogError{Version: res.Version, Seq: res.Seq, DuckDB: res.DuckDB}
	has := map[string]bool{}
	for _, f := range res.Files {
		if f.DuckDB != "" {
			e.Would = append(e.Would, f)
		}
		switch {
		case f.problem == "":
			has[f.Format] = true
			if f.tooNewFor(dv) {
				e.TooNew = append(e.TooNew, f)
			}
		case f.readers != nil && f.readers.Check(dv):
			// There, in a format this DuckDB reads, but unusable:
			// backfill would find it there and write nothing.
			has[f.Format] = true
			e.Unusable = append(e.Unusable, f)
		}
	}
	for _, f := range r.cfg.Sorted() {
		switch {
		case !f.Readers.Check(dv) || has[f.DuckLake]:
		case v.meta != nil && f.ExpiredFor(v.meta.Created(), now):
			e.Expired = append(e.Expired, ExpiredFormat{Format: f.DuckLake, Until: f.Until})
		default:
			e.Declared = append(e.Declared, f.DuckLake)
		}
	}
	return e
}

// AttachSQL is the statement that attaches a frozen DuckLake catalog
// read-only, with its data read from dataURL instead of the data_path the
// catalog records. The alias is always quoted: a dataset may be named
// with one of SQL's reserved words ("order"), which DuckDB refuses bare.
func AttachSQL(catalogURL, name, dataURL string, override bool) string {
	opts := "READ_ONLY, DATA_PATH " + sqlString(dataURL)
	if override {
		opts += ", OVERRIDE_DATA_PATH true"
	}
	return fmt.Sprintf("ATTACH %s AS %s (%s)", sqlString("ducklake:"+catalogURL), sqlIdent(name), opts)
}

// overrideDataPathFrom is the first DuckDB whose DuckLake knows the
// OVERRIDE_DATA_PATH option (281e8f4f, 2025-09-05, in 09f9b85b, the
// DuckLake of DuckDB 1.4.0). DuckDB 1.3's refuses every option it does not
// know ("Unsupported option override_data_path for DuckLake",
// HandleDuckLakeOption), and uses a given DATA_PATH over the catalog's
// without it (LoadExistingDuckLake reads the catalog's data_path only when
// none was given).
var overrideDataPathFrom = goversion.Must(goversion.NewVersion("1.4.0"))

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlIdent quotes an identifier, whatever it is (a keyword, any case, any
// character), doubling the quotes inside it.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// LinkedDuckDB is the version of the DuckDB linked into this program ("1.5.6").
func LinkedDuckDB(ctx context.Context) (string, error) {
	db, err := duckpool.Open()
	if err != nil {
		return "", fmt.Errorf("open DuckDB: %w", err)
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("query the linked DuckDB's version: %w", err)
	}
	return strings.TrimPrefix(v, "v"), nil
}

// duckDBVersion parses a reader's DuckDB version; a pre-release or build
// suffix is dropped (a 1.5.6-dev build reads as 1.5.6).
func duckDBVersion(s string) (*goversion.Version, error) {
	v, err := goversion.NewVersion(s)
	if err != nil {
		// Not goversion's own error beside it: it said the same again
		// ("malformed version: abc").
		return nil, fmt.Errorf("%w %q (want one such as 1.4.3)", ErrMalformedDuckDB, s)
	}
	return v.Core(), nil
}

// pickProbed is pickVersion, on a store whose listing may leave files out
// (a web site's index pages) with the picked version's own files probed
// by name where the listing does not show them (probeVersions): for
// "latest", newest first, a version whose expired.json is there after all
// is passed over, as readers refuse it, and an empty version folder
// (dropEmpty) is no version, as on disk. It costs one request (a HEAD) for
// the version picked when its listing shows every file, and none on other
// stores. A probe that fails otherwise than "absent" is an error: which
// version is the latest is unknown.
func (r *repository) pickProbed(ctx context.Context, sel string) (*version, error) {
	if err := r.probeSeqs(ctx, sel); err != nil {
		return nil, err
	}
	all := r.versions
	for {
		v, err := pickVersion(all, sel)
		if err != nil {
			return nil, err
		}
		if err := r.probeVersions(ctx, []*version{v}); err != nil {
			return nil, err
		}
		for _, name := range versionFiles {
			if err := v.probeErr(name); err != nil {
				return nil, err
			}
		}
		if r.find(v.id) == nil {
			// An empty version folder (dropEmpty), no version as on
			// disk: the version before it may be the latest.
			all = slices.DeleteFunc(slices.Clone(all), func(o *version) bool { return o == v })
			continue
		}
		if v.expired == nil || (sel != "" && sel != "latest") {
			return v, nil
		}
		all = all[:slices.Index(all, v)]
	}
}

// probeSeqs, when sel is a seq, probes on a store whose listing may leave
// files out the version.json of the versions whose listing does not show
// it, and reads those found: a seq is in version.json, so a version whose
// version.json the listing left out (or whose folder's page links no file)
// was never found by its seq. Versions whose listing shows expired.json
// (withdrawn ones, which may delete version.json) are probed only when no
// other version holds the seq: a withdrawn version found by its seq is
// refused (no catalog to open), and where its version.json is gone the
// seq names no version, as on disk. It costs one request (a HEAD) for each
// version probed, none where every listing shows version.json or
// expired.json (and the GET of each version.json found, which the listing
// would have cost too). A probe that fails otherwise than "absent" is an
// error: which version holds the seq is unknown.
func (r *repository) probeSeqs(ctx context.Context, sel string) error {
	n, err := strconv.ParseInt(sel, 10, 64)
	if err != nil || !store.ListsPartially(r.st) {
		return nil
	}
	withdrawn := func(v *version) bool { _, listed := v.objects["expired.json"]; return listed }
	if err := r.probeVersionJSON(ctx, sel, func(v *version) bool { return !withdrawn(v) }); err != nil {
		return err
	}
	if slices.ContainsFunc(r.versions, func(v *version) bool { return v.meta != nil && v.meta.Seq == n }) {
		return nil
	}
	return r.probeVersionJSON(ctx, sel, withdrawn)
}

// probeVersionJSON probes the unlisted version.json of the versions with
// none read that match, and reads those found (probeSeqs).
func (r *repository) probeVersionJSON(ctx context.Context, sel string, match func(*version) bool) error {
	var probes []unlistedProbe
	for _, v := range r.versions {
		if v.meta == nil && match(v) {
			probes = append(probes, v.unlisted("version.json")...)
		}
	}
	if err := r.probeUnlisted(ctx, probes); err != nil {
		return err
	}
	for _, p := range probes {
		if err := p.v.probeErr("version.json"); err != nil {
			return fmt.Errorf("find seq %s: %w", sel, err)
		}
		if _, found := p.v.objects["version.json"]; found {
			r.reread(ctx, p.v)
		}
	}
	return nil
}

// pickVersion finds a version by ID, seq or "latest".
func pickVersion(all []*version, sel string) (*version, error) {
	if sel == "" || sel == "latest" {
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].expired == nil {
				return all[i], nil
			}
		}
		option := "version"
		if sel == "" {
			option = "" // not given: the latest, by default
		}
		detail := "every version is expired or withdrawn (expired.json): none is left to read"
		if len(all) == 0 {
			// Not one expired: there is none (check says so too).
			detail = "no version found under versions/: none to read"
		}
		return nil, &FilterError{Option: option, Detail: detail}
	}
	var found []*version
	n, serr := strconv.ParseInt(sel, 10, 64)
	for _, v := range all {
		if v.id == sel || (serr == nil && v.meta != nil && v.meta.Seq == n) {
			found = append(found, v)
		}
	}
	switch len(found) {
	case 0:
		return nil, &FilterError{Option: "version", Detail: fmt.Sprintf("no version %q (give an ID, a seq or latest)", sel), NamesNothing: true}
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, v := range found {
		ids[i] = v.id
	}
	return nil, &FilterError{Option: "version", Detail: fmt.Sprintf("seq %s names %d versions (%s): give the ID", sel, len(found), strings.Join(ids, ", "))}
}

// catalogFiles lists a version's catalogs in the order a reader tries them:
// the published ones newest format first, then the frozen one. With
// readHeaders the frozen catalog's headers are read when the run has not
// read them yet, and a storage newer than version.json's claim wins over
// it (see storageClaim); else the claim is used as it is, unless it names
// no storage version.
func (r *repository) catalogFiles(ctx context.Context, v *version, readHeaders bool) ([]*CatalogFile, error) {
	var out []*CatalogFile
	for _, name := range v.presentFormats() {
		f := &CatalogFile{Key: CatalogKey(v.id, name), Format: name, StorageFrom: "file header"}
		r.setReaders(f)
		if f.problem == "" {
			h, err := r.catalogHeader(ctx, v, "catalogs/"+name+".duckdb")
			switch {
			case err != nil && ctx.Err() != nil:
				return nil, ctx.Err()
			case err != nil:
				f.problem = err.Error()
			default:
				f.Storage, f.min = h.String(), h.MinDuckDB()
			}
		}
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b *CatalogFile) int { return formatRank(b.Format) - formatRank(a.Format) })
	frozen := &CatalogFile{Key: v.prefix() + v.meta.Catalog.Path, Format: v.meta.DuckLake.Format, Frozen: true,
		Storage: strings.TrimPrefix(v.meta.Catalog.Storage, "duckdb-"), StorageFrom: "version.json"}
	if v.detected != "" && v.detected != frozen.Format {
		// Check's content pass opened it: readers get what it holds.
		frozen.Format, frozen.FormatFrom = v.detected, "detected (version.json's ducklake.format says "+v.meta.DuckLake.Format+")"
	}
	r.setReaders(frozen)
	if _, ok := v.objects[v.meta.Catalog.Path]; !ok {
		frozen.problem = "missing (named in version.json)"
		if err := v.probeErr(v.meta.Catalog.Path); err != nil {
			frozen.problem = err.Error()
		}
		out = append(out, frozen)
		return r.finishFiles(out), nil
	}
	h := v.header
	claimed := duckfile.MinDuckDB(frozen.Storage)
	if h == nil && (readHeaders || claimed == nil) {
		// Resolve reads the headers (12 KiB) rather than trust the claim; a
		// run's plan kept them from the bytes it hashed.
		hd, err := readHeader(ctx, r.st, frozen.Key)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			frozen.problem = err.Error()
			out = append(out, frozen)
			return r.finishFiles(out), nil
		}
		h = &hd
	}
	frozen.min = claimed
	switch {
	case claimed == nil:
		frozen.Storage, frozen.StorageFrom, frozen.min = h.String(), "file header (catalog.storage "+strconv.Quote(v.meta.Catalog.Storage)+" is not a storage version)", h.MinDuckDB()
	case h != nil && h.MinDuckDB().GreaterThan(claimed):
		// A DuckDB the claim admits cannot open the file (storageClaim):
		// only those its header admits are pointed at it.
		frozen.Storage, frozen.StorageFrom, frozen.min = h.String(), "file header (version.json's catalog.storage "+strconv.Quote(v.meta.Catalog.Storage)+" is older)", h.MinDuckDB()
	}
	out = append(out, frozen)
	return r.finishFiles(out), nil
}

// finishFiles fills in, for each catalog of a version, the DuckDB versions
// that open it.
func (r *repository) finishFiles(out []*CatalogFile) []*CatalogFile {
	points := r.boundaries(out)
	for _, f := range out {
		if f.min != nil {
			f.MinDuckDB = f.min.String()
		}
		f.DuckDB = f.openers(points)
	}
	return out
}

// formatRank orders format names newest first; unknown names sort last.
func formatRank(name string) int {
	v, err := formats.Lookup(name)
	if err != nil {
		return -1
	}
	return formats.All.Index(v)
}

// setReaders takes the DuckDBs that open a format from the registry, and
// those fdl.json promises it to where it declares the format. What a DuckDB
// opens is what it can open (FDL 0.1, Versions, "Catalogs in other
// formats": "A reader tries the formats it can open, newest first"), not
// what it is promised: fdl.json may narrow a format's range (1.0 for
// DuckDB ">= 1.5.2, < 2.0.0"), yet DuckDB 2.0 still opens 1.0 catalogs. A
// development layout (1.1-dev1) opens in no released DuckDB, and fdl.json
// cannot declare one.
func (r *repository) setReaders(f *CatalogFile) {
	v, err := formats.Lookup(f.Format)
	if err != nil {
		f.problem = err.Error()
		return
	}
	f.Readers = v.DuckDB
	f.readers, _ = goversion.NewConstraint(v.DuckDB) // validated by formats.All.Validate
	if d, ok := r.cfg.Format(f.Format); ok {
		f.Declared, f.declared = d.DuckDB, d.Readers
	}
}

// promised is the DuckDB range the file's format is served to: fdl.json's
// where it declares the format, else the registry's.
func (f *CatalogFile) promised() (goversion.Constraints, string) {
	if f.declared != nil {
		return f.declared, f.Declared
	}
	return f.readers, f.Readers
}

// readHeader reads the DuckDB header of the object key. Its error names
// the object where it is (objectName): resolve's lines and --json's reason
// give it as it is.
func readHeader(ctx context.Context, st store.Store, key string) (duckfile.Header, error) {
	rc, err := st.Open(ctx, key)
	if err != nil {
		// The store's error names the object where it is, once (a
		// bucket's s3:// URL at the endpoint, a site's URL, a folder's
		// path): it is given as it is.
		return duckfile.Header{}, err
	}
	defer rc.Close()
	h, err := duckfile.Read(rc)
	if err != nil {
		return h, fmt.Errorf("read the header of %s: %w", objectName(st, key), err)
	}
	return h, nil
}

// tooNewFor reports whether DuckDB dv reads the file's format but cannot
// open its storage.
func (f *CatalogFile) tooNewFor(dv *goversion.Version) bool {
	return f.readers.Check(dv) && f.min != nil && dv.LessThan(f.min)
}

// opensIn says whether DuckDB dv opens the file, and if not, why.
func (f *CatalogFile) opensIn(dv *goversion.Version) (bool, string) {
	switch {
	case f.problem != "":
		return false, f.problem
	case !f.readers.Check(dv):
		return false, fmt.Sprintf("format %s opens only in DuckDB %s", f.Format, f.Readers)
	case dv.LessThan(f.min):
		return false, fmt.Sprintf("saved at DuckDB storage %s, which DuckDB %s cannot open (needs %s or newer)", f.Storage, dv, f.min)
	}
	return true, ""
}

// openers describes the DuckDB versions that open the file: its reader range,
// narrowed by its storage where the range alone would admit older DuckDBs;
// "" when none of the boundary versions does (a development format, or a
// storage newer than the whole range).
func (f *CatalogFile) openers(points []*goversion.Version) string {
	if f.problem != "" || f.min == nil {
		return ""
	}
	opens, older := false, false
	for _, p := range points {
		if f.readers.Check(p) {
			if p.LessThan(f.min) {
				older = true
			} else {
				opens = true
			}
		}
	}
	switch {
	case !opens:
		return ""
	case older:
		return f.Readers + ", >= " + f.min.String()
	}
	return f.Readers
}

// boundaries are the DuckDB versions at which which-file-opens can change:
// every version named by a reader range of fdl.json, of the registry or of
// the given files (and the one just past it for > and <=, the upper end of
// ~>), and every storage minimum. Between two boundaries every DuckDB
// opens the same files, so evaluating the boundaries covers every DuckDB.
func (r *repository) boundaries(files []*CatalogFile) []*goversion.Version {
	var cs []goversion.Constraints
	for _, f := range r.cfg.Formats {
		cs = append(cs, f.Readers)
	}
	for _, v := range formats.All {
		c, _ := goversion.NewConstraint(v.DuckDB)
		cs = append(cs, c)
	}
	var out []*goversion.Version
	add := func(v *goversion.Version) {
		if !slices.ContainsFunc(out, v.Equal) {
			out = append(out, v)
		}
	}
	for _, f := range files {
		cs = append(cs, f.readers)
		if f.min != nil {
			add(f.min)
		}
	}
	for _, c := range cs {
		for _, one := range c {
			for _, v := range constraintPoints(one.String()) {
				add(v)
			}
		}
	}
	slices.SortFunc(out, func(a, b *goversion.Version) int { return a.Compare(b) })
	return out
}

var constraintRE = regexp.MustCompile(`^\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*$`)

// constraintPoints are the versions at which one constraint ("> 1.5.1")
// changes its answer.
func constraintPoints(c string) []*goversion.Version {
	m := constraintRE.FindStringSubmatch(c)
	if m == nil {
		return nil
	}
	v, err := goversion.NewVersion(m[2])
	if err != nil {
		return nil
	}
	s := v.Segments()
	v = v.Core()
	// The version just past v: none when a segment at int64's maximum
	// (which fdl.json's constraints accept) would overflow; no DuckDB
	// lies past it.
	next := func(major, minor, patch int) []*goversion.Version {
		if major < 0 || minor < 0 || patch < 0 {
			return []*goversion.Version{v}
		}
		return []*goversion.Version{v, goversion.Must(goversion.NewVersion(fmt.Sprintf("%d.%d.%d", major, minor, patch)))}
	}
	switch m[1] {
	case ">", "<=", "=", "", "!=":
		return next(s[0], s[1], s[2]+1)
	case "~>":
		if strings.Count(strings.TrimPrefix(m[2], "v"), ".") >= 2 {
			return next(s[0], s[1]+1, 0)
		}
		return next(s[0]+1, 0, 0)
	}
	return []*goversion.Version{v}
}

// datasetName is the ATTACH alias: dataset.json's name made an identifier,
// else "lake".
func (r *repository) datasetName(ctx context.Context, v *version) string {
	if v.meta.Dataset != nil {
		if d, _, err := r.parsedDataset(ctx, v, v.meta.Dataset); err == nil {
			name := strings.Map(func(c rune) rune {
				switch {
				case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
					return c
				case c >= 'A' && c <= 'Z':
					return c + 'a' - 'A'
				}
				return '_'
			}, d.Name)
			if name != "" && (name[0] < '0' || name[0] > '9') {
				return name
			}
		}
	}
	return "lake"
}

// objectURL names an object as DuckDB reads it: the store's URL for a
// store.URLStore, the local file for a store.PathStore.
func objectURL(st store.Store, key string) (string, error) {
	if us, ok := st.(store.URLStore); ok {
		return store.URL(us, key), nil
	}
	if ps, ok := st.(store.PathStore); ok {
		p, err := ps.Path(key)
		if err != nil {
			return "", err
		}
		return filepath.Abs(p)
	}
	return "", errors.New("the store names its objects neither by URL nor by local path; give the data URL and open the catalog by hand")
}

// dataURL is the DATA_PATH of the statement: the override, else data_dir
// in the store, ending in a separator.
func dataURL(st store.Store, cfg *fdljson.Repo, override string) (string, error) {
	u := override
	if u == "" {
		var err error
		if u, err = objectURL(st, strings.TrimSuffix(cfg.DataDir, "/")); err != nil {
			return "", fmt.Errorf("data_dir %s: %w", cfg.DataDir, err)
		}
	} else if !strings.Contains(u, "://") {
		var err error
		if u, err = filepath.Abs(u); err != nil {
			return "", fmt.Errorf("data folder %s: %w", override, err)
		}
	}
	sep := "/"
	if !strings.Contains(u, "://") {
		sep = string(filepath.Separator)
	}
	if !strings.HasSuffix(u, sep) {
		u += sep
	}
	return u, nil
}

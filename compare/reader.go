package compare

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/datapath"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

var (
	// ErrNotEquivalent: the catalogs differ (schema, files or rows).
	ErrNotEquivalent = errors.New("catalogs are not equivalent")
	// ErrIncomparable: a catalog or file could not be read, a data file is
	// missing, or the catalog uses a feature this reader does not support.
	ErrIncomparable = errors.New("catalogs could not be compared")
	// ErrDamaged: a catalog file is shorter than its DuckDB header says, or
	// DuckDB failed to read a block of it (a checksum that does not match,
	// a block past the end): every reader of those bytes fails the same
	// way. Errors that match it match ErrIncomparable too.
	ErrDamaged = errors.New("catalog file truncated or corrupt")
)

// damaged marks err, met while DuckDB read the catalog file at path
// itself, with ErrDamaged (and ErrIncomparable) when it is DuckDB's IO
// error (a block whose checksum does not match, a read past the end): the
// file's bytes are at fault, not the query. Its text is err's.
func damaged(path string, err error) error {
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeIO && !storageTooNew(de.Msg, path) && !errors.Is(err, ErrDamaged) {
		return damagedError{err}
	}
	return err
}

// storageTooNew says that DuckDB's message about the file at path is about
// a file saved at a newer storage version than it opens: a sound file for
// a newer DuckDB. It is read without the path (duckfile.WithoutPath), the
// publisher's name, which may say "storage version".
func storageTooNew(msg, path string) bool {
	msg = duckfile.WithoutPath(msg, path)
	return strings.Contains(msg, "storage version") || strings.Contains(msg, "newer version") || strings.Contains(msg, "serialization version")
}

type damagedError struct{ err error }

func (e damagedError) Error() string { return e.err.Error() }
func (e damagedError) Unwrap() error { return e.err }

// Is matches ErrDamaged and ErrIncomparable.
func (e damagedError) Is(target error) bool { return target == ErrDamaged || target == ErrIncomparable }

// ReaderOptions tune Open.
type ReaderOptions struct {
	// DataPath overrides the catalog's data_path (a local folder), as
	// DuckLake's DATA_PATH ... OVERRIDE_DATA_PATH true does.
	DataPath string
	// DigestCache, when set, keeps file digests across readers and runs.
	DigestCache DigestStore
	// Engines, when set, lends the reader a DuckDB database that an earlier
	// reader closed, and takes it back on Close; nil starts one per reader.
	Engines *Engines
	// AsSource reads the catalog as a proof's source (catalog A): with the
	// newest reader of its format where the format's readers differ
	// (formats.Version.ReadsAsSourceWith), not with all of them.
	AsSource bool
	// Listings, when set, names the data files of a folder it knows as a
	// store's mirror (Listings.SetMirror) by their objects in the digests'
	// keys (fileIdentity), as it names them in a kept proof's key.
	Listings *Listings
	// Gate, when set, makes each data and delete file readable before the
	// reader reads its bytes (ReadGate).
	Gate ReadGate
	// Also are files the reader's DuckDB may open besides its catalog and
	// data folder: the earlier catalogs a proof may carry (Options.Carry).
	// Its DuckDB opens nothing else (duckpool.Reach), except within the
	// folders its Engines are bounded to (duckpool.Pool.Within).
	Also []string
	// ListOnly opens the catalog only to list its files (StoredFiles,
	// DataPath), as a cheap first look: the reader skips the checks that
	// refuse a catalog its real readers cannot load (objects named like
	// DuckLake tables, inlined-table registrations, required fields) and
	// does not widen its reach to files outside the data path, so it
	// may list a catalog a full reader refuses. Its fault point is
	// "compare/open-list", not "compare/open". Nothing else may be read
	// with it.
	ListOnly bool
	// MaxSpill bounds, in bytes, what the reader's DuckDB database may
	// spill (duckpool.Reach.MaxSpill); 0 means its Engines' bound
	// (duckpool.Pool.SpillAtMost), else duckpool.MaxSpill.
	MaxSpill int64
}

// Reader reads one DuckLake catalog, read-only, with the rules of its format.
// It holds one DuckDB connection and is not safe for concurrent use.
type Reader struct {
	path        string
	db          *sql.DB
	engines     *Engines         // where db goes back on Close
	loads       map[string]error // what the LOADs of db's extensions said (duckpool.OpenWithin)
	conn        *sql.Conn
	format      *formats.Version
	layout      formats.Layout
	dynamic     map[string][]string // inlined data/delete tables and their columns
	dynamicOf   map[string]string   // ASCII-lowered name -> its key in dynamic
	dataPath    string
	extAttached bool // the ducklake extension attached this catalog as "dl"
	asSource    bool // read as a proof's source (ReaderOptions.AsSource)
	// strictTypeDiffs are the metadata columns of another type than the
	// format declares that opened as a frozen catalog's (formats.FrozenTypes).
	strictTypeDiffs []string
	standInReads    map[[2]string]string        // those columns read as their declared types' values (formats.Version.StandInReads)
	partialRows     map[string]int64            // partial data files' Parquet row counts (partialFileRows)
	memo            *digestMemo                 // file digests by read plan (shared by both sides of a comparison)
	allRowsKeys     map[allRowsKeyID]string     // all-rows plan keys (see planKeyOf)
	goneKeys        map[goneKeyID]string        // deleted-rows plan keys (see planKeyOf)
	allRowsIDs      map[allRowsKeyID]int32      // goneKeyID's numbers of allRowsKeyIDs (allRowsIndex)
	interned        map[string]string           // scan shapes and groups, one copy each (intern)
	goneParts       map[allRowsKeyID]goneParts  // deleted-rows queries less their positions (goneSQL)
	keysBuilt       int                         // plan keys planKeyOf built (not found in its memos)
	keyBuf          []byte                      // goneKey's buffer, reused
	scans           int                         // scanning calls: switches to all threads and back
	schemas         map[string]*pnode           // data file path -> its Parquet schema (read-only once built)
	mappings        map[int64]*mapEntry         // name mappings by id (nameMapping; read-only once built)
	structSkips     map[structSkipKey]string    // QuirkStructNullsAfterSkippedVector per data file and delete state (structSkipped)
	skipFooters     map[string]structSkipFooter // data file path -> its row groups and the columns structSkipped reads
	schemaTried     map[string]bool             // data files prefetchSchemas asked for
	deleteTried     map[string]bool             // delete files prefetchDeletes asked for
	existing        map[string]bool             // files exists found
	posHashes       map[string]keptHash         // data file -> its last described invisible positions
	rawDeletes      *deleteFiles                // Parquet delete files read (shared by both sides of a comparison)
	tempTables      map[string]bool             // staged delete-position sets
	deletes         map[string][]int64          // delete file -> positions at deletesSnap
	deletesSnap     int64
	partialCuts     cutWindow // delete file -> its last positions cut at the walked snapshot or the one before (parquetDeletes)
	// plans and described: file plans and descriptions by file state, for
	// the snapshot walked and the one before (filestate.go);
	// inlinedDelBegins: by inlined deletion table, its rows' begin snapshots
	// by data file (inlinedDeleteBegins).
	plans            stateWindow[planState, *filePlan]
	described        stateWindow[fileState, fileDescribed]
	inlinedDelBegins map[string]map[int64][]int64
	// deleteSnapsOf: a partial deletion file's distinct snapshots
	// (deleteSnaps); inlinedDelTables: a table's inlined deletion table
	// ("": none), once rowCounts is known (inlinedDeleteTable).
	deleteSnapsOf map[string][]int64
	noStateMemo   bool // tests: build every file plan and description afresh
	// filesAt: each table's files at the snapshot last asked (Files);
	// identities: data files' identities (fileIdentity), once per reader.
	filesAt    map[*tableFiles]filesAtSnap
	identities map[identityKey]string
	// namedAs: each data file's copy identity (copyIdentity) when this
	// reader first named it in a key (planKeyOf): what its digests and
	// its proofs' facts were read under (identitiesCurrent).
	namedAs          map[string]string
	listings         *Listings // names mirrored data files (ReaderOptions.Listings)
	gate             ReadGate  // makes files readable before they are read (ReaderOptions.Gate)
	inlinedDelTables map[int64]string
	// cutPositions counts the positions partialCuts keeps alive, from and
	// cut (about, a replaced cut still counts): past maxRawDeletes it is
	// cleared (cutCap: maxRawDeletes; tests lower it).
	cutPositions, cutCap int
	// encrypted is the global encrypted option of ducklake_metadata.
	encrypted string
	// partValues: every data file's partition values (partitionValues).
	partValues map[int64]string
	meta       *metaMemo     // metadata answers by epoch (see epochs.go)
	stored     *[]StoredFile // StoredFiles' answer, once read
	// keepStats: statistics entries are kept once read (statsEntries), for
	// a Source's reader, which serves several proofs.
	keepStats bool
	// rowCounts: rows of each metadata table (main schema), once
	// ReadEveryTable has read them all (nil before); queries of tables
	// without rows are skipped.
	rowCounts map[string]int64
	// maxInlinePositions: longer delete lists are staged in a temp table.
	maxInlinePositions int
	// statsChecked and statsBadTables cache the check of
	// formats.QuirkTableStatsNeedColumnStats (catalog-wide).
	statsChecked   bool
	statsBadTables []int64
	// colStats: per table id, its table statistics as the format's
	// readers cast them (castStats); statsCast: its columns whose
	// statistics text they fail to cast (uncastableStats). Once per reader.
	colStats  map[int64][]castStat
	statsCast map[int64]map[int64]string
	// restricted keeps restrictedEqual's answers for earlier catalogs (by
	// their sha256): a Source's reader is asked again by the proof of the
	// version's next format.
	restricted map[string]restriction
	// filePairsRead and filePairs cache formats.FileColumnPairs of the
	// catalog (filestats.go).
	filePairsRead bool
	filePairs     []formats.FileColumnPair
	// columnTypes: the DuckDB type of each column of the metadata schema's
	// tables and views, by table and column name.
	columnTypes map[[2]string]string
	// bookkept: what Bookkeeping reads, read by ReadEveryTable (nil
	// before, or when it could not be read there).
	bookkept map[bookkeepingPart]sql.NullInt64
	// notRelative: rows whose path_is_relative is false, per table, read
	// by ReadEveryTable (nil before, or when it could not be read there).
	notRelative map[string]int64
	// relative caches allPathsRelative (nil: not asked yet).
	relative *bool
	// inl: what the model of inlined reads asked the catalog (inlined.go).
	inl inlinedMemo
	// twoColumnDeletes: the format's readers refuse a delete file of
	// three columns (formats.QuirkDeleteFilesTwoColumns).
	twoColumnDeletes bool
	// listedTables: every table of the catalog file (schema, name), in
	// that order, as the listing read them when it was opened
	// (formats.Listing.Tables): ReadEveryTable reads them.
	listedTables [][2]string
}

// Open attaches a catalog read-only in a private in-memory DuckDB and detects
// its format. Errors wrap ErrIncomparable when the catalog cannot be read,
// or when a write-ahead log (<catalog>.wal) lies beside it, which DuckDB
// would replay on top of the file. A file that could not be opened at all
// (none, one another DuckDB process holds, not DuckDB, not DuckLake) gives
// an *OpenError too.
func Open(ctx context.Context, catalogPath string, opts ReaderOptions) (*Reader, error) {
	point := "compare/open"
	if opts.ListOnly {
		point = "compare/open-list"
	}
	if err := faults.At(ctx, point, catalogPath); err != nil {
		return nil, err
	}
	st, err := os.Stat(catalogPath)
	if err != nil {
		return nil, openFailed(catalogPath, OpenNoFile, fmt.Errorf("%w: catalog %s: %w", ErrIncomparable, catalogPath, err))
	}
	// DuckDB replays a write-ahead log beside the file, even read-only:
	// what would be read is then not the file alone.
	if _, err := os.Lstat(catalogPath + ".wal"); err == nil {
		// A DuckDB writing the catalog now keeps its log there: the file
		// is another process's, not a catalog with a stray log.
		if pid, locked := writeLocked(catalogPath); locked {
			holder := "another process"
			if pid > 0 {
				holder = fmt.Sprintf("process %d", pid)
			}
			return nil, openFailed(catalogPath, OpenLocked, fmt.Errorf("%w: catalog %s is held open read-write by %s (its write lock), which keeps its write-ahead log beside it (%s.wal)", ErrIncomparable, catalogPath, holder, filepath.Base(catalogPath)))
		}
		return nil, fmt.Errorf("%w: catalog %s has a write-ahead log beside it (%s.wal): DuckDB would replay changes that are not in the file; compare a copy of the file alone", ErrIncomparable, catalogPath, filepath.Base(catalogPath))
	}
	reach := opts.reach(catalogPath)
	r, err := open(ctx, catalogPath, opts, reach, st)
	if err != nil || opts.ListOnly {
		return r, err // a listing reads no data file
	}
	more := r.beyond(ctx, reach)
	if len(more.Dirs) == 0 && len(more.Files) == 0 {
		return r, nil
	}
	// The data folder came from the catalog, or the catalog names files
	// outside it: a database whose reach holds them too reads the
	// catalog again.
	r.Close()
	reach.Dirs = append(reach.Dirs, more.Dirs...)
	reach.Files = append(reach.Files, more.Files...)
	return open(ctx, catalogPath, opts, reach, st)
}

// beyond is what the reader opens that reach does not hold: the data
// folder its catalog names, when none was given (a data path that is a
// URL is read by nothing here), and each data or delete file the catalog
// names outside that folder (by absolute path, or with a ".."), as DuckLake
// opens them. Only those files, not their folders (also for a name with
// glob characters, duckpool.Reach.AddFiles): a repository's check reports
// them (outside data_dir). A catalog whose files cannot be listed
// adds none: its reader fails where it fails without the sandbox.
func (r *Reader) beyond(ctx context.Context, reach duckpool.Reach) duckpool.Reach {
	var more duckpool.Reach
	if !reach.Holds(r.dataPath) && filepath.IsAbs(r.dataPath) {
		more.Dirs = append(more.Dirs, r.dataPath)
		reach.Dirs = append(reach.Dirs, r.dataPath)
	}
	// DuckDB checks the path a symbolic link leads to: a data folder
	// linked elsewhere (another disk) brings its target.
	if real, err := filepath.EvalSymlinks(r.dataPath); err == nil && filepath.IsAbs(r.dataPath) && !reach.Holds(real) {
		more.Dirs = append(more.Dirs, real)
		reach.Dirs = append(reach.Dirs, real)
	}
	outside, links := r.mayNameOutside(ctx), r.linksUnder(ctx, r.dataPath)
	if !outside && !links {
		return more
	}
	files, err := r.StoredFiles(ctx)
	if err != nil {
		return more
	}
	for _, f := range files {
		if !filepath.IsAbs(f.Path) {
			continue
		}
		if !reach.Holds(f.Path) {
			more.AddFiles(f.Path)
		}
		// A data file (or its folder) that is a link leading out of the
		// data folder is read where it leads, as readers follow links.
		if links {
			if real, err := filepath.EvalSymlinks(f.Path); err == nil && !reach.Holds(real) {
				more.AddFiles(real)
			}
		}
	}
	return more
}

// linksUnder tells whether the folder dir holds a symbolic link at any
// depth (a repository may link data files or folders elsewhere: their
// targets must be in the reader's reach). The walk stops at the first,
// and a run's readers walk a folder once (Listings.linksIn). Each walk
// passes the point "compare/links" (tests count the walks there; a failure
// injected there is no failure of the walk).
func (r *Reader) linksUnder(ctx context.Context, dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	return r.listings.linksIn(dir, func(dir string) bool {
		_ = faults.At(ctx, "compare/links", dir)
		return datapath.HoldsLinks(dir)
	})
}

// reach is what a reader of the catalog at catalogPath may open (package
// duckpool's sandbox, docs/compare.md "The readers' sandbox"): the
// catalog, the data folder given, the earlier catalogs it may be held to
// (ReaderOptions.Also), and the ducklake extension loaded where installed
// (the second reader, extension.go), as a sandboxed database loads none.
func (o ReaderOptions) reach(catalogPath string) duckpool.Reach {
	reach := duckpool.Reach{Files: append([]string{catalogPath}, o.Also...), Load: []string{"ducklake"}, MaxSpill: o.MaxSpill}
	if o.DataPath != "" {
		reach.Dirs = []string{o.DataPath}
	}
	return reach
}

// open opens the reader in a database sandboxed to reach.
func open(ctx context.Context, catalogPath string, opts ReaderOptions, reach duckpool.Reach, st os.FileInfo) (*Reader, error) {
	engines := opts.Engines // nil: a database of the reader's own, closed by Close
	db, loads, err := engines.GetWithin(reach)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", catalogPath, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		engines.Discard(db) //nolint:errcheck // already failing
		return nil, fmt.Errorf("open catalog %s: open duckdb: %w", catalogPath, err)
	}
	r := &Reader{path: catalogPath, asSource: opts.AsSource, listings: opts.Listings, gate: opts.Gate, db: db, engines: engines, loads: loads, conn: conn, memo: newDigestMemo(NewDigests(opts.DigestCache)), allRowsKeys: map[allRowsKeyID]string{}, goneKeys: map[goneKeyID]string{}, goneParts: map[allRowsKeyID]goneParts{}, schemas: map[string]*pnode{}, mappings: map[int64]*mapEntry{}, schemaTried: map[string]bool{}, deleteTried: map[string]bool{}, existing: map[string]bool{}, posHashes: map[string]keptHash{}, rawDeletes: newDeleteFiles(), tempTables: map[string]bool{}, deletes: map[string][]int64{}, cutCap: maxRawDeletes, meta: newMetaMemo(), inl: newInlinedMemo(), maxInlinePositions: 10000}
	if err := r.init(ctx, opts); err != nil {
		r.Close()
		if st.IsDir() && !errors.As(err, new(*OpenError)) {
			err = openFailed(catalogPath, OpenNotDuckDB, err)
		}
		return nil, damaged(catalogPath, err)
	}
	return r, nil
}

func (r *Reader) init(ctx context.Context, opts ReaderOptions) error {
	// UTC makes timestamp -> timestamptz promotions and text renderings
	// independent of the machine's zone; metadata is read on one thread
	// (see scanning). The database itself comes from package duckpool,
	// configured once for every user: no extension downloaded or loaded
	// behind the reader's back, and no external file cache (it only held
	// memory: a proof reads a file's rows once per read plan, and a
	// backfill's peak RSS grew with it; docs/compare.md, "Memory").
	const settings = "SET TimeZone = 'UTC'; " + duckpool.OneThread
	if _, err := r.conn.ExecContext(ctx, settings); err != nil {
		return fmt.Errorf("%s: %w", settings, err)
	}
	if _, err := r.conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS cat (READ_ONLY)", sqlString(r.path))); err != nil {
		if storageTooNew(err.Error(), r.path) {
			saved, resave := duckfile.TooNewFile(r.path)
			return fmt.Errorf("%w: catalog %s was %s, a newer DuckDB storage version than DuckDB %s can open (%w); %s", ErrIncomparable, oneline.Name(r.path), saved, duckdbVersion(ctx, r.conn), err, resave)
		}
		return openFailed(r.path, attachFailure(err.Error(), r.path), fmt.Errorf("%w: attach catalog %s: %w", ErrIncomparable, oneline.Name(r.path), err))
	}
	// One statement lists the metadata schema's columns, the objects named
	// like DuckLake tables and the statements of its tables with a
	// collation or a generated column (formats.ReadListing).
	listing, err := formats.ReadListing(ctx, r.conn, "cat", "main")
	if err != nil {
		return fmt.Errorf("read layout of %s: %w", oneline.Name(r.path), err)
	}
	r.listedTables = listing.Tables
	r.layout = formats.Layout{}
	r.dynamic = map[string][]string{}
	r.columnTypes = map[[2]string]string{}
	for _, c := range listing.Columns {
		r.columnTypes[[2]string{c.Table, c.Name}] = c.Type
		if isInlinedName(c.Table) {
			r.dynamic[c.Table] = append(r.dynamic[c.Table], c.Name)
		} else {
			r.layout[c.Table] = append(r.layout[c.Table], c.Name)
		}
	}
	// The layout above lists views too (checked before any is queried,
	// the registrations included): a view (or a sequence, a table of another
	// schema) named like a DuckLake table is refused, as it would answer
	// DuckLake's queries in the table's place.
	if !opts.ListOnly {
		if err := formats.CheckObjects(r.path, listing.Objects, "main"); err != nil {
			return fmt.Errorf("%w: %w", ErrIncomparable, err)
		}
		if err := r.registeredTables(ctx); err != nil {
			return err
		}
	}
	r.dynamicOf = make(map[string]string, len(r.dynamic))
	for n := range r.dynamic {
		r.dynamicOf[dynamicKey(n)] = n // DuckDB allows one object per name in any ASCII letter case
	}
	if _, ok := r.layout["ducklake_metadata"]; !ok {
		return openFailed(r.path, OpenNotDuckLake, fmt.Errorf("%w: %s is not a DuckLake catalog (no ducklake_metadata table)", ErrIncomparable, oneline.Name(r.path)))
	}
	// ducklake_metadata is held to what its readers load (every row, in
	// scan order): rows they refuse, or read in an order the rows do not
	// fix, make the catalog unreadable (formats.CheckMetadata).
	metaRows, err := formats.ReadMetadata(ctx, r.conn, "cat", "main", r.has("ducklake_metadata", "scope"))
	if err != nil {
		return fmt.Errorf("%w: read format version of %s: %w", ErrIncomparable, oneline.Name(r.path), err)
	}
	meta, err := formats.CheckMetadata(r.path, metaRows)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	stamp, err := metadataValue(meta, "version")
	if err != nil {
		return fmt.Errorf("%w: read format version of %s: %w", ErrIncomparable, oneline.Name(r.path), err)
	}
	// The encrypted option decides whether DuckLake passes the files'
	// keys at all: read as the real reader does ("false" when absent).
	r.encrypted = "false"
	if v, ok := meta.Value("encrypted"); ok && v.Valid {
		r.encrypted = v.String
	}
	r.format, err = formats.Detect(stamp, r.layout)
	if err != nil {
		return fmt.Errorf("%w: detect format of %s: %w", ErrIncomparable, oneline.Name(r.path), err)
	}
	// Detect reads the columns' names; their types are held to the
	// format's too: DuckLake's readers compare and cast the columns as
	// the types they write (formats.Version.TypeDiffs).
	typed := r.withCollations(listing.Statements)
	// A frozen catalog's stand-ins (formats.FrozenTypes) open; a catalog
	// under proof is held to the declared types by Catalogs.
	r.strictTypeDiffs = r.format.TypeDiffs(typed)
	r.standInReads = r.format.StandInReads(typed)
	if diffs := r.format.FrozenTypeDiffs(typed); len(diffs) > 0 {
		return fmt.Errorf("%w: detect format of %s: %w: version row says %q but %s (DuckLake's readers compare and cast each column as the type its writers give it)",
			ErrIncomparable, oneline.Name(r.path), formats.ErrInconsistentLayout, stamp, strings.Join(diffs, "; "))
	}
	// A NULL where DuckLake's writers always write a value: its readers
	// fail on it, or read something else than the rows say (a row left
	// out, the text 'NULL'): no DuckLake catalog, read no further.
	if opts.ListOnly {
		// not checked: a listing's caller lists again with a full reader
		// when what it found matters (ReaderOptions.ListOnly)
	} else if err := formats.CheckRequiredKnowing(ctx, r.conn, r.path, "cat", "main", r.format, r.layout, r.dynamic, formats.Known{Metadata: metaRows, Scoped: r.has("ducklake_metadata", "scope")}); err != nil {
		if errors.Is(err, formats.ErrNullField) {
			return openFailed(r.path, OpenNullFields, fmt.Errorf("%w: %w", ErrIncomparable, err))
		}
		// The statistics tables it reads often sit in the file's last
		// blocks: a file cut short fails here before ReadEveryTable
		// would say so, and is named as it would. Only a cut file: any
		// other answer of the length check leaves err to say what failed.
		if lerr := checkLength(r.path); errors.Is(lerr, ErrDamaged) {
			return lerr
		}
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	r.twoColumnDeletes = r.readsWith(formats.QuirkDeleteFilesTwoColumns)
	dp := opts.DataPath
	if dp == "" {
		// Given a DATA_PATH (with OVERRIDE_DATA_PATH), readers skip the
		// catalog's data_path rows; without, the format says how they
		// take them.
		if dp, err = meta.DataPath(r.format); err != nil {
			if errors.Is(err, formats.ErrMetadataRows) {
				return fmt.Errorf("%w: %w", ErrIncomparable, err)
			}
			return fmt.Errorf("read data_path of %s: %w", oneline.Name(r.path), err)
		}
		if !strings.HasSuffix(dp, "/") {
			dp += "/"
		}
	} else {
		dp = overridePath(dp)
	}
	r.dataPath = dp
	return nil
}

// isInlinedName reports whether a table of the metadata schema is named
// like one of DuckLake's per-table inlined tables, in any letter case
// (DuckDB binds the readers' unquoted names case-insensitively):
// ducklake_inlined_data_<table>_<schema version> or
// ducklake_inlined_delete_<table>.
// withCollations gives the column types of the metadata schema's tables
// with their collations and generated columns (formats.TypedWithCollations):
// duckdb_columns() names a VARCHAR COLLATE NOCASE column VARCHAR, while the
// readers' comparisons with it follow the collation, and gives a generated
// column's type alone, while DuckDB computes its values in each reader's
// session. stmts are the tables' statements that name a collation or a
// generated column (formats.Listing.Statements).
func (r *Reader) withCollations(stmts map[string]string) map[[2]string]string {
	if len(stmts) == 0 {
		return r.columnTypes
	}
	// Only DuckLake's tables: those named so and the inlined tables a
	// registration names (another table of the file is no reader's).
	for t := range stmts {
		if _, dyn := r.dynamic[t]; !dyn && !strings.HasPrefix(formats.ASCIILower(t), "ducklake_") {
			delete(stmts, t)
		}
	}
	return formats.TypedWithCollations(r.columnTypes, stmts)
}

func isInlinedName(name string) bool {
	return formats.IsDynamicTable(formats.ASCIILower(name))
}

// registeredTables adds to r.dynamic every table a registration of
// ducklake_inlined_data_tables names, whatever its name: the real readers
// read the registered name, not a name pattern (DuckLakeMetadataManager
// loads a table's registrations with its schema, and ReadInlinedData
// selects FROM the metadata catalog's table of that name, unquoted, so
// case-insensitively). A registered name that is a view (or any object
// but a base table of the metadata schema) is refused, as for the
// ducklake_ names (formats.CheckObjects): its rows could depend on the
// date or the DuckDB release. A registered table that does not exist is
// left out: reading it fails (inlinedSQL).
func (r *Reader) registeredTables(ctx context.Context) error {
	if _, ok := r.layout["ducklake_inlined_data_tables"]; !ok {
		return nil
	}
	names, err := r.strings(ctx, `SELECT DISTINCT table_name FROM cat.main.ducklake_inlined_data_tables WHERE table_name IS NOT NULL ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("%w: read the inlined data tables of %s: %w", ErrIncomparable, oneline.Name(r.path), err)
	}
	var bad []string
	for _, n := range names {
		if _, ok := r.dynamicName(n); ok {
			continue
		}
		var kind, actual string
		// DuckDB finds a table by name in ASCII letter case only.
		err := r.conn.QueryRowContext(ctx, `SELECT kind, name FROM (
	SELECT 'table' AS kind, table_name AS name, schema_name AS s FROM duckdb_tables() WHERE database_name = 'cat'
	UNION ALL SELECT 'view', view_name, schema_name FROM duckdb_views() WHERE database_name = 'cat'
	UNION ALL SELECT 'sequence', sequence_name, schema_name FROM duckdb_sequences() WHERE database_name = 'cat')
WHERE s = 'main' AND `+formats.ASCIILowerSQL("name")+` = `+formats.ASCIILowerSQL("?")+` LIMIT 1`, n).Scan(&kind, &actual)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // read as unreadable
		case err != nil:
			return fmt.Errorf("read the inlined data tables of %s: %w", oneline.Name(r.path), err)
		case kind != "table":
			bad = append(bad, fmt.Sprintf("main.%s, registered as an inlined data table, is a %s", actual, kind))
			continue
		}
		cols, ok := r.layout[actual]
		if !ok {
			continue
		}
		// A DuckLake table registered as inlined data stays one too: the
		// readers read it as both.
		if !strings.HasPrefix(formats.ASCIILower(actual), "ducklake_") {
			delete(r.layout, actual)
		}
		r.dynamic[actual] = cols
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %w", ErrIncomparable, &formats.NotBaseTableError{Catalog: r.path, Objects: bad})
	}
	return nil
}

// mayNameOutside tells whether the catalog may name a file outside its
// data folder: a data or delete file, table or schema folder recorded by
// absolute path, or a path with "..". One query, much cheaper than the
// listing (StoredFiles) it spares a catalog without any; true when it
// fails.
func (r *Reader) mayNameOutside(ctx context.Context) bool {
	var parts []string
	for _, t := range []string{"ducklake_data_file", "ducklake_delete_file", "ducklake_table", "ducklake_schema"} {
		if !r.has(t, "path") {
			continue
		}
		parts = append(parts, fmt.Sprintf("SELECT 1 FROM cat.main.%s x WHERE %s IS false OR contains(x.path, '..')", t, r.col(t, "x", "path_is_relative")))
	}
	if len(parts) == 0 {
		return false
	}
	var any bool
	if err := r.conn.QueryRowContext(ctx, "SELECT EXISTS ("+strings.Join(parts, " UNION ALL ")+")").Scan(&any); err != nil {
		return true
	}
	return any
}

// dynamicKey is the key of a table name in Reader.dynamicOf: the name
// with its ASCII letters lowered, as DuckDB compares names.
func dynamicKey(name string) string { return formats.ASCIILower(name) }

// dynamicName finds an inlined table of the catalog by name as DuckDB
// binds an unquoted name, in ASCII letter case only: its name as stored.
func (r *Reader) dynamicName(name string) (string, bool) {
	if r.dynamicOf == nil { // still in init
		for n := range r.dynamic {
			if formats.NamesEqual(n, name) {
				return n, true
			}
		}
		return "", false
	}
	n, ok := r.dynamicOf[dynamicKey(name)]
	return n, ok
}

// A reader runs its many small metadata queries (catalog tables, Parquet
// schemas, delete files) on one DuckDB thread (duckpool.OneThread), and its
// data scans with DuckDB's default threads: with one thread a proof's fixed
// costs took about 30% less CPU (docs/compare.md, "Proof benchmarks").

// scanning runs scan, which reads data files' rows, with DuckDB's default
// number of threads, then goes back to one thread for metadata.
func (r *Reader) scanning(ctx context.Context, scan func() error) error {
	r.scans++
	return duckpool.AllThreads(ctx, r.conn, scan)
}

// metadataValue is a global key's value of ducklake_metadata; an error
// when it has no row or a NULL value.
func metadataValue(m *formats.Metadata, key string) (string, error) {
	v, ok := m.Value(key)
	switch {
	case !ok:
		return "", fmt.Errorf("no %s row in ducklake_metadata: %w", key, sql.ErrNoRows)
	case !v.Valid:
		return "", fmt.Errorf("ducklake_metadata %s is NULL", key)
	}
	return v.String, nil
}

// overridePath is a data-path override as readers use it: absolute, with a
// trailing slash.
func overridePath(dp string) string {
	if abs, err := filepath.Abs(dp); err == nil {
		dp = abs
	}
	if !strings.HasSuffix(dp, "/") {
		dp += "/"
	}
	return dp
}

func duckdbVersion(ctx context.Context, conn *sql.Conn) string {
	var v string
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "?"
	}
	return strings.TrimPrefix(v, "v")
}

// Close releases the DuckDB database: it goes back to ReaderOptions.Engines
// with the catalog detached, or is closed.
// Closing a reader again does nothing: its database may already serve
// another reader.
func (r *Reader) Close() error {
	db, conn, engines := r.db, r.conn, r.engines
	if db == nil {
		return nil
	}
	r.db, r.conn, r.engines = nil, nil, nil
	if engines != nil && duckpool.Release(conn, "dl", "cat") {
		return engines.Put(db)
	}
	if conn != nil {
		conn.Close()
	}
	return engines.Discard(db)
}

// Format is the catalog's detected format.
func (r *Reader) Format() *formats.Version { return r.format }

// Path is the catalog file.
func (r *Reader) Path() string { return r.path }

// DataPath is the base folder relative paths resolve against.
func (r *Reader) DataPath() string { return r.dataPath }

// empty reports whether a metadata table is known to hold no row (known
// once ReadEveryTable has counted them): a query of its rows can be
// skipped. A table absent from the catalog is empty.
func (r *Reader) empty(table string) bool {
	if _, ok := r.layout[table]; !ok {
		if _, ok := r.dynamic[table]; !ok {
			return true
		}
	}
	if r.rowCounts == nil {
		return false
	}
	n, ok := r.rowCounts[table]
	return ok && n == 0
}

// has reports whether a static metadata table has a column.
func (r *Reader) has(table, column string) bool {
	for _, c := range r.layout[table] {
		if c == column {
			return true
		}
	}
	return false
}

// col returns "alias.column" when the table has it, else "NULL" (so queries
// stay the same across layouts).
func (r *Reader) col(table, alias, column string) string {
	if r.has(table, column) {
		return alias + "." + column
	}
	return "NULL"
}

// Snapshot is one row of ducklake_snapshot.
type Snapshot struct {
	ID            int64  `json:"id"`
	Time          string `json:"time"`
	SchemaVersion int64  `json:"schema_version"`
	// stored is the row's place in storage order (rowid): of snapshots
	// sharing a time, readers resolve AT (TIMESTAMP => t) to the first
	// stored (timeTies).
	stored int64
}

// Snapshots lists the catalog's snapshots, oldest first. They are read
// once per reader (the catalog is attached read-only): a proof, its
// bookkeeping check, the disk check and the inlined reads all ask, and a
// Source's reader serves several proofs.
func (r *Reader) Snapshots(ctx context.Context) ([]Snapshot, error) {
	if r.meta.snapshots != nil {
		return slices.Clone(*r.meta.snapshots), nil
	}
	out, err := r.readSnapshots(ctx)
	if err != nil {
		return nil, err
	}
	r.meta.snapshots = &out
	return slices.Clone(out), nil
}

func (r *Reader) readSnapshots(ctx context.Context) ([]Snapshot, error) {
	// The times are compared as instants: a frozen catalog's TIMESTAMP
	// (formats.FrozenTypes) is read as the TIMESTAMPTZ of its UTC
	// instants, rendered as a TIMESTAMPTZ is in the reader's session
	// (TimeZone UTC: "+00"), so that the same instants read the same text
	// whichever of the types holds them.
	when := cmp.Or(r.standInReads[[2]string{"ducklake_snapshot", "snapshot_time"}], "snapshot_time")
	rows, err := r.conn.QueryContext(ctx, `SELECT snapshot_id, `+when+`::VARCHAR, schema_version, rowid FROM cat.ducklake_snapshot ORDER BY snapshot_id`)
	if err != nil {
		return nil, fmt.Errorf("list snapshots of %s: %w", oneline.Name(r.path), err)
	}
	defer rows.Close()
	var out []Snapshot
	for rows.Next() {
		var s Snapshot
		if err := rows.Scan(&s.ID, &s.Time, &s.SchemaVersion, &s.stored); err != nil {
			return nil, fmt.Errorf("list snapshots of %s: %w", oneline.Name(r.path), err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list snapshots of %s: %w", oneline.Name(r.path), err)
	}
	return out, nil
}

// Table is a table visible at a snapshot.
type Table struct {
	ID            int64
	Schema, Name  string
	SchemaID      int64
	BeginSnapshot int64
	dir           string // resolved table folder (data and delete files are relative to it)
	// uuid and schemaUUID are table_uuid and schema_uuid as text ("" when
	// NULL): DuckLake returns them (ducklake_table_info()), so they are
	// compared.
	uuid, schemaUUID string
	// folderRefusal says why the real reader fails on the table's or its
	// schema's rows (a path with a NULL path_is_relative; refused.go).
	folderRefusal string
	// shadowedBy names the entry the readers resolve the table's name to
	// instead of it ("" when they resolve it to this table): see
	// shadowTables.
	shadowedBy string
	// notLoaded: the table has column rows, none visible at the
	// snapshot, and every release line's load leaves it out
	// (formats.LoadRows.Loaded): it takes no name and is not read.
	notLoaded bool
}

// FullName is schema.table, the key tables are matched by between two
// catalogs and the name reports give them. A part holding a dot or a double
// quote (or an empty one) is written as an SQL quoted identifier
// (qualified), so that schema "a.b" with table "c" and schema "a" with
// table "b.c" have different names; ordinary names are as they are.
func (t Table) FullName() string { return qualified(t.Schema, t.Name) }

// describedName is the name the schema description gives the table: its
// full name, followed by its id where the readers resolve the name to
// another entry (shadowTables), so that such a table is described apart
// from the one they read.
func (t Table) describedName() string {
	switch {
	case t.notLoaded:
		return fmt.Sprintf("%s (id %d, not loaded)", t.FullName(), t.ID)
	case t.shadowedBy != "":
		return fmt.Sprintf("%s (id %d, shadowed)", t.FullName(), t.ID)
	}
	return t.FullName()
}

// DottedName is schema.table joined as they are, with no quoting: the key
// files.json gives a table (fdljson, versions spec).
func (t Table) DottedName() string { return t.Schema + "." + t.Name }

// qualified joins a schema's name and an object's, each quoted as an SQL
// identifier ("a.b" is written "\"a.b\"") only where it holds a dot or a
// double quote or is empty: an unquoted part has neither, so the join
// splits one way only.
func qualified(schema, name string) string {
	return identPart(schema) + "." + identPart(name)
}

func identPart(s string) string {
	if s != "" && !strings.ContainsAny(s, `."`) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Shown is the table's full name as a message shows it (oneline.Name):
// as it is, or Go-quoted where it holds a line break or another control
// character, so that a message cut to its first line keeps it whole.
// FullName stays the key tables are matched by and the name a report's
// table fields hold.
func (t Table) Shown() string { return oneline.Name(t.FullName()) }

// visible is the snapshot filter of §5.2 for a table alias.
func visible(alias string, snap int64) string {
	return fmt.Sprintf("%[2]d >= %[1]s.begin_snapshot AND (%[2]d < %[1]s.end_snapshot OR %[1]s.end_snapshot IS NULL)", alias, snap)
}

// Tables lists the tables visible at a snapshot, sorted by schema and
// name, those the readers do not load there (notLoaded) and those whose
// name they resolve to another entry (shadowedBy) included: readable
// leaves them out.
func (r *Reader) Tables(ctx context.Context, snap int64) ([]Table, error) {
	e, err := r.epoch(ctx, snap, 0, tablesEpoch...)
	if err != nil {
		return nil, err
	}
	_, points, err := r.columnSpans(ctx)
	if err != nil {
		return nil, err
	}
	key := [2]int64{e, math.MinInt64}
	if i := sort.Search(len(points), func(i int) bool { return points[i] > snap }); i > 0 {
		key[1] = points[i-1]
	}
	if ts, ok := r.meta.tables[key]; ok {
		return slices.Clone(ts), nil
	}
	ts, err := r.tablesAt(ctx, snap)
	if err != nil {
		return nil, err
	}
	r.meta.tables[key] = ts
	return slices.Clone(ts), nil
}

// catSchemaRow and catTableRow are rows of ducklake_schema and
// ducklake_table, read whole once per reader (schemaRows): which are
// visible at a snapshot is decided here, as visible decides in SQL, so that
// a catalog whose tables change at many snapshots costs one query per
// table, not one per epoch.
type catSchemaRow struct {
	id         sql.NullInt64
	uuid       sql.NullString
	name       sql.NullString
	begin, end sql.NullInt64
	path       sql.NullString
	rel        sql.NullBool
}

type catTableRow struct {
	id, schemaID sql.NullInt64
	uuid         sql.NullString
	name         sql.NullString
	begin, end   sql.NullInt64
	path         sql.NullString
	rel          sql.NullBool
}

// visibleRow is visible's test for one row: a NULL begin_snapshot is never
// visible, a NULL end_snapshot never ends.
func visibleRow(begin, end sql.NullInt64, snap int64) bool {
	return begin.Valid && snap >= begin.Int64 && (!end.Valid || snap < end.Int64)
}

// schemaRows reads every row of ducklake_schema and ducklake_table once
// per reader.
func (r *Reader) schemaRows(ctx context.Context) ([]catSchemaRow, []catTableRow, error) {
	if r.meta.schemaRows != nil {
		return r.meta.schemaRows, r.meta.tableRows, nil
	}
	schemas := []catSchemaRow{}
	err := r.eachRow(ctx, fmt.Sprintf(`SELECT schema_id, schema_uuid::VARCHAR, schema_name, begin_snapshot, end_snapshot, %s, %s FROM cat.ducklake_schema s`,
		r.col("ducklake_schema", "s", "path"), r.col("ducklake_schema", "s", "path_is_relative")),
		func(rows *sql.Rows) error {
			var x catSchemaRow
			if err := rows.Scan(&x.id, &x.uuid, &x.name, &x.begin, &x.end, &x.path, &x.rel); err != nil {
				return err
			}
			schemas = append(schemas, x)
			return nil
		})
	if err != nil {
		return nil, nil, fmt.Errorf("read the schemas of %s: %w", oneline.Name(r.path), err)
	}
	var tables []catTableRow
	err = r.eachRow(ctx, fmt.Sprintf(`SELECT table_id, schema_id, table_uuid::VARCHAR, table_name, begin_snapshot, end_snapshot, %s, %s FROM cat.ducklake_table t`,
		r.col("ducklake_table", "t", "path"), r.col("ducklake_table", "t", "path_is_relative")),
		func(rows *sql.Rows) error {
			var x catTableRow
			if err := rows.Scan(&x.id, &x.schemaID, &x.uuid, &x.name, &x.begin, &x.end, &x.path, &x.rel); err != nil {
				return err
			}
			tables = append(tables, x)
			return nil
		})
	if err != nil {
		return nil, nil, fmt.Errorf("read the tables of %s: %w", oneline.Name(r.path), err)
	}
	r.meta.schemaRows, r.meta.tableRows = schemas, tables
	return schemas, tables, nil
}

// eachRow runs q and calls fn on each row.
func (r *Reader) eachRow(ctx context.Context, q string, fn func(*sql.Rows) error) error {
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// tablesAt is the tables visible at snap joined with their schemas visible
// at snap, sorted by schema and table name: what a query of both tables
// filtered by visible returns.
func (r *Reader) tablesAt(ctx context.Context, snap int64) ([]Table, error) {
	schemas, tables, err := r.schemaRows(ctx)
	if err != nil {
		return nil, err
	}
	var out []Table
	for _, t := range tables {
		if !visibleRow(t.begin, t.end, snap) {
			continue
		}
		for _, s := range schemas {
			if !s.id.Valid || !t.schemaID.Valid || s.id.Int64 != t.schemaID.Int64 || !visibleRow(s.begin, s.end, snap) {
				continue
			}
			if !t.id.Valid || !t.name.Valid || !s.name.Valid {
				return nil, fmt.Errorf("list tables of %s at snapshot %d: table %s of schema %s has a NULL id or name", oneline.Name(r.path), snap, optString(nullString(t.name)), optString(nullString(s.name)))
			}
			x := Table{ID: t.id.Int64, Schema: s.name.String, Name: t.name.String, SchemaID: s.id.Int64, BeginSnapshot: t.begin.Int64,
				uuid: t.uuid.String, schemaUUID: s.uuid.String}
			x.dir, _ = r.tableDir(s.path, s.rel, t.path, t.rel)
			// Readers read path_is_relative only where a path is
			// recorded, with GetValue<bool>, which fails on NULL. The
			// uuids they read with GetValue<string>, the text 'NULL'
			// for a NULL, which only writers use.
			paths := r.format.Has(formats.CapTablePaths)
			switch {
			case paths && s.path.Valid && !s.rel.Valid:
				x.folderRefusal = fmt.Sprintf("schema %s records path %q with a NULL path_is_relative", s.name.String, s.path.String)
			case paths && t.path.Valid && !t.rel.Valid:
				x.folderRefusal = fmt.Sprintf("the table records path %q with a NULL path_is_relative", t.path.String)
			}
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(a, b Table) int {
		return cmp.Or(strings.Compare(a.Schema, b.Schema), strings.Compare(a.Name, b.Name))
	})
	withColumns, err := r.tablesWithColumns(ctx)
	if err != nil {
		return nil, err
	}
	spans, _, err := r.columnSpans(ctx)
	if err != nil {
		return nil, err
	}
	loaded := formats.LoadRows{WithColumns: withColumns, ColumnSpans: spans}
	for i, t := range out {
		out[i].notLoaded = !loaded.Loaded(t.ID, snap)
	}
	if err := r.shadowTables(ctx, out, snap); err != nil {
		return nil, err
	}
	return out, nil
}

// shadowTables marks the tables whose name the readers resolve to another
// entry. Every release line's load (LoadSchemaForSnapshot; v1.3-ossivalis,
// v1.4-andium, v1.5-variegata and main alike) adds a snapshot's tables in
// table_id order (GetCatalogForSnapshot's ORDER BY table_id), then its
// views, to one case-insensitive name map per schema
// (DuckLakeCatalogSet::CreateEntry), where an entry of a name already
// there replaces it (the old one becomes its child, reached by no lookup
// and no listing). Nothing fails: of two visible tables of one name in
// ASCII letter case in one schema the readers read the one of the larger
// table_id, and a visible view of the name hides every such table.
func (r *Reader) shadowTables(ctx context.Context, ts []Table, snap int64) error {
	key := func(schema int64, name string) string { return fmt.Sprint(schema) + "\x00" + asciiLower(name) }
	last := map[string]Table{}
	for _, t := range ts {
		if t.notLoaded {
			continue
		}
		k := key(t.SchemaID, t.Name)
		if l, ok := last[k]; !ok || t.ID > l.ID {
			last[k] = t
		}
	}
	views := map[string]string{}
	if !r.empty("ducklake_view") {
		rows, err := r.viewRows(ctx)
		if err != nil {
			return fmt.Errorf("read views of %s: %w", oneline.Name(r.path), err)
		}
		for _, v := range rows {
			if !visibleRow(v.begin, v.end, snap) || !v.schema.Valid || !v.name.Valid || !v.id.Valid {
				continue
			}
			k := key(v.schema.Int64, v.name.String)
			if _, ok := last[k]; ok && views[k] == "" {
				views[k] = fmt.Sprintf("view %s (id %d)", oneline.Name(v.name.String), v.id.Int64)
			}
		}
	}
	for i, t := range ts {
		k := key(t.SchemaID, t.Name)
		switch {
		case t.notLoaded:
		case views[k] != "":
			ts[i].shadowedBy = views[k]
		case last[k].ID != t.ID:
			ts[i].shadowedBy = fmt.Sprintf("table %s (id %d)", last[k].Shown(), last[k].ID)
		}
	}
	return nil
}

// readable is the tables of ts the readers load (notLoaded) and whose
// names they resolve to them (shadowTables): those a proof pairs by name
// and reads.
func readable(ts []Table) []Table {
	return slices.DeleteFunc(slices.Clone(ts), func(t Table) bool { return t.shadowedBy != "" || t.notLoaded })
}

// tableDir resolves a table's folder (§6.2). Without table paths (0.1) it
// is the data path itself. relative tells whether it is the data path
// followed by relative folders only (the schema's and table's paths are
// NULL or recorded relative).
func (r *Reader) tableDir(sPath sql.NullString, sRel sql.NullBool, tPath sql.NullString, tRel sql.NullBool) (dir string, relative bool) {
	if !r.format.Has(formats.CapTablePaths) {
		return r.dataPath, true
	}
	return datapath.Join(r.dataPath, datapath.Folder{Path: sPath, Relative: sRel}, datapath.Folder{Path: tPath, Relative: tRel})
}

// Table finds a table by "schema.table" (or a bare name in any schema) at a snapshot.
func (r *Reader) Table(ctx context.Context, name string, snap int64) (Table, error) {
	tables, err := r.Tables(ctx, snap)
	if err != nil {
		return Table{}, err
	}
	for _, t := range readable(tables) {
		if t.FullName() == name || t.DottedName() == name || (!strings.Contains(name, ".") && t.Name == name) {
			return t, nil
		}
	}
	return Table{}, fmt.Errorf("table %s not found in %s at snapshot %d", name, oneline.Name(r.path), snap)
}

// sqlString quotes a Go string as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ident quotes an SQL identifier.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// nullString converts a scanned value to *string.
func nullString(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

// readsWith tells whether the reader of the catalog's format has the quirks
// q: the newest release's as a proof's source, every release's otherwise.
func (r *Reader) readsWith(q formats.ReaderQuirk) bool {
	if r.asSource {
		return r.format.ReadsAsSourceWith(q)
	}
	return r.format.ReadsWith(q)
}

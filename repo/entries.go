package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/store"
)

// Kinds of entry a path in a version folder can hold.
const (
	entryFile    = "regular file"
	entryFolder  = "folder"
	entrySymlink = "symbolic link"
	entryOther   = "special file"
)

// catalogEntry is one entry of a version's catalogs/ folder.
type catalogEntry struct {
	name string // relative to catalogs/
	kind string
}

// key is the entry's key in the store.
func (e catalogEntry) key(v *version) string { return v.prefix() + "catalogs/" + e.name }

// catalogEntries lists every entry directly under a version's catalogs/
// folder, whatever its kind: readers look at everything there, so every
// entry is checked. A store with local files is read with lstat (the store's
// List shows regular files only); others are derived from their keys.
func (r *repository) catalogEntries(v *version) ([]catalogEntry, error) {
	if ps, ok := r.st.(store.PathStore); ok {
		dir, err := ps.Path(v.prefix() + "catalogs")
		if err != nil {
			return nil, err
		}
		des, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, errCatalogsFile
		}
		if err != nil {
			return nil, fmt.Errorf("list %scatalogs/: %w", v.prefix(), err)
		}
		out := make([]catalogEntry, 0, len(des))
		for _, d := range des {
			if d.Name() == store.TempDir && d.IsDir() {
				// The store's temporary files, staged here when catalogs/
				// itself is linked onto another disk (store/local's
				// StageDir): no object, as List does not show it.
				continue
			}
			out = append(out, catalogEntry{name: d.Name(), kind: modeKind(d.Type())})
		}
		return out, nil
	}
	var out []catalogEntry
	for rel := range v.objects {
		name, ok := strings.CutPrefix(rel, "catalogs/")
		if !ok {
			continue
		}
		e := catalogEntry{name: name, kind: entryFile}
		if first, _, nested := strings.Cut(name, "/"); nested {
			if first == store.TempDir {
				continue // a local store's temporary files, as above
			}
			e = catalogEntry{name: first, kind: entryFolder}
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b catalogEntry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// errCatalogsFile is catalogEntries' error for a version folder whose
// catalogs is a file (or a link to one), not a folder: a violation, not an
// unreadable input (planVersion).
var errCatalogsFile = errors.New("a file, not the catalogs/ folder: readers find no catalog in it, and backfill cannot write one while it is there; remove it")

// entryKind says what is at a key ("" when nothing is).
func (r *repository) entryKind(ctx context.Context, key string) (string, error) {
	if ps, ok := r.st.(store.PathStore); ok {
		p, err := ps.Path(key)
		if err != nil {
			return "", err
		}
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("lstat %s: %w", key, err)
		}
		return modeKind(st.Mode().Type()), nil
	}
	if _, err := r.st.Stat(ctx, key); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	return entryFile, nil
}

// walKind is entryKind of the write-ahead log key beside v's frozen
// catalog, answered by the run's listing where it tells: a bucket's lists
// every object (as hiddenCatalogs asks nothing there), and a web site's
// walk asked a HEAD of every file it shows. Before, a bucket was asked a
// HEAD of the log of every version (a warm plan of 200 versions: 200
// requests), whose answer the listing had given. A web site's log the
// listing does not show may be hidden by it: it is asked for.
func (r *repository) walKind(ctx context.Context, v *version, key string) (string, error) {
	if _, ok := r.st.(store.PathStore); ok {
		return r.entryKind(ctx, key)
	}
	if _, listed := v.objects[strings.TrimPrefix(key, v.prefix())]; listed {
		return entryFile, nil
	}
	if !store.ListsPartially(r.st) {
		return "", nil
	}
	return r.entryKind(ctx, key)
}

func modeKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return entryFile
	case m&fs.ModeSymlink != 0:
		return entrySymlink
	case m.IsDir():
		return entryFolder
	}
	return entryOther
}

// Violation is an entry of a version folder that breaks the repository
// rules: under catalogs/ only regular files catalogs/<declared format>.duckdb
// other than the frozen catalog's own format may exist, no catalog may
// have a DuckDB write-ahead log beside it, and a dataset.json or files.json
// must be named in version.json (unnamedFiles).
type Violation struct {
	Key    string `json:"key"`
	Detail string `json:"detail"`
}

// folderViolations checks the entries of a version folder that are not
// cells of the matrix: catalogs of formats fdl.json does not declare are
// cells (shown, with their violation), everything else is listed here.
// Entries named after a declared format filtered out of this run are left
// alone.
// A failed look for the frozen catalog's .wal is an issue (unverifiable),
// not a violation: it was reported as a log found before, so an
// interrupted run or a failing server exited 3.
func (r *repository) folderViolations(ctx context.Context, v *version, entries []catalogEntry) ([]Violation, []Issue) {
	var out []Violation
	var issues []Issue
	var source string
	if v.meta != nil {
		source = v.meta.DuckLake.Format
		wal := v.prefix() + v.meta.Catalog.Path + ".wal"
		switch kind, err := r.walKind(ctx, v, wal); {
		case err != nil:
			issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("look for a write-ahead log %s beside the frozen catalog: %v", wal, err), cause: err})
		case kind != "":
			out = append(out, Violation{wal, "a DuckDB write-ahead log beside the frozen catalog: DuckDB replays it when it opens the catalog, so readers would see changes that are not in the hashed file; remove it"})
		}
		out = append(out, unnamedFiles(v)...)
		out = append(out, strayCatalogs(v)...)
	}
	for _, e := range entries {
		format, isCatalog := strings.CutSuffix(e.name, ".duckdb")
		_, declared := r.cfg.Format(format)
		hidden := ""
		if e.kind == entryFile {
			hidden = v.hidden["catalogs/"+e.name]
		}
		switch {
		case hidden == hiddenLitter:
			// Reported by litterNotes: no reader opens it.
		case hidden == hiddenDuckDB:
			out = append(out, Violation{e.key(v), "a DuckDB file under a hidden name in catalogs/: no reader opens it (no format's name starts with a dot), but it is a catalog nothing proves, such as a copy tool's unfinished temporary file that becomes a catalog when the copy ends; remove it"})
		case isCatalog && format == source && (declared || e.kind == entryFile):
			// Declared or not: its readers open it before the frozen
			// catalog, and no cell proves it (the format's cell is the
			// frozen catalog's).
			out = append(out, Violation{e.key(v), fmt.Sprintf("a catalog in the frozen catalog's own format %s: readers of %s open catalogs/%s before the frozen %s, and it is never proved; remove it", format, format, e.name, v.meta.Catalog.Path)})
		case isCatalog && (declared || e.kind == entryFile):
			// a cell of the matrix
		case checkpointLog(e.name):
			out = append(out, Violation{e.key(v), checkpointLogDetail("catalogs/")})
		case strings.EqualFold(path.Ext(e.name), ".wal"):
			out = append(out, Violation{e.key(v), "a DuckDB write-ahead log in catalogs/: DuckDB replays it when it opens the catalog beside it, so readers would see changes that were never proved; remove it"})
		case e.kind != entryFile:
			out = append(out, Violation{e.key(v), fmt.Sprintf("a %s in catalogs/, where only regular files catalogs/<format>.duckdb may be; remove it", e.kind)})
		case indexPage(e.name):
			// The index page a web host without folder listings needs
			// (docs/remote.md): no reader opens it.
		case osLitter(e.name):
			// Reported by litterNotes: no reader opens it.
		default:
			out = append(out, Violation{e.key(v), "not a catalog: only catalogs/<format>.duckdb files may be in catalogs/; remove it"})
		}
	}
	return out, issues
}

// checkpointLog tells a DuckDB checkpoint log by its name
// (<database>.checkpoint.wal, in any letter case): the log DuckDB writes
// while a checkpoint runs. DuckDB reads it only when it opens the database
// beside the database's main log (<database>.wal) and that log holds a
// checkpoint marker; alone, nothing replays it.
func checkpointLog(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".checkpoint.wal")
}

// checkpointLogDetail is the violation of a checkpoint log (checkpointLog)
// found in where. It stays a violation: it is left by a write to a catalog
// that nothing proves, and with a main log beside it (itself a violation)
// DuckDB would read it too.
func checkpointLogDetail(where string) string {
	return "a DuckDB checkpoint log in " + where + ": DuckDB reads one only beside the catalog's main write-ahead log (<catalog>.wal) holding a checkpoint marker, so alone it changes no read, but it is what a write to the catalog left, never proved; remove it"
}

// osLitter tells, by its name alone, a hidden file (a name starting with a
// dot) that is neither a DuckDB file nor a write-ahead log: what file
// managers and copy tools leave behind (.DS_Store, AppleDouble ._ files).
// Readers fetch catalogs/ entries by their format's name only, so it
// changes no read. It decides for a hidden file findHidden could not read;
// the others are told by their bytes (findHidden), whatever their suffix:
// the AppleDouble files a macOS copy or tar makes are named
// ._<format>.duckdb beside each catalog.
func osLitter(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(name, ".") && path.Ext(lower) != ".wal" && !strings.Contains(lower, ".duckdb")
}

// litterNotes warns, without failing anything, of the regular files of
// catalogs/ that osLitter tells apart. Before, a .DS_Store there failed
// check (exit 3) though no reader reads it.
func litterNotes(v *version, entries []catalogEntry) []string {
	var notes []string
	for _, e := range entries {
		if e.kind != entryFile {
			continue
		}
		hidden, read := v.hidden["catalogs/"+e.name]
		if hidden == hiddenLitter || !read && osLitter(e.name) {
			notes = append(notes, fmt.Sprintf("%s: a hidden file in catalogs/ that no reader opens (file-manager or copy-tool metadata); ignored, remove it when convenient", e.key(v)))
		}
	}
	return notes
}

// fallbackCatalog is the frozen catalog's name in the spec's layout, which
// readers fall back to when no catalogs/<format>.duckdb opens.
const fallbackCatalog = "ducklake.duckdb"

// probeJobs bounds the Stat requests of hiddenCatalogs in flight at once.
const probeJobs = 4

// hiddenCatalogs finds, on a store whose listing may leave files out (a web
// site's index pages, store.ListsPartially), the catalogs/<format>.duckdb
// and catalogs/<format>.duckdb.wal of a version that readers fetch by name
// but the listing did not show, for every format of the registry (declared
// formats filtered out of this run are left alone, as listed ones are): a
// reader that can open a format tries its file whether listed or not, so a
// hidden one is read and was never proved. In a live version a .wal is
// asked for only beside a catalog that is there, listed or found (a
// second round of requests, only when one is found): no reader replays
// the log of a catalog it cannot open. It costs one Stat request per
// format not listed (two where the catalog is found or listed without its
// .wal, or the version is expired), and none on other stores. When catalog.path names
// another file than ducklake.duckdb, the ducklake.duckdb readers fall back
// to by name and its .wal are probed too (see strayCatalogs); in an expired
// or withdrawn version, whose catalogs must be gone (leftCatalogs), so are
// ducklake.duckdb and the frozen catalog, with their .wal. It returns the
// names found, relative to the version folder, and what the server said
// of each. An answer other than "absent" is an error: the file cannot be
// ruled out.
func (r *repository) hiddenCatalogs(ctx context.Context, v *version, run []fdljson.Format) ([]string, map[string]store.ObjectInfo, error) {
	if !store.ListsPartially(r.st) {
		return nil, nil, nil
	}
	var names []string
	unlisted := func(name string) {
		if _, listed := v.objects[name]; !listed && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	// A live version's catalogs/<format>.duckdb.wal is asked for only
	// beside a catalogs/<format>.duckdb that is there (listed, or found
	// below): DuckDB replays a log when it opens the catalog beside it, and
	// no reader opens a log whose catalog is absent. An expired version's
	// are all asked for: every file left there holds what it gave up.
	var later []string // logs to ask for once their catalog is found
	var order []string // the names in the order they are reported
	for _, f := range formats.All {
		if r.otherRunFormat(f.Name, run) {
			continue
		}
		name := "catalogs/" + f.Name + ".duckdb"
		_, listed := v.objects[name]
		unlisted(name)
		if listed || v.expired != nil {
			unlisted(name + ".wal")
		} else if _, logListed := v.objects[name+".wal"]; !logListed {
			later = append(later, name)
		}
		order = append(order, name, name+".wal")
	}
	var frozen []string
	switch {
	case v.expired != nil && v.meta != nil:
		frozen = []string{fallbackCatalog, v.meta.Catalog.Path}
	case v.expired != nil:
		frozen = []string{fallbackCatalog}
	case v.meta != nil && v.meta.Catalog.Path != fallbackCatalog:
		frozen = []string{fallbackCatalog}
	}
	for _, name := range frozen {
		unlisted(name)
		unlisted(name + ".wal")
	}
	var out []string
	infos := map[string]store.ObjectInfo{}
	for len(names) > 0 {
		keys := make([]string, len(names))
		for i, name := range names {
			keys[i] = v.prefix() + name
		}
		found, errs := r.statKeys(ctx, keys)
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var next []string
		for i, name := range names {
			if errs[i] != nil {
				return nil, nil, unlistedErr(r.st, keys[i], "the server's listing", errs[i])
			}
			if found[i] != nil {
				found[i].Key = name
				out = append(out, name)
				infos[name] = *found[i]
				if slices.Contains(later, name) {
					next = append(next, name+".wal")
				}
			}
		}
		names = next
	}
	// In the order of before: each log after its catalog (the frozen
	// catalog's names, not in order, last).
	rank := make(map[string]int, len(order))
	for i, name := range order {
		rank[name] = i + 1
	}
	last := func(name string) int {
		if i := rank[name]; i > 0 {
			return i
		}
		return len(order) + 1
	}
	slices.SortStableFunc(out, func(a, b string) int { return last(a) - last(b) })
	return out, infos, nil
}

// adoptHidden takes, of the files hiddenCatalogs found in a version that is
// not expired, the catalogs/<format>.duckdb of formats fdl.json declares,
// this run covers and that are not the frozen catalog's own, as if the
// listing had shown them: readers fetch them by name, so check proves them
// like any listed catalog. A listing that leaves out a catalog is most
// often a stale copy of the folder's page (a CDN or proxy cache kept from
// before the catalog was published); before, check reported such a catalog
// as a violation, and a sound repository failed until the cache expired.
// It returns the names left (write-ahead logs, catalogs of other formats,
// DuckDB files beside the frozen catalog: violations still) and one note
// per catalog taken, which fails nothing.
func (r *repository) adoptHidden(v *version, entries []catalogEntry, hidden []string, infos map[string]store.ObjectInfo, run []fdljson.Format) ([]catalogEntry, []string, []string) {
	if len(hidden) == 0 || v.expired != nil || v.meta == nil {
		return entries, hidden, nil
	}
	// Where the listing left the catalog out: the catalogs/ folder's own
	// listing, when it shows files; else the version folder's may not show
	// catalogs/ at all (then its listing was never read), or catalogs/'s
	// listing is empty: both are said.
	missing := fmt.Sprintf("the server's folder listings of %s, which show no file under catalogs/ (the version folder's listing leaves catalogs/ out, or that folder's own listing is empty)", v.prefix())
	for key := range v.objects {
		if strings.HasPrefix(key, "catalogs/") {
			missing = fmt.Sprintf("the server's folder listing of %scatalogs/", v.prefix())
			break
		}
	}
	var left, notes []string
	for _, name := range hidden {
		format, isCatalog := strings.CutSuffix(strings.TrimPrefix(name, "catalogs/"), ".duckdb")
		_, declared := r.cfg.Format(format)
		inRun := slices.ContainsFunc(run, func(f fdljson.Format) bool { return f.DuckLake == format })
		if !strings.HasPrefix(name, "catalogs/") || !isCatalog || !declared || !inRun || format == v.meta.DuckLake.Format {
			left = append(left, name)
			continue
		}
		v.objects[name] = infos[name]
		entries = append(entries, catalogEntry{name: format + ".duckdb", kind: entryFile})
		notes = append(notes, fmt.Sprintf("%s is not in %s: found by name, as readers of format %s fetch it, and proved like a listed catalog; a listing page is likely a stale copy (a CDN or proxy cache from before the catalog was published)", v.prefix()+name, missing, format))
	}
	return entries, left, notes
}

// hiddenViolations reports the files hiddenCatalogs found in a version
// that is not expired.
func hiddenViolations(v *version, names []string) []Violation {
	var out []Violation
	for _, name := range names {
		key := v.prefix() + name
		name, inCatalogs := strings.CutPrefix(name, "catalogs/")
		switch format, isCatalog := strings.CutSuffix(name, ".duckdb"); {
		case !inCatalogs && strings.HasSuffix(name, ".wal"):
			out = append(out, Violation{key, fmt.Sprintf("a DuckDB write-ahead log hidden by the server's folder listing beside %s, which version.json does not name (it names %s): readers that fall back to %s by name fetch it and DuckDB replays it, so they would see changes that were never proved; remove it", fallbackCatalog, v.meta.Catalog.Path, fallbackCatalog)})
		case !inCatalogs:
			out = append(out, Violation{key, fmt.Sprintf("a DuckDB file hidden by the server's folder listing, not the frozen catalog (version.json names %s): readers that fall back to %s by name, as the spec's layout has them, fetch it (DuckDB replays a .wal beside it), and it is never hashed or proved; remove it", v.meta.Catalog.Path, fallbackCatalog)})
		case isCatalog:
			out = append(out, Violation{key, fmt.Sprintf("a catalog hidden by the server's folder listing: readers of format %s fetch catalogs/%s by name (newest format first) and open it, but check learns catalogs/ from the listing and never proved it; remove it, or list it so that check proves it (a listing page a cache or CDN kept from before the catalog was published shows it once refreshed)", format, name)})
		default:
			out = append(out, Violation{key, "a DuckDB write-ahead log in catalogs/ hidden by the server's folder listing: readers fetch it by name beside the catalog and DuckDB replays it, so they would see changes that were never proved; remove it"})
		}
	}
	return out
}

// leftCatalogs reports, in an expired or withdrawn version (expired.json),
// every catalog still there: the frozen catalog (by the name catalog.path
// gives it, say catalog.db) and its .wal, catalogs/*.duckdb, any
// other DuckDB file or write-ahead log at any depth, listed or found by
// hiddenCatalogs, and an entry of catalogs/ named so that is not a regular
// file (a dangling link). As elsewhere, catalogs/<format>.duckdb (and its
// .wal) of a declared format filtered out of this run is left alone. The spec deletes a version's catalogs when
// expired.json is added (Versions: "expired.json is added and the catalogs
// deleted"), on withdrawal too. Readers refuse the version, but whoever
// opens the file by name still reads the data the version gave up, which
// for a withdrawal may be data that must be gone. Nothing is deleted here.
func (r *repository) leftCatalogs(v *version, entries []catalogEntry, hidden []string, run []fdljson.Format) []Violation {
	var names []string
	for rel := range v.objects {
		if ext := strings.ToLower(path.Ext(rel)); (ext == ".duckdb" || ext == ".wal") && v.hidden[rel] != hiddenLitter {
			names = append(names, rel)
		}
	}
	if v.meta != nil {
		// The frozen catalog may have any name (catalog.path), say
		// catalog.db, and DuckDB's log beside it is that name plus .wal.
		for _, name := range []string{v.meta.Catalog.Path, v.meta.Catalog.Path + ".wal"} {
			if _, listed := v.objects[name]; listed {
				names = append(names, name)
			}
		}
	}
	for _, e := range entries {
		if ext := strings.ToLower(path.Ext(e.name)); (ext == ".duckdb" || ext == ".wal") && e.kind != entryFile {
			names = append(names, "catalogs/"+e.name)
		}
	}
	// "When a version is taken out of retention, files.json is deleted
	// with its catalogs" (Versions, files.json): it lists the data files,
	// for readers that cannot open a catalog.
	indexes := []string{"files.json"}
	if v.meta != nil && v.meta.Files != nil {
		indexes = append(indexes, v.meta.Files.Path)
	}
	for _, name := range indexes {
		if _, listed := v.objects[name]; listed {
			names = append(names, name)
		}
	}
	names = append(names, hidden...)
	slices.Sort(names)
	names = slices.Compact(names)
	names = slices.DeleteFunc(names, func(name string) bool {
		format, ok := strings.CutPrefix(strings.TrimSuffix(name, ".wal"), "catalogs/")
		format, isCatalog := strings.CutSuffix(format, ".duckdb")
		return ok && isCatalog && r.otherRunFormat(format, run)
	})
	out := make([]Violation, 0, len(names))
	for _, name := range names {
		what := "a catalog"
		if strings.EqualFold(path.Ext(name), ".wal") {
			what = "a DuckDB write-ahead log"
		}
		if slices.Contains(hidden, name) {
			what += " hidden by the server's folder listing"
		}
		if slices.Contains(indexes, name) {
			out = append(out, Violation{v.prefix() + name, fmt.Sprintf("the data file index left in a version marked %s (expired.json): the spec deletes files.json with the catalogs when a version leaves retention (FDL 0.1, Versions, files.json); readers that read data files from it without a catalog still reach what the version gave up; remove it", v.expired.Reason)})
			continue
		}
		out = append(out, Violation{v.prefix() + name, fmt.Sprintf("%s left in a version marked %s (expired.json): the spec deletes a version's catalogs when expired.json is added (FDL 0.1, Versions); readers refuse the version, but the file still holds what it gave up; remove it", what, v.expired.Reason)})
	}
	return out
}

// otherRunFormat reports whether format is declared in fdl.json but
// filtered out of this run (run: the formats checked): its
// catalogs/<format>.duckdb and .wal are another run's to check, so this
// run leaves them alone, listed or not, expired or not.
func (r *repository) otherRunFormat(format string, run []fdljson.Format) bool {
	_, declared := r.cfg.Format(format)
	return declared && !slices.ContainsFunc(run, func(d fdljson.Format) bool { return d.DuckLake == format })
}

// presentFormats lists the formats of the regular files
// catalogs/<format>.duckdb of a version (listed by the store).
func (v *version) presentFormats() []string {
	var out []string
	for rel := range v.objects {
		if name, ok := strings.CutPrefix(rel, "catalogs/"); ok && path.Ext(name) == ".duckdb" && !strings.Contains(name, "/") && !hiddenName(name) {
			out = append(out, strings.TrimSuffix(name, ".duckdb"))
		}
	}
	slices.Sort(out)
	return out
}

// strayCatalogs reports a DuckDB file (*.duckdb) or write-ahead log
// (*.wal) in a version folder, outside catalogs/, other than the frozen
// catalog version.json names and the log beside it (reported on its own).
// The spec's layout names ducklake.duckdb as the catalog as made and has
// readers fall back to it by name, so when catalog.path names another file
// a ducklake.duckdb there (say another version's catalog) is what those
// readers open, never hashed or proved; and DuckDB replays a .wal beside
// any file it opens. The spec has version.json record the catalog's file
// name, so catalog.path itself may differ from ducklake.duckdb.
func strayCatalogs(v *version) []Violation {
	frozen := v.meta.Catalog.Path
	var out []Violation
	for rel := range v.objects {
		// Extensions in any letter case: a file system that ignores case
		// (macOS, Windows) opens ducklake.duckdb.WAL as the catalog's log.
		ext := strings.ToLower(path.Ext(rel))
		if ext != ".duckdb" && ext != ".wal" || strings.HasPrefix(rel, "catalogs/") || rel == frozen || rel == frozen+".wal" || v.hidden[rel] == hiddenLitter {
			continue
		}
		detail := fmt.Sprintf("a DuckDB write-ahead log in the version folder, not beside the frozen catalog %s: DuckDB replays it when it opens the file beside it; remove it", frozen)
		switch {
		case checkpointLog(rel):
			detail = checkpointLogDetail("the version folder")
		case strings.EqualFold(rel, frozen+".wal"):
			detail = fmt.Sprintf("a DuckDB write-ahead log beside the frozen catalog %s in another letter case: on a file system that ignores case (macOS, Windows) DuckDB replays it when it opens the catalog; remove it", frozen)
		}
		if ext == ".duckdb" {
			detail = fmt.Sprintf("a DuckDB file in the version folder that is not the frozen catalog (version.json names %s)", frozen)
			if rel == fallbackCatalog {
				detail += ": readers that fall back to ducklake.duckdb by name, as the spec's layout has them, open this file, which is never hashed or proved"
			} else {
				detail += ": nothing vouches for it"
			}
			detail += "; remove it"
		}
		out = append(out, Violation{v.prefix() + rel, detail})
	}
	slices.SortFunc(out, func(a, b Violation) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// unnamedFiles reports a dataset.json or files.json in a version folder
// that version.json does not name. The spec has version.json record the
// dataset.json beside the catalog (`dataset`, required since it exists;
// the file is written once, with the version) and, when one is written,
// the files.json (`files`), each with its size and sha256: one it does not
// name was added later or left by a failed write, and nothing vouches for
// what readers would take from it.
func unnamedFiles(v *version) []Violation {
	named := func(ref *fdljson.FileRef, name string) bool { return ref != nil && ref.Path == name }
	var out []Violation
	for _, f := range []struct {
		name, field string
		ref         *fdljson.FileRef
	}{{"dataset.json", "dataset", v.meta.Dataset}, {"files.json", "files", v.meta.Files}} {
		if _, ok := v.objects[f.name]; !ok || named(f.ref, f.name) || v.meta.Catalog.Path == f.name {
			continue
		}
		detail := fmt.Sprintf("not named in version.json (its %q field ", f.field)
		if f.ref == nil {
			detail += "is absent"
		} else {
			detail += "names " + f.ref.Path
		}
		out = append(out, Violation{v.prefix() + f.name, detail + "): version.json records the " + f.name + " of a version with its size and sha256, so nothing vouches for this one; remove it"})
	}
	return out
}

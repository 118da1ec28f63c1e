package repo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/store"
)

// versionLayout lists the names the FDL layout gives meaning to directly
// in a version folder (besides catalog.path and the files version.json
// names): readers ask for them by these names.
var versionLayout = []string{"version.json", "expired.json", "dataset.json", "files.json", fallbackCatalog, fallbackCatalog + ".wal", "catalogs", "version.json.sig"}

// foldName is a name as a file system that ignores letter case (macOS's,
// Windows') and Unicode normalization (macOS's: "é" composed, U+00E9, and
// decomposed, "e" and U+0301, are one name there) and drops trailing dots
// and spaces (Windows) matches it, and as web servers on them do.
func foldName(name string) string {
	return foldCase(decomposed(strings.TrimRight(name, ". ")))
}

// foldCase is name with letter case folded as those file systems fold it:
// each letter's uppercase, lowered. Lowering alone keeps apart letters
// whose uppercase is one: Windows' NTFS compares uppercase (its upcase
// table: "ς" and "σ" are "Σ", "ı" and "i" are "I", "µ" and "μ" are "Μ"),
// and macOS's case folding takes "ς" for "σ" and "µ" for "μ" too.
func foldCase(name string) string { return strings.ToLower(strings.ToUpper(name)) }

// decomposed is name in Unicode's canonical decomposition (NFD), name
// itself when it is ASCII (every name the layout gives, most data files).
func decomposed(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return norm.NFD.String(name)
		}
	}
	return name
}

// lookAlike gives the name of names that name stands for where letter
// case, Unicode normalization and trailing dots and spaces do not count,
// when name is not that name itself, and how it differs.
func lookAlike(name string, names []string) (spec, how string, ok bool) {
	folded := foldName(name)
	for _, n := range names {
		if name == n || folded != foldName(n) {
			continue
		}
		return n, alikeHow(name, n), true
	}
	return "", "", false
}

// alikeHow says how name differs from n, a name it folds like
// (foldName): "in another letter case", "in another Unicode form
// (composed or decomposed accents)", "with trailing dots or spaces", or
// several of them joined by "and".
func alikeHow(name, n string) string {
	trimmed, nTrimmed := strings.TrimRight(name, ". "), strings.TrimRight(n, ". ")
	var ways []string
	if decomposed(trimmed) != decomposed(nTrimmed) {
		ways = append(ways, "in another letter case")
	}
	// Folded alike, the names differ beyond letter case only where the
	// forms do.
	if foldCase(trimmed) != foldCase(nTrimmed) {
		ways = append(ways, "in another Unicode form (composed or decomposed accents)")
	}
	if len(trimmed) != len(name) {
		ways = append(ways, "with trailing dots or spaces")
	}
	return strings.Join(ways, " and ")
}

// lookAlikeDetail is the violation of an entry whose name stands for spec
// on a file system or web server that ignores case, Unicode normalization
// or trailing dots.
func lookAlikeDetail(spec, how, what string) string {
	why := map[string]string{
		"expired.json":           ": readers there see the version as withdrawn, though check proved it",
		"versions":               ": check never looks in it, but a copy onto such a file system merges it with versions/, and readers find the versions in it, never checked",
		fallbackCatalog + ".wal": ": DuckDB there replays it when it opens " + fallbackCatalog + ", so readers would see changes that were never proved",
		"catalogs":               ": readers there look in it for catalogs that were never proved",
	}[spec]
	if why == "" {
		why = ", never what check verified as " + spec
	}
	return fmt.Sprintf("%s named like %s %s: %s, and a web server on one, gives it to readers that ask for %s%s; remove or rename it", what, spec, how, alikeFileSystems(how), spec, why)
}

// alikeFileSystems names the file systems on which a look-alike that
// differs so (alikeHow) is the same name.
func alikeFileSystems(how string) string {
	if strings.Contains(how, "Unicode") {
		return "a file system that ignores Unicode normalization (macOS's APFS and HFS+: an accent composed or decomposed is one name there), letter case (macOS's, Windows') or trailing dots and spaces (Windows)"
	}
	return "a file system that ignores letter case (macOS's, Windows') or drops trailing dots and spaces (Windows)"
}

// indexPage tells the index page a web host without folder listings
// needs in each folder (docs/remote.md, "Listing versions"); no reader of
// the repository opens it.
func indexPage(name string) bool {
	return strings.EqualFold(name, "index.html") || strings.EqualFold(name, "index.htm")
}

// hiddenName tells a name no reader opens: a dot first. No format's name,
// and no name of the FDL layout, starts with one.
func hiddenName(name string) bool { return strings.HasPrefix(name, ".") }

// Hidden file contents, as findHidden reads them.
const (
	hiddenLitter = "litter" // not DuckDB's: file-manager or copy-tool metadata
	hiddenDuckDB = "duckdb" // a DuckDB database file
)

// appleDouble is the magic number AppleDouble files (macOS's ._x) start with.
var appleDouble = []byte{0x00, 0x05, 0x16, 0x07}

// findHidden reads the first bytes of every hidden regular file of a
// version folder (a name starting with a dot, at any depth, catalogs/
// included; outside catalogs/, only those named like a DuckDB file or a
// write-ahead log) and says what each holds, keyed by its name relative to the
// version folder. A hidden file is litter (a warning) unless it holds a
// DuckDB database (the magic bytes "DUCK" at offset 8): no reader opens a
// hidden name, but a hidden DuckDB file is a catalog nothing proves, such
// as a copy tool's unfinished temporary file (rsync's .1.1.duckdb.XXXXXX)
// that becomes a catalog when the copy ends. A hidden .wal is litter only
// when it is AppleDouble metadata: a write-ahead log has no magic bytes to
// tell it by. A file that cannot be read is left out, and its name
// decides as before (osLitter). Only regular files are read: a store's
// listing shows nothing else, and catalogs/ entries are read with lstat.
func (r *repository) findHidden(ctx context.Context, v *version, entries []catalogEntry) map[string]string {
	var names []string
	for rel := range v.objects {
		// Outside catalogs/, only the names a rule looks at by their
		// suffix (strayCatalogs, leftCatalogs) need the bytes; the others
		// are litter by their name (osLitter).
		base := strings.ToLower(path.Base(rel))
		if hiddenName(base) && (strings.HasPrefix(rel, "catalogs/") || strings.Contains(base, ".duckdb") || path.Ext(base) == ".wal") {
			names = append(names, rel)
		}
	}
	for _, e := range entries {
		if rel := "catalogs/" + e.name; e.kind == entryFile && hiddenName(e.name) && !slices.Contains(names, rel) {
			names = append(names, rel)
		}
	}
	if len(names) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, rel := range names {
		head, err := readHead(ctx, r.st, v.prefix()+rel, 12)
		if err != nil {
			continue
		}
		switch {
		case len(head) >= 12 && bytes.Equal(head[8:12], []byte("DUCK")):
			out[rel] = hiddenDuckDB
		case strings.EqualFold(path.Ext(rel), ".wal") && !bytes.HasPrefix(head, appleDouble):
			// A write-ahead log cannot be told by its bytes: as before.
		default:
			out[rel] = hiddenLitter
		}
	}
	return out
}

// litter tells a hidden regular file that no reader opens by what
// findHidden read of it, else, unread, by its name (osLitter).
func litter(hidden map[string]string, rel string) bool {
	kind, read := hidden[rel]
	return kind == hiddenLitter || !read && osLitter(path.Base(rel))
}

// readHead reads up to n first bytes of an object.
func readHead(ctx context.Context, st store.Store, key string, n int64) ([]byte, error) {
	rc, err := st.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, n))
}

// versionEntries lists the entries directly in a version folder, whatever
// their kind; a symbolic link counts as what it points to, as readers
// follow it (a dangling one stays a link). A store with local files is
// read with readdir, others from their keys.
func (r *repository) versionEntries(v *version) []catalogEntry {
	if ps, ok := r.st.(store.PathStore); ok {
		dir, err := ps.Path(strings.TrimSuffix(v.prefix(), "/"))
		if err != nil {
			return nil
		}
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil // the listing that found the version says why
		}
		out := make([]catalogEntry, 0, len(des))
		for _, d := range des {
			kind := modeKind(d.Type())
			if kind == entrySymlink {
				if st, err := os.Stat(filepath.Join(dir, d.Name())); err == nil {
					kind = modeKind(st.Mode().Type())
				}
			}
			out = append(out, catalogEntry{name: d.Name(), kind: kind})
		}
		return out
	}
	var out []catalogEntry
	for rel := range v.objects {
		e := catalogEntry{name: rel, kind: entryFile}
		if first, _, nested := strings.Cut(rel, "/"); nested {
			e = catalogEntry{name: first, kind: entryFolder}
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b catalogEntry) int { return strings.Compare(a.name, b.name) })
	return out
}

// versionFolderFindings classifies the entries directly in a version
// folder beyond what the other rules see (reported tells the keys they
// reported already): an entry named like a file of the layout in another
// letter case or with trailing dots or spaces (Expired.json, expired.json.)
// and an expired.json that is not a regular file are violations; index
// pages pass; hidden litter and any other file no reader opens are notes.
func (r *repository) versionFolderFindings(v *version, entries []catalogEntry, hidden map[string]string, reported []Violation) ([]Violation, []string) {
	known := slices.Clone(versionLayout)
	if v.meta != nil {
		known = append(known, v.meta.Catalog.Path, v.meta.Catalog.Path+".wal")
		for _, ref := range []*fdljson.FileRef{v.meta.Dataset, v.meta.Files} {
			if ref != nil {
				// A path in a subfolder makes that folder the layout's.
				first, _, _ := strings.Cut(ref.Path, "/")
				known = append(known, first)
			}
		}
	}
	var out []Violation
	var notes []string
	for _, e := range entries {
		key := v.prefix() + e.name
		if e.name == store.TempDir || slices.ContainsFunc(reported, func(x Violation) bool { return x.Key == key }) {
			continue
		}
		what := "a " + e.kind
		if e.name == "expired.json" && e.kind != entryFile {
			out = append(out, Violation{key, fmt.Sprintf("%s, not a regular file: readers that test whether expired.json exists see the version as withdrawn, and reading it fails (a folder) or blocks (a FIFO); check took the version as published and never opened it; remove it, or make it the regular file that withdraws the version", what)})
			continue
		}
		if slices.Contains(known, e.name) {
			continue
		}
		if spec, how, ok := lookAlike(e.name, known); ok {
			out = append(out, Violation{key, lookAlikeDetail(spec, how, what)})
			continue
		}
		ext := strings.ToLower(path.Ext(e.name))
		switch {
		case indexPage(e.name):
		case e.kind == entryFile && litter(hidden, e.name):
			notes = append(notes, fmt.Sprintf("%s: a hidden file in the version folder that no reader opens (file-manager or copy-tool metadata); ignored, remove it when convenient", key))
		case e.kind == entryFile && (ext == ".duckdb" || ext == ".wal"):
			// A stray catalog or log: strayCatalogs reports it.
		default:
			name := e.name
			if e.kind == entryFolder {
				name += "/"
			}
			notes = append(notes, fmt.Sprintf("%s%s: %s that is not part of the FDL layout; no reader opens it, but once a version is published only expired.json, catalogs/<format>.duckdb and version.json.sig may be added to its folder (FDL 0.1, Versions): remove it if it came later", v.prefix(), name, what))
		}
	}
	return out, notes
}

// rootViolations reports, in a repository in a local folder, an entry of
// its root named like fdl.json, versions/ or the data folder in another
// letter case or with trailing dots or spaces (Versions/ beside
// versions/): check never looks in it, but a copy onto a file system that
// ignores case merges the two, and readers find what check never read.
// Other stores are not listed at their root.
func (r *repository) rootViolations() []Violation {
	top, ok := r.localRoot()
	if !ok {
		return nil
	}
	des, err := os.ReadDir(top)
	if err != nil {
		return nil
	}
	known := []string{FDLKey, strings.TrimSuffix(VersionsDir, "/")}
	if first, _, _ := strings.Cut(strings.TrimPrefix(r.cfg.DataDir, "./"), "/"); first != "" && first != "." && first != ".." {
		known = append(known, first)
	}
	var out []Violation
	for _, d := range des {
		if spec, how, ok := lookAlike(d.Name(), known); ok {
			kind := modeKind(d.Type())
			if kind == entrySymlink {
				if st, err := os.Stat(filepath.Join(top, d.Name())); err == nil {
					kind = modeKind(st.Mode().Type())
				}
			}
			out = append(out, Violation{d.Name(), lookAlikeDetail(spec, how, "a "+kind)})
		}
	}
	return out
}

// linkedOut tells whether a resolved path is outside every folder of
// roots (resolved too).
func linkedOut(p string, roots []string) bool {
	for _, root := range roots {
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
	}
	return true
}

// linksOut collects the data and delete files of a repository in a local
// folder that resolve outside it through symbolic links (a file, or a
// folder above it, linked elsewhere). Readers of the folder follow links,
// and so does check; but cp -a, rsync -a and tar copy a link as a link,
// so a copy of the repository (what publishing it often is) holds a link
// that leads nowhere, or to another file, where the target is not copied
// along. Safe for concurrent use.
type linksOut struct {
	mu    sync.Mutex
	init  bool
	roots []string                     // the repository's folder and data folder, resolved
	dirs  map[string]string            // folders of data files, resolved ("" when that failed)
	out   map[string]map[string]string // catalog key -> data file (relative to data_dir) -> what it resolves to
}

// rootsOf resolves the repository's folder and its data folder (nil when
// the store has no local files or they do not resolve).
func rootsOf(r *repository) []string {
	if r.paths == nil {
		return nil
	}
	f, err := r.paths.Path(FDLKey)
	if err != nil {
		return nil
	}
	root, err := filepath.EvalSymlinks(filepath.Dir(f))
	if err != nil {
		return nil
	}
	roots := []string{root}
	if data, err := filepath.EvalSymlinks(r.dataPath); err == nil {
		roots = append(roots, data)
	}
	return roots
}

// see records file p (a local path under the data folder) that the
// catalog key names if it resolves
// outside the repository's folder and its data folder (whose own link,
// if any, dataFolderWarning reports); link says p itself is a symbolic
// link. Only a link costs a resolution; folders are resolved once each.
func (l *linksOut) see(r *repository, key, p string, link bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.init {
		l.init, l.roots, l.dirs, l.out = true, rootsOf(r), map[string]string{}, map[string]map[string]string{}
	}
	if l.roots == nil {
		return
	}
	dir := filepath.Dir(p)
	real, ok := l.dirs[dir]
	if !ok {
		real, _ = filepath.EvalSymlinks(dir)
		l.dirs[dir] = real
	}
	if real == "" {
		return
	}
	real = filepath.Join(real, filepath.Base(p))
	if link {
		var err error
		if real, err = filepath.EvalSymlinks(p); err != nil {
			return
		}
	}
	if linkedOut(real, l.roots) {
		if l.out[key] == nil {
			l.out[key] = map[string]string{}
		}
		l.out[key][r.relData(p)] = real
	}
}

// maxLinksNamed bounds the files linksOut's warning names.
const maxLinksNamed = 5

// warning is the content pass's warning naming the files of catalog key
// that see recorded ("" when none): a warning of the pass, it is kept with
// a clean pass and said again by a check that reuses it (a change of a
// link changes the data folder's listing, and so the pass's key).
func (l *linksOut) warning(r *repository, key string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.out[key]
	if len(out) == 0 {
		return ""
	}
	names := slices.Sorted(maps.Keys(out))
	var parts []string
	for _, n := range names[:min(len(names), maxLinksNamed)] {
		parts = append(parts, fmt.Sprintf("%s -> %s", oneline.Name(n), oneline.Name(out[n])))
	}
	if len(names) > maxLinksNamed {
		parts = append(parts, fmt.Sprintf("and %d more", len(names)-maxLinksNamed))
	}
	return fmt.Sprintf("%s names %d data or delete file(s) in data_dir %s that resolve outside the repository folder %s through symbolic links: %s; readers of this folder follow the links, as check did, but a copy made with cp -a, rsync -a or tar keeps each link as it is, and it leads nowhere (or to another file) where the target is not copied along: move the files into the repository, or publish with cp -L, rsync -L or tar -h, which copy what links point to",
		key, len(names), r.cfg.DataDir, l.roots[0], strings.Join(parts, "; "))
}

// dataFolderWarning warns when the data folder of a repository in a local
// folder resolves outside it (data/ a link onto another disk): readers
// and check follow the link, copy tools keep it ("" otherwise).
func (r *repository) dataFolderWarning() string {
	roots := rootsOf(r)
	if len(roots) < 2 || !linkedOut(roots[1], roots[:1]) {
		return ""
	}
	// Only the repository's own data folder: a data folder given in its
	// place (Plan's Options.DataPath, a bucket's local mirror) is not what
	// a copy of the repository holds.
	own, err := r.paths.Path(strings.TrimSuffix(r.cfg.DataDir, "/"))
	if err != nil {
		return ""
	}
	if own, err = filepath.EvalSymlinks(own); err != nil || own != roots[1] {
		return ""
	}
	return fmt.Sprintf("data_dir %s resolves to %s, outside the repository folder %s, through a symbolic link: readers of this folder follow it, as check does, but a copy made with cp -a, rsync -a or tar keeps the link as it is, and it leads nowhere (or to another folder) where the target is not copied along; publish with cp -L, rsync -L or tar -h, which copy what links point to", r.cfg.DataDir, roots[1], roots[0])
}

// layoutLink is a file or folder of the layout (fdl.json, versions/, a
// version folder or a file or folder in it) that resolves outside a
// repository in a local folder through a symbolic link.
type layoutLink struct {
	key     string // its key, a folder's ending in "/"
	version string // the version it belongs to ("" for fdl.json, versions/)
	target  string // what it resolves to
}

// layoutLinks finds, in a repository in a local folder, the first part of
// fdl.json and of each file of versions (a version folder, catalogs/, a
// catalog, version.json...) that resolves outside the repository folder
// through a symbolic link. Readers of the folder follow links, as check
// does, so what they open was checked; but cp -a, rsync -a and tar copy a
// link as a link, so a copy of the repository (what publishing it often
// is) holds one that leads nowhere, or to another file, where the target
// is not copied along. linksOut warns so of the data files; these are the
// files that say which of them readers read, and how. Only links cost a
// resolution; a part found outside is named once, not the files under it.
func (r *repository) layoutLinks(versions []*version) []layoutLink {
	top, ok := r.localRoot()
	if !ok {
		return nil
	}
	root, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil
	}
	type owned struct{ key, version string }
	keys := []owned{{FDLKey, ""}}
	for _, v := range versions {
		names := slices.Sorted(maps.Keys(v.objects))
		for _, n := range names {
			keys = append(keys, owned{v.prefix() + n, v.id})
		}
	}
	seen := map[string]bool{} // parts looked at: true for one found outside
	var out []layoutLink
	for _, k := range keys {
		parts := strings.Split(k.key, "/")
		for i := range parts {
			part := strings.Join(parts[:i+1], "/")
			if outside, ok := seen[part]; ok {
				if outside {
					break // named already, with what is under it
				}
				continue
			}
			seen[part] = false
			p := filepath.Join(top, filepath.FromSlash(part))
			if st, err := os.Lstat(p); err != nil || st.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil || !linkedOut(real, []string{root}) {
				continue
			}
			key := part
			if i < len(parts)-1 {
				key += "/"
			}
			version := k.version
			if i == 0 { // versions/ itself
				version = ""
			}
			seen[part] = true
			out = append(out, layoutLink{key: key, version: version, target: real})
			break
		}
	}
	return out
}

// layoutLinkWarning is the warning of a layoutLink.
func (r *repository) layoutLinkWarning(l layoutLink) string {
	root := ""
	if f, err := r.st.(store.PathStore).Path(FDLKey); err == nil {
		root = filepath.Dir(f)
	}
	return fmt.Sprintf("%s resolves to %s, outside the repository folder %s, through a symbolic link: readers of this folder follow it, as check did, but a copy made with cp -a, rsync -a or tar keeps the link as it is, and it leads nowhere (or to another file) where the target is not copied along; move it into the repository, or publish with cp -L, rsync -L or tar -h, which copy what links point to", oneline.Name(l.key), oneline.Name(l.target), oneline.Name(root))
}

// localRoot is the folder of a repository in a folder (where fdl.json is);
// false for other stores, which have no folder to list.
func (r *repository) localRoot() (string, bool) {
	ps, ok := r.st.(store.PathStore)
	if !ok {
		return "", false
	}
	f, err := ps.Path(FDLKey)
	if err != nil {
		return "", false
	}
	return filepath.Dir(f), true
}

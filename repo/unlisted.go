package repo

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/store"
)

// On a store whose listing may leave files out (a web site's index pages:
// a CDN's stale copy, a hand-written index.html; store.ListsPartially),
// the files of a version's own layout that readers fetch by name are
// probed by name when the listing does not show them, and a file found is
// taken as if listed: a folder check and a web check of the same
// repository give the same findings. Before, a withdrawn version whose page
// left out expired.json was checked as live (exit 0) and resolve sent
// readers to it, and a version.json's named files left out were "missing"
// (exit 6) though every GET of them answered 200. A probe answered
// otherwise than "absent" (404, 410) leaves the file unknown: the version
// is unverifiable (exit 4), the error naming the file. Catalogs under
// catalogs/ and DuckDB files beside the frozen catalog are probed by
// hiddenCatalogs; parents the listing does not show by parentIssues.

// versionFiles are the files of a version folder that say what the
// version is, probed for every version before its version.json is read:
// expired.json (a withdrawn or expired version, which readers refuse)
// and version.json.
var versionFiles = []string{"expired.json", "version.json"}

// presenceFiles are the files of a version's layout that tell a version
// folder whose page lists no file and whose versionFiles are absent from
// an empty one: the catalog readers fall back to by name, and dataset.json
// and files.json by their spec names; with each format's
// catalogs/<format>.duckdb, which its DuckDB opens by name
// (presenceNames). One found makes the folder a half-uploaded version
// (version.json missing: invalid), as the same folder on disk is; with all
// absent it holds, as far as a web site can tell, nothing readers ask for,
// and is dropped as empty (dropEmpty).
var presenceFiles = []string{fallbackCatalog, "dataset.json", "files.json"}

// presenceNames are presenceFiles and the catalogs/<format>.duckdb of
// every format of the registry, which a reader that opens that format
// tries whether fdl.json declares it or not (as hiddenCatalogs has it): a
// folder left with only a published catalog (a withdrawal that deleted
// version.json and the frozen catalog first) is a version readers of that
// format still open, invalid on disk; before, behind a page listing
// nothing it was an empty folder (exit 0).
func (r *repository) presenceNames() []string {
	names := slices.Clone(presenceFiles)
	for _, f := range formats.All {
		names = append(names, "catalogs/"+f.Name+".duckdb")
	}
	return names
}

// layoutFiles are the other files of v's layout that readers fetch by
// name (after versionFiles are read): the files version.json names (the
// frozen catalog, dataset.json, files.json), and dataset.json and
// files.json by their spec names, which a version.json that does not name
// them must not have beside it (unnamedFiles); in an expired or withdrawn
// version, whose files.json must be gone (leftCatalogs), files.json and
// the index version.json names. An expired version's frozen catalogs are
// hiddenCatalogs'.
func (v *version) layoutFiles() []string {
	switch {
	case v.err != nil, v.meta == nil && v.expired == nil:
		return nil // invalid or unknown: nothing names a file
	case v.meta == nil:
		return []string{"files.json"} // withdrawn, its version.json gone
	}
	names := []string{"dataset.json", "files.json"}
	for _, ref := range []*fdljson.FileRef{v.meta.Dataset, v.meta.Files} {
		if ref != nil {
			names = append(names, ref.Path)
		}
	}
	if v.expired == nil {
		names = append(names, v.meta.Catalog.Path)
	}
	return names
}

// unlistedProbe is a name of a version folder to probe.
type unlistedProbe struct {
	v    *version
	name string // relative to the version folder
}

// unlisted gives, of names, those v's listing does not show and no probe
// has asked for yet.
func (v *version) unlisted(names ...string) []unlistedProbe {
	var out []unlistedProbe
	var seen []string
	for _, name := range names {
		if _, listed := v.objects[name]; listed || slices.Contains(seen, name) {
			continue
		}
		if _, probed := v.probeErrs[name]; probed {
			continue
		}
		seen = append(seen, name)
		out = append(out, unlistedProbe{v, name})
	}
	return out
}

// probeUnlisted asks the store for each name, probeJobs at a time (a HEAD,
// or a ranged GET of one byte where the server refuses HEAD: Stat). A file
// found is added to its version's objects, as a listed one; "absent" adds
// nothing; any other answer is kept in the version's probeErrs. Only a
// cancelled run is an error.
func (r *repository) probeUnlisted(ctx context.Context, probes []unlistedProbe) error {
	if len(probes) == 0 {
		return nil
	}
	keys := make([]string, len(probes))
	for i, p := range probes {
		keys[i] = p.v.prefix() + p.name
	}
	found, errs := r.statKeys(ctx, keys)
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, p := range probes {
		if found[i] != nil {
			p.v.objects[p.name] = *found[i]
			continue
		}
		if p.v.probeErrs == nil {
			p.v.probeErrs = map[string]error{}
		}
		p.v.probeErrs[p.name] = nil // absent: not asked again
		if errs[i] != nil {
			p.v.probeErrs[p.name] = unlistedErr(r.st, p.v.prefix()+p.name, "the server's folder listing", errs[i])
		}
	}
	return nil
}

// statKeys asks the store for each key, probeJobs at a time (a HEAD, or a
// ranged GET of one byte where the server refuses HEAD: Stat): found[i] is
// the object when it is there, errs[i] the answer when it is neither there
// nor absent; both nil for an absent key.
func (r *repository) statKeys(ctx context.Context, keys []string) (found []*store.ObjectInfo, errs []error) {
	found, errs = make([]*store.ObjectInfo, len(keys)), make([]error, len(keys))
	var g errgroup.Group
	g.SetLimit(probeJobs)
	for i, key := range keys {
		g.Go(func() error {
			info, err := r.st.Stat(ctx, key)
			switch {
			case err == nil:
				found[i] = &info
			case !errors.Is(err, fs.ErrNotExist):
				errs[i] = err
			}
			return nil
		})
	}
	_ = g.Wait()
	return found, errs
}

// probeVersions probes, in every version of vs, the versionFiles the
// listing does not show; in those still showing no file, the
// presenceFiles; and reads the versions again; then the layoutFiles their
// version.json names or the spec's layout has (nothing on stores that
// list every file).
func (r *repository) probeVersions(ctx context.Context, vs []*version) error {
	if !store.ListsPartially(r.st) {
		return nil
	}
	// A version is read again when a probe found a file or failed: most
	// often none did (a live version has no expired.json).
	reread := map[*version]bool{}
	var probes []unlistedProbe
	for _, v := range vs {
		probes = append(probes, v.unlisted(versionFiles...)...)
	}
	if err := r.probeRound(ctx, probes, reread); err != nil {
		return err
	}
	// Only folders whose page lists nothing at all and whose versionFiles
	// are absent: none on a site whose pages list every file.
	probes = nil
	for _, v := range vs {
		if v.showsNoFile() && v.absent(versionFiles) {
			probes = append(probes, v.unlisted(r.presenceNames()...)...)
		}
	}
	if err := r.probeRound(ctx, probes, reread); err != nil {
		return err
	}
	vs = r.dropEmpty(vs)
	probes = nil
	for _, v := range vs {
		if reread[v] {
			r.reread(ctx, v)
		}
		probes = append(probes, v.unlisted(v.layoutFiles()...)...)
	}
	return r.probeUnlisted(ctx, probes)
}

// probeRound probes and marks in reread the versions where a probe found
// a file or failed.
func (r *repository) probeRound(ctx context.Context, probes []unlistedProbe, reread map[*version]bool) error {
	if err := r.probeUnlisted(ctx, probes); err != nil {
		return err
	}
	for _, p := range probes {
		if _, found := p.v.objects[p.name]; found || p.v.probeErrs[p.name] != nil {
			reread[p.v] = true
		}
	}
	return nil
}

// absent says whether every one of names was probed and found absent.
func (v *version) absent(names []string) bool {
	for _, name := range names {
		if err, probed := v.probeErrs[name]; !probed || err != nil {
			return false
		}
	}
	return true
}

// reread reads v's versionFiles again, after probes found or failed some.
func (r *repository) reread(ctx context.Context, v *version) {
	v.meta, v.expired, v.err, v.problem = nil, nil, nil, ""
	r.readVersion(ctx, v)
}

// emptyFolder says whether v is there only because the listing of
// versions/ shows its folder, which holds no file: on a store that lists
// every file (a folder on disk), none is listed in it; on one whose
// listing may leave files out (a web site), its own page lists no file
// and the probes of its versionFiles and presence (presenceNames) all answered
// "absent". Readers find nothing to open in it: no version.
func (v *version) emptyFolder(partial bool, presence []string) bool {
	if !v.showsNoFile() {
		return false
	}
	return !partial || v.absent(versionFiles) && v.absent(presence)
}

// showsNoFile says whether v's listing shows no file a reader opens: none,
// or only index pages (on a host without listings the folder's page
// itself, so a web site never shows it) and hidden names (macOS Finder's
// .DS_Store). Before, such a folder on disk was a version without
// version.json (exit 6) where the same folder served from the web was an
// empty one (a warning).
func (v *version) showsNoFile() bool {
	for key := range v.objects {
		if !indexPage(path.Base(key)) && !slices.ContainsFunc(strings.Split(key, "/"), hiddenName) {
			return false
		}
	}
	return true
}

// dropEmpty removes the versions of vs that are empty folders from the
// repository, keeping their IDs for the plan's warning (emptyFolderWarning);
// it returns the others.
func (r *repository) dropEmpty(vs []*version) []*version {
	partial := store.ListsPartially(r.st)
	presence := r.presenceNames()
	var empty []*version
	for _, v := range vs {
		if v.emptyFolder(partial, presence) {
			empty = append(empty, v)
			r.emptyFolders = append(r.emptyFolders, v.id)
		}
	}
	if len(empty) == 0 {
		return vs
	}
	gone := func(v *version) bool { return slices.Contains(empty, v) }
	// Clones: vs may be r.versions.
	r.versions = slices.DeleteFunc(slices.Clone(r.versions), gone)
	return slices.DeleteFunc(slices.Clone(vs), gone)
}

// emptyFolderWarning is the warning of plan, backfill and check for a
// version folder dropped as empty (dropEmpty), saying what was looked at:
// on a web site, the files asked for by name.
func emptyFolderWarning(id string, partial bool) (key, detail string) {
	key = VersionsDir + id + "/"
	what := "it holds no file a reader opens"
	if partial {
		what = "its page lists no file and none of " + strings.Join(append(slices.Clone(versionFiles), presenceFiles...), ", ") + " or any catalogs/<format>.duckdb answers"
	}
	if !fdljson.IsVersionID(id) {
		// A folder of another tool or of the system (lost+found; a
		// hidden one is not listed as a version at all): no version
		// was ever meant to be published in it.
		return key, key + ": empty folder under " + VersionsDir + " whose name is not a version ID (a lower-case UUIDv7): no version, ignored; remove it when convenient (a file in it makes it an invalid version)"
	}
	return key, key + ": empty version folder (" + what + "): no version, ignored (readers find nothing to open in it); remove it, or finish publishing its version (a file in it without version.json makes it an invalid version)"
}

// hiddenFolderWarning is the warning of plan, backfill and check for a
// folder under versions/ whose name starts with "." (read), empty or not.
func hiddenFolderWarning(name string) (key, detail string) {
	key = VersionsDir + name + "/"
	return key, key + ": hidden folder under " + VersionsDir + " ignored: no version (its name is not a version ID, a lower-case UUIDv7, and readers never open a hidden folder; another tool's, such as an upload's staging folder, .git or a trash folder); remove it when convenient"
}

// probeErr is the error of the probe of name in v, nil when it was not
// probed or found absent.
func (v *version) probeErr(name string) error { return v.probeErrs[name] }

// probeIssues are the failed probes of v's layoutFiles that no other
// check reports (verifyRef reports those of the files version.json names,
// readVersion those of versionFiles): each leaves a file unknown.
func (v *version) probeIssues() []Issue {
	var names []string
	for name, err := range v.probeErrs {
		if err != nil && err != v.err && !slices.Contains(versionFiles, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []Issue
	for _, name := range names {
		if v.meta != nil && v.expired == nil && v.err == nil && slices.ContainsFunc([]*fdljson.FileRef{&v.meta.Catalog.FileRef, v.meta.Dataset, v.meta.Files}, func(ref *fdljson.FileRef) bool { return ref != nil && ref.Path == name }) {
			continue
		}
		out = append(out, Issue{Problem: ProblemUnreadable, Detail: v.probeErrs[name].Error(), cause: v.probeErrs[name]})
	}
	return out
}

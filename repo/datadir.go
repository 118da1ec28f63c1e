package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/store"
)

// OutsideError is returned (wrapped) when a catalog names data or delete
// files outside the repository's data_dir: recorded by absolute path (for
// the file, its table or its schema), or with a ".." part. The
// specification (Versions, "The frozen catalog") says "every data file it
// names is under data_dir, recorded relative to the catalog's data path";
// a reader opens such a file from its own machine or another site, never
// from the repository, so no check can prove what readers get. It is a
// violation (ProblemViolation): check reports it as a difference, backfill
// writes no catalog from such a version, plan shows its cells in error.
type OutsideError struct {
	// OutsideDataPathError names the catalog by its key in the repository
	// and describes each file outside data_dir (compare.Outside).
	*compare.OutsideDataPathError
	// Other is a failure fetching the files that are under data_dir (a
	// remote store's), if any.
	Other error
}

func (e *OutsideError) Error() string {
	msg := e.OutsideDataPathError.Error() + "; readers would not find them in the repository"
	if e.Other != nil {
		msg += "; " + e.Other.Error()
	}
	return msg
}

// Unwrap gives the fetch failure, so that errors.Is finds e.g. a canceled
// context.
func (e *OutsideError) Unwrap() error { return e.Other }

// NotRegularError is returned (wrapped) when data or delete files a
// catalog of a local repository names are there but are not regular files
// (a FIFO, a device, a socket, a folder). They are found with stat(2) and
// never opened: open(2) of a FIFO, as of a file on a hung mount, blocks
// until a writer comes, and check hung on one with no word. Like an entry
// of catalogs/ that is not a regular file, it is a violation
// (ProblemViolation): check reports it as a difference.
type NotRegularError struct {
	Catalog string   // the catalog's key in the repository
	Files   []string // each file described (notRegular)
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s names %s; not opened (opening a FIFO blocks): restore the data files", e.Catalog, strings.Join(e.Files, "; "))
}

// notRegular stats every file of files (resolved local paths) and
// describes those that exist but are not regular files, in the words of
// folderViolations ("a special file in catalogs/, where only regular
// files ... may be"). A missing file, or one stat cannot read, is left to
// the step that reads it, which says why.
func (r *repository) notRegular(files []compare.StoredFile, key string) error {
	var bad []string
	for _, f := range files {
		// lstat, then stat only for a link: a file that is no link costs
		// no more than before.
		st, err := os.Lstat(f.Path)
		link := err == nil && st.Mode()&fs.ModeSymlink != 0
		if link {
			st, err = os.Stat(f.Path)
		}
		if err == nil {
			r.links.see(r, key, f.Path, link)
		}
		if err != nil || st.Mode().IsRegular() {
			continue
		}
		what := fmt.Sprintf("data file %d", f.ID)
		if f.Delete {
			what = fmt.Sprintf("delete file %d (of data file %d)", f.ID, f.DataFileID)
		}
		bad = append(bad, fmt.Sprintf("%s %s, a %s in data_dir, where only regular files may be", what, oneline.Name(r.relData(f.Path)), modeKind(st.Mode().Type())))
	}
	if len(bad) == 0 {
		return nil
	}
	return &NotRegularError{Catalog: key, Files: bad}
}

// lookAlikeWhy says what is wrong with a look-alike of a data file
// (lookAlikeData).
const lookAlikeWhy = "a file system that ignores letter case (macOS's, Windows') or Unicode normalization (macOS's: an accent composed or decomposed) or drops trailing dots and spaces (Windows), and a web server on one, gives readers either, and a copy onto one keeps only one of them, not surely the one check read; remove or rename the look-alike"

// foldedDirs holds the names of the folders of a local data folder that
// lookAlikeData read, by foldName. Safe for concurrent use.
type foldedDirs struct {
	mu   sync.Mutex
	dirs map[string]map[string][]string // folder -> folded name -> names
}

// names gives the names in folder dir whose foldName is folded (read
// once per run; nil when the folder cannot be read).
func (d *foldedDirs) names(dir, folded string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.dirs[dir]
	if !ok {
		if d.dirs == nil {
			d.dirs = map[string]map[string][]string{}
		}
		des, err := os.ReadDir(dir)
		if err == nil {
			m = make(map[string][]string, len(des))
			for _, de := range des {
				f := foldName(de.Name())
				m[f] = append(m[f], de.Name())
			}
		}
		d.dirs[dir] = m
	}
	return m[folded]
}

// lookAlikeData describes each file of the data folder whose path is
// like that of a file of files (resolved local paths under the data
// folder) but for letter case, Unicode normalization (main/café/ composed
// and decomposed) or trailing dots and spaces, in its name or
// a folder above it (DUCKLAKE-….PARQUET or main/WHOLE/ducklake-….parquet
// beside main/whole/ducklake-….parquet). Readers of the folder, and
// check, open the file the catalog names; but a file system that ignores
// letter case (macOS's, Windows') or Unicode normalization (macOS's) or drops trailing dots and spaces
// (Windows), and a web server on one, gives readers either, and a copy
// onto one keeps one of the two, whichever came last: readers could get
// bytes check never read. Folders alike that hold no such pair (hive
// partitions city=Paris/ and city=paris/, each with its own files) merge
// harmlessly and are not named. The content pass reports each as a
// violation, as such a look-alike in a version folder or the
// repository's root is (versionFolderFindings, rootViolations). Each
// folder is read once per run.
func (r *repository) lookAlikeData(files []compare.StoredFile) []string {
	var bad []string
	said := map[string]bool{}
	root := strings.TrimSuffix(r.dataPath, string(os.PathSeparator))
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, r.dataPath)
		if !ok {
			continue
		}
		// Every path of the data folder that folds like rel's, part by
		// part.
		paths := []string{root}
		for _, part := range strings.Split(rel, string(os.PathSeparator)) {
			var next []string
			for _, dir := range paths {
				for _, n := range r.dataNames.names(dir, foldName(part)) {
					next = append(next, filepath.Join(dir, n))
				}
			}
			paths = next
		}
		for _, p := range paths {
			if p == filepath.Join(root, rel) || said[p] {
				continue
			}
			said[p] = true
			what := fmt.Sprintf("data file %d", f.ID)
			if f.Delete {
				what = fmt.Sprintf("delete file %d (of data file %d)", f.ID, f.DataFileID)
			}
			bad = append(bad, fmt.Sprintf("%s %s, and data_dir holds %s, named like it but for letter case, Unicode form (composed or decomposed accents) or trailing dots or spaces", what, oneline.Name(r.relData(f.Path)), oneline.Name(r.relData(p))))
		}
	}
	return bad
}

// dataProblem is the Problem of an ensureData failure: a violation for
// files outside data_dir or not regular files, else unreadable.
func dataProblem(err error) Problem {
	var oe *OutsideError
	var ce *compare.OutsideDataPathError
	var nr *NotRegularError
	if errors.As(err, &oe) || errors.As(err, &ce) || errors.As(err, &nr) {
		return ProblemViolation
	}
	if errors.Is(err, errStoreDiffers) {
		return ProblemMismatch // as the content pass says of it
	}
	return ProblemUnreadable
}

// ensureData checks that every data and delete file the catalog (a local
// copy of the object key) names is under data_dir (see OutsideError), and
// makes those that are readable at r.dataPath: nothing more for a local
// store, downloads into the cache for a remote one (scope: with
// fetchConversion, only what a conversion reads: the delete files and the
// merged data files, and holds the data files whose copies are cached
// already, whose footers it reads). Files outside data_dir make an *OutsideError, after
// the others were fetched. A catalog that cannot be read is an error for a
// remote store (its files cannot be fetched); for a local one it is left
// to the step that reads the catalog next (a conversion, a proof), which
// tells why, as it did when nothing was read here: it names no file.
func (r *repository) ensureData(ctx context.Context, catalog, key string, scope fetchScope) error {
	_, err := r.ensureListed(ctx, func(ctx context.Context) ([]compare.StoredFile, string, error) {
		return r.storedFiles(ctx, catalog, key, nil)
	}, key, scope)
	return err
}

// ensureConversionData is ensureData for a conversion of the catalog (a
// local copy of the object key), with fetchConversion. A local store's
// files are read in place: nothing is fetched, and ensureData only holds
// them to data_dir and to regular files (and notes the links among them).
// So a local store's catalog is first listed by a reader that only lists
// (compare.ReaderOptions.ListOnly, which skips the checks of a full
// reader's open); when every file it names is under data_dir and is no
// link and no other kind of file than a regular one, or is absent, then
// ensureData has nothing to say either (it says nothing too when its full
// reader cannot open the catalog), and is not run. Otherwise, or when the
// listing fails, ensureData runs as before, so its result is unchanged.
func (r *repository) ensureConversionData(ctx context.Context, catalog, key string) error {
	if r.remote == nil && r.listedClean(ctx, catalog) {
		return nil
	}
	return r.ensureData(ctx, catalog, key, fetchConversion)
}

// listedClean reports whether a listing-only reader of the catalog lists
// only files under r.dataPath (compare.Outside) that are absent or regular
// files, no link among them; a file it cannot stat (permission denied) is
// left to ensureData (ensureConversionData).
func (r *repository) listedClean(ctx context.Context, catalog string) bool {
	rd, err := compare.Open(ctx, catalog, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines, ListOnly: true})
	if err != nil {
		return false
	}
	defer rd.Close()
	files, err := rd.StoredFiles(ctx)
	if err != nil {
		return false
	}
	inside, outside := compare.Outside(files, rd.DataPath(), "")
	if outside != nil {
		return false
	}
	for _, f := range inside {
		st, err := os.Lstat(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// absent: the conversion's own reads say so
		case err != nil:
			return false // unreadable: ensureData names it
		case !st.Mode().IsRegular():
			return false // a link (noted by ensureData), or no regular file
		}
	}
	return true
}

// gate is what the run's readers pass as their compare.ReadGate: a
// remote store's data cache, which holds a copy reused from a restored
// cache to the bytes the store delivered just before a reader reads it
// (remote.Readable), and no copy no reader reads. nil for a folder,
// whose files are read in place.
func (r *repository) gate() compare.ReadGate {
	if r.remote == nil {
		return nil
	}
	return r.remote
}

// convGate is gate for a conversion (convert.ReadGate, the same shape):
// a conversion's checks and rewrites hold each copy to the store's bytes
// just before they read it. nil for a folder.
func (r *repository) convGate() convert.ReadGate {
	if r.remote == nil {
		return nil
	}
	return r.remote
}

// fileLister lists every data and delete file a catalog names and the data
// path they resolve against (storedFiles, or a reader's StoredFiles and
// DataPath).
type fileLister func(ctx context.Context) (files []compare.StoredFile, dataPath string, _ error)

// ensureListed is ensureData over the files list gives, for a caller that
// holds a reader of the catalog already. listed is false when a local
// store's listing failed and was left to the next step (ensureData), so
// that a caller keeping the result (frozenCopies.fetch) lists again later.
func (r *repository) ensureListed(ctx context.Context, list fileLister, key string, scope fetchScope) (listed bool, _ error) {
	files, dataPath, err := list(ctx)
	if err != nil {
		if r.remote == nil && ctx.Err() == nil {
			return false, nil
		}
		return false, err
	}
	inside, outside := compare.Outside(files, dataPath, key)
	var fetchErr error
	if r.remote != nil {
		fetchErr = r.remote.ensureFiles(ctx, inside, dataPath, scope)
	} else {
		// A folder's files are read in place, by DuckDB: none that is not
		// a regular file may be opened.
		fetchErr = r.notRegular(inside, key)
	}
	if outside != nil {
		return true, &OutsideError{OutsideDataPathError: outside, Other: fetchErr}
	}
	return true, fetchErr
}

// storedFiles lists every data and delete file a catalog names, and the
// data path they resolve against. With a Source (a version's frozen
// catalog, whose proofs follow), the catalog is read with the Source's
// reader, which the proofs then use: it is opened once for all of them.
func (r *repository) storedFiles(ctx context.Context, catalog, key string, source *compare.Source) ([]compare.StoredFile, string, error) {
	rd, done, err := source.Reader(ctx, catalog, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines, Listings: r.listings, Gate: r.gate()})
	if err != nil {
		return nil, "", fmt.Errorf("%w %s: %w", errListFiles, key, err)
	}
	defer done()
	return readerLister(rd, key)(ctx)
}

// readerLister lists the files of the catalog rd reads (key names it in
// errors, which match errListFiles).
func readerLister(rd *compare.Reader, key string) fileLister {
	return func(ctx context.Context) ([]compare.StoredFile, string, error) {
		files, err := rd.StoredFiles(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("%w %s: %w", errListFiles, key, err)
		}
		return files, rd.DataPath(), nil
	}
}

// missingDataWarning warns when the folder the run reads data files from
// does not exist at all: a misspelt data_dir ("nodata/") made plan and
// backfill say nothing, and check report every data file unverifiable
// ("open .../nodata/...parquet: no such file") without saying why. The
// folder is --data where given (Options.DataPath), else data_dir in a
// local repository; in a bucket, data_dir's prefix holding no object,
// asked in one request (store.PrefixChecker). A web site's listing cannot
// tell an absent folder from an unlisted one: nothing is said there. A
// repository that needs no data folder (needsNoData) is not warned of.
// "" when there is nothing to say.
func (r *repository) missingDataWarning(ctx context.Context, opts *Options) string {
	if r.needsNoData() {
		return ""
	}
	dataDir := r.cfg.DataDir
	switch {
	case opts.DataPath != "":
		if folderMissing(r.dataPath) {
			return fmt.Sprintf("--data %s does not exist: no data file the catalogs name can be read (check reports each as unverifiable); give the folder that holds the data files of data_dir %q", strings.TrimSuffix(r.dataPath, string(os.PathSeparator)), dataDir)
		}
	case r.remote == nil:
		if folderMissing(r.dataPath) {
			return fmt.Sprintf("data_dir %q in fdl.json resolves to %s, which does not exist: no data file the catalogs name can be read there, by readers or by check (which reports each as unverifiable); correct data_dir in fdl.json (a misspelt name?) or restore the folder", dataDir, strings.TrimSuffix(r.dataPath, string(os.PathSeparator)))
		}
	default:
		pc, ok := store.Base(r.st).(store.PrefixChecker)
		if !ok {
			return ""
		}
		prefix := strings.TrimSuffix(r.remote.dataKey, "/") + "/"
		if found, err := pc.HasPrefix(ctx, prefix); err == nil && !found {
			return fmt.Sprintf("data_dir %q in fdl.json: no object under %s in %s: no data file the catalogs name can be read there, by readers or by check (which reports each as unverifiable); correct data_dir in fdl.json (a misspelt name?) or upload the data files", dataDir, prefix, location(store.Base(r.st)))
		}
	}
	return ""
}

// needsNoData reports whether, as far as the run knows without reading a
// catalog, no version of the repository names a data file, so that its
// publisher may never have made a data folder: a repository without
// versions, or one whose every version has a files.json, the bytes
// version.json hashes, that lists no data file (every table empty at the
// version's snapshot). It is called after the plan read the files.json of
// the versions it planned (versionIssues). Every version counts, since a
// version's catalog also names its parents' files: a run of some versions
// (--versions, --shard) does not know, and warns as before; so does one
// where a version has no files.json, or is expired (its files.json
// deleted with its catalogs). A catalog may name files that no files.json
// lists, written and removed between two versions' snapshots (check then
// reports each as unverifiable, without this warning).
func (r *repository) needsNoData() bool {
	for _, v := range r.versions {
		if !v.indexesNoData {
			return false
		}
	}
	return true
}

// folderMissing reports whether path names nothing at all (a file or a
// folder it cannot read is no missing folder: the reads say what fails).
func folderMissing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

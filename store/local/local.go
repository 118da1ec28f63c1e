// Package local is the store.Store of a folder on a local file system.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/fdl-formats/fdl-formats/internal/durable"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/fileid"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// TempDirName is store.TempDir, the folder where Create writes its
// temporary files ("create-<owner>-*.tmp"): directly under the root, or,
// for a key whose folder is on another file system than the root (a
// versions/, version or data folder linked onto another disk), in the
// topmost folder of the key's path on that file system (see StageDir).
// List shows no folder of that name, at any depth; Create removes it again
// when it is empty, and TempDirs finds those left behind.
const TempDirName = store.TempDir

// ErrLinkLoop is returned (wrapped) by List for a symbolic link to a
// folder that contains it.
var ErrLinkLoop = errors.New("symbolic link loop")

// tempPrefix starts the names of Create's temporary files in TempDirName.
const tempPrefix = "create-"

// Store stores objects as files under a root folder.
type Store struct {
	root string
}

var (
	_ store.Store        = (*Store)(nil)
	_ store.PathStore    = (*Store)(nil)
	_ store.FolderLister = (*Store)(nil)
)

// New returns the store of the folder root, which must exist.
func New(root string) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("open store %s: not a folder", root)
	}
	return &Store{root: abs}, nil
}

// Root is the store's folder.
func (l *Store) Root() string { return l.root }

// Path implements store.PathStore.
func (l *Store) Path(key string) (string, error) {
	if err := store.ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Open implements store.Store.
func (l *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := l.Path(key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A named pipe, socket or device is no object (List shows none), and
	// opening a pipe blocks until a writer comes (a FIFO named fdl.json
	// hung every command): told apart before.
	if st, err := os.Stat(p); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("open %s: a special file (named pipe, socket or device), not a regular file", key)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("open %s: a folder: %w", key, fs.ErrNotExist)
	}
	return f, nil
}

// Stat implements store.Store.
func (l *Store) Stat(ctx context.Context, key string) (store.ObjectInfo, error) {
	p, err := l.Path(key)
	if err != nil {
		return store.ObjectInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.ObjectInfo{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return store.ObjectInfo{}, fmt.Errorf("stat %s: %w", key, err)
	}
	if st.IsDir() {
		return store.ObjectInfo{}, fmt.Errorf("stat %s: a folder: %w", key, fs.ErrNotExist)
	}
	return store.ObjectInfo{Key: key, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// List implements store.Store. It walks only the folder the prefix names.
//
// It follows symbolic links, to folders and to files, wherever they point
// (a publisher may keep a big folder on another disk): readers, Open and
// Stat go through links, so List shows every object they can reach, and a
// version readers can reach is never left out of a check. A link to a
// folder that contains the link (a loop) is an error naming it. A link
// whose target is missing is no object (Open fails on it too) and is not
// listed, like sockets, pipes and devices.
func (l *Store) List(ctx context.Context, prefix string) ([]store.ObjectInfo, error) {
	objs, _, err := l.list(ctx, prefix, false)
	return objs, err
}

// ListFolders implements store.FolderLister: List, with the folders below
// prefix it walked, each ending in "/", those holding no file too (an
// empty version folder, which readers find nothing in but a check names).
func (l *Store) ListFolders(ctx context.Context, prefix string) ([]store.ObjectInfo, []string, error) {
	return l.list(ctx, prefix, true)
}

// list is List, and with folders ListFolders.
func (l *Store) list(ctx context.Context, prefix string, folders bool) ([]store.ObjectInfo, []string, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, nil, err
	}
	// The folder the prefix names, and every folder above it up to the
	// root: the walk's ancestors, for finding loops.
	dirKey := ""
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dirKey = prefix[:i]
	}
	ancestors, err := l.ancestors(dirKey)
	if err != nil || ancestors == nil {
		if err != nil {
			err = fmt.Errorf("list %s: %w", prefix, err)
		}
		return []store.ObjectInfo{}, nil, err
	}
	w := walker{ctx: ctx, prefix: prefix, out: []store.ObjectInfo{}, withFolders: folders}
	if err := w.walk(filepath.Join(l.root, filepath.FromSlash(dirKey)), dirKey, ancestors); err != nil {
		return nil, nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	sort.Slice(w.out, func(i, j int) bool { return w.out[i].Key < w.out[j].Key })
	sort.Strings(w.folders)
	return w.out, w.folders, nil
}

// ancestors stats the root and each folder on the way to the folder dirKey
// names, following links; nil (no error) when that folder does not exist.
func (l *Store) ancestors(dirKey string) ([]fs.FileInfo, error) {
	st, err := os.Stat(l.root)
	if err != nil {
		return nil, err
	}
	out := []fs.FileInfo{st}
	if dirKey == "" {
		return out, nil
	}
	p, key := l.root, ""
	for _, part := range strings.Split(dirKey, "/") {
		p, key = filepath.Join(p, part), path.Join(key, part)
		st, err := statFollow(p, key)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			return nil, nil
		case err != nil:
			return nil, err
		case !st.IsDir():
			return nil, nil
		}
		if err := checkLoop(key, st, out); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// walker lists the objects under a folder whose key starts with prefix.
type walker struct {
	ctx    context.Context
	prefix string
	out    []store.ObjectInfo
	// withFolders: folders gets the "/"-ended keys of the folders walked
	// below prefix (ListFolders).
	withFolders bool
	folders     []string
}

// walk lists the folder dir (key dirKey, "" for the root); ancestors are
// the folders from the root down to dir, itself included.
func (w *walker) walk(dir, dirKey string, ancestors []fs.FileInfo) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed meanwhile (a failed Create's new folder)
	}
	if err != nil {
		return err
	}
	for _, d := range des {
		if d.Name() == TempDirName {
			continue // Create's temporary files, at the root or a file system's top
		}
		key := path.Join(dirKey, d.Name())
		// Only entries that can hold or be a key with the prefix.
		if !strings.HasPrefix(key, w.prefix) && !strings.HasPrefix(w.prefix, key+"/") {
			continue
		}
		p := filepath.Join(dir, d.Name())
		var info fs.FileInfo
		if d.Type()&fs.ModeSymlink != 0 {
			if info, err = statFollow(p, key); errors.Is(err, fs.ErrNotExist) {
				continue // a broken link, or removed meanwhile: no object
			} else if err != nil {
				return err
			}
		} else if d.IsDir() || d.Type().IsRegular() {
			if info, err = d.Info(); errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			} else if err != nil {
				return err
			}
		} else {
			continue // a socket, pipe or device: no object
		}
		switch {
		case info.IsDir():
			if err := checkLoop(key, info, ancestors); err != nil {
				return err
			}
			if w.withFolders && strings.HasPrefix(key+"/", w.prefix) && key+"/" != w.prefix {
				w.folders = append(w.folders, key+"/")
			}
			if err := w.walk(p, key, append(slices.Clip(ancestors), info)); err != nil {
				return err
			}
		case info.Mode().IsRegular() && strings.HasPrefix(key, w.prefix):
			w.out = append(w.out, store.ObjectInfo{Key: key, Size: info.Size(), ModTime: info.ModTime()})
		}
	}
	return nil
}

// statFollow stats p through any links. Its error wraps fs.ErrNotExist
// when p or its target is missing; a link that cannot be followed for
// another reason (one that loops on itself) is an error naming it.
func statFollow(p, key string) (fs.FileInfo, error) {
	st, err := os.Stat(p)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return st, err
	}
	if lst, lerr := os.Lstat(p); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		return nil, fmt.Errorf("%s: symbolic link to %s: %w", key, target, err)
	}
	return nil, err
}

// checkLoop fails when the folder st (at key) is one of its own ancestors:
// a link that leads back up would make the walk endless.
func checkLoop(key string, st fs.FileInfo, ancestors []fs.FileInfo) error {
	for _, a := range ancestors {
		if os.SameFile(a, st) {
			return fmt.Errorf("%s: a symbolic link back to a folder that contains it: %w", key, ErrLinkLoop)
		}
	}
	return nil
}

// Create implements store.Store: it writes a temporary file in the
// TempDirName folder on the final name's file system (StageDir), syncs it,
// and hard-links it to the final name. link(2) fails if the name exists,
// so of concurrent creators exactly one wins and no object is ever
// replaced or seen half-written. Every error path removes the temporary
// file and any folder Create made.
func (l *Store) Create(ctx context.Context, key string, r io.Reader) (err error) {
	final, err := l.Path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	if _, err := os.Lstat(final); err == nil {
		return fmt.Errorf("create %s: %w", key, store.ErrExists)
	}
	stage := l.stageDir(filepath.Dir(final))
	tmp, err := l.writeTemp(ctx, stage, r)
	if err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	defer func() {
		if rmErr := os.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("create %s: remove temporary file: %w", key, rmErr)
		}
		// Leave no empty temp folder behind; fails harmlessly while
		// another writer still uses it.
		_ = os.Remove(stage)
	}()
	// A failing writer may remove a folder this one just made; retry then.
	for attempt := 0; ; attempt++ {
		made, err := mkdirAll(filepath.Dir(final))
		if errors.Is(err, fs.ErrExist) && attempt < 3 {
			continue // a folder removed between os.MkdirAll's mkdir and its look
		}
		if err != nil {
			return fmt.Errorf("create %s: %w", key, err)
		}
		if err = faults.At(ctx, "local/link", tmp); err == nil {
			err = os.Link(tmp, final)
		}
		if err == nil {
			break
		}
		removeDirs(made)
		switch {
		case errors.Is(err, fs.ErrExist):
			return fmt.Errorf("create %s: %w", key, store.ErrExists)
		case errors.Is(err, fs.ErrNotExist) && attempt < 3:
			continue
		}
		return fmt.Errorf("create %s: %w", key, err)
	}
	// Make the new name durable, and the name of each folder above it up to
	// the root (each folder's name lives in its parent): else a crash could
	// lose a new catalogs/ folder, and with it the file Create reported
	// written. All of them, not only those this call made: another writer
	// may have made a folder and not synced its parent yet. Syncing a folder
	// with nothing new is cheap, and keys are a few folders deep.
	for _, dir := range l.syncDirs(filepath.Dir(final)) {
		if err := faults.At(ctx, "local/syncdir", dir); err != nil {
			return fmt.Errorf("create %s: sync folder %s: %w", key, dir, err)
		}
		if err := durable.SyncDir(dir); err != nil {
			return fmt.Errorf("create %s: sync folder %s: %w", key, dir, err)
		}
	}
	return nil
}

// StageDir is the folder where Create writes the temporary files of the
// objects directly in the folder dirKey ("" for the root): TempDirName in
// the topmost folder, from the root down to dirKey's, on dirKey's file
// system. That is the root's own TempDirName when dirKey's folder is on
// the root's file system (no link or mount point onto another in between),
// or when the system does not tell file systems apart. A caller that
// publishes files there with link(2) (the converter's rewritten delete
// files in the data folder) stages them in it too.
func (l *Store) StageDir(dirKey string) (string, error) {
	if dirKey == "" {
		return filepath.Join(l.root, TempDirName), nil
	}
	if err := store.ValidateKey(dirKey); err != nil {
		return "", err
	}
	return l.stageDir(filepath.Join(l.root, filepath.FromSlash(dirKey))), nil
}

// stageDir is StageDir of the folder dir, a path under the root. A folder
// not made yet is on the file system of the deepest one above it that
// exists (mkdirAll makes it there); errors leave the root's. File systems
// are told apart by mount (fileid.FileSystem), not only by device number:
// link(2) fails across two mounts of one file system too (a bind mount).
func (l *Store) stageDir(dir string) string {
	rootTemp := filepath.Join(l.root, TempDirName)
	rel, err := filepath.Rel(l.root, dir)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return rootTemp
	}
	// The folders from the root down to dir's deepest existing one,
	// through links, with their file systems.
	paths, fss := []string{l.root}, []string{""}
	if fss[0], err = fileid.FileSystem(l.root); err != nil {
		return rootTemp
	}
	p := l.root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			break
		}
		f, err := fileid.FileSystem(p)
		if err != nil {
			return rootTemp
		}
		paths, fss = append(paths, p), append(fss, f)
	}
	want := fss[len(fss)-1]
	for i, f := range fss {
		if f == want {
			return filepath.Join(paths[i], TempDirName)
		}
	}
	return rootTemp
}

// TempDirs lists the TempDirName folders under the root, through links (as
// List walks): the root's, and those Create made at the top of another
// file system (StageDir), where a writer killed before its cleanup leaves
// its temporary files for a sweep (internal/scratch) to remove. A missing
// root lists none.
func (l *Store) TempDirs(ctx context.Context) ([]string, error) {
	st, err := os.Stat(l.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	var walk func(dir, key string, ancestors []fs.FileInfo) error
	walk = func(dir, key string, ancestors []fs.FileInfo) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		des, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, d := range des {
			p, k := filepath.Join(dir, d.Name()), path.Join(key, d.Name())
			if !d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
				continue
			}
			info, err := statFollow(p, k)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return err
			}
			if !info.IsDir() {
				continue
			}
			if d.Name() == TempDirName {
				out = append(out, p)
				continue
			}
			if err := checkLoop(k, info, ancestors); err != nil {
				return err
			}
			if err := walk(p, k, append(slices.Clip(ancestors), info)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(l.root, "", []fs.FileInfo{st}); err != nil {
		return nil, fmt.Errorf("find temporary folders: %w", err)
	}
	return out, nil
}

// syncDirs lists dir (a folder under the root) and every folder above it
// up to the root, deepest first.
func (l *Store) syncDirs(dir string) []string {
	out := []string{dir}
	for d := dir; d != l.root; {
		parent := filepath.Dir(d)
		if parent == d { // not under the root: cannot happen for a valid key
			break
		}
		d = parent
		out = append(out, d)
	}
	return out
}

// writeTemp copies r into a new synced temporary file and returns its path;
// on error it removes the file.
func (l *Store) writeTemp(ctx context.Context, dir string, r io.Reader) (path string, err error) {
	if err := faults.At(ctx, "local/temp", dir); err != nil {
		return "", err
	}
	f, err := scratch.CreateTemp(dir, tempPrefix, ".tmp")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			_ = os.Remove(dir) // only if empty
		}
	}()
	// Published objects are read by others; CreateTemp makes 0600.
	if err := f.Chmod(0o644); err != nil {
		return "", err
	}
	if _, err := io.Copy(f, store.ContextReader(ctx, r)); err != nil {
		return "", fmt.Errorf("write: %w", err)
	}
	for _, step := range []string{"write", "sync"} {
		if err := faults.At(ctx, "local/"+step, f.Name()); err != nil {
			return "", err
		}
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("sync: %w", err)
	}
	if err := faults.At(ctx, "local/close", f.Name()); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("close: %w", err)
	}
	return f.Name(), nil
}

// mkdirAll is os.MkdirAll that returns the folders it made, deepest first.
func mkdirAll(dir string) ([]string, error) {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return made, nil
}

// removeDirs removes folders Create made, if still empty (another writer
// may have put something there meanwhile).
func removeDirs(dirs []string) {
	for _, d := range dirs {
		if err := os.Remove(d); err != nil {
			return
		}
	}
}

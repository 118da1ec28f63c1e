// Package local is the store.Store of a folder on a local file system.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/durable"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
	"github.com/fdl-formats/fdl-formats/store"
)

// TempDirName is store.TempDir, the folder directly under the root where
// Create writes its temporary files ("create-<owner>-*.tmp"). List does not
// show it; Create removes it again when it is empty.
const TempDirName = store.TempDir

// tempPrefix starts the names of Create's temporary files in TempDirName.
const tempPrefix = "create-"

// Store stores objects as files under a root folder.
type Store struct {
	root string
}

var (
	_ store.Store     = (*Store)(nil)
	_ store.PathStore = (*Store)(nil)
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
func (l *Store) List(ctx context.Context, prefix string) ([]store.ObjectInfo, error) {
	if err := store.ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	start := l.root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = filepath.Join(l.root, filepath.FromSlash(prefix[:i]))
	}
	out := []store.ObjectInfo{}
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == start {
				return filepath.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(l.root, p)
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			if key == TempDirName {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		out = append(out, store.ObjectInfo{Key: key, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Create implements store.Store: it writes a temporary file in TempDirName,
// syncs it, and hard-links it to the final name. link(2) fails if the name
// exists, so of concurrent creators exactly one wins and no object is ever
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
	tmp, err := l.writeTemp(ctx, r)
	if err != nil {
		return fmt.Errorf("create %s: %w", key, err)
	}
	defer func() {
		if rmErr := os.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("create %s: remove temporary file: %w", key, rmErr)
		}
		// Leave no empty temp folder behind; fails harmlessly while
		// another writer still uses it.
		_ = os.Remove(filepath.Join(l.root, TempDirName))
	}()
	// A failing writer may remove a folder this one just made; retry then.
	for attempt := 0; ; attempt++ {
		made, err := mkdirAll(filepath.Dir(final))
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
	// Make the new name durable.
	if err := durable.SyncDir(filepath.Dir(final)); err != nil {
		return fmt.Errorf("create %s: sync folder: %w", key, err)
	}
	return nil
}

// writeTemp copies r into a new synced temporary file and returns its path;
// on error it removes the file.
func (l *Store) writeTemp(ctx context.Context, r io.Reader) (path string, err error) {
	dir := filepath.Join(l.root, TempDirName)
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

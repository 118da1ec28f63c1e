package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fdl-formats/fdl-formats/store"
)

// Catalogs are opened only from private copies: DuckDB reads a catalog
// together with any write-ahead log beside it (<file>.wal) and replays it,
// so opening a catalog in place could read bytes that were never hashed.
// A copy in a private folder has nothing beside it, and the frozen
// catalog's copy is hashed as it is written, so what is opened is exactly
// what matched version.json.

// copyFrozen copies a version's frozen catalog into dir and returns the
// copy, if its size and sha256 match version.json.
func (r *repository) copyFrozen(ctx context.Context, v *version, dir string) (string, Problem, error) {
	ref := v.meta.Catalog.FileRef
	key := v.prefix() + ref.Path
	if info, ok := v.objects[ref.Path]; ok && info.Size != ref.Bytes {
		problem, err := sizeProblem(ctx, r.st, key, info.Size, ref.Bytes)
		return "", problem, err
	}
	if r.remote != nil {
		// Downloaded once per run into the run's private work folder,
		// hashed as it was written (nothing else is ever written there).
		local, _, problem, err := r.remote.catalog(ctx, key, &ref)
		return local, problem, err
	}
	local, sum, n, err := copyObject(ctx, r, key, dir)
	if err != nil {
		return "", ProblemUnreadable, err
	}
	if problem, err := matchRef(key, ref.Bytes, ref.SHA256, n, sum); err != nil {
		os.Remove(local)
		return "", problem, err
	}
	r.names.add(local, keyName(r.st, key))
	return local, "", nil
}

// copyObject copies an object into a new file in dir, and returns the
// file's path, the sha256 of the bytes copied and their number. The copy
// is held to the ranged read of its end that DuckDB's reads are
// (copyHeld), as a run's frozen catalogs and data files are: from a run's
// remote store through it (remote.copyHeld), from a plain one (resolve
// --verify) directly.
func copyObject(ctx context.Context, r *repository, key, dir string) (local, sum string, n int64, err error) {
	if r.remote != nil {
		return r.remote.copyHeld(ctx, key, dir)
	}
	// A plain store (resolve): held to the ranged read of its end too
	// (a store without ranged reads gives only the size to hold it to).
	c := store.NewCounter(r.st)
	return copyHeld(ctx, key, dir, func(ctx context.Context, key string) ([]byte, store.ObjectInfo, error) {
		return c.ReadTail(ctx, key, tailBytes)
	}, func(ctx context.Context, key, dst string) (string, int64, *store.ObjectInfo, error) {
		sum, n, info, err := downloadInfo(ctx, c, key, dst, filepath.Dir(dst), nil)
		if _, local := store.Base(r.st).(store.PathStore); local && err != nil {
			// A folder's os error names its path; the key beside it, as
			// before. A bucket's or site's names the object where it is.
			err = fmt.Errorf("%s: %w", key, err)
		}
		return sum, n, info, err
	})
}

// matchRef compares what was read of a file with version.json's record.
func matchRef(key string, wantBytes int64, wantSum string, n int64, sum string) (Problem, error) {
	if n != wantBytes {
		return ProblemMismatch, fmt.Errorf("%s: %d bytes, version.json says %d", key, n, wantBytes)
	}
	if sum != wantSum {
		return ProblemMismatch, fmt.Errorf("%s: sha256 %s, version.json says %s", key, sum, wantSum)
	}
	return "", nil
}

// sizeProblem is what it means that the store gives the file key, named in
// version.json, another size (statSize: its listing's or Stat's, a web
// server's HEAD) than version.json records (want). Where the store's Stat
// is another request than its GETs (store.GETSizer: a web server), a GET
// of the file's first byte tells whose fault it is: a GET that gives the
// same size is a file that is not the one recorded (a difference, as on
// any store); one that gives another is a server that disagrees with
// itself about the file (a proxy, cache or application answering HEAD
// otherwise than GET), which blamed the version (exit 3) though its GETs
// give the recorded bytes: unverifiable, naming the HEAD's Content-Length.
// Asked only on a disagreement: a size that matches costs no request.
func sizeProblem(ctx context.Context, st store.Store, key string, statSize, want int64) (Problem, error) {
	mismatch := fmt.Errorf("%s: %d bytes, version.json says %d", key, statSize, want)
	gs, ok := store.Base(st).(store.GETSizer)
	if !ok {
		return ProblemMismatch, mismatch
	}
	got, err := gs.GETSize(ctx, key)
	switch {
	case err != nil:
		// The object named once, where it is (its URL, as the GET's
		// error names it): the GET's cause alone after it.
		return ProblemUnreadable, fmt.Errorf("%s: %d bytes by the server's HEAD (Content-Length), version.json says %d, and the GET that would tell a wrong size from a wrong file failed: %w", objectName(st, key), statSize, want, store.Cause(err))
	case got == statSize:
		return ProblemMismatch, mismatch
	case got == want:
		return ProblemUnreadable, store.SizeDisagrees(fmt.Errorf("%s: %d bytes by the server's HEAD (Content-Length), but %d by a GET, as version.json records: the server disagrees with itself about the file's size (a proxy, cache or application answering HEAD otherwise than GET); DuckDB sizes a file by its HEAD, so its readers may fail on it: fix the server", key, statSize, got))
	}
	return ProblemUnreadable, store.SizeDisagrees(fmt.Errorf("%s: %d bytes by the server's HEAD (Content-Length), %d by a GET, %d by version.json: the server disagrees with itself about the file's size (a proxy, cache or application answering HEAD otherwise than GET, or the file changed meanwhile), so which file readers get cannot be told: fix the server", key, statSize, got, want))
}

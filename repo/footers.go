package repo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/store"
)

// A conversion's check reads the footers of a version's data files (field
// ids, footer quirks, the struct-skip check's row groups): plan, check and
// backfill --dry-run run it on every missing cell. A remote repository's
// data folder is the cache's mirror, which holds only the copies earlier
// runs downloaded; a check that skipped the others gave a cold plan
// another verdict than a warm one or a local one. So the remote gives the
// check (convert.FooterSource) a stand-in for each data file the mirror
// lacks: "PAR1", the object's footer, its length and "PAR1", read by two
// ranged reads of its end (the last 8 bytes give the footer's length, then
// the footer), which DuckDB's parquet_schema, parquet_metadata and
// parquet_kv_metadata read as they read the file. A check that reads rows
// gets the whole file (Fetch) instead.
//
// Stand-ins are never in the mirror (no proof or reader of data takes one
// for the data file): those of objects with a strong ETag are kept in
// <hash>.footers/ beside it, named by the object's key, size and ETag, so
// that a warm plan reads only the 8 bytes that revalidate each (what a
// copy costs); the others (a weak ETag, a Last-Modified time) in the run's
// work folder, for the run only.
const footersSuffix = ".footers"

// footerMagic ends a Parquet file, after the footer's length; it also
// starts one.
const footerMagic = "PAR1"

// Footers implements convert.FooterSource: a stand-in for each of locals
// (paths under the mirror, which lacks them) that names an object of the
// store, at most Options.Downloads read at a time. An object the store
// lacks is left out, as a missing file is skipped; one whose end is not a
// Parquet footer is downloaded whole instead, so that the check fails on
// it as on the file.
func (rm *remote) Footers(ctx context.Context, locals []string) (map[string]string, error) {
	paths := make([]string, len(locals))
	errs := make([]error, len(locals))
	var wg sync.WaitGroup
	for i, local := range locals {
		key, ok := rm.keyOf(local)
		if !ok {
			continue
		}
		wg.Go(func() {
			f := rm.once(rm.footers, key, func(f *fetch) { f.path, f.err = rm.footer(ctx, key) })
			paths[i], errs[i] = f.path, f.err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(locals))
	for i, p := range paths {
		if p != "" {
			out[locals[i]] = p
		}
	}
	return out, nil
}

// Fetch implements convert.FooterSource: the whole data file at local,
// downloaded into the mirror and held to the store as every copy is.
func (rm *remote) Fetch(ctx context.Context, local string) error {
	key, ok := rm.keyOf(local)
	if !ok {
		return fmt.Errorf("%s is not in the data cache of %s", local, rm.Name())
	}
	if err := rm.dataFile(ctx, cachedFile{key: key}); err != nil {
		return err
	}
	return rm.readable(ctx, []string{key})
}

// keyOf is the object key of a path under the mirror (localPath's
// converse).
func (rm *remote) keyOf(local string) (string, bool) {
	rel, err := filepath.Rel(rm.local, local)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rm.dataKey + filepath.ToSlash(rel), true
}

// footer makes the stand-in of the object key and returns its path ("" for
// an object the store lacks), or the whole file's where the object's end
// is no Parquet footer.
func (rm *remote) footer(ctx context.Context, key string) (string, error) {
	select {
	case rm.slots <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	path, whole, err := rm.footerHeld(ctx, key)
	<-rm.slots // Fetch takes a slot of its own
	if whole {
		return rm.localPath(key), rm.Fetch(ctx, rm.localPath(key))
	}
	return path, err
}

// footerHeld is footer within a download slot; whole asks for the whole
// file instead.
func (rm *remote) footerHeld(ctx context.Context, key string) (path string, whole bool, _ error) {
	tail, info, err := rm.readTail(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil // missing: the proof reports it
	}
	if err != nil {
		return "", false, fmt.Errorf("data file %s: %w", key, err)
	}
	if len(tail) != tailBytes || string(tail[4:]) != footerMagic {
		return "", true, nil
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n+int64(2*len(footerMagic))+4 > info.Size {
		return "", true, nil
	}
	dir, name := rm.footerPlace(key, info)
	path = filepath.Join(dir, name)
	if mine, err := fileTail(path, tailBytes); err == nil && bytes.Equal(mine, tail) {
		if st, err := os.Stat(path); err == nil && st.Size() == n+12 {
			rm.mu.Lock()
			rm.stats.FootersCached++
			rm.mu.Unlock()
			return path, false, nil
		}
	}
	end, again, err := rm.counter.ReadTail(ctx, key, n+tailBytes)
	if err != nil {
		return "", false, fmt.Errorf("data file %s: the footer: %w", key, err)
	}
	if again.Size != info.Size || again.ETag != info.ETag || !again.ModTime.Equal(info.ModTime) || int64(len(end)) != n+tailBytes || !bytes.Equal(end[n:], tail) {
		return "", false, fmt.Errorf("data file %s: its footer, read by a ranged read after its last %d bytes, is not of the same object (changed while read?): %w", key, tailBytes, errStoreDiffers)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("data file %s: keep its footer: %w", key, err)
	}
	f, err := os.CreateTemp(dir, ".footer-*")
	if err == nil {
		_, err = f.Write(standIn(end))
		err = errors.Join(err, f.Close())
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}
	if err != nil {
		return "", false, fmt.Errorf("data file %s: keep its footer: %w", key, err)
	}
	rm.mu.Lock()
	rm.stats.Footers++
	rm.mu.Unlock()
	return path, false, nil
}

// footerPlace is the folder and name of the stand-in of the object key as
// the store describes it: beside the mirror, named by key, size and ETag,
// where the ETag is strong (it names the bytes); in the run's work folder
// otherwise, where nothing else reuses it.
func (rm *remote) footerPlace(key string, info store.ObjectInfo) (dir, name string) {
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.FormatInt(info.Size, 10) + "\x00" + info.ETag))
	name = hex.EncodeToString(sum[:16]) + ".parquet"
	if rm.catalogDir != "" && strongValidator(&info) {
		return rm.cacheDir + footersSuffix, name
	}
	return filepath.Join(rm.work, "footers"), name
}

// standIn is the stand-in of a Parquet file whose last bytes are end (its
// footer, the footer's length and "PAR1"): "PAR1" and end, which DuckDB's
// footer readers read as they read the file.
func standIn(end []byte) []byte {
	return append([]byte(footerMagic), end...)
}

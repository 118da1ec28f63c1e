package repo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// A repository's frozen catalogs are kept between runs beside its mirror,
// in objects/<hash>.catalogs/, each named by the sha256 version.json
// records for it (<sha256>) with, in <sha256>.validator, the validator of
// the response that delivered its bytes (the data files' rule: its ETag,
// else its Last-Modified time and size). Before, every run downloaded every
// frozen catalog (a nightly backfill with nothing to do paid the egress of
// all of them).
//
// A cached catalog is used only when
//
//   - the object in the store still has the bytes it was downloaded with:
//     its validator, from the HEAD and ranged GET of its last bytes a data
//     file is revalidated with (so the object can still be read as readers
//     read it), is the cached one, and its last bytes are the cached
//     copy's. A frozen catalog changed in the store (its bytes no longer
//     the ones version.json hashes) is therefore downloaded and found, as
//     before: the cache never answers for the store;
//   - and the copy made of it into the run's work folder (the only file
//     ever opened, as for a download) hashes to version.json's size and
//     sha256. A cached file that does not (changed in the cache) is
//     removed and the catalog downloaded.
//
// Only a download that matched version.json is kept, written to a
// temporary file in the mirror's .tmp folder and renamed into place, so
// that runs sharing the cache never see part of a file. With --no-cache or
// --data nothing is kept (catalogDir is "").
const catalogsSuffix = ".catalogs"

// cachedFrozen copies v's frozen catalog key, recorded as ref, from the
// cache to dst (hashing the copy, whose first bytes go to hd) when the cache
// holds it and the store still has the same bytes; false when it must be
// downloaded.
func (rm *remote) cachedFrozen(key string, ref *fdljson.FileRef, dst string, hd *head, tail []byte, info store.ObjectInfo) bool {
	cached, ok := rm.frozenPath(ref)
	if !ok {
		return false
	}
	if st, err := os.Stat(cached + validatorSuffix); err != nil || st.Size() == 0 {
		return false // nothing cached: no request
	}
	// Revalidated as a cached data file is (fillCache), by the ranged read
	// of its end the caller made (readTail).
	if info.Size != ref.Bytes || !sameAsCached(cached, tail, info) {
		return false
	}
	sum, n, err := copyHashed(cached, dst, hd)
	if err != nil || n != ref.Bytes || sum != ref.SHA256 {
		os.Remove(dst)
		if err == nil {
			// Not the bytes it is named by: never used again.
			os.Remove(cached + validatorSuffix)
			os.Remove(cached)
			rm.log.Warn("a cached frozen catalog was changed in the cache; downloading it again",
				"catalog", key, "file", cached, "sha256", sum)
		}
		return false
	}
	touch(rm.cacheDir + lastUsedSuffix)
	rm.mu.Lock()
	rm.stats.CatalogsCached++
	rm.mu.Unlock()
	return true
}

// frozenGate is what a whole answer to the ranged read of the frozen
// catalog ref (a server that ignores Range) is offered to before it is
// read (readTailGated): it says to drop the answer unread where the cache
// holds the catalog, ref.Bytes long, under the answer's validator, the
// copy cachedFrozen then takes (and hashes). The catalog is not sent
// again; its last bytes, which only reading all of it gives, are not
// compared (a DuckDB file's end is the unused tail of its last block:
// zeros). Nil where nothing is cached, and an answer without a validator
// or with a weak ETag (W/, which a server may keep over a change of the
// bytes) is never dropped: nothing proves the copy current.
func (rm *remote) frozenGate(ref *fdljson.FileRef) func(store.ObjectInfo) bool {
	cached, ok := rm.frozenPath(ref)
	if !ok {
		return nil
	}
	want, err := os.ReadFile(cached + validatorSuffix)
	if err != nil || len(want) == 0 {
		return nil
	}
	if st, err := os.Stat(cached); err != nil || st.Size() != ref.Bytes {
		return nil
	}
	return func(info store.ObjectInfo) bool {
		v := validator(info)
		return info.Size == ref.Bytes && !info.WeakETag && v != "" && v == string(want)
	}
}

// keepFrozen puts src, a download of a frozen catalog that matched ref,
// into the cache under the validator of the response that delivered it; a
// catalog whose response gave none is not kept (nothing could prove the
// store's copy unchanged). A cache that cannot be written only costs a
// download next time.
func (rm *remote) keepFrozen(src string, ref *fdljson.FileRef, valid string) {
	cached, ok := rm.frozenPath(ref)
	if !ok || valid == "" {
		return
	}
	if err := os.MkdirAll(rm.catalogDir, 0o755); err != nil {
		return
	}
	if err := copyInto(src, cached, rm.tmpDir); err != nil {
		rm.log.Debug("frozen catalog not cached", "file", cached, "error", err)
		return
	}
	if _, _, err := writeHashed(strings.NewReader(valid), cached+validatorSuffix, rm.tmpDir, nil); err != nil {
		rm.log.Debug("frozen catalog not cached", "file", cached, "error", err)
	}
}

// frozenPath is where ref's catalog is cached; false when there is no
// cache, or ref's sha256 is not one (never a path).
func (rm *remote) frozenPath(ref *fdljson.FileRef) (string, bool) {
	// fdljson accepts only 64 lower-case hex digits as a sha256; the
	// length guards callers with another ref.
	if rm.catalogDir == "" || ref == nil || len(ref.SHA256) != sha256.Size*2 {
		return "", false
	}
	return filepath.Join(rm.catalogDir, ref.SHA256), true
}

// copyHashed copies src to dst and returns the sha256 and size of the bytes
// written, whose first bytes go to hd.
func copyHashed(src, dst string, hd *head) (string, int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", 0, err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", 0, err
	}
	sum, n, err := writeHashed(in, dst, filepath.Dir(dst), hd)
	if err != nil {
		return "", 0, fmt.Errorf("copy %s: %w", src, err)
	}
	return sum, n, nil
}

// copyInto copies src to dst as writeHashed does.
func copyInto(src, dst, tmpDir string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	_, _, err = writeHashed(in, dst, tmpDir, nil)
	return err
}

// writeHashed writes what r gives to dst, through a temporary file in
// tmpDir (on dst's file system) renamed into place, and returns the
// sha256 and size of the bytes written, whose first bytes go to hd (nil:
// none): every download, cached copy and cache entry is written so.
func writeHashed(r io.Reader, dst, tmpDir string, hd *head) (string, int64, error) {
	tmp, err := os.CreateTemp(tmpDir, ".download-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	w := io.MultiWriter(tmp, h)
	if hd != nil {
		hd.buf = hd.buf[:0]
		w = io.MultiWriter(tmp, h, hd)
	}
	n, err := io.Copy(w, r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

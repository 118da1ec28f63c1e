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
	"github.com/fdl-formats/fdl-formats/internal/fileid"
	"github.com/fdl-formats/fdl-formats/store"
)

// A repository's frozen catalogs are kept between runs beside its mirror,
// in objects/<hash>.catalogs/, each named by the sha256 version.json
// records for it (<sha256>) with, in <sha256>.validator, the record of the
// response that delivered its bytes (frozenRecord: the data files' rule for
// the validator, its ETag, else its Last-Modified time and size, and
// whether that ETag was strong). Before, every run downloaded every
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
// holds the catalog, ref.Bytes long, under the answer's validator, and
// that validator vouches for the bytes the copy was delivered with
// (vouchesForBytes, the data files' rule: a Last-Modified and size, or an
// ETag not weak now and either strong when the copy was delivered or made
// of the time and size); cachedFrozen then takes (and hashes) the copy.
// The catalog is not sent again; its last bytes, which only reading all of
// it gives, are not compared (a DuckDB file's end is the unused tail of
// its last block: zeros). Nil where nothing is cached. An answer without a
// validator, with a weak ETag (W/, which a server may keep over a change
// of the bytes), or with a content ETag the copy was delivered under as
// weak (a weak W/"x" said nothing of the bytes; "x" sent strong now does
// not make them the copy's), is never dropped: nothing proves the copy
// current.
func (rm *remote) frozenGate(ref *fdljson.FileRef) func(store.ObjectInfo) bool {
	cached, ok := rm.frozenPath(ref)
	if !ok {
		return nil
	}
	rec, ok := readFrozenRecord(cached + validatorSuffix)
	if !ok {
		return nil
	}
	if st, err := os.Stat(cached); err != nil || st.Size() != ref.Bytes {
		return nil
	}
	return func(info store.ObjectInfo) bool {
		v := validator(info)
		return info.Size == ref.Bytes && v != "" && v == rec.validator && vouchesForBytes(rec, info)
	}
}

// keepFrozen puts src, a download of a frozen catalog that matched ref,
// into the cache with the record of the response that delivered it, got
// (its validator and whether it was strong); a catalog whose response gave
// no validator is not kept (nothing could prove the store's copy
// unchanged). A cache that cannot be written only costs a download next
// time.
func (rm *remote) keepFrozen(src string, ref *fdljson.FileRef, got *store.ObjectInfo) {
	cached, ok := rm.frozenPath(ref)
	valid := describedValidator(got)
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
	st, err := os.Stat(cached)
	if err != nil {
		rm.log.Debug("frozen catalog not cached", "file", cached, "error", err)
		return
	}
	rec := copyRecord{validator: valid, size: ref.Bytes, sha256: ref.SHA256, strong: strongValidator(got), stamp: fileid.Stamp(st)}
	if _, _, err := writeHashed(strings.NewReader(rec.encode()), cached+validatorSuffix, rm.tmpDir, nil); err != nil {
		rm.log.Debug("frozen catalog not cached", "file", cached, "error", err)
	}
}

// readFrozenRecord reads the record beside a cached frozen catalog: a
// copyRecord, as a data file's copy has, of which the validator and
// whether it was strong are used. A record written by an earlier release
// holds the validator alone: it is taken as delivered under a validator
// that was not strong, so that only a validator that vouches for the bytes
// by itself (a Last-Modified and size, an ETag made of them) drops an
// answer for it (frozenGate); a content ETag's answer is read once more and
// the record written anew. ok is false for no record.
func readFrozenRecord(path string) (copyRecord, bool) {
	if c, ok := readCopyRecord(path); ok {
		return c, true
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 || strings.HasPrefix(string(b), copyRecordHeader) || strings.ContainsRune(string(b), '\n') {
		return copyRecord{}, false
	}
	return copyRecord{validator: string(b)}, true
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

package repo

import (
	"bytes"
	"context"
	"fmt"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/store"
)

// A check's reader matrix judges each published catalog by its DuckDB
// header (the storage it is saved at). On an s3:// or https:// repository
// the proofs have just downloaded those catalogs, each copy held to the
// run's ranged read of the object (copyHeld: the size, last bytes and ETag
// DuckDB's own reads see), so the matrix takes the header from the first
// bytes of that download instead of a GET of its own per catalog after the
// proofs. Only such a copy counts: one made and held in this run, of the
// object the run's listing described (heldStart); nothing is kept from one
// run to the next. A catalog the run did not download (a format outside
// --formats, an undeclared one, a proof that ended before its download),
// or whose download the listing does not describe (changed between the
// two), is read from the store as before. So the header judged is of the
// bytes the proof judged, the object as the run saw it: a catalog replaced
// after its proof is the next run's to prove and judge, as every object
// changed after the run read it is.

// heldHead is the start of a catalog the run downloaded, held to its
// ranged read (info: what that read said of the object).
type heldHead struct {
	buf  []byte // the first duckfile.HeadersSize bytes (all of a shorter file)
	info store.ObjectInfo
}

// keepHead keeps the start of the held download of key (hd) for the
// reader matrix (catalogHeader).
func (rm *remote) keepHead(key string, hd *head, info store.ObjectInfo) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	rm.heads[key] = heldHead{buf: bytes.Clone(hd.buf), info: info}
}

// heldStart returns the start of this run's held download of key when the
// object it was held to is the one listed: the same size and, where both
// have one, the same ETag (as strong or weak), else, where both have one,
// the same Last-Modified (a web server without ETags); false otherwise.
func (rm *remote) heldStart(key string, listed store.ObjectInfo) ([]byte, bool) {
	rm.mu.Lock()
	h, ok := rm.heads[key]
	rm.mu.Unlock()
	switch {
	case !ok || h.info.Size != listed.Size:
		return nil, false
	case h.info.ETag != "" && listed.ETag != "":
		if h.info.ETag != listed.ETag || h.info.WeakETag != listed.WeakETag {
			return nil, false
		}
	case !h.info.ModTime.IsZero() && !listed.ModTime.IsZero() && !h.info.ModTime.Equal(listed.ModTime):
		return nil, false
	}
	return h.buf, true
}

// catalogHeader reads the DuckDB header of the published catalog rel of
// version v: from this run's held download of it where there is one
// (heldStart), else from the store. Both give the same header, or the
// same error, for the same bytes.
func (r *repository) catalogHeader(ctx context.Context, v *version, rel string) (duckfile.Header, error) {
	key := v.prefix() + rel
	if r.remote != nil {
		if buf, ok := r.remote.heldStart(key, v.objects[rel]); ok {
			h, err := duckfile.Read(bytes.NewReader(buf))
			if err != nil {
				return h, fmt.Errorf("read the header of %s: %w", objectName(r.st, key), err)
			}
			return h, nil
		}
	}
	return readHeader(ctx, r.st, key)
}

package repo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
	"github.com/fdl-formats/fdl-formats/store"
)

// The data cache's mirror of a store's data folder is named in kept proofs
// by the store's objects, not by its files on local disk (compare.Mirror):
// a copy of the cache folder (actions/cache restores it from an archive,
// every file a new inode, maybe at another path) then still finds every
// proof. A copy is named by its object's key, size and validator where the
// validator names the object's bytes (strongValidator: an S3 ETag, a web
// server's strong ETag made from the content), else by what it is on local
// disk, as any folder's file (no proof found again from a copy of the
// cache: a Last-Modified time and size miss a rewrite within the second).
//
// Each run holds every copy a proof reads to the store before the proof
// (fillCache: the object's size, validator and last bytes, as today) and,
// since a proof found again no longer names the copy's inode, to the bytes
// the store delivered: beside each copy its record (copyRecord) keeps their
// sha256 and the copy's stamp on local disk when written (fileid.Stamp). A copy
// whose stamp is not the recorded one (a restored or copied cache, or a
// file changed in the cache) is read again, and used only when its sha256
// is the recorded one, else downloaded again; either way before any
// reader of the run reads it. A proof found again reads no copy.
//
// That read is deferred to the first reader of the copy (unreadCopy,
// readable): a check whose proofs are all found again (a CI run with a
// restored cache) reads no copy, and re-hashing every one of them first
// cost about a cold check. Until then the copy is held by what the run
// asked the store (size, validator, last bytes), which is all that a
// proof found again and the content pass's footer check read of it.

// copyRecordHeader opens a copy's record; a record without it (written by
// an earlier release: the validator alone) is no record, and the copy is
// downloaded again.
const copyRecordHeader = "fdl-formats data copy v1"

// copyRecord is what the data cache keeps beside a copy of a data file, in
// its validator file (validatorSuffix).
type copyRecord struct {
	validator string // validator() of the response that delivered the bytes
	size      int64  // the object's size
	sha256    string // of the bytes delivered
	strong    bool   // the validator names the bytes (strongValidator)
	stamp     string // the copy on local disk when written or last held to sha256 (fileid.Stamp)
}

// encode is the record's text: its header, then one field a line.
func (c copyRecord) encode() string {
	return fmt.Sprintf("%s\nvalidator %s\nsize %d\nsha256 %s\nstrong %t\nstamp %s\n",
		copyRecordHeader, c.validator, c.size, c.sha256, c.strong, c.stamp)
}

// readCopyRecord reads the record at path; ok is false for none, one of an
// earlier release, or one missing a field.
func readCopyRecord(path string) (c copyRecord, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return copyRecord{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || sc.Text() != copyRecordHeader {
		return copyRecord{}, false
	}
	seen := 0
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), " ")
		switch name {
		case "validator":
			c.validator = value
		case "size":
			if c.size, err = strconv.ParseInt(value, 10, 64); err != nil {
				return copyRecord{}, false
			}
		case "sha256":
			c.sha256 = value
		case "strong":
			c.strong = value == "true"
		case "stamp":
			c.stamp = value
		default:
			continue
		}
		seen++
	}
	if sc.Err() != nil || seen != 5 || c.validator == "" || c.sha256 == "" {
		return copyRecord{}, false
	}
	return c, true
}

// strongValidator reports whether an object's validator names its bytes,
// so that a copy held to it may be named by it in a proof's key: an ETag
// not sent as weak (W/) and not made of the Last-Modified time and size
// alone (etagOfTimeAndSize), as S3's (an MD5 of the bytes or of their
// parts) and those of servers that hash the content.
func strongValidator(info *store.ObjectInfo) bool {
	return info != nil && info.ETag != "" && !info.WeakETag && !etagOfTimeAndSize(info.ETag, info.ModTime, info.Size)
}

// etagOfTimeAndSize reports whether an ETag is made of the file's
// modification time and size, as web servers' default ETags are (nginx:
// "<mtime seconds hex>-<size hex>"; Apache: "<size hex>-<mtime
// microseconds hex>", or with the inode first): a rewrite within the same
// second that keeps the size keeps it. Told by its dash-separated hex parts
// holding the size and the Last-Modified second (in seconds or
// microseconds).
func etagOfTimeAndSize(etag string, mod time.Time, size int64) bool {
	parts := strings.Split(etag, "-")
	if len(parts) < 2 || mod.IsZero() {
		return false
	}
	hasSize, hasTime := false, false
	for _, p := range parts {
		v, err := strconv.ParseUint(p, 16, 64)
		if err != nil {
			return false
		}
		switch {
		case !hasSize && size >= 0 && v == uint64(size):
			hasSize = true
		case v == uint64(mod.Unix()) || v/1_000_000 == uint64(mod.Unix()):
			hasTime = true
		}
	}
	return hasSize && hasTime
}

// Name names the store folder the mirror holds (compare.Mirror): the
// store's location (bucket and endpoint, or URL) and data_dir.
func (rm *remote) Name() string { return rm.stats.Store + " " + rm.dataKey }

// Identity names the copy at path by its object (compare.Mirror): key,
// size and the strong validator its record holds, which the run held the
// copy to before any proof reads it (fillCache); "" for a copy without
// one. A record is skipped: no reader reads it.
func (rm *remote) Identity(path string) (string, bool) {
	if strings.HasSuffix(path, validatorSuffix) {
		return "", true
	}
	rel, err := filepath.Rel(rm.local, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	c, ok := readCopyRecord(path + validatorSuffix)
	if !ok || !c.strong {
		return "", false
	}
	return fmt.Sprintf("%s%s %d %s", rm.dataKey, filepath.ToSlash(rel), c.size, c.validator), false
}

// heldCopy reports whether the copy at path may stand for the object the
// store describes (tail and info, from a ranged read of its end): the same
// size, the validator its record holds and the same last bytes. unread is
// true for a copy whose stamp is not the one its record holds (a restored
// or copied cache, or a file changed in the cache): it may be read only
// once sameBytes held it to the sha256 of the bytes delivered.
func (rm *remote) heldCopy(path string, tail []byte, info store.ObjectInfo) (held, unread bool) {
	c, ok := readCopyRecord(path + validatorSuffix)
	want := validator(info)
	// Also as strong as it was: a server now sending the same ETag as weak
	// no longer says the bytes are the same.
	if !ok || want == "" || c.validator != want || c.size != info.Size || c.strong && !strongValidator(&info) {
		return false, false
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() != info.Size {
		return false, false
	}
	if mine, err := fileTail(path, int64(len(tail))); err != nil || !bytes.Equal(mine, tail) {
		return false, false
	}
	return true, fileid.Stamp(st) != c.stamp
}

// copyGate is what a whole answer to the ranged read of the data file key
// (a server that ignores Range) is offered to before it is read
// (store.AnswerGate, readTailGated): it says to drop the answer unread
// where the cache's copy of key was delivered under the answer's
// validator and size (its record), a validator that vouches for the bytes
// (vouchesForBytes). The copy is then held to the object as heldCopy holds
// it, without its last bytes, which only reading the whole answer gives;
// a copy not yet held to the bytes delivered (a restored cache) is still
// read again before any reader reads it. Nil where there is no such copy
// (nothing to drop the answer for), and for a copy of at most smallAnswer
// bytes, whose answer is read as before.
func (rm *remote) copyGate(key string) func(store.ObjectInfo) bool {
	if rm.cacheDir == "" {
		return nil
	}
	path := rm.localPath(key)
	c, ok := readCopyRecord(path + validatorSuffix)
	if !ok || c.size <= smallAnswer {
		return nil
	}
	if st, err := os.Stat(path); err != nil || st.Size() != c.size {
		return nil
	}
	return func(info store.ObjectInfo) bool {
		return info.Size == c.size && validator(info) == c.validator && vouchesForBytes(c, info) &&
			(!c.strong || strongValidator(&info))
	}
}

// smallAnswer bounds the whole answers copyGate never drops: reading one
// costs less than what closing it does (Go's transport drops the
// connection of an answer closed unread, so the next request opens
// another: a TCP and TLS handshake, round trips away), and it gives the
// file's last bytes, which are then compared with the copy's. A delete
// file is most often a few KB; a data file's rows rarely fit in 64 KiB.
const smallAnswer = 64 << 10

// vouchesForBytes reports whether the answer info, whose validator is the
// one the record c holds, says the object has the bytes the record's copy
// was delivered with, without any of them compared: its Last-Modified and
// size where it sends no ETag, or an ETag that is not weak (W/, which a
// server may keep over a change of the bytes) and that either was not
// weak when the copy was delivered (c.strong) or is made of the
// Last-Modified time and size, as a web server's default ETag is (a record
// of a weak ETag says nothing of the bytes; the same value sent strong now
// does not make them the copy's).
func vouchesForBytes(c copyRecord, info store.ObjectInfo) bool {
	switch {
	case info.ETag == "":
		return !info.ModTime.IsZero()
	case info.WeakETag:
		return false
	}
	return c.strong || etagOfTimeAndSize(info.ETag, info.ModTime, info.Size)
}

// sameBytes reads the copy at path of the object key (size bytes) again
// and reports whether its sha256 is the one its record holds (the bytes
// the store delivered); the record is then stamped anew, so the next run
// does not read it. A copy whose bytes are not those is reported (changed
// in the cache) and must not be used.
func (rm *remote) sameBytes(path, key string, size int64) bool {
	c, ok := readCopyRecord(path + validatorSuffix)
	st, err := os.Stat(path)
	if !ok || err != nil {
		return false
	}
	stamp := fileid.Stamp(st)
	sum, n, err := hashFile(path)
	if err != nil || n != size {
		return false
	}
	if sum != c.sha256 {
		if rm.log != nil {
			rm.log.Warn("a cached data file is not the bytes the store delivered (changed in the cache); downloading it again",
				"key", key, "file", path, "sha256", sum, "delivered_sha256", c.sha256)
		}
		return false
	}
	if after, err := os.Stat(path); err != nil || fileid.Stamp(after) != stamp {
		return false // changed while read
	}
	c.stamp = stamp
	// A record that cannot be written only costs this read next run.
	_, _, _ = writeHashed(strings.NewReader(c.encode()), path+validatorSuffix, rm.recordTmp(path), nil)
	// Counted only as reused: a copy found changed is downloaded again and
	// counted so (Transfer.Rehashed is "of those" Cached).
	rm.mu.Lock()
	rm.stats.Rehashed++
	rm.mu.Unlock()
	return true
}

// keepCopyRecord writes the record of a copy just downloaded to path: the
// validator of the response that delivered its bytes (never the HEAD's: a
// HEAD answered by the origin and a GET by a stale copy, a CDN edge or a
// replica, would bind the new validator to the old bytes), their size and
// sha256, and the copy's stamp. Where the GET gives no validator, no
// record is kept and the copy is not reused.
func (rm *remote) keepCopyRecord(path string, got *store.ObjectInfo, sum string, n int64) error {
	valid := describedValidator(got)
	if valid == "" {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	c := copyRecord{validator: valid, size: n, sha256: sum, strong: strongValidator(got), stamp: fileid.Stamp(st)}
	_, _, err = writeHashed(strings.NewReader(c.encode()), path+validatorSuffix, rm.recordTmp(path), nil)
	return err
}

// recordTmp is where a record is written before it is renamed into place:
// the cache's download folder, outside the mirror, where there is one.
func (rm *remote) recordTmp(path string) string {
	if rm.tmpDir != "" {
		return rm.tmpDir
	}
	return filepath.Dir(path)
}

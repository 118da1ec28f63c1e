package repo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/store"
)

// A web server that ignores Range (python -m http.server, some proxies and
// CDNs) answers the ranged read of an object's end (readTail) with the
// whole object, which the run reads to its end for the last bytes. That
// answer was thrown away, and a data file or catalog the run needed was
// then downloaded a second time (and, for a footer stand-in, a third). So
// where the run will need the object's bytes, the answer is written to a
// temporary file as it is read (wholeAnswer) and adopted as the download:
// it is the response that delivered the bytes, held to itself (its size
// is the HEAD's, its ETag the HEAD's, its last bytes the tail).

// wholeAnswer is an io.Writer that keeps a whole-object answer to a ranged
// read in a temporary file in dir, created at the first byte (a server
// honouring ranges writes nothing), hashed as it is written, with the
// start of its bytes in hd when not nil. A write error is kept, not
// returned: it is the cache folder's, not the store's, and only means the
// answer cannot be adopted.
type wholeAnswer struct {
	dir  string
	hd   *head
	file *os.File
	sum  hash.Hash
	n    int64
	err  error
	// drop, when not nil, is asked of a whole answer before its first
	// byte (store.AnswerGate): true (the caller holds a copy under the
	// answer's validator) has the answer closed unread, and dropped set.
	drop    func(store.ObjectInfo) bool
	dropped bool
}

// Drop implements store.AnswerGate.
func (w *wholeAnswer) Drop(info store.ObjectInfo) bool {
	if w.drop == nil || w.file != nil || !w.drop(info) {
		return false
	}
	w.dropped = true
	return true
}

func (w *wholeAnswer) Write(p []byte) (int, error) {
	if w.err != nil {
		return len(p), nil
	}
	if w.file == nil {
		w.file, w.err = os.CreateTemp(w.dir, ".answer-*")
		if w.err != nil {
			return len(p), nil
		}
		w.sum = sha256.New()
		if w.hd != nil {
			w.hd.buf = w.hd.buf[:0]
		}
	}
	if _, err := w.file.Write(p); err != nil {
		w.err = err
		return len(p), nil
	}
	w.sum.Write(p)
	if w.hd != nil {
		w.hd.Write(p)
	}
	w.n += int64(len(p))
	return len(p), nil
}

// keptAnswer is a whole answer adopted as a download: its temporary file,
// the sha256 of its bytes and their number.
type keptAnswer struct {
	path string
	sum  string
	n    int64
}

// discard removes the answer's file; nil does nothing.
func (a *keptAnswer) discard() {
	if a != nil {
		os.Remove(a.path)
	}
}

// finish closes the answer's file and returns it when the store kept a
// whole answer in it that may be adopted (kept, all of it written, size
// bytes); else it removes the file and returns nil.
func (w *wholeAnswer) finish(kept bool, size int64) *keptAnswer {
	if w.file == nil {
		return nil
	}
	err := errors.Join(w.err, w.file.Close())
	if !kept || err != nil || w.n != size {
		os.Remove(w.file.Name())
		return nil
	}
	return &keptAnswer{path: w.file.Name(), sum: hex.EncodeToString(w.sum.Sum(nil)), n: w.n}
}

// answerDir is where whole answers are written: the data cache's download
// folder, on the file system of the mirror, or the run's work folder
// (with --no-cache, where the mirror is). With a --data folder there is
// no mirror to adopt an answer into: "".
func (rm *remote) answerDir() string {
	switch {
	case rm.cacheDir == "":
		return ""
	case rm.tmpDir != "":
		return rm.tmpDir
	}
	return rm.work
}

// readTailKeep is readTail that keeps the server's whole answer to the
// ranged read, where it sent one, as a download of the object into dir
// (nil where it did not, or dir is ""), hd keeping its start. The caller
// adopts the answer or discards it.
func (rm *remote) readTailKeep(ctx context.Context, key, dir string, hd *head) ([]byte, store.ObjectInfo, *keptAnswer, error) {
	return rm.readTailKeepN(ctx, key, tailBytes, dir, hd)
}

// readTailKeepN is readTailKeep asking for the last n bytes (at least
// tailBytes; a read ahead's answer is taken as it is, whatever it asked;
// without dir, tailBytes).
func (rm *remote) readTailKeepN(ctx context.Context, key string, n int64, dir string, hd *head) ([]byte, store.ObjectInfo, *keptAnswer, error) {
	tail, info, ans, _, err := rm.readTailGated(ctx, key, n, dir, hd, nil)
	return tail, info, ans, err
}

// readTailGated is readTailKeepN whose whole answer, where the server
// sends one, is first offered to drop (nil: never dropped) with what it
// says of the object: true closes it unread (store.AnswerGate), and the
// read returns no tail, no answer and dropped. A read ahead's answer is
// taken as it is, but one the read ahead dropped (copyGate) only where
// drop still drops it.
func (rm *remote) readTailGated(ctx context.Context, key string, n int64, dir string, hd *head, drop func(store.ObjectInfo) bool) (_ []byte, _ store.ObjectInfo, _ *keptAnswer, dropped bool, _ error) {
	if dir == "" {
		tail, info, err := rm.readTail(ctx, key)
		return tail, info, nil, false, err
	}
	var tail []byte
	var info store.ObjectInfo
	var ans *keptAnswer
	var err error
	t := rm.takeAhead(ctx, key)
	if t != nil && t.dropped && (drop == nil || !drop(t.info)) {
		// Dropped unread ahead (copyGate), which this read does not
		// drop (or no longer: the copy changed since): asked anew.
		t = nil
	}
	if t != nil && (t.ans == nil || t.dir == dir && hd == nil) {
		// Read ahead (readAhead), as this read would have read it.
		tail, info, ans, dropped, err = t.tail, t.info, t.ans, t.dropped, t.err
		if ans != nil {
			rm.mu.Lock()
			rm.stats.DownloadSeconds += t.took.Seconds()
			rm.mu.Unlock()
		}
	} else {
		if t != nil {
			t.ans.discard() // kept elsewhere, or without the start hd needs
		}
		w := &wholeAnswer{dir: dir, hd: hd, drop: drop}
		start := time.Now()
		var kept bool
		tail, info, kept, err = rm.readEnd(ctx, key, n, w)
		ans = w.finish(kept && err == nil, info.Size)
		dropped = w.dropped && err == nil
		if ans != nil {
			rm.mu.Lock()
			rm.stats.DownloadSeconds += time.Since(start).Seconds()
			rm.mu.Unlock()
		}
	}
	if err == nil && info.IgnoredRange {
		rm.mu.Lock()
		rm.ignoredRanges = append(rm.ignoredRanges, key)
		rm.mu.Unlock()
	}
	return tail, info, ans, dropped, err
}

// adoptCopy makes the whole answer ans, of the object key as info
// describes it (the response that delivered the bytes), the cache's copy
// at path with its record, as downloadCopy makes a download: counted as a
// data file downloaded, with its footer's stand-in (keepStandIn).
func (rm *remote) adoptCopy(key, path string, ans *keptAnswer, info store.ObjectInfo) error {
	defer rm.listings.Changed()
	os.Remove(path + validatorSuffix) // the copy is not proven until written again
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.Rename(ans.path, path)
	}
	if err != nil {
		ans.discard()
		return fmt.Errorf("data file %s: keep the whole answer to its ranged read: %w", oneline.Name(key), err)
	}
	return rm.downloaded(key, path, &info, info, ans.sum, ans.n)
}

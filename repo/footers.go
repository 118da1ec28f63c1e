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
	"time"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
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
// the footer), which DuckDB's parquet_schema and parquet_kv_metadata and
// internal/parquetfooter's reader of row groups and chunks read as they
// read the file. A check that reads rows
// gets the whole file (Fetch) instead.
//
// Stand-ins are never in the mirror (no proof or reader of data takes one
// for the data file): those of objects with a strong ETag are kept in
// <hash>.footers/ beside it, named by the object's key, size and ETag and
// held to the sha256 of their bytes, so that a warm plan reads only the 8
// bytes that revalidate each (what a copy costs); the others (a weak ETag,
// a Last-Modified time) in the run's work folder, for the run only. A
// copy downloaded whole into the mirror leaves its stand-in there too
// (keepStandIn), made from its bytes: a later run whose copy is not yet
// held to the bytes the store delivered (a restored cache), and which the
// footer checks therefore do not read, takes the stand-in instead of two
// ranged reads more of the object.
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
	rm.footersAskedOnce.Do(func() { close(rm.footersAsked) })
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
		return fmt.Errorf("%s is not in the data cache of %s", oneline.Name(local), rm.Name())
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
	tail, info, ans, err := rm.footerTail(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil // missing: the proof reports it
	}
	if err != nil {
		return "", false, nameOnce("data file", oneline.Name(key), err)
	}
	if ans != nil {
		// The server sent the whole file: it is the copy.
		f, mine := rm.claimFile(key)
		if !mine {
			ans.discard() // made by another caller: Fetch waits for it
			return "", true, nil
		}
		f.err = rm.adoptCopy(key, rm.localPath(key), ans, info)
		close(f.done)
		return rm.localPath(key), false, f.err
	}
	// The read may have asked for the footer too (footerRead): its last
	// 8 bytes say how long the footer is.
	got := tail
	if len(tail) < tailBytes {
		return "", true, nil
	}
	tail = tail[len(tail)-tailBytes:]
	if string(tail[4:]) != footerMagic {
		return "", true, nil
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n+int64(2*len(footerMagic))+4 > info.Size {
		return "", true, nil
	}
	dir, ident := rm.footerPlace(key, info)
	// Only the cache's are found again: the work folder's are of this
	// run, which reads each footer once.
	if rm.keyFolder(dir) {
		if path, ok := findStandIn(dir, ident, tail, n); ok {
			rm.mu.Lock()
			rm.stats.FootersCached++
			rm.mu.Unlock()
			return path, false, nil
		}
	}
	var end []byte
	if int64(len(got)) >= n+tailBytes {
		// Read with its last bytes, by the same ranged GET (held to the
		// HEAD before it as every ranged read is): files.json told the
		// footer's length (footerRead), and it is the one they give.
		end = got[int64(len(got))-n-tailBytes:]
	} else {
		// The object's size, ETag and Last-Modified are known from the
		// read of its last bytes above: the footer is read by the ranged
		// GET alone, held to them below, as DuckDB reads it after one
		// HEAD (a second HEAD cost one request more per footer).
		var again store.ObjectInfo
		end, again, _, err = rm.counter.ReadTailOf(ctx, key, n+tailBytes, info, nil)
		if err != nil {
			return "", false, fmt.Errorf("data file %s: the footer: %w", oneline.Name(key), err)
		}
		if again.Size != info.Size || again.ETag != info.ETag || !again.ModTime.Equal(info.ModTime) || int64(len(end)) != n+tailBytes || !bytes.Equal(end[n:], tail) {
			return "", false, fmt.Errorf("data file %s: its footer, read by a ranged read after its last %d bytes, is not of the same object (changed while read?): %w", oneline.Name(key), tailBytes, errStoreDiffers)
		}
	}
	if path, err = writeStandIn(dir, ident, end, rm.keyFolder(dir)); err != nil {
		return "", false, fmt.Errorf("data file %s: keep its footer: %w", oneline.Name(key), err)
	}
	rm.mu.Lock()
	rm.stats.Footers++
	rm.mu.Unlock()
	return path, false, nil
}

// footerTail is the last bytes of the object key and what the store says
// of it, for its stand-in: those this run's ranged read gave for the copy
// it reused unread (fillCache read them, and nothing since reads the
// copy), else a ranged read's, whose whole answer, where the server sent
// the whole file, is kept (ans) to be adopted as the copy.
func (rm *remote) footerTail(ctx context.Context, key string) (_ []byte, _ store.ObjectInfo, ans *keptAnswer, _ error) {
	rm.mu.Lock()
	u, unread := rm.unread[key]
	rm.mu.Unlock()
	if unread {
		return u.tail, u.info, nil, nil
	}
	return rm.readTailKeepN(ctx, key, rm.footerRead(key), rm.answerDir(), nil)
}

// standInsKept reports whether the cache keeps a stand-in of the data
// file key, of whatever identity (footerPlace's folder of the key): a
// read of its end for its footer then asks only the last bytes that
// find it (footerRead), since the footer is most likely that one.
func (rm *remote) standInsKept(key string) bool {
	if rm.catalogDir == "" {
		return false
	}
	k := sha256.Sum256([]byte(key))
	entries, err := os.ReadDir(filepath.Join(rm.cacheDir+footersSuffix, footersLayout, hex.EncodeToString(k[:16])))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".parquet") && !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return false
}

// claimFile takes the making of the data file key's copy in this run
// (dataFile's once) for the caller, mine false when another caller
// already made it or is making it. The caller sets f.err and closes
// f.done.
func (rm *remote) claimFile(key string) (f *fetch, mine bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if f, ok := rm.files[key]; ok {
		return f, false
	}
	f = &fetch{done: make(chan struct{})}
	rm.files[key] = f
	return f, true
}

// writeStandIn writes the stand-in of a Parquet file ending with end into
// dir (through a temporary file: a reader never sees half of it), named
// by ident, the object's identity (footerPlace), and the sha256 of its
// bytes (findStandIn holds it to them), and returns its path. With onlyKey
// (dir is one object key's folder in the cache), it removes the other
// stand-ins dir holds, which name identities (size, ETag) the object no
// longer has.
func writeStandIn(dir, ident string, end []byte, onlyKey bool) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	b := standIn(end)
	sum := sha256.Sum256(b)
	name := ident + "-" + hex.EncodeToString(sum[:16]) + ".parquet"
	f, err := scratch.CreateTemp(dir, footerTemp, "")
	if err != nil {
		return "", err
	}
	_, err = f.Write(b)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	if !onlyKey {
		return filepath.Join(dir, name), nil
	}
	entries, _ := os.ReadDir(dir)
	sweepFooterTemps(dir, entries)
	for _, e := range entries {
		// Temporary files are other runs' stand-ins being written.
		if e.Name() != name && strings.HasSuffix(e.Name(), ".parquet") && !strings.HasPrefix(e.Name(), ".") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return filepath.Join(dir, name), nil
}

// findStandIn finds in dir the stand-in of the identity ident (footerPlace)
// of an object whose footer is n bytes long and whose last bytes are tail,
// held to the sha256 its name records: a stand-in changed in the cache
// (every file of a restored cache is new to this machine, and no record
// of how it was written can tell it from one edited) is removed and not
// used. A stand-in is a footer, so reading it whole costs little.
func findStandIn(dir, ident string, tail []byte, n int64) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	sweepFooterTemps(dir, entries)
	for _, e := range entries {
		sum, ok := strings.CutPrefix(e.Name(), ident+"-")
		if !ok {
			continue
		}
		sum, ok = strings.CutSuffix(sum, ".parquet")
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if !ok || err != nil {
			continue
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:16]) != sum {
			os.Remove(path) // not the bytes written
			continue
		}
		if int64(len(b)) == n+12 && bytes.HasSuffix(b, tail) {
			return path, true
		}
	}
	return "", false
}

// hasStandIn reports whether dir holds a stand-in of the identity ident.
func hasStandIn(dir, ident string) bool {
	entries, _ := os.ReadDir(dir)
	sweepFooterTemps(dir, entries)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ident+"-") {
			return true
		}
	}
	return false
}

// keepStandIn keeps, beside the mirror, the stand-in of the copy at path
// of the object key, which the store describes as info, when none is kept
// yet: made from the copy's own bytes, so that a later run whose copy is
// not yet held to the bytes the store delivered (a restored cache: the
// conversion's footer checks do not read it) takes its footer from the
// stand-in instead of two ranged reads. It is kept only where the
// object's ETag is strong (footerPlace) and the copy is what its record
// says was delivered under that identity: the record names info's
// validator and size, and the copy still bears the stamp the record
// holds (not replaced or changed since), before and after its footer is
// read. A copy whose end is no Parquet footer has none. Failures only
// cost the ranged reads next time: nothing is reported.
func (rm *remote) keepStandIn(key, path string, info store.ObjectInfo) {
	if rm.catalogDir == "" || !strongValidator(&info) {
		return
	}
	dir, ident := rm.footerPlace(key, info)
	if hasStandIn(dir, ident) {
		return
	}
	c, ok := readCopyRecord(path + validatorSuffix)
	if !ok || !c.strong || c.validator != validator(info) || c.size != info.Size {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	stamped := func() bool {
		st, err := f.Stat()
		return err == nil && st.Size() == info.Size && fileid.Stamp(st) == c.stamp
	}
	if !stamped() || info.Size < 2*int64(len(footerMagic))+4 {
		return
	}
	tail := make([]byte, tailBytes)
	if _, err := f.ReadAt(tail, info.Size-tailBytes); err != nil || string(tail[4:]) != footerMagic {
		return
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n+int64(2*len(footerMagic))+4 > info.Size {
		return
	}
	end := make([]byte, n+tailBytes)
	if _, err := f.ReadAt(end, info.Size-int64(len(end))); err != nil || !stamped() {
		return
	}
	_, _ = writeStandIn(dir, ident, end, true)
}

// keyFolder reports whether dir, from footerPlace, is one object key's
// folder in the cache (the run's work folder holds every key's).
func (rm *remote) keyFolder(dir string) bool {
	return rm.catalogDir != "" && strings.HasPrefix(dir, rm.cacheDir+footersSuffix+string(filepath.Separator))
}

// footerPlace is the folder of the stand-in of the object key as the
// store describes it and the identity its name starts with (key, size and
// ETag, hashed): beside the mirror, in the key's own folder, where the
// ETag is strong (it names the bytes); in the run's work folder
// otherwise, where nothing else reuses it.
func (rm *remote) footerPlace(key string, info store.ObjectInfo) (dir, ident string) {
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.FormatInt(info.Size, 10) + "\x00" + info.ETag))
	ident = hex.EncodeToString(sum[:16])
	if rm.catalogDir != "" && strongValidator(&info) {
		rm.footersTidied.Do(rm.tidyFooters)
		k := sha256.Sum256([]byte(key))
		return filepath.Join(rm.cacheDir+footersSuffix, footersLayout, hex.EncodeToString(k[:16])), ident
	}
	return filepath.Join(rm.work, "footers"), ident
}

// footersLayout names the layout of <hash>.footers/: a folder per object
// key (the hash of the key), holding the stand-in of the identity (size,
// ETag) the object had when it was last read, named by that identity and
// the sha256 of the stand-in's bytes. Stand-ins of the first layout (one
// folder, named by identity alone) are not read.
const footersLayout = "v2"

// tidyFooters removes the stand-ins of the first layout, kept directly in
// <hash>.footers/ (no run reads them; they only counted toward the
// cache's bound), and their stale temporary files. It never looks into
// footersLayout's folder. Failures leave them for the next run.
func (rm *remote) tidyFooters() {
	dir := rm.cacheDir + footersSuffix
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".parquet") && !strings.HasPrefix(e.Name(), ".") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	_, _ = scratch.Sweep(dir, []string{footerTemp}, time.Now())
}

// footerTemp starts the names of stand-ins being written (writeStandIn).
const footerTemp = ".footer-"

// sweepFooterTemps removes the temporary files that runs which ended
// before renaming them left in dir, whose entries are entries, when it
// holds any: those of live runs (scratch.Sweep) stay.
func sweepFooterTemps(dir string, entries []os.DirEntry) {
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), footerTemp) {
			_, _ = scratch.Sweep(dir, []string{footerTemp}, time.Now())
			return
		}
	}
}

// standIn is the stand-in of a Parquet file whose last bytes are end (its
// footer, the footer's length and "PAR1"): "PAR1" and end, which DuckDB's
// footer readers read as they read the file.
func standIn(end []byte) []byte {
	return append([]byte(footerMagic), end...)
}

package compare

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// A kept fact (a proof, a file digest, a Parquet schema or footer fact)
// stands for the bytes its key names. A copy in a store's mirror can be
// replaced while a run uses it: another run sharing the cache folder
// downloads it again after its object changed in the store, and the key,
// made before the read, names the copy it replaced, or the key, made after
// it, names the new copy while the bytes read were the old one's. A later
// warm check would trust a fact never proved of the bytes it names. So a
// fact is kept only while the copies it was computed from still bear the
// identity its key names: a proof only while its data folders still list
// every copy its key listed, as its key listed it (Listings.stillListed),
// and every copy its readers named in their digests' keys is still that
// copy (identitiesCurrent); a digest only while the copy it was read from
// is still the one its key names (stillNamed); a schema or footer fact
// only under the key of the copy as it was before the read, and while it
// is still that copy (keepFactAs). The run's own result stands: it is what
// it read. A copy replaced and put back between two looks (the same object
// identity twice) is not seen.

// changedCopy marks a file a reader named under two copy identities: it is
// never current.
const changedCopy = "\x00changed"

// copyHead is the part of a data file's identity (fileIdentity) that its
// catalog row gives; copyIdentity gives the rest.
func copyHead(f DataFile) string {
	return fmt.Sprintf("file %d size %d footer %s", f.ID, f.SizeBytes, optInt(f.FooterSize))
}

// copyIdentity names the bytes of the local file at path as readers open
// it: a copy a mirror names by its object (Mirror.Identity: key, size,
// strong validator) by that, any other file by what it is on disk
// (os.Stat follows a symbolic link, as DuckDB does): its size,
// modification time and, where the system has them, its inode change
// time, device and inode (fileid.Inode).
func copyIdentity(path string, l *Listings) (string, error) {
	if m := l.mirrorHolding(path); m != nil {
		if obj, _ := m.Identity(path); obj != "" {
			return objectIdentity + obj, nil
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	return diskIdentity(st), nil
}

// diskIdentity is copyIdentity of a file that no mirror names, by its
// stat (followed through a symbolic link).
func diskIdentity(st os.FileInfo) string {
	return " disk " + fileid.Stamp(st)
}

// nameCopy records that r named the data file f in a key under the
// identity id (fileIdentity): its first copy identity is what r's reads of
// the file are held to (stillNamed, identitiesCurrent).
func (r *Reader) nameCopy(f DataFile, id string) {
	if strings.Contains(f.Path, "://") {
		return
	}
	c := strings.TrimPrefix(id, copyHead(f))
	if r.namedAs == nil {
		r.namedAs = map[string]string{}
	}
	if was, ok := r.namedAs[f.Path]; ok && was != c {
		c = changedCopy
	}
	r.namedAs[f.Path] = c
}

// stillNamed reports whether the data file at path is still the copy r
// named it as in its keys (nameCopy): a digest read from it is kept in the
// digest cache only then. A file r never named is not.
func (r *Reader) stillNamed(path string) bool {
	if strings.Contains(path, "://") {
		return true // a store's object read directly: no copy to replace
	}
	want, ok := r.namedAs[path]
	if !ok || want == changedCopy {
		return false
	}
	now, err := copyIdentity(path, r.listings)
	return err == nil && now == want
}

// identitiesCurrent reports whether every data file r named in its keys
// is still the copy it named (a Source's reader serves several proofs:
// its digests, schemas and footer facts of a copy replaced since one of
// them read it are not the new copy's); changed names the first that is
// not. now holds the copy identities of a listing just made
// (stillListed), looked up first.
func (r *Reader) identitiesCurrent(now map[string]string) (changed string, ok bool) {
	if r == nil {
		return "", true
	}
	for path, want := range r.namedAs {
		c, listed := now[path]
		if !listed {
			var err error
			if c, err = copyIdentity(path, r.listings); err != nil {
				return path, false
			}
		}
		if c != want {
			return path, false
		}
	}
	return "", true
}

// stillListed reports whether the data folders n lists still hold every
// file n's listing holds, as it lists it (files added since do not
// matter: a kept proof is found again from a folder that only grew), and
// so every listing in also (a carried read's, Report.heldTo), in the same
// walk: each folder is listed again once, not from the run's listings.
// missing names the first entry that is not; ids are the copy identities
// (identitiesCurrent) of the listed files whose paths named holds.
//
// A proof checks this after its reads, so the walk runs once per proof,
// and a long history's data folder holds every version's files (8,600 at
// 200 versions of lakegen's history): it compares the listings in walk
// order (inOrder) instead of building a set of every entry, and names the
// identities of the files the readers named only, not of every file
// (docs/compare.md, "A store's mirror", and Known limits).
func (l *Listings) stillListed(n proofName, named map[string]bool, also ...proofName) (missing string, ok bool, ids map[string]string) {
	ids = map[string]string{}
	walked := map[string][]byte{}
	for _, m := range append([]proofName{n}, also...) {
		var now [][]byte
		for _, dir := range m.dirs {
			text, done := walked[dir]
			if !done {
				var err error
				if text, err = walkCopies(dir, l.mirrorOf(dir), ids, named); err != nil {
					return dir, false, nil
				}
				walked[dir] = text
			}
			now = append(now, text)
		}
		if e, ok := inOrder(m.text, now); !ok {
			return e, false, nil
		}
	}
	return "", true, ids
}

// inOrder reports whether every entry of the listing was (its entries,
// each ended by a 0 byte) is among the entries of the listings now of the
// same folders, walked again in the same order: as walkCopies lists a
// folder in lexical order, an entry still there is found after the one
// before it, so one pass over both finds each, new entries in between
// skipped. missing is the first entry of was not found. An entry listed
// twice, or out of walk order, is reported missing: never an answer that
// a set of now's entries would not give.
func inOrder(was []byte, now [][]byte) (missing string, ok bool) {
	c := entryCursor{lists: now}
	for e := range bytes.SplitSeq(was, []byte{0}) {
		if len(e) == 0 {
			continue
		}
		for {
			next, more := c.next()
			if !more {
				return string(e), false
			}
			if bytes.Equal(next, e) {
				break
			}
		}
	}
	return "", true
}

// entryCursor steps through the entries of listings, one after the other.
type entryCursor struct {
	lists [][]byte
	i, at int // the listing and the offset in it
}

// next returns the next entry, false after the last.
func (c *entryCursor) next() ([]byte, bool) {
	for c.i < len(c.lists) {
		rest := c.lists[c.i][c.at:]
		if len(rest) == 0 {
			c.i, c.at = c.i+1, 0
			continue
		}
		e := rest
		if end := bytes.IndexByte(rest, 0); end >= 0 {
			e = rest[:end]
		}
		c.at += len(e) + 1
		if c.at > len(c.lists[c.i]) {
			c.at = len(c.lists[c.i])
		}
		if len(e) > 0 {
			return e, true
		}
	}
	return nil, false
}

package compare

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
)

// A kept proof's key names its data folders' listing, and a repository's
// data folder grows with every version published (its new Parquet files),
// so after a version is added no key of an older version's proof matches
// the folder any more. A proof is therefore also found under an earlier
// listing of its data folders that they only grew from since: every file
// that listing names is still there with the same path, size, modification
// time and identity (walkListing's entries, compared byte for byte), new
// files allowed. When a proof is kept, the listing it was kept under is
// kept too (content-addressed, once per distinct listing, gzipped), and an
// index from the listing-independent part of its key (proofName.base:
// proof version, build, both catalogs' sha256, the data folders, the
// rules) to the last keptListings listings a proof of that base was kept
// under. On a miss, keptGrown tries those.
//
// Why it holds: what a proof reads of its data folders is only the files
// its catalogs name (data and delete files, by path: read_parquet with
// glob characters escaped, parquetsql.Path; Hive partition values from the
// named file's own path; DiskCheck and the delete files' stat, of named
// files), and a named file it finds missing fails the proof (ErrIncomparable:
// nothing kept). Nothing in compare lists, globs or probes the folder for
// other files (no stray or unreferenced file check: repo's checks of the
// repository's own folders are not part of a proof, and the content pass's
// key, repo's contentsKey, still names the exact listing). So the files a
// kept proof read are all in the listing it was kept under, and where each
// is still there unchanged, the proof reads the same now (in a store's
// mirror, Mirror, a copy named by its object is unchanged while the object
// keeps its key, size and strong validator, which the run holds every copy
// it reads to before any proof). Two guards: a
// listing naming a path with a glob character (* ? [ {) is never taken
// (a reader that would expand such a path could read a new file through
// it), and a catalog beside a write-ahead log is refused before any key
// (inputsName). A found proof is kept again under the listing as it is
// now, so the next run finds it at once.
//
// The cache is shared by concurrent runs: every entry is written
// atomically (DigestStore.Put); the index is read, changed and written
// back, so two runs keeping proofs of one pair at once may lose one's
// entry, which costs one proof again, never a wrong answer. An entry
// pruned (least recently used) is a miss likewise.

// keptListings bounds the listings an index keeps per proof base: a proof
// is kept again under the listing of every run that finds it grown, so a
// run that still finds it needs the newest only; a few more cover runs
// over the same catalogs from other data folders' states (a shard, a
// branch) sharing the cache.
const keptListings = 8

// globChars are the characters a reader may expand in a path.
const globChars = "*?[{"

// listingKey is where a listing with sha256 sum is kept.
func listingKey(sum string) string {
	h := sha256.Sum256([]byte("fdl-formats data folder listing\x00" + sum))
	return hex.EncodeToString(h[:])
}

// indexKey is where the listings a proof with base was kept under are
// named.
func indexKey(base string) string {
	h := sha256.Sum256([]byte("fdl-formats proof listings\x00" + base))
	return hex.EncodeToString(h[:])
}

// findKept returns the proof kept for n: under its key, else under an
// earlier listing its data folders only grew from (keptGrown).
func findKept(opts Options, n proofName) (*Report, bool) {
	key := n.key()
	if opts.DigestCache == nil || key == "" {
		return nil, false
	}
	if rep, ok := cachedProof(opts.DigestCache, key); ok {
		return rep, true
	}
	return keptGrown(opts.DigestCache, n, opts.Listings)
}

// keptGrown finds a proof of n's base kept under a listing (named by its
// index) that n's listing grew from, and keeps it again under n's key.
func keptGrown(store DigestStore, n proofName, l *Listings) (*Report, bool) {
	b, ok := store.Get(indexKey(n.base))
	if !ok {
		return nil, false
	}
	now := n.textSum()
	for _, sum := range strings.Fields(string(b)) {
		if sum == now || !l.grewSince(store, sum, n.text, now) {
			continue
		}
		raw, ok := store.Get(listedKey(n.base, sum))
		if !ok {
			continue
		}
		var rep Report
		if err := json.Unmarshal(raw, &rep); err != nil || !rep.Equivalent {
			continue
		}
		if store.Put(n.key(), raw) == nil {
			l.keepListing(store, n)
		}
		return &rep, true
	}
	return nil, false
}

// grewSince reports whether now (sha256 nowSum) grew from the listing kept
// with sha256 sum (entries). Answers are kept for the run (l non-nil).
func (l *Listings) grewSince(store DigestStore, sum string, now []byte, nowSum string) bool {
	pair := [2]string{sum, nowSum}
	if l != nil {
		l.mu.Lock()
		got, ok := l.grew[pair]
		l.mu.Unlock()
		if ok {
			return got
		}
	}
	grew := false
	if earlier, ok := loadListing(store, sum); ok {
		grew = grewIn(earlier, entrySet(now))
	}
	if l != nil {
		l.mu.Lock()
		if l.grew == nil {
			l.grew = map[[2]string]bool{}
		}
		l.grew[pair] = grew
		l.mu.Unlock()
	}
	return grew
}

// entrySet is the set of a listing's entries.
func entrySet(text []byte) map[string]bool {
	have := map[string]bool{}
	for _, e := range bytes.Split(text, []byte{0}) {
		have[string(e)] = true
	}
	return have
}

// grewIn reports whether every entry of earlier is in have (a listing's
// entrySet), and no entry of earlier names a glob character.
func grewIn(earlier []byte, have map[string]bool) bool {
	for _, e := range bytes.Split(earlier, []byte{0}) {
		if !have[string(e)] || bytes.ContainsAny(e, globChars) {
			return false
		}
	}
	return true
}

// loadListing returns the listing kept with sha256 sum, checked against
// it.
func loadListing(store DigestStore, sum string) ([]byte, bool) {
	b, ok := store.Get(listingKey(sum))
	if !ok {
		return nil, false
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	text, err := io.ReadAll(zr)
	if err != nil || listingSum(text) != sum {
		return nil, false
	}
	return text, true
}

// keepListing keeps n's listing (once a run per listing) and names it
// first in the index of n's base.
func (l *Listings) keepListing(store DigestStore, n proofName) {
	sum := n.textSum()
	if !l.storedListing(sum) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, werr := zw.Write(n.text)
		if werr != nil || zw.Close() != nil || store.Put(listingKey(sum), buf.Bytes()) != nil {
			return // a cache that cannot be written only costs time
		}
		l.markStored(sum)
	}
	ik := indexKey(n.base)
	var sums []string
	if b, ok := store.Get(ik); ok {
		sums = strings.Fields(string(b))
	}
	if len(sums) > 0 && sums[0] == sum {
		return
	}
	out := []string{sum}
	for _, s := range sums {
		if s != sum && len(out) < keptListings {
			out = append(out, s)
		}
	}
	_ = store.Put(ik, []byte(strings.Join(out, "\n")+"\n"))
}

// storedListing reports whether this run kept the listing with sha256 sum
// (false with a nil l: kept again).
func (l *Listings) storedListing(sum string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stored[sum]
}

func (l *Listings) markStored(sum string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stored == nil {
		l.stored = map[string]bool{}
	}
	l.stored[sum] = true
}

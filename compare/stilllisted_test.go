package compare

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// writeListed writes the file rel under dir with n bytes, its
// modification time set to the second sec.
func writeListed(t *testing.T, dir, rel string, n, sec int) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(int64(1_700_000_000+sec), 0)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// listedName is the proofName of a proof over the folders dirs as they
// are now (as sumsName names it: their listings one after the other).
func listedName(t *testing.T, dirs ...string) proofName {
	t.Helper()
	n := proofName{base: "test", dirs: dirs}
	for _, d := range dirs {
		text, err := walkListing(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		n.text = append(n.text, text...)
	}
	return n
}

// setAnswer is what stillListed answered before it compared in walk
// order: whether every entry of the name's listing is in the set of the
// entries of its folders walked again.
func setAnswer(t *testing.T, n proofName) bool {
	t.Helper()
	have := map[string]bool{}
	for _, d := range n.dirs {
		text, err := walkListing(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		for e := range bytes.SplitSeq(text, []byte{0}) {
			have[string(e)] = true
		}
	}
	for e := range bytes.SplitSeq(n.text, []byte{0}) {
		if len(e) > 0 && !have[string(e)] {
			return false
		}
	}
	return true
}

// TestStillListedInWalkOrder: a folder that only grew (files added before,
// between and after the listed ones, and in new subfolders) still lists
// what it listed; a file changed, removed or renamed is named; two
// folders and a carried read's listing are held in one walk each; and on
// random changes the answer is the one a set of every entry gave.
func TestStillListedInWalkOrder(t *testing.T) {
	var l Listings
	a, b := t.TempDir(), t.TempDir()
	for i, rel := range []string{"m/t/f1.parquet", "m/t/f3.parquet", "m/t/f5.parquet", "m/u/g.parquet"} {
		writeListed(t, a, rel, 10+i, i)
	}
	writeListed(t, b, "x.parquet", 7, 1)
	n := listedName(t, a, b)
	carried := listedName(t, a)
	check := func(step string, wantOK bool, wantMissing string) {
		t.Helper()
		missing, ok, _ := l.stillListed(n, nil, carried)
		if ok != wantOK || !bytes.Contains([]byte(missing), []byte(wantMissing)) {
			t.Errorf("%s: ok %v, missing %q; want ok %v, missing naming %q", step, ok, missing, wantOK, wantMissing)
		}
		if set := setAnswer(t, n) && setAnswer(t, carried); ok != set {
			t.Errorf("%s: ok %v, the set of every entry's answer %v", step, ok, set)
		}
	}
	check("unchanged", true, "")
	for i, rel := range []string{"m/t/f0.parquet", "m/t/f2.parquet", "m/t/f4.parquet", "m/t/f9.parquet", "m/a/new.parquet", "m/t/sub/deep.parquet", "z.parquet"} {
		writeListed(t, a, rel, 3, 100+i)
	}
	writeListed(t, b, "a.parquet", 1, 1)
	check("grown", true, "")
	writeListed(t, a, "m/t/f3.parquet", 99, 200)
	check("a file rewritten", false, "f3.parquet")
	writeListed(t, a, "m/t/f3.parquet", 11, 1) // size and time as they were
	if st, err := os.Stat(filepath.Join(a, "m/t/f3.parquet")); err == nil && fileid.Inode(st) != "" {
		check("size and time put back", false, "f3.parquet") // its change time is not
	}
	n, carried = listedName(t, a, b), listedName(t, a)
	check("listed again", true, "")
	if err := os.Remove(filepath.Join(b, "x.parquet")); err != nil {
		t.Fatal(err)
	}
	check("a file of the second folder removed", false, "x.parquet")
	writeListed(t, b, "x.parquet", 7, 1)
	n = listedName(t, a, b) // x.parquet's inode is new: listed again
	check("the second folder listed again", true, "")
	if err := os.Rename(filepath.Join(a, "m/u/g.parquet"), filepath.Join(a, "m/u/h.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := l.stillListed(n, nil); ok {
		t.Error("a file renamed: still listed")
	}
	if missing, ok, _ := l.stillListed(listedName(t, a, b), nil, carried); ok || !bytes.Contains([]byte(missing), []byte("g.parquet")) {
		t.Errorf("the carried read's listing names a renamed file: ok %v, missing %q", ok, missing)
	}

	// Random changes of a folder of 60 files: the answer in walk order is
	// the set's.
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 40 {
		d := t.TempDir()
		var files []string
		for i := range 60 {
			rel := fmt.Sprintf("p%d/f%03d.parquet", rng.IntN(4), rng.IntN(500))
			if !slices.Contains(files, rel) {
				files = append(files, rel)
				writeListed(t, d, rel, i, i)
			}
		}
		was := listedName(t, d)
		for range rng.IntN(6) {
			rel := files[rng.IntN(len(files))]
			switch rng.IntN(4) {
			case 0:
				writeListed(t, d, fmt.Sprintf("p%d/f%03d.parquet", rng.IntN(5), rng.IntN(500)), 5, 300)
			case 1:
				writeListed(t, d, rel, 1000, 400)
			case 2:
				os.Remove(filepath.Join(d, rel))
			default:
				writeListed(t, d, rel+".new", 1, 1)
			}
		}
		_, ok, _ := l.stillListed(was, nil)
		if want := setAnswer(t, was); ok != want {
			t.Errorf("round %d: in walk order %v, as a set %v", round, ok, want)
		}
	}
}

// TestStillListedNamesReadFilesOnly: the copy identities stillListed gives
// are those of the files the readers named, not of every file of the
// folder (a long history's data folder holds thousands), and each is the
// file's copyIdentity.
func TestStillListedNamesReadFilesOnly(t *testing.T) {
	var l Listings
	dir := t.TempDir()
	for i := range 50 {
		writeListed(t, dir, fmt.Sprintf("main/t/f%02d.parquet", i), i, i)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := filepath.Join(root, "main/t/f07.parquet")
	_, ok, ids := l.stillListed(listedName(t, dir), map[string]bool{read: true, filepath.Join(root, "gone.parquet"): true})
	if !ok {
		t.Fatal("not listed")
	}
	want, err := copyIdentity(read, &l)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[read] != want {
		t.Errorf("ids %d (%q for the file read), want only %q", len(ids), ids[read], want)
	}
}

// TestListingEntriesAsFmt: walkListing writes each file's entry as fmt
// wrote it ("%s %d %d%s" of the path, size, modification time and
// fileid.Inode; a link's " -> %d:%s"), byte for byte: listings kept in a
// cache name proofs, and another text would miss every one kept.
func TestListingEntriesAsFmt(t *testing.T) {
	dir := t.TempDir()
	writeListed(t, dir, "main/t/a.parquet", 17, 3)
	writeListed(t, dir, "main/t/b c.parquet", 0, 0)
	if err := os.Symlink("a.parquet", filepath.Join(dir, "main/t/link.parquet")); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("root %s\x00", root)
	for _, rel := range []string{"main/t/a.parquet", "main/t/b c.parquet", "main/t/link.parquet"} {
		p := filepath.Join(root, rel)
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want += fmt.Sprintf("%s %d %d%s", p, info.Size(), info.ModTime().UnixNano(), fileid.Inode(info))
		if link, err := os.Readlink(p); err == nil {
			want += fmt.Sprintf(" -> %d:%s", len(link), link)
		}
		want += "\x00"
	}
	got, err := walkListing(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("listing\n%q\nwant\n%q", got, want)
	}
}

// TestListingHashedOncePerRun: the names of a run's proofs over one data
// folder share its listing's sha256, hashed once (a long history's
// listing is over a megabyte, and each proof asked for it several times),
// and their keys are those of the listing hashed anew; a write the run
// reports lists and hashes again; two folders are hashed when asked.
func TestListingHashedOncePerRun(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeListed(t, a, "main/t/f.parquet", 5, 1)
	writeListed(t, b, "main/t/g.parquet", 6, 2)
	l := NewListings()
	var keys []string
	for i := range 3 {
		n := sumsName(fmt.Sprint("catalog", i), "b", a, a, l, Options{})
		if n.base == "" {
			t.Fatal("no name")
		}
		if got, want := n.key(), listedKey(n.base, listingSum(n.text)); got != want {
			t.Fatalf("key %s, want %s", got, want)
		}
		if n.textSum() != listingSum(n.text) {
			t.Fatalf("sum %s of another listing", n.textSum())
		}
		keys = append(keys, n.textSum())
	}
	if l.sums != 1 || l.walks != 1 {
		t.Errorf("3 names of one folder: listed %d times, hashed %d times; want once each", l.walks, l.sums)
	}
	writeListed(t, a, "main/t/new.parquet", 1, 3)
	l.Changed()
	n := sumsName("catalog", "b", a, a, l, Options{})
	if n.textSum() == keys[0] || n.textSum() != listingSum(n.text) || l.sums != 2 {
		t.Errorf("after a write the run reported: sum %s (before %s), hashed %d times", n.textSum(), keys[0], l.sums)
	}
	two := sumsName("catalog", "b", a, b, l, Options{})
	if two.textSum() != listingSum(two.text) || two.key() != listedKey(two.base, listingSum(two.text)) {
		t.Error("two folders: the sum is not their listings'")
	}
	if nl := sumsName("catalog", "b", a, a, nil, Options{}); nl.key() != listedKey(nl.base, listingSum(nl.text)) {
		t.Error("no Listings: the key is not the listing's")
	}
}

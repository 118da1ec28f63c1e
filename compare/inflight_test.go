package compare

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/lakegen"
)

// holdFirstOwner returns a claimedHook that holds the first comparison to
// claim keys it owns (while it holds them, before it reads them) until
// another comparison has claimed and found keys to wait for, then runs
// then (if set) in the first one. entered closes once the first holds, so
// that a test starts the second comparison only then: their overlap does
// not depend on timing.
func holdFirstOwner(t *testing.T, then func()) (hook func(owned, waits int), entered <-chan struct{}) {
	var first, waited sync.Once
	in, wait := make(chan struct{}), make(chan struct{})
	hook = func(owned, waits int) {
		if waits > 0 {
			waited.Do(func() { close(wait) })
			return
		}
		isFirst := false
		first.Do(func() { isFirst = true; close(in) })
		if !isFirst {
			return
		}
		select {
		case <-wait:
		case <-time.After(20 * time.Second):
			t.Error("no comparison waited for the keys the first one holds")
		}
		if then != nil {
			then()
		}
	}
	return hook, in
}

// TestConcurrentComparisonsReadSharedFilesOnce: two comparisons that share
// a Digests and run at once over versions sharing data files read each
// file once in all; the second waits for the files the first is reading
// (the first is held, claims in hand, until the second waits). History:
// 4 versions of 2 files each, versions 2 and 4 deleting.
func TestConcurrentComparisonsReadSharedFilesOnce(t *testing.T) {
	const filesPerVersion = 2
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 20_000, FilesPerVersion: filesPerVersion, DeleteEvery: 2})
	for _, tc := range []struct {
		name          string
		first, second int // version indexes: the first reads, the second waits
		hints         bool
	}{
		// The older version's scans keep none of the rows the newer one
		// deletes later: hints from the newest version make them.
		{name: "newer waits for older, with hints", first: 1, second: 3, hints: true},
		// The newer version's scans keep every delete state of its history.
		{name: "older waits for newer", first: 3, second: 1},
		{name: "same version", first: 2, second: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			shared := NewDigests(nil)
			if tc.hints {
				if err := hintFrom(ctx, shared, cats[len(cats)-1], data); err != nil {
					t.Fatal(err)
				}
			}
			hook, entered := holdFirstOwner(t, nil)
			shared.claimedHook = hook
			run := func(i int, rep **Report, err *error) {
				other := filepath.Join(t.TempDir(), "copy.duckdb")
				copyFile(t, cats[i], other)
				*rep, *err = Catalogs(ctx, cats[i], other, Options{DataPath: data, Digests: shared, everyDigest: true, Engines: readerDBs})
			}
			var reps [2]*Report
			var errs [2]error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); run(tc.first, &reps[0], &errs[0]) }()
			select {
			case <-entered:
			case <-time.After(60 * time.Second):
				t.Fatal("the first comparison never claimed a key")
			}
			go func() { defer wg.Done(); run(tc.second, &reps[1], &errs[1]) }()
			wg.Wait()
			reads, computed := 0, 0
			for k, rep := range reps {
				if errs[k] != nil {
					t.Fatal(errs[k])
				}
				if !rep.Equivalent {
					t.Errorf("comparison %d: not equivalent: %+v", k, rep)
				}
				reads += rep.Digests.Reads
				computed += rep.Digests.Computed
			}
			files := (max(tc.first, tc.second) + 1) * filesPerVersion
			if reads != files || computed != files {
				t.Errorf("reads %d, computed %d (%+v, %+v); want each of the %d files read and digested once in all", reads, computed, reps[0].Digests, reps[1].Digests, files)
			}
			if reps[1].Digests.Reused == 0 {
				t.Errorf("second comparison %+v: want the first one's digests reused", reps[1].Digests)
			}
		})
	}
}

// TestWaiterReadsWhatTheOwnerDidNotRead: a reader waiting for a file scan
// another reader sharing its Digests holds reads the file itself, and gets
// the right digest, when that scan is cancelled, fails, or did not keep
// the deleted rows the waiter needs; else it reads only its own files.
// History: 4 versions of 2 files, versions 2 and 4 deleting id % 997 = 2
// and 4; the owner reads the table at version 2 (index 1), the waiter at
// version 4 (index 3) unless said.
func TestWaiterReadsWhatTheOwnerDidNotRead(t *testing.T) {
	const filesPerVersion = 2
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 20_000, FilesPerVersion: filesPerVersion, DeleteEvery: 2})
	// digestAt is a table's digest at a catalog's newest snapshot, read by
	// a reader of its own.
	digestAt := func(t *testing.T, r *Reader, snaps []Snapshot) (Digest, error) {
		ctx := context.Background()
		snap := snaps[len(snaps)-1].ID
		tables, err := r.Tables(ctx, snap)
		if err != nil || len(tables) != 1 {
			t.Fatalf("tables %v, %v; want one", tables, err)
		}
		d, _, err := r.TableDigest(ctx, tables[0], snap, rowOptions())
		return d, err
	}
	for _, tc := range []struct {
		name          string
		owner, waiter int
		fate          string // what happens to the owner's scan: "", "cancel", "fail"
		hints         bool   // hints from the newest version
		// waiterReads: the files the waiter reads itself, in all.
		waiterReads int
	}{
		{name: "owner succeeds", owner: 1, waiter: 1, waiterReads: 0},
		{name: "owner succeeds, with more files", owner: 3, waiter: 1, waiterReads: 0},
		{name: "owner succeeds, waiter reads its newer files", owner: 1, waiter: 3, hints: true, waiterReads: 2 * filesPerVersion},
		{name: "owner cancelled", owner: 1, waiter: 3, fate: "cancel", hints: true, waiterReads: 4 * filesPerVersion},
		{name: "owner fails", owner: 1, waiter: 3, fate: "fail", hints: true, waiterReads: 4 * filesPerVersion},
		// The owner keeps the rows version 2 deletes; the waiter also needs
		// those version 4 deletes from the same files: it reads them again.
		{name: "owner kept other rows", owner: 1, waiter: 3, waiterReads: 4 * filesPerVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fresh, freshSnaps := openWithSnapshots(t, cats[tc.waiter], data)
			want, err := digestAt(t, fresh, freshSnaps)
			if err != nil {
				t.Fatal(err)
			}
			shared := NewDigests(nil)
			if tc.hints {
				if err := hintFrom(context.Background(), shared, cats[len(cats)-1], data); err != nil {
					t.Fatal(err)
				}
			}
			ro, roSnaps := openWithSnapshots(t, cats[tc.owner], data)
			rw, rwSnaps := openWithSnapshots(t, cats[tc.waiter], data)
			ro.memo, rw.memo = newDigestMemo(shared), newDigestMemo(shared)
			octx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hook, entered := holdFirstOwner(t, func() {
				switch tc.fate {
				case "cancel":
					cancel()
				case "fail":
					ro.conn.Close() // the owner's scan then fails
				}
			})
			shared.claimedHook = hook
			var ownerErr error
			done := make(chan struct{})
			go func() {
				defer close(done)
				snap := roSnaps[len(roSnaps)-1].ID
				tables, err := ro.Tables(octx, snap)
				if err != nil || len(tables) != 1 {
					ownerErr = errors.Join(err, errors.New("want one table"))
					return
				}
				_, _, ownerErr = ro.TableDigest(octx, tables[0], snap, rowOptions())
			}()
			select {
			case <-entered:
			case <-time.After(60 * time.Second):
				t.Fatal("the owner never claimed a key")
			}
			got, err := digestAt(t, rw, rwSnaps)
			<-done
			if err != nil {
				t.Fatalf("waiter: %v", err)
			}
			if got != want {
				t.Errorf("waiter's digest %v; want %v (read alone)", got, want)
			}
			switch {
			case tc.fate == "cancel" && !errors.Is(ownerErr, context.Canceled):
				t.Errorf("owner: %v; want context.Canceled", ownerErr)
			case tc.fate == "fail" && ownerErr == nil:
				t.Error("owner: no error; want its failed scan's")
			case tc.fate == "" && ownerErr != nil:
				t.Errorf("owner: %v", ownerErr)
			}
			st := rw.memo.snapshot()
			if st.Reads != tc.waiterReads {
				t.Errorf("waiter %+v; want %d files read", st, tc.waiterReads)
			}
			if tc.fate == "" && st.Computed != tc.waiterReads {
				t.Errorf("waiter %+v; want %d files digested, the rest reused", st, tc.waiterReads)
			}
		})
	}
}

// TestWaiterCancelledWhileWaiting: a reader waiting for another's scan
// returns as soon as its context is cancelled, holding no claim: the
// owner then reads and records its files as if alone.
func TestWaiterCancelledWhileWaiting(t *testing.T) {
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 2, RowsPerVersion: 20_000, FilesPerVersion: 2, DeleteEvery: 2})
	shared := NewDigests(nil)
	ro, roSnaps := openWithSnapshots(t, cats[1], data)
	rw, rwSnaps := openWithSnapshots(t, cats[1], data)
	ro.memo, rw.memo = newDigestMemo(shared), newDigestMemo(shared)
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	var first sync.Once
	entered := make(chan struct{})
	shared.claimedHook = func(owned, waits int) {
		if waits > 0 {
			cancel() // the waiter's context, before it waits
			return
		}
		isFirst := false
		first.Do(func() { isFirst = true; close(entered) })
		if !isFirst {
			return
		}
		select {
		case <-release:
		case <-time.After(20 * time.Second):
			t.Error("the waiter never returned")
		}
	}
	var ownerErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		snap := roSnaps[len(roSnaps)-1].ID
		tables, err := ro.Tables(ctx, snap)
		if err != nil {
			ownerErr = err
			return
		}
		_, _, ownerErr = ro.TableDigest(ctx, tables[0], snap, rowOptions())
	}()
	<-entered
	snap := rwSnaps[len(rwSnaps)-1].ID
	tables, err := rw.Tables(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = rw.TableDigest(wctx, tables[0], snap, rowOptions())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("waiter: %v; want context.Canceled while the owner still holds its keys", err)
	}
	close(release)
	<-done
	if ownerErr != nil {
		t.Fatal(ownerErr)
	}
	if st := ro.memo.snapshot(); st.Reads != 4 {
		t.Errorf("owner %+v; want its 4 files read", st)
	}
	if len(shared.flights) != 0 {
		t.Errorf("%d flights left; want none", len(shared.flights))
	}
}

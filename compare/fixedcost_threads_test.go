package compare

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// threadsSetting is the threads setting of a reader's database.
func threadsSetting(ctx context.Context, t *testing.T, r *Reader) int64 {
	t.Helper()
	var n int64
	if err := r.conn.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMetadataOnOneThread: a reader reads metadata on one DuckDB thread,
// and data files with DuckDB's default threads, whether its database is
// new or comes back from a pool, and goes back to one thread after a scan
// (also one that fails).
func TestMetadataOnOneThread(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	fresh := testduck.Open(t, "")
	defer fresh.Close()
	var def int64
	if err := fresh.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&def); err != nil {
		t.Fatal(err)
	}
	engines := NewEngines(2)
	defer engines.Close()
	for _, round := range []string{"new database", "pooled database"} {
		t.Run(round, func(t *testing.T) {
			r, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: engines})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := threadsSetting(ctx, t, r); got != 1 {
				t.Errorf("after Open: threads = %d; want 1", got)
			}
			var during int64
			if err := r.scanning(ctx, func() error { during = threadsSetting(ctx, t, r); return nil }); err != nil {
				t.Fatal(err)
			}
			if during != def {
				t.Errorf("while scanning: threads = %d; want DuckDB's default %d", during, def)
			}
			if got := threadsSetting(ctx, t, r); got != 1 {
				t.Errorf("after a scan: threads = %d; want 1", got)
			}
			if err := r.scanning(ctx, func() error { return context.Canceled }); err == nil {
				t.Error("a failed scan: no error")
			}
			if got := threadsSetting(ctx, t, r); got != 1 {
				t.Errorf("after a failed scan: threads = %d; want 1", got)
			}
		})
	}
}

// countingStore counts the hits of each key in a DigestStore.
type countingStore struct {
	DigestStore
	mu   sync.Mutex
	hits map[string]int
}

func (s *countingStore) Get(key string) ([]byte, bool) {
	b, ok := s.DigestStore.Get(key)
	if ok {
		s.mu.Lock()
		s.hits[key]++
		s.mu.Unlock()
	}
	return b, ok
}

// TestStoreReadOncePerDigest: a comparison whose digests are all in the
// store reads each of them from the store once, however many snapshots
// ask for it (the up-front plan and the walk both ask at each one).
func TestStoreReadOncePerDigest(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	m := readManifest(t, lake)
	older := filepath.Join(lake, "versions", m.Versions[len(m.Versions)-2].ID, "ducklake.duckdb")
	data := filepath.Join(lake, "data")
	ctx := context.Background()
	store := &countingStore{DigestStore: memStore{}, hits: map[string]int{}}
	if _, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, DigestCache: store, everyDigest: true, Engines: readerDBs}); err != nil {
		t.Fatal(err)
	}
	store.hits = map[string]int{}
	warm, err := Catalogs(ctx, older, older, Options{DataPath: data, DigestCache: store, everyDigest: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	if warm.ProofCached || warm.Digests.Computed != 0 || warm.Digests.Cached == 0 || len(warm.Snapshots) < 2 {
		t.Fatalf("older version: %+v over %d snapshots (proof cached %v); want every plan from the cache", warm.Digests, len(warm.Snapshots), warm.ProofCached)
	}
	for k, n := range store.hits {
		if n != 1 {
			t.Errorf("digest %s read from the store %d times; want once", k[:12], n)
		}
	}
	if len(store.hits) != warm.Digests.Cached {
		t.Errorf("%d digests read from the store, %d counted as cached; want the same", len(store.hits), warm.Digests.Cached)
	}
}

// TestStatisticsReadOncePerReader: a Source's reader answers the
// statistics comparison's questions (each table's entries, the tables
// without column statistics) once, so it serves the proofs of every format
// from the first answers: with its catalog detached it still answers. A
// reader of one proof does not keep the entries (they would stay alive
// through its data scans).
func TestStatisticsReadOncePerReader(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	opts := ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	src := NewSource()
	defer src.Close()
	shared, own, err := src.reader(ctx, catalog, opts)
	if err != nil || own {
		t.Fatalf("source reader: own %v, %v", own, err)
	}
	if err := src.readEveryTable(ctx); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		e   entries
		ids []int64
	}
	ask := func(r *Reader) (map[string]answer, error) {
		out := map[string]answer{}
		for _, st := range statsTables {
			name := r.statsName(st)
			if name == "" {
				continue
			}
			cols := slices.DeleteFunc(slices.Clone(r.layout[name]), func(c string) bool { return slices.Contains(st.keys, c) })
			e, err := r.statsEntries(ctx, st.names[0], name, st.keys, cols)
			if err != nil {
				return nil, err
			}
			out[name] = answer{e: e}
		}
		ids, err := r.tablesWithoutColumnStats(ctx)
		out["without column stats"] = answer{ids: ids}
		return out, err
	}
	first, err := ask(shared)
	if err != nil {
		t.Fatal(err)
	}
	if len(first["ducklake_table_stats"].e) == 0 || len(first["ducklake_file_column_stats"].e) == 0 {
		t.Fatalf("statistics: %v; want rows in this lake", first)
	}
	for _, a := range first {
		for k := range a.e {
			delete(a.e, k) // callers may change what they get
		}
	}
	if _, err := shared.conn.ExecContext(ctx, "DETACH cat"); err != nil {
		t.Fatal(err)
	}
	again, err := ask(shared)
	if err != nil {
		t.Fatalf("asked again, catalog detached: %v; want the first answers", err)
	}
	single, err := Open(ctx, catalog, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	if err := single.ReadEveryTable(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := ask(single)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, want) {
		t.Errorf("answers kept: %v; read anew: %v", again, want)
	}
	if n := len(single.meta.stats); n != 0 {
		t.Errorf("a reader of one proof kept %d statistics answers; want none", n)
	}
}

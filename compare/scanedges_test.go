package compare

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// historyLake returns the catalogs, oldest first, and the data folder of a
// lakegen history repository (one table, versions appending files, every
// second version deleting). Each set of options is generated once per test
// binary (histories) and shared read-only by the tests that ask for it: a
// test that changes a catalog or a data file works on a copy (copyLake,
// tamper), and the test fails if it changed the shared files.
func historyLake(t *testing.T, opts lakegen.HistoryOptions) (catalogs []string, data string) {
	t.Helper()
	h := histories.get(t, opts)
	t.Cleanup(func() {
		if got := treeSums(t, h.dir); !maps.Equal(got, h.sums) {
			t.Errorf("the shared history lake %s (%+v) changed during the test", h.dir, opts)
		}
	})
	return slices.Clone(h.catalogs), filepath.Join(h.dir, "data")
}

// histories are the lakegen histories of historyLake, by options, in a
// folder that TestMain removes.
var histories = &historyMemo{byOpts: map[lakegen.HistoryOptions]*history{}}

type historyMemo struct {
	mu     sync.Mutex
	root   string
	byOpts map[lakegen.HistoryOptions]*history
}

type history struct {
	once     sync.Once
	dir      string
	catalogs []string
	sums     map[string][sha256.Size]byte // every file's, by path
	err      error
}

func (m *historyMemo) get(t *testing.T, opts lakegen.HistoryOptions) *history {
	t.Helper()
	m.mu.Lock()
	if m.root == "" {
		root, err := os.MkdirTemp("", "fdl-compare-histories-")
		if err != nil {
			m.mu.Unlock()
			t.Fatal(err)
		}
		m.root = root
	}
	h := m.byOpts[opts]
	if h == nil {
		h = &history{dir: filepath.Join(m.root, fmt.Sprint(len(m.byOpts)))}
		m.byOpts[opts] = h
	}
	m.mu.Unlock()
	h.once.Do(func() {
		if _, err := lakegen.History(context.Background(), h.dir, opts); err != nil {
			h.err = err
			return
		}
		catalogs, err := filepath.Glob(filepath.Join(h.dir, "versions", "*", "ducklake.duckdb"))
		if err != nil || len(catalogs) != opts.Versions {
			h.err = fmt.Errorf("%d catalogs (%v), want %d", len(catalogs), err, opts.Versions)
			return
		}
		slices.Sort(catalogs) // UUIDv7 folders: oldest first
		h.catalogs, h.sums = catalogs, treeSums(t, h.dir)
	})
	if h.err != nil {
		t.Fatal(h.err)
	}
	return h
}

// removeHistories removes the folder of the shared histories.
func removeHistories() {
	if histories.root != "" {
		os.RemoveAll(histories.root)
	}
}

// treeSums is the SHA-256 of every file under dir, by path.
func treeSums(t *testing.T, dir string) map[string][sha256.Size]byte {
	t.Helper()
	out := map[string][sha256.Size]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[p] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyLake copies a catalog and its data folder into a new folder, so that
// a test may change them.
func copyLake(t *testing.T, catalog, data string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	c, d := filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "data")
	copyFile(t, catalog, c)
	copyTree(t, data, d)
	return c, d
}

// lakeFilesOf lists a catalog's data and delete files (resolved paths).
func lakeFilesOf(t *testing.T, catalog, data string) (dataFiles, deleteFiles []string) {
	t.Helper()
	r, _ := openWithSnapshots(t, catalog, data)
	all, err := r.AllFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if f.Delete {
			deleteFiles = append(deleteFiles, f.Path)
		} else {
			dataFiles = append(dataFiles, f.Path)
		}
	}
	slices.Sort(dataFiles)
	slices.Sort(deleteFiles)
	return dataFiles, deleteFiles
}

// execCatalog runs statements against a catalog file's metadata tables:
// the file attached as the default database (USE) of a database from
// helperDBs, detached (written out) before it returns.
func execCatalog(t *testing.T, catalog string, stmts ...string) {
	t.Helper()
	onCatalog(t, catalog, "tampered", "", func(conn *sql.Conn) {
		for _, q := range stmts {
			if _, err := conn.ExecContext(context.Background(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	})
}

// onCatalog runs use with catalog attached as name (with the ATTACH
// options given, e.g. "(READ_ONLY)") and made the default database (USE),
// on a connection of a database from helperDBs, given back once the
// catalog is detached (which writes an edit to the file) or discarded.
// use closes the rows it opens: the connection's close waits for them.
func onCatalog(t *testing.T, catalog, name, options string, use func(conn *sql.Conn)) {
	t.Helper()
	ctx := context.Background()
	db, err := helperDBs.Get()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		helperDBs.Discard(db)
		t.Fatal(err)
	}
	// Deferred: a t.Fatal in use (runtime.Goexit) still gives it back.
	defer func() {
		if duckpool.Release(conn, name) {
			helperDBs.Put(db)
		} else {
			helperDBs.Discard(db)
		}
	}()
	if _, err := conn.ExecContext(ctx, "ATTACH "+sqlString(catalog)+" AS "+name+" "+options+"; USE "+name); err != nil {
		t.Fatal(err)
	}
	use(conn)
}

// helperDBs lends execCatalog its DuckDB databases: starting one for each
// edit of a catalog cost more CPU than the edit.
var helperDBs = duckpool.New(2)

// renameDataFile renames a data file on disk and in the catalog (which
// stores it by name, relative to its table's folder).
func renameDataFile(t *testing.T, catalog, path, name string) string {
	t.Helper()
	to := filepath.Join(filepath.Dir(path), name)
	if err := os.Rename(path, to); err != nil {
		t.Fatal(err)
	}
	execCatalog(t, catalog, fmt.Sprintf("UPDATE ducklake_data_file SET path = %s WHERE path = %s AND path_is_relative",
		sqlString(name), sqlString(filepath.Base(path))))
	return to
}

// tableDigests digests every table of a catalog at every snapshot, its
// files read up front in one query per plan shape as a comparison reads
// them, keyed "snapshot table".
func tableDigests(t *testing.T, catalog, data string) (map[string]Digest, DigestStats) {
	t.Helper()
	ctx := context.Background()
	r, snaps := openWithSnapshots(t, catalog, data)
	prefetchAll(r, snaps)
	out := map[string]Digest{}
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			d, _, err := r.TableDigest(ctx, tb, s.ID, rowOptions())
			if err != nil {
				t.Fatalf("snapshot %d %s: %v", s.ID, tb.FullName(), err)
			}
			out[fmt.Sprintf("%d %s", s.ID, tb.FullName())] = d
		}
	}
	return out, r.memo.snapshot()
}

// TestReportCountsScanTimeAndQueries: a proof reports the time it spent
// reading data files up front (timings.scan_ms) and the DuckDB queries
// those reads ran in (digests.queries): files of one plan shape are read in
// one query, a file read alone (its path has a glob character) in its own.
// Both catalogs read the same files under the same plans, so each file is
// read once, by a check scan (no digest, so no kept rows: the files version
// 2 deletes from are read with the others).
func TestReportCountsScanTimeAndQueries(t *testing.T) {
	const versions, filesPerVersion = 3, 2
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: versions, RowsPerVersion: 60_000, FilesPerVersion: filesPerVersion, DeleteEvery: 2})
	for _, tc := range []struct {
		name    string
		rename  string // a data file's new name ("" keeps them all)
		queries int
	}{
		{"one plan shape", "", 1},
		{"a file read alone", "part*1.parquet", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			catalog, dir := copyLake(t, cats[len(cats)-1], data)
			if tc.rename != "" {
				files, _ := lakeFilesOf(t, catalog, dir)
				renameDataFile(t, catalog, files[0], tc.rename)
			}
			other := filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, other)
			rep, err := Catalogs(context.Background(), catalog, other, Options{DataPath: dir, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Timings struct {
					ScanMS *int64 `json:"scan_ms"`
				} `json:"timings"`
				Digests struct {
					Reads   *int `json:"reads"`
					Queries *int `json:"queries"`
				} `json:"digests"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.Timings.ScanMS == nil || *got.Timings.ScanMS <= 0 || *got.Timings.ScanMS > rep.Timings.TotalMS {
				t.Errorf("timings %+v; want a positive scan_ms within total_ms", rep.Timings)
			}
			if got.Digests.Reads == nil || got.Digests.Queries == nil {
				t.Fatalf("report %s; want digests.reads and digests.queries", b)
			}
			if *got.Digests.Reads != versions*filesPerVersion || *got.Digests.Queries != tc.queries || rep.Digests.Checked != versions*filesPerVersion || rep.Digests.Computed != 0 {
				t.Errorf("digests %+v; want %d files read in %d queries", rep.Digests, versions*filesPerVersion, tc.queries)
			}
		})
	}
}

// TestRowHashCapFallbacks: a file scan keeps the row digests of deleted
// and hinted rows one by one up to a cap (maxRowHashes, here lowered):
// past it, the hinted rows are dropped, then the deleted ones, and the walk
// reads the deleted rows per delete state, one by one or, past the cap, as
// one digest. Whatever the path, no scan keeps more than the cap and every
// table's digest by parts equals its rows read file by file, at every
// snapshot. History: 4 versions, files of 10,000 rows, versions 2 and 4
// delete id % 997 = 2 and 4 (10-11 rows of each file each, 20-22 in all).
func TestRowHashCapFallbacks(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 20_000, FilesPerVersion: 2, DeleteEvery: 2})
	older, newest := cats[1], cats[3]
	for _, tc := range []struct {
		name    string
		catalog string
		hints   bool // hints from the newest version, recorded with the default cap
		cap     int  // 0: the default
		// capFirst lowers the cap before the hints are recorded.
		capFirst bool
		// walkReads: the walk must read deleted rows again (else none).
		walkReads bool
	}{
		{name: "under the cap", catalog: newest},
		{name: "hints past the cap, deleted rows kept", catalog: older, hints: true, cap: 15},
		{name: "hints past the cap are not recorded", catalog: older, hints: true, cap: 15, capFirst: true},
		{name: "deleted rows past the cap, read per delete state", catalog: newest, cap: 15, walkReads: true},
		{name: "every delete state past the cap", catalog: newest, cap: 1, walkReads: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := NewDigests(nil)
			if tc.cap > 0 && tc.capFirst {
				shared.rowCap = tc.cap
			}
			if tc.hints {
				if err := hintFrom(ctx, shared, newest, data); err != nil {
					t.Fatal(err)
				}
			}
			hinted := 0
			for _, pos := range shared.hints {
				hinted = max(hinted, len(pos))
			}
			switch {
			case tc.capFirst && (hinted == 0 || hinted > tc.cap):
				t.Fatalf("hints of up to %d positions per file recorded; want some, none past the cap %d", hinted, tc.cap)
			case tc.hints && !tc.capFirst && hinted <= tc.cap:
				t.Fatalf("hints of up to %d positions per file: the cap %d is not exceeded", hinted, tc.cap)
			}
			if tc.cap > 0 {
				shared.rowCap = tc.cap
			}
			r, snaps := openWithSnapshots(t, tc.catalog, data)
			r.memo = newDigestMemo(shared)
			prefetchAll(r, snaps)
			scanned := r.memo.snapshot().Reads
			checkDigestsByParts(t, r, snaps, false, nil)
			if walk := r.memo.snapshot().Reads - scanned; (walk > 0) != tc.walkReads {
				t.Errorf("the walk read %d files again after %d up front; want rereads %v", walk, scanned, tc.walkReads)
			}
			for key, rows := range shared.rows {
				if rows.len() > shared.rowCap {
					t.Errorf("plan %s: %d row digests kept, past the cap %d", key[:12], rows.len(), shared.rowCap)
				}
			}
		})
	}
}

// TestDeletedRowsOneScanning: the deleted rows a table's digest at a
// snapshot reads (here every delete state past the row cap, its files'
// rows all read up front) are read in one stretch of DuckDB's threads, not
// one switch to all threads and back per file.
func TestDeletedRowsOneScanning(t *testing.T) {
	ctx := context.Background()
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 20_000, FilesPerVersion: 2, DeleteEvery: 2})
	r, snaps := openWithSnapshots(t, cats[3], data)
	r.memo.rowCap = 1
	prefetchAll(r, snaps)
	most := 0
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			scans, reads := r.scans, r.memo.snapshot().Reads
			if _, _, err := r.TableDigest(ctx, tb, s.ID, rowOptions()); err != nil {
				t.Fatal(err)
			}
			read := r.memo.snapshot().Reads - reads
			if switches := r.scans - scans; switches != min(read, 1) {
				t.Errorf("snapshot %d %s: %d deleted-rows scans in %d switches to all threads, want %d", s.ID, tb.FullName(), read, switches, min(read, 1))
			}
			most = max(most, read)
		}
	}
	if most < 2 {
		t.Fatalf("at most %d files' deleted rows read at a snapshot, want several", most)
	}
}

// rewriteDeleteFile rewrites a Parquet delete file with more positions and
// updates its catalog row (size, footer size, delete count) so that the
// disk check still holds. A partial deletion file's added positions get
// its first position's snapshot.
func rewriteDeleteFile(t *testing.T, catalog, path string, extra []int64) {
	t.Helper()
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	names, _, err := describeDB(ctx, db, "SELECT * FROM read_parquet("+sqlString(path)+")")
	if err != nil {
		t.Fatal(err)
	}
	var adds []string
	for _, p := range extra {
		a := fmt.Sprintf("SELECT (SELECT any_value(file_path) FROM src) AS file_path, %d::BIGINT AS pos", p)
		if len(names) == 3 {
			a += ", (SELECT min_by(" + ident(names[2]) + ", pos) FROM src) AS " + ident(names[2])
		}
		adds = append(adds, a)
	}
	tmp := path + ".tmp"
	q := fmt.Sprintf("COPY (WITH src AS (SELECT * FROM read_parquet(%s)) SELECT * FROM (SELECT * FROM src UNION ALL %s) ORDER BY pos) TO %s (FORMAT parquet)",
		sqlString(path), strings.Join(adds, " UNION ALL "), sqlString(tmp))
	if _, err := db.ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	updateDeleteFile(t, catalog, path, len(b), binary.LittleEndian.Uint32(b[len(b)-8:]), len(extra))
}

// describeDB is describe on a *sql.DB.
func describeDB(ctx context.Context, db *sql.DB, q string) (names, types []string, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	return parquetsql.Describe(ctx, conn, q)
}

// TestDeletesOutOfRange: a delete file may name positions its data file
// does not have (just past its last row, or past 2^40, the width of a kept
// row's position in a grouped scan; negative ones every real reader
// refuses, TestDeleteFilesRealReadersRefuse). DuckLake's reader
// applies deletes by position while it scans a file's rows
// (DuckLakeDeleteData::Filter), so such a position deletes nothing: the
// rows read are those of the lake without it. The proof must read them so,
// whether the deleted rows' digests are kept by the up-front scan, kept by
// the walk, or read as one digest (past the cap), and must find the lake
// equivalent to itself and, against the lake without those positions, the
// delete files different but not the rows; count(*), which 1.0 readers
// answer from delete_count (counts.go), differs too. Delete files of each kind: a
// two-column and a partial Parquet file (a generated history: 4 versions,
// files of 2,000 rows, deletes at versions 2 and 4) and a Puffin deletion
// vector (the conformance lake 24_deletion_vectors).
func TestDeletesOutOfRange(t *testing.T) {
	ctx := context.Background()
	type lake struct {
		catalog, data string
		want          map[string]Digest
	}
	lakes := map[string]*lake{}
	source := func(name string) *lake {
		if l := lakes[name]; l != nil {
			return l
		}
		l := &lake{}
		if name == "history" {
			cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 4, RowsPerVersion: 4000, FilesPerVersion: 2, DeleteEvery: 2})
			l.catalog, l.data = cats[len(cats)-1], data
		} else {
			dir, catalog := lastVersion(t, "lakes", name)
			l.catalog, l.data = catalog, filepath.Join(dir, "data")
		}
		l.want, _ = tableDigests(t, l.catalog, l.data)
		lakes[name] = l
		return l
	}
	for _, tc := range []struct {
		name  string
		lake  string
		kind  string  // the delete file rewritten: parquet, partial or puffin
		extra []int64 // positions added, past the file's rows
		cap   int     // row digests kept at most (0: the default)
	}{
		{"just past the last row", "history", "parquet", []int64{2000, 2001}, 0},
		{"past 2^40", "history", "parquet", []int64{1 << 40, 1<<40 + 3, 1 << 62}, 0},
		{"partial deletion file", "history", "partial", []int64{2000, 1<<40 + 1}, 0},
		{"past the cap", "history", "partial", []int64{5000, 1<<40 + 1}, 1},
		{"deletion vector", "24_deletion_vectors", "puffin", []int64{1 << 20, 1<<40 + 7}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := source(tc.lake)
			catalog, dir := copyLake(t, src.catalog, src.data)
			del := deleteFileOfKind(t, catalog, dir, tc.kind)
			if tc.kind == "puffin" {
				rewritePuffin(t, catalog, del, tc.extra)
			} else {
				rewriteDeleteFile(t, catalog, del, tc.extra)
			}
			for _, prefetched := range []bool{false, true} {
				checkDigestsWithCap(t, catalog, dir, prefetched, tc.cap)
			}
			got, _ := tableDigests(t, catalog, dir)
			if len(got) != len(src.want) {
				t.Fatalf("%d table digests, want %d", len(got), len(src.want))
			}
			for k, d := range src.want {
				if got[k] != d {
					t.Errorf("%s: %v with positions past the file's rows, %v without", k, got[k], d)
				}
			}
			other := filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, other)
			if rep, err := Catalogs(ctx, catalog, other, Options{DataPath: dir, Engines: readerDBs}); err != nil || !rep.Equivalent {
				t.Fatalf("lake against a copy of itself: %v", err)
			}
			rep, err := Catalogs(ctx, src.catalog, catalog, Options{DataPath: src.data, DataPathB: dir, Engines: readerDBs})
			if err == nil || !hasDifference(rep, "files", "deletes of") || !hasDifference(rep, "count", "count(*) answers differ") {
				t.Fatalf("against the lake without those positions: %v; want the delete files and count(*) different", err)
			}
			for _, d := range rep.Differences {
				if d.Kind != "files" && d.Kind != "count" {
					t.Errorf("difference %s; want only the delete files and count(*) to differ", d)
				}
			}
		})
	}
}

// deleteFileOfKind returns a delete file of a lake: a two-column Parquet
// file (parquet), a partial deletion file (partial) or a Puffin file.
func deleteFileOfKind(t *testing.T, catalog, data, kind string) string {
	t.Helper()
	_, dels := lakeFilesOf(t, catalog, data)
	db := openDB(t)
	for _, d := range dels {
		if strings.HasSuffix(d, ".puffin") {
			if kind == "puffin" {
				return d
			}
			continue
		}
		names, _, err := describeDB(context.Background(), db, "SELECT * FROM read_parquet("+sqlString(d)+")")
		if err != nil {
			t.Fatal(err)
		}
		if (len(names) == 3) == (kind == "partial") && kind != "puffin" {
			return d
		}
	}
	t.Fatalf("no %s delete file among %d", kind, len(dels))
	return ""
}

// updateDeleteFile sets a delete file's catalog record after its bytes
// changed (footer 0 when it has none), so that the disk check still holds.
func updateDeleteFile(t *testing.T, catalog, path string, size int, footer uint32, added int) {
	t.Helper()
	db := testduck.Open(t, catalog)
	defer db.Close()
	res, err := db.Exec(fmt.Sprintf("UPDATE ducklake_delete_file SET file_size_bytes = %d, footer_size = %d, delete_count = delete_count + %d WHERE path = %s",
		size, footer, added, sqlString(filepath.Base(path))))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("delete file %s: %d catalog rows (%v); want one", path, n, err)
	}
}

// rewritePuffin rewrites a bare deletion-vector Puffin file with more
// positions.
func rewritePuffin(t *testing.T, catalog, path string, extra []int64) {
	t.Helper()
	pos, err := puffinDeletes(path, math.MaxInt64, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []uint64
	for _, p := range append(pos, extra...) {
		all = append(all, uint64(p))
	}
	b := dvBlob(t, all...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	updateDeleteFile(t, catalog, path, len(b), 0, len(extra))
}

// checkDigestsWithCap is checkDigestsByParts on a new reader of catalog
// whose scans keep at most rowCap row digests (0: the default). Past the
// cap the walk reads deleted rows again, so it may read files after the
// scan up front (prefetched).
func checkDigestsWithCap(t *testing.T, catalog, data string, prefetched bool, rowCap int) {
	t.Helper()
	r, snaps := openWithSnapshots(t, catalog, data)
	if rowCap == 0 {
		checkDigestsByParts(t, r, snaps, prefetched, nil)
		return
	}
	r.memo.rowCap = rowCap // the reader's own Digests
	if prefetched {
		prefetchAll(r, snaps)
	}
	checkDigestsByParts(t, r, snaps, false, nil)
}

// openDB opens a private in-memory DuckDB for the test.
func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db := testduck.Open(t, "")
	t.Cleanup(func() { db.Close() })
	return db
}

// TestGlobPathsReadLiterally: DuckDB expands `*`, `?` and `[` in a path
// given to read_parquet or parquet_schema, even alone in a list, where
// DuckLake hands DuckDB its files unexpanded. A data file whose name has
// them, beside files its name matches as a pattern (the lake's other files,
// a stray copy), is read alone and as that file only: every table digest
// equals the lake's with the file under its own name.
func TestGlobPathsReadLiterally(t *testing.T) {
	cats, data := historyLake(t, lakegen.HistoryOptions{Versions: 2, RowsPerVersion: 3000, FilesPerVersion: 2, DeleteEvery: 2})
	source := cats[len(cats)-1]
	want, _ := tableDigests(t, source, data)
	for _, tc := range []struct {
		name  string
		file  string // the data file's new name
		stray string // a copy of another data file the name matches as a pattern ("" none)
	}{
		{"star", "ducklake-*.parquet", ""},
		{"question mark", "part-?.parquet", "part-1.parquet"},
		{"bracket", "part[1].parquet", "part1.parquet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			catalog, dir := copyLake(t, source, data)
			files, _ := lakeFilesOf(t, catalog, dir)
			renamed := renameDataFile(t, catalog, files[0], tc.file)
			if tc.stray != "" {
				copyFile(t, files[1], filepath.Join(filepath.Dir(renamed), tc.stray))
			}
			got, st := tableDigests(t, catalog, dir)
			for k, d := range want {
				if got[k] != d {
					t.Errorf("%s: %v with %s, %v under its own name", k, got[k], tc.file, d)
				}
			}
			if st.Reads != len(files) || st.Queries != 2 {
				t.Errorf("%d files read in %d queries; want %d in 2 (the renamed file alone)", st.Reads, st.Queries, len(files))
			}
			r, snaps := openWithSnapshots(t, catalog, dir)
			checkDigestsByParts(t, r, snaps, true, nil)
		})
	}
}

// TestColumnNamedFileRowNumber: DuckDB refuses read_parquet(...,
// file_row_number = true) on a file with a column named file_row_number
// (any case), even one its schema map renames; without the option, its
// virtual file_row_number column is the row's position once the map has
// renamed the data column. Files with field ids are read so: the rows are
// what the generator wrote (the column's values are not positions), the
// digests by parts hold, and the lake is equivalent to itself, where it was
// incomparable.
func TestColumnNamedFileRowNumber(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"file_row_number", "File_Row_Number"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			create := lakegen.Snapshot{lakegen.CreateTable{Table: "t", Columns: []lakegen.Column{{Name: name, Type: "BIGINT"}, {Name: "v", Type: "VARCHAR"}}}}
			res, err := lakegen.Repository(ctx, dir, lakegen.Spec{Name: "frn", RecordRows: true, Versions: []lakegen.Version{
				{Snapshots: []lakegen.Snapshot{create, {lakegen.Insert{Table: "t", Files: 2, Select: "SELECT i * 7 + 100, 'v' || i FROM range(50) t(i)"}}}},
				{Snapshots: []lakegen.Snapshot{{lakegen.Delete{Table: "t", Where: ident(name) + " % 3 = 0"}},
					{lakegen.Insert{Table: "t", Select: "SELECT i, 'w' || i FROM range(5) t(i)"}}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			catalog := filepath.Join(dir, "versions", res.Versions[len(res.Versions)-1].ID, "ducklake.duckdb")
			data := filepath.Join(dir, "data")
			for _, c := range []struct {
				prefetched bool
				cap        int
			}{{false, 0}, {true, 0}, {false, 1}, {true, 1}} {
				checkDigestsWithCap(t, catalog, data, c.prefetched, c.cap)
			}
			r, snaps := openWithSnapshots(t, catalog, data)
			checked := 0
			for _, s := range snaps {
				state, ok := res.Snapshot(s.ID)
				if !ok {
					t.Fatalf("snapshot %d not generated", s.ID)
				}
				tables, err := r.Tables(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, tb := range tables {
					rows, err := r.RowTexts(ctx, tb, s.ID, ScanOptions{})
					if err != nil {
						t.Fatalf("snapshot %d: %v", s.ID, err)
					}
					wrote := map[string]int64{}
					for _, row := range state.Tables[tb.FullName()].Data {
						wrote[row]++
					}
					if d := diffRows(rows, wrote, 3); len(d.OnlyA)+len(d.OnlyB) > 0 {
						t.Errorf("snapshot %d %s: read rows differ from the rows written:\n%s", s.ID, tb.FullName(), d)
					}
					checked += len(wrote)
				}
			}
			if checked == 0 {
				t.Fatal("no rows checked")
			}
			other := filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, other)
			if rep, err := Catalogs(ctx, catalog, other, Options{DataPath: data, Engines: readerDBs}); err != nil || !rep.Equivalent {
				t.Fatalf("lake against a copy of itself: %v", err)
			}
		})
	}
}

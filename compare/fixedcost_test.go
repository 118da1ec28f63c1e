package compare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fixedCostLakes are lakes whose files exercise the batched reads: deletes
// (plain and partial), hive paths, nested types, renames, files without
// field ids, compaction, deletion vectors, encryption, inlining, macros,
// views and tags.
var fixedCostLakes = []struct{ archive, name string }{
	{"lakes", "06_deletes"},
	{"lakes", "07_updates_merge"},
	{"lakes", "08_partitioning"},
	{"lakes", "09_views"},
	{"lakes", "10_macros"},
	{"lakes", "11_comments_tags"},
	{"lakes", "12_nested_types"},
	{"lakes", "15_encryption"},
	{"lakes", "16_data_inlining"},
	{"lakes", "17_compaction"},
	{"lakes", "19_add_data_files"},
	{"lakes", "24_deletion_vectors"},
	{"lakes-0.3", "03_renames"},
	{"lakes-0.3-compaction", "c_compaction__merge_rewrite_partial_file_info"},
	{"lakes-1.1-dev1", "26_v11_only_features"},
}

// lakeFiles lists every data and Parquet delete file of every table of a
// catalog that is not encrypted (those prefetches read).
func lakeFiles(ctx context.Context, t *testing.T, r *Reader) (data, dels []string) {
	t.Helper()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			all, err := r.allTableFiles(ctx, tb)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range all.data {
				if f := row.file; !seen[f.Path] && (f.encryptionKey == nil || *f.encryptionKey == "") {
					seen[f.Path] = true
					data = append(data, f.Path)
				}
			}
			for _, row := range all.dels {
				if d := row.file; !seen[d.Path] && d.Format == "parquet" && (d.encryptionKey == nil || *d.encryptionKey == "") {
					seen[d.Path] = true
					dels = append(dels, d.Path)
				}
			}
		}
	}
	return data, dels
}

// TestBatchedReadsMatchSingleReads: the Parquet schemas and delete files
// read many per query are what one query per file reads, file by file.
func TestBatchedReadsMatchSingleReads(t *testing.T) {
	ctx := context.Background()
	partial := 0 // delete files with per-position snapshots
	for _, l := range fixedCostLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, l.archive, l.name)
			r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			data, dels := lakeFiles(ctx, t, r)
			if len(data) > 0 {
				trees, err := r.readParquetSchemas(ctx, data)
				if err != nil {
					t.Fatal(err)
				}
				if len(trees) != len(data) {
					t.Fatalf("%d schemas for %d files", len(trees), len(data))
				}
				for _, p := range data {
					one, err := r.readParquetSchema(ctx, p)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(one, trees[p]) {
						t.Errorf("%s: batched schema differs from its own read", p)
					}
				}
			}
			if len(dels) > 0 {
				got, err := r.readDeleteBatch(ctx, dels)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(dels) {
					t.Fatalf("%d delete files read for %d", len(got), len(dels))
				}
				for _, p := range dels {
					one, err := r.readParquetDeletes(ctx, &DeleteFile{Path: p})
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(one, got[p]) {
						t.Errorf("%s: batched positions %v, read alone %v", p, got[p], one)
					}
					if one.partial() {
						partial++
					}
				}
			}
		})
	}
	if partial == 0 {
		t.Error("no partial deletion file among the lakes: the test covers only plain ones")
	}
}

// TestFirstReadPrefetches: the first schema or delete file of a table asked
// for brings the table's others, so that a comparison reads each kind in
// one query per table.
func TestFirstReadPrefetches(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "08_partitioning")
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, dels := lakeFiles(ctx, t, r)
	if len(data) < 2 || len(dels) < 2 {
		t.Fatalf("lake has %d data and %d delete files, want several", len(data), len(dels))
	}
	if _, err := r.parquetSchema(ctx, data[0]); err != nil {
		t.Fatal(err)
	}
	if len(r.schemas) < 2 {
		t.Errorf("after the first schema, %d are known, want the table's others too", len(r.schemas))
	}
	if _, err := r.parquetDeletes(ctx, &DeleteFile{Path: dels[0]}, 1<<62); err != nil {
		t.Fatal(err)
	}
	if n := len(r.rawDeletes.files); n < 2 {
		t.Errorf("after the first delete file, %d are known, want the table's others too", n)
	}
}

// TestBatchFallsBackPerFile: a missing or damaged file makes the batch
// fail; every other file is still read (alone), and the bad one reports
// its own error, as without batches.
func TestBatchFallsBackPerFile(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "08_partitioning")
	src := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"missing", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", cut(20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			copyTree(t, src, data)
			r, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			files, dels := lakeFiles(ctx, t, r)
			bad, badDel := files[len(files)-1], dels[len(dels)-1]
			tc.damage(t, bad)
			tc.damage(t, badDel)
			for _, p := range files {
				_, err := r.parquetSchema(ctx, p)
				if (err != nil) != (p == bad) {
					t.Errorf("schema of %s: error %v", filepath.Base(p), err)
				}
			}
			for _, p := range dels {
				_, err := r.parquetDeletes(ctx, &DeleteFile{Path: p}, 1<<62)
				if (err != nil) != (p == badDel) {
					t.Errorf("delete file %s: error %v", filepath.Base(p), err)
				}
			}
		})
	}
}

// TestEmptyTablesSkipped: once ReadEveryTable has counted every table's
// rows, queries of empty tables are skipped; the descriptions of every
// snapshot are those a reader that skips nothing reads.
func TestEmptyTablesSkipped(t *testing.T) {
	ctx := context.Background()
	engines := readerDBs
	for _, l := range fixedCostLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, l.archive, l.name)
			opts := ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: engines}
			counted, err := Open(ctx, catalog, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer counted.Close()
			if err := counted.ReadEveryTable(ctx); err != nil {
				t.Fatal(err)
			}
			plain, err := Open(ctx, catalog, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			if len(counted.rowCounts) == 0 || plain.rowCounts != nil {
				t.Fatalf("row counts: %d after ReadEveryTable, %v before", len(counted.rowCounts), plain.rowCounts)
			}
			for table, n := range counted.rowCounts {
				var want int64
				if err := plain.conn.QueryRowContext(ctx, "SELECT count(*) FROM cat.main."+ident(table)).Scan(&want); err != nil {
					t.Fatal(err)
				}
				if n != want {
					t.Errorf("%s: counted %d rows, holds %d", table, n, want)
				}
			}
			snaps, err := plain.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			noDisk := func(string, int64, *int64, string) error { return nil }
			for _, s := range snaps {
				a, err := counted.schemaEntries(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				b, err := plain.readSchemaEntries(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("snapshot %d: schema description %v, without skips %v", s.ID, a, b)
				}
				tables, err := plain.Tables(ctx, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, tb := range tables {
					fa, pa, errA := counted.fileEntries(ctx, tb, s.ID, noDisk)
					fb, pb, errB := plain.fileEntries(ctx, tb, s.ID, noDisk)
					if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(fa, fb) || !reflect.DeepEqual(pa, pb) {
						t.Fatalf("snapshot %d, %s: files %v (%v), without skips %v (%v)", s.ID, tb.FullName(), fa, errA, fb, errB)
					}
					da, _, errA := counted.TableDigest(ctx, tb, s.ID, ScanOptions{RowIDs: true})
					db, _, errB := plain.TableDigest(ctx, tb, s.ID, ScanOptions{RowIDs: true})
					if fmt.Sprint(errA) != fmt.Sprint(errB) || da != db {
						t.Fatalf("snapshot %d, %s: rows %v (%v), without skips %v (%v)", s.ID, tb.FullName(), da, errA, db, errB)
					}
				}
			}
			for _, st := range statsTables {
				name := plain.statsName(st)
				if name == "" {
					continue
				}
				a, errA := counted.statsEntries(ctx, st.names[0], name, st.keys, nil)
				b, errB := plain.statsEntries(ctx, st.names[0], name, st.keys, nil)
				if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
					t.Fatalf("%s: %v (%v), without skips %v (%v)", name, a, errA, b, errB)
				}
			}
		})
	}
}

// TestPositionsHash: the delete positions' hash is SHA-256 of "p1,p2,...,"
// (what descriptions hashed with fmt before), however long the list.
func TestPositionsHash(t *testing.T) {
	long := make([]int64, 5000)
	for i := range long {
		long[i] = int64(i) * 7919
	}
	for _, pos := range [][]int64{nil, {0}, {1, 2, 3}, {-1, 1 << 62}, long} {
		h := sha256.New()
		for _, p := range pos {
			fmt.Fprintf(h, "%d,", p)
		}
		want := hex.EncodeToString(h.Sum(nil))
		if got := positionsHash(pos); got != want {
			t.Errorf("positionsHash(%d positions) = %s, want %s", len(pos), got, want)
		}
	}
	if got := positionsHash(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("positionsHash(nil) = %s, want SHA-256 of nothing", got)
	}
}

// TestExistsOncePerReader: a file found is not looked up again; a missing
// one is reported at every call.
func TestExistsOncePerReader(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	found, missing := filepath.Join(dir, "found.parquet"), filepath.Join(dir, "missing.parquet")
	if err := os.WriteFile(found, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		path    string
		wantErr bool
		before  func()
	}{
		{found, false, nil},
		{missing, true, nil},
		{found, false, func() { os.Remove(found) }}, // found once: not looked up again
		{missing, true, nil},
		{"s3://bucket/remote.parquet", false, nil}, // remote: DuckDB reports
	} {
		if tc.before != nil {
			tc.before()
		}
		err := r.exists(tc.path)
		if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrIncomparable)) {
			t.Errorf("call %d, exists(%s) = %v, want error %t", i, filepath.Base(tc.path), err, tc.wantErr)
		}
	}
}

// TestKeptPositionsHash: a file's kept hash is reused only for the very
// same positions; any change (same length included) is hashed again.
func TestKeptPositionsHash(t *testing.T) {
	r := &Reader{posHashes: map[string]keptHash{}}
	for i, tc := range []struct {
		path string
		pos  []int64
	}{
		{"a", []int64{1, 2, 3}},
		{"a", []int64{1, 2, 3}},
		{"a", []int64{1, 2, 4}}, // same length, other positions
		{"b", []int64{1, 2, 4}},
		{"a", []int64{1, 2}},
		{"a", nil},
		{"a", []int64{1, 2, 3}},
	} {
		if got, want := r.keptPositionsHash(tc.path, tc.pos), positionsHash(tc.pos)[:16]; got != want {
			t.Errorf("call %d (%s %v): %s, want %s", i, tc.path, tc.pos, got, want)
		}
	}
}

// eachTable calls fn with every table of r at every snapshot.
func eachTable(t *testing.T, r *Reader, fn func(s Snapshot, tb Table)) {
	t.Helper()
	ctx := context.Background()
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			fn(s, tb)
		}
	}
}

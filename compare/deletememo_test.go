package compare

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// deleteLakes have several Parquet delete files, plain and partial
// (06: partial only, 08: both, 17: plain only).
var deleteLakes = []struct{ archive, name string }{
	{"lakes", "06_deletes"},
	{"lakes", "08_partitioning"},
	{"lakes", "17_compaction"},
}

// deleteLake is the newest catalog of a test lake and a copy of its data
// folder, whose delete files a test may touch.
func deleteLake(t *testing.T, archive, name string) (catalog, data string) {
	t.Helper()
	lake, catalog := lastVersion(t, archive, name)
	data = filepath.Join(t.TempDir(), "data")
	copyTree(t, filepath.Join(lake, "data"), data)
	return catalog, data
}

// TestDeletesSharedAcrossProofs: two comparisons that share a Deletes read
// each Parquet delete file once between them; without one, or past its
// cap, each reads them all; a file touched on disk in between is read
// again.
func TestDeletesSharedAcrossProofs(t *testing.T) {
	ctx := context.Background()
	for _, l := range deleteLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			catalog, data := deleteLake(t, l.archive, l.name)
			r, _ := openWithSnapshots(t, catalog, data)
			_, dels := lakeFiles(ctx, t, r)
			n := len(dels)
			if n < 2 {
				t.Fatalf("%d Parquet delete files, want several", n)
			}
			smallest := maxRunDeletes
			for _, p := range dels {
				raw, err := r.readParquetDeletes(ctx, &DeleteFile{Path: p})
				if err != nil {
					t.Fatal(err)
				}
				smallest = min(smallest, rawSize(raw))
			}
			for _, tc := range []struct {
				name   string
				memo   bool
				capped bool                            // the cap below every file
				change func(t *testing.T, path string) // dels[0] between the two
				first  DeleteFileStats
				second DeleteFileStats
			}{
				{name: "no memo", first: DeleteFileStats{Read: n}, second: DeleteFileStats{Read: n}},
				{name: "memo", memo: true, first: DeleteFileStats{Read: n}, second: DeleteFileStats{Shared: n}},
				{name: "past the cap", memo: true, capped: true, first: DeleteFileStats{Read: n}, second: DeleteFileStats{Read: n}},
				{name: "touched", memo: true, change: touch, first: DeleteFileStats{Read: n}, second: DeleteFileStats{Read: 1, Shared: n - 1}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					opts := Options{DataPath: data, Engines: readerDBs}
					if tc.memo {
						opts.Deletes = NewDeletes()
						if tc.capped {
							opts.Deletes.cap = smallest - 1
						}
					}
					for i, want := range []DeleteFileStats{tc.first, tc.second} {
						if i == 1 && tc.change != nil {
							tc.change(t, dels[0])
						}
						rep, err := Catalogs(ctx, catalog, catalog, opts)
						if err != nil {
							t.Fatal(err)
						}
						if rep.DeleteFiles == nil || *rep.DeleteFiles != want {
							t.Errorf("comparison %d: delete files %+v, want %+v", i+1, rep.DeleteFiles, want)
						}
					}
				})
			}
		})
	}
}

// touch moves a file's modification time on, its bytes unchanged.
func touch(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// TestDeletesRewrittenFileReadAgain: a delete file rewritten in place
// after a proof read it is read again by the next reader sharing the
// Deletes, which then gets the new positions, not the kept ones.
func TestDeletesRewrittenFileReadAgain(t *testing.T) {
	ctx := context.Background()
	for _, l := range deleteLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			catalog, data := deleteLake(t, l.archive, l.name)
			memo := NewDeletes()
			if _, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, Engines: readerDBs, Deletes: memo}); err != nil {
				t.Fatal(err)
			}
			r, _ := openWithSnapshots(t, catalog, data)
			_, dels := lakeFiles(ctx, t, r)
			path := dels[0]
			old, err := r.readParquetDeletes(ctx, &DeleteFile{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			// The same file less its first row, in place.
			tmp := filepath.Join(t.TempDir(), "rewritten.parquet")
			if _, err := r.conn.ExecContext(ctx, "COPY (SELECT * FROM read_parquet("+sqlString(path)+") OFFSET 1) TO "+sqlString(tmp)+" (FORMAT parquet)"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			want, err := r.readParquetDeletes(ctx, &DeleteFile{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			if len(want.pos) != len(old.pos)-1 {
				t.Fatalf("rewritten file holds %d positions, want %d", len(want.pos), len(old.pos)-1)
			}
			r2, _ := openWithSnapshots(t, catalog, data)
			r2.rawDeletes.useRun(memo)
			if _, _, ok := r2.rawDeletes.get(dels[1], ""); !ok {
				t.Errorf("%s, unchanged, is not shared", filepath.Base(dels[1]))
			}
			if _, _, ok := r2.rawDeletes.get(path, ""); ok {
				t.Fatalf("%s, rewritten, is still shared", filepath.Base(path))
			}
			got, err := r2.parquetDeletes(ctx, &DeleteFile{Path: path}, 1<<62)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want.pos) {
				t.Errorf("positions after the rewrite %v, want %v", got, want.pos)
			}
			if c := r2.rawDeletes.counts(); c.Read == 0 {
				t.Errorf("counts %+v: the rewritten file was not read", c)
			}
		})
	}
}

// TestDeletesStatTwice: a Parquet delete file a comparison reads, with a
// run's Deletes to share it with, is stat'ed twice (its identity before
// the read, which the lookup takes, and after it, before the run keeps
// it), and one the run shares once; before, the lookup, a second lookup, a
// stamp and the put each stat'ed it (three or four times).
func TestDeletesStatTwice(t *testing.T) {
	ctx := context.Background()
	for _, l := range deleteLakes {
		t.Run(l.archive+"/"+l.name, func(t *testing.T) {
			catalog, data := deleteLake(t, l.archive, l.name)
			run := NewDeletes()
			for _, tc := range []struct {
				name  string
				stats int             // per delete file
				want  DeleteFileStats // per delete file
			}{
				{"read", 2, DeleteFileStats{Read: 1}},
				{"shared", 1, DeleteFileStats{Shared: 1}},
			} {
				r, _ := openWithSnapshots(t, catalog, data)
				_, dels := lakeFiles(ctx, t, r)
				r.rawDeletes.useRun(run)
				stats := map[string]int{}
				r.rawDeletes.stat = func(p string) (os.FileInfo, error) {
					stats[p]++
					return os.Stat(p)
				}
				for _, p := range dels {
					if _, err := r.parquetDeletes(ctx, &DeleteFile{Path: p}, 1<<62); err != nil {
						t.Fatal(err)
					}
				}
				for _, p := range dels {
					if stats[p] != tc.stats {
						t.Errorf("%s: %s stat'ed %d times, want %d", tc.name, filepath.Base(p), stats[p], tc.stats)
					}
				}
				n := len(dels)
				if got, want := r.rawDeletes.counts(), (DeleteFileStats{Read: tc.want.Read * n, Shared: tc.want.Shared * n}); got != want {
					t.Errorf("%s: counts %+v, want %+v", tc.name, got, want)
				}
			}
		})
	}
}

package compare

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestAllFiles: for the last version of each conformance lake, AllFiles
// names exactly the files Files lists at some snapshot, each existing with
// the size the catalog records.
func TestAllFiles(t *testing.T) {
	ctx := context.Background()
	// The readers read the catalogs alone (no data file): their databases
	// come from a pool, not one started for each.
	engines := readerDBs
	for _, archive := range []string{"lakes", "lakes-0.3"} {
		for _, lake := range testlakes.Lakes(t, archive) {
			name := filepath.Base(lake)
			if name == "zz_storage_v2_unreadable" || (testing.Short() && !matchesAny(name, "06_,16_,17_,24_")) {
				continue
			}
			t.Run(archive+"/"+name, func(t *testing.T) {
				t.Parallel() // a reader of its own on a lake it only reads
				cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
				if len(cats) == 0 {
					t.Skip("no versions")
				}
				last := cats[len(cats)-1] // UUIDv7 folders sort by time
				r, err := Open(ctx, last, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: engines})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				all, err := r.AllFiles(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]int64{}
				for _, f := range all {
					got[f.Path] = f.SizeBytes
				}
				want := map[string]int64{}
				eachTable(t, r, func(s Snapshot, tb Table) {
					files, err := r.Files(ctx, tb, s.ID)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range files {
						want[f.Path] = f.SizeBytes
						if f.Delete != nil {
							want[f.Delete.Path] = f.Delete.SizeBytes
						}
					}
				})
				for p, size := range want {
					if g, ok := got[p]; !ok || g != size {
						t.Errorf("%s (%d bytes) visible at a snapshot: AllFiles has %d, %v", p, size, g, ok)
					}
				}
				for p, size := range got {
					if _, ok := want[p]; !ok {
						t.Errorf("AllFiles lists %s, visible at no snapshot", p)
					}
					if strings.Contains(p, "://") {
						continue
					}
					if st, err := os.Stat(p); err != nil || st.Size() != size {
						t.Errorf("%s: %v, want a file of %d bytes", p, err, size)
					}
				}
			})
		}
	}
}

// TestUnderDataPath: a file is under the data path only when recorded
// relative all the way, with no ".", ".." and no empty part.
func TestUnderDataPath(t *testing.T) {
	const dp = "/repo/data/"
	cases := []struct {
		name     string
		path     string
		relative bool
		want     string // the relative path, or "" when outside
		reason   string
	}{
		{"relative", dp + "main/t/f.parquet", true, "main/t/f.parquet", ""},
		{"dot part", dp + "main/./t/f.parquet", true, "", ". part"}, // S3 keeps it in the key
		{"absolute", "/elsewhere/f.parquet", false, "", "absolute"},
		{"absolute inside the data path", dp + "main/t/f.parquet", false, "", "absolute"},
		{"climbing out", dp + "main/t/../../../x/f.parquet", true, "", ".."},
		{"climbing in and back", dp + "main/t/../t/f.parquet", true, "", ".."},
		{"leading slash", dp + "main/t//x/f.parquet", true, "", "empty part"},
		{"url", dp + "main/t/s3://b/f.parquet", true, "", "empty part"},
		{"not under it", "/other/f.parquet", true, "", "not under"},
	}
	var files, inside []StoredFile
	outside := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rel, reason := StoredFile{Path: tc.path, Relative: tc.relative}.UnderDataPath(dp)
			if rel != tc.want || (tc.reason == "") != (reason == "") || !strings.Contains(reason, tc.reason) {
				t.Errorf("UnderDataPath = %q, %q; want %q and a reason with %q", rel, reason, tc.want, tc.reason)
			}
		})
		f := StoredFile{Path: tc.path, Relative: tc.relative, ID: int64(len(files))}
		files = append(files, f)
		if tc.want != "" {
			inside = append(inside, f)
		} else {
			outside++
		}
	}
	// Outside parts the same files: those under the data path in order,
	// the others described in one error naming the catalog.
	gotIn, err := Outside(files, dp, "cat.duckdb")
	if !slices.Equal(gotIn, inside) {
		t.Errorf("Outside: inside %v, want %v", gotIn, inside)
	}
	if err == nil || len(err.Files) != outside || err.Catalog != "cat.duckdb" || !strings.Contains(err.Error(), "cat.duckdb names 8 data or delete file(s) outside its data path") {
		t.Errorf("Outside: %v, want the %d files outside", err, outside)
	}
	if in, err := Outside(inside, dp, "cat.duckdb"); err != nil || len(in) != len(inside) {
		t.Errorf("Outside of the files inside: %d, %v; want all, nil", len(in), err)
	}
}

// TestTableDir: a table's folder is the data path followed by its schema's
// and its own path, each relative unless recorded absolute (the folder
// then starts there and is not relative); without table paths (0.1) it is
// the data path.
func TestTableDir(t *testing.T) {
	str := func(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
	rel := func(b bool) sql.NullBool { return sql.NullBool{Bool: b, Valid: true} }
	null := sql.NullBool{}
	for _, tc := range []struct {
		name         string
		format       *formats.Version
		sPath        string
		sRel         sql.NullBool
		tPath        string
		tRel         sql.NullBool
		want         string
		wantRelative bool
	}{
		{"0.1", formats.V0_1, "s/", rel(false), "t/", rel(false), "/d/", true},
		{"no paths", formats.V1_1, "", null, "", null, "/d/", true},
		{"relative", formats.V1_1, "s/", rel(true), "t/", rel(true), "/d/s/t/", true},
		{"relative unset", formats.V1_1, "s/", null, "t/", null, "/d/s/t/", true},
		{"absolute schema", formats.V1_1, "/x/", rel(false), "t/", rel(true), "/x/t/", false},
		{"absolute table", formats.V1_1, "s/", rel(true), "/y/", rel(false), "/y/", false},
		{"both absolute", formats.V1_1, "/x/", rel(false), "/y/", rel(false), "/y/", false},
		{"no schema path", formats.V1_1, "", rel(false), "t/", rel(true), "/d/t/", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Reader{format: tc.format, dataPath: "/d/"}
			dir, relative := r.tableDir(str(tc.sPath), tc.sRel, str(tc.tPath), tc.tRel)
			if dir != tc.want || relative != tc.wantRelative {
				t.Errorf("tableDir = %q, %t; want %q, %t", dir, relative, tc.want, tc.wantRelative)
			}
		})
	}
}

// TestStoredFilesFollowMovedFolders: a reader resolves a file against its
// table's folder at the snapshot it reads, so a table whose folder moves
// (by absolute path: out of data_dir, or to the same place) while its
// files stay visible has them listed at the new folder too, and Outside
// names them; the check once looked only at the folder of the snapshot
// that added a file, then dropped an absolute folder resolving to the
// same path as a relative one.
func TestStoredFilesFollowMovedFolders(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	cats, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
	if len(cats) == 0 {
		t.Fatal("no versions of 06_deletes")
	}
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name, folder, want string
	}{
		{"out of data_dir", "/elsewhere/", "/elsewhere/"},
		{"to the same place by absolute path", data + "/main/del/", "recorded by absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			catalog := filepath.Join(t.TempDir(), "moved.duckdb")
			copyFile(t, cats[0], catalog)
			execCatalog(t, catalog,
				"UPDATE ducklake_table SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE end_snapshot IS NULL",
				"INSERT INTO ducklake_table SELECT * REPLACE (end_snapshot AS begin_snapshot, NULL AS end_snapshot, "+sqlString(tc.folder)+" AS path, false AS path_is_relative) FROM ducklake_table WHERE end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot)")
			r, err := Open(ctx, catalog, ReaderOptions{DataPath: data, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			stored, err := r.StoredFiles(ctx)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for _, f := range stored {
				listed[f.Path] = true
			}
			read := 0
			eachTable(t, r, func(s Snapshot, tb Table) {
				files, err := r.Files(ctx, tb, s.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					read++
					if !listed[f.Path] {
						t.Errorf("snapshot %d reads %s, which StoredFiles does not list", s.ID, f.Path)
					}
				}
			})
			if read == 0 {
				t.Fatal("no file read at any snapshot")
			}
			_, outside := Outside(stored, r.DataPath(), catalog)
			if outside == nil || !strings.Contains(outside.Error(), tc.want) || !strings.Contains(outside.Error(), "data file 0 ") {
				t.Fatalf("Outside: %v, want data file 0 named with %q", outside, tc.want)
			}
		})
	}
}

// TestStoredFilesFormat: each file is listed with how its format's reader
// opens it, which a remote repository's data cache uses to tell the delete
// files whose footer lies beyond the last bytes a ranged read holds: the
// conformance lake 24_deletion_vectors (a real 1.0 lake) has Parquet data
// files and Puffin deletion vectors.
func TestStoredFilesFormat(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "24_deletion_vectors")
	rd, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	files, err := rd.StoredFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	puffins := 0
	for _, f := range files {
		want := "parquet"
		if f.Delete && strings.HasSuffix(f.Path, ".puffin") {
			want = "puffin"
			puffins++
		}
		if f.Format != want {
			t.Errorf("%s: format %q, want %q", f.Path, f.Format, want)
		}
	}
	if puffins == 0 {
		t.Fatalf("no Puffin delete file listed: %+v", files)
	}
}

package compare

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSourceSharedByProofs proves one catalog A against several catalogs B
// one after the other, with one Source and without: every proof gives the
// same verdict, differences, snapshots and table digests either way, and
// with the Source catalog A is opened once.
func TestSourceSharedByProofs(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	same := filepath.Join(t.TempDir(), "copy.duckdb")
	copyFile(t, catalog, same)
	bs := []struct{ name, path string }{
		{"copy", same},
		{"data file swapped", tamper(t, catalog, `UPDATE ducklake_data_file SET path = (SELECT path FROM ducklake_data_file WHERE data_file_id = 1) WHERE data_file_id = 0`)},
		{"delete file dropped", tamper(t, catalog, `DELETE FROM ducklake_delete_file WHERE data_file_id = 0`)},
		{"column type altered", tamper(t, catalog, `UPDATE ducklake_column SET column_type = 'int32' WHERE table_id = 1 AND column_id = 1`)},
		{"snapshot removed", tamper(t, catalog, `DELETE FROM ducklake_snapshot WHERE snapshot_id = 5`)},
		{"copy again", same},
	}
	ctx := context.Background()
	src := NewSource()
	defer src.Close()
	engines := NewEngines(2)
	defer engines.Close()
	var first *Reader
	for _, b := range bs {
		want, wantErr := Catalogs(ctx, catalog, b.path, Options{DataPath: data, Engines: readerDBs})
		got, err := Catalogs(ctx, catalog, b.path, Options{DataPath: data, Source: src, Engines: engines})
		if (err == nil) != (wantErr == nil) || got.Equivalent != want.Equivalent {
			t.Fatalf("%s: with a Source %v, without %v", b.name, err, wantErr)
		}
		if !reflect.DeepEqual(got.Differences, want.Differences) || !reflect.DeepEqual(got.Snapshots, want.Snapshots) || !reflect.DeepEqual(got.Tables, want.Tables) {
			t.Errorf("%s: with a Source\n%v\n%v\nwithout\n%v\n%v", b.name, got.Differences, got.Tables, want.Differences, want.Tables)
		}
		if first == nil {
			first = src.r
		}
		if src.r != first || src.r == nil {
			t.Fatalf("%s: catalog A opened again", b.name)
		}
	}
	// Another catalog A opens its own reader, and leaves the Source's.
	if _, err := Catalogs(ctx, same, catalog, Options{DataPath: data, Source: src, Engines: readerDBs}); err != nil {
		t.Fatal(err)
	}
	if src.r != first {
		t.Fatal("a proof of another catalog A replaced the Source's reader")
	}
}

// TestSourceUnreadable: a catalog A that cannot be read whole is the
// difference of every proof that shares it, as of a proof alone.
func TestSourceUnreadable(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	for _, tc := range []struct {
		name string
		how  func(t *testing.T, path string)
	}{
		{"A without its last block", cut(256 * 1024)},
		{"A with a byte flipped in ducklake_data_file", flipIn("ducklake_data_file")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := damage(t, catalog, tc.how)
			src := NewSource()
			defer src.Close()
			for i := range 2 {
				rep, err := Catalogs(context.Background(), a, catalog, Options{DataPath: data, Source: src, Engines: readerDBs})
				if err == nil || rep == nil || !hasDifference(rep, "catalog", "A cannot be read while B can") {
					t.Fatalf("proof %d: %v, %+v", i, err, rep)
				}
				if !strings.Contains(err.Error(), "A cannot be read") {
					t.Errorf("proof %d: %v", i, err)
				}
			}
		})
	}
}

// TestSourceAfterClose: a closed Source is empty again, and binds to the
// catalog A of the next proof that passes it; a Source does not serve a
// proof of its catalog A over another data folder.
func TestSourceAfterClose(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	ctx := context.Background()
	src := NewSource()
	defer src.Close()
	for i := 0; i < 2; i++ {
		rep, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, Source: src, Engines: readerDBs})
		if err != nil || !rep.Equivalent {
			t.Fatalf("proof %d: %v", i, err)
		}
		if src.r == nil {
			t.Fatalf("proof %d: the Source holds no reader", i)
		}
		if err := src.Close(); err != nil {
			t.Fatal(err)
		}
		if src.r != nil || src.path != "" {
			t.Fatalf("a closed Source still holds %s", src.path)
		}
	}
	if _, err := Catalogs(ctx, catalog, catalog, Options{DataPath: data, Source: src, Engines: readerDBs}); err != nil {
		t.Fatal(err)
	}
	held := src.r
	other := filepath.Join(t.TempDir(), "data")
	copyTree(t, data, other)
	if _, err := Catalogs(ctx, catalog, catalog, Options{DataPath: other, Source: src, Engines: readerDBs}); err != nil {
		t.Fatal(err)
	}
	if src.r != held || src.data != data {
		t.Fatalf("a proof over another data folder used or replaced the Source's reader (data %s)", src.data)
	}
}

// TestSourceReaderLent: Source.Reader lends the Source's reader to another
// user of the same catalog (done does not close it, and the next proof
// uses it: a proof with a Source bound by Reader opens no reader of A), and
// gives a reader of its own, closed by done, for another catalog or data
// path, or without a Source. The lent reader lists its files once
// (StoredFiles), each call a copy of its own.
func TestSourceReaderLent(t *testing.T) {
	lake, frozen := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	catalog := filepath.Join(t.TempDir(), "a.duckdb") // a log is put beside it
	copyFile(t, frozen, catalog)
	other := filepath.Join(t.TempDir(), "other.duckdb")
	copyFile(t, frozen, other)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		noSource bool
		path     string
		dataPath string
		wantLent bool
	}{
		{"the Source's catalog", false, catalog, data, true},
		{"no Source", true, catalog, data, false},
		{"another catalog", false, other, data, false},
		{"another data path", false, catalog, t.TempDir(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var src *Source
			if !tc.noSource {
				src = NewSource()
				defer src.Close()
				if _, _, err := src.Reader(ctx, catalog, ReaderOptions{DataPath: data, Engines: readerDBs}); err != nil {
					t.Fatal(err)
				}
			}
			r, done, err := src.Reader(ctx, tc.path, ReaderOptions{DataPath: tc.dataPath, Engines: readerDBs})
			if err != nil {
				t.Fatal(err)
			}
			if lent := src != nil && r == src.r; lent != tc.wantLent {
				t.Fatalf("lent %t, want %t", lent, tc.wantLent)
			}
			files, err := r.StoredFiles(ctx)
			if err != nil || len(files) == 0 {
				t.Fatalf("stored files: %d, %v", len(files), err)
			}
			files[0].Path = "changed by the caller"
			again, err := r.StoredFiles(ctx)
			if err != nil || again[0].Path == files[0].Path {
				t.Fatalf("second listing %v, %v: want its own copy", again, err)
			}
			if err := done(); err != nil {
				t.Fatal(err)
			}
			if closed := r.db == nil; closed == tc.wantLent {
				t.Errorf("reader closed %t after done, want %t", closed, !tc.wantLent)
			}
			if tc.wantLent {
				// A proof with this Source uses the lent reader: a log
				// beside A, which Open refuses, does not stop it.
				if err := os.WriteFile(catalog+".wal", nil, 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(catalog + ".wal")
				if _, err := Catalogs(ctx, catalog, other, Options{DataPath: data, Source: src, Engines: readerDBs}); err != nil {
					t.Fatalf("proof with the lent reader: %v", err)
				}
			}
		})
	}
}

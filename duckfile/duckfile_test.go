package duckfile

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestStoragesMatchDuckDB saves a table at every known STORAGE_VERSION with
// the linked DuckDB and reads each file's header back: the table of
// Storages is what DuckDB really writes.
func TestStoragesMatchDuckDB(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	for _, s := range Storages {
		t.Run(s.Name, func(t *testing.T) {
			p := filepath.Join(dir, s.Name+".duckdb")
			saveTable(ctx, t, db, p, fmt.Sprintf("STORAGE_VERSION '%s'", s.Name), "SELECT 42 AS a")
			h := readFile(t, p)
			if h.Storage != s.Name || h.VersionNumber != s.VersionNumber || h.Serialization != s.Serialization {
				t.Errorf("header %+v, want storage %+v", h, s)
			}
			if !strings.HasPrefix(h.Writer, "v1.") {
				t.Errorf("writer %q, want the linked DuckDB's version", h.Writer)
			}
			since := s.Since
			if since == "" {
				since = s.Name
			}
			if got, want := h.MinDuckDB().String(), strings.TrimPrefix(since, "v"); got != want {
				t.Errorf("MinDuckDB = %s, want %s", got, want)
			}
		})
	}
}

// saveTable has the linked DuckDB save a file at p, attached with options,
// holding one table of the rows of query.
func saveTable(ctx context.Context, t *testing.T, db *sql.DB, p, options, query string) {
	t.Helper()
	for _, q := range []string{
		fmt.Sprintf("ATTACH '%s' AS x (%s)", p, options),
		"CREATE TABLE x.t AS " + query,
		"DETACH x",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func readFile(t *testing.T, p string) Header {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		t.Fatalf("read %s: %v", p, err)
	}
	return h
}

// TestConformanceCatalogs: the frozen catalogs of the conformance set, as
// their writers saved them (DuckDB 1.5 at v1.5.0; DuckDB's 2.0 line at its
// own storage, v2.0.0, which DuckDB 2.0.0 is the first to open). Before,
// the 2.0 line's files were "newer than v1.5.0" and needed DuckDB 1.6.0,
// a release that does not exist.
func TestConformanceCatalogs(t *testing.T) {
	for _, tc := range []struct {
		archive, lake string
		storage       string
		min           string
	}{
		{"lakes", "02_add_drop_columns", "v1.5.0", "1.5.0"},
		{"lakes-0.3", "02_add_drop_columns", "v0.10.0", "0.10.0"},
		{"lakes-1.1-dev1", "06_deletes", "v1.5.0", "1.5.0"},
		{"lakes-1.1-dev1", "zz_storage_v2_unreadable", "v2.0.0", "2.0.0"},
	} {
		t.Run(tc.archive+"/"+tc.lake, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(testlakes.Lake(t, tc.archive, tc.lake), "versions", "*", "ducklake.duckdb"))
			if len(files) == 0 {
				t.Fatal("no catalogs")
			}
			for _, p := range files {
				h := readFile(t, p)
				if h.Storage != tc.storage || h.MinDuckDB().String() != tc.min {
					t.Errorf("%s: %+v (min %s), want storage %q min %s", p, h, h.MinDuckDB(), tc.storage, tc.min)
				}
				if newer := tc.storage == "v2.0.0"; h.Newer() != newer {
					t.Errorf("%s: Newer() = %t, want %t", p, h.Newer(), newer)
				}
				// A complete file is exactly as long as its header says.
				if st, err := os.Stat(p); err != nil || st.Size() != h.Length() {
					t.Errorf("%s: Length() = %d, file has %v bytes (%v)", p, h.Length(), st.Size(), err)
				}
			}
		})
	}
}

// TestNewerStorages: a file saved at a storage newer than every one the
// linked DuckDB writes is named by the newer storage it needs, and numbers
// beyond every known storage still read "newer than" the newest known one,
// needing a release after its line. No newer storage is one outputs are
// written at (Storages), and the messages name the storage, what saves it
// and how to save the file so that the linked DuckDB opens it.
func TestNewerStorages(t *testing.T) {
	for _, s := range NewerStorages {
		if slices.ContainsFunc(Storages, func(w Storage) bool { return w.Name == s.Name }) {
			t.Errorf("%s is both written (Storages) and only read (NewerStorages)", s.Name)
		}
	}
	v2 := headerOf(t, 999, 69, "v2.0.0")
	for _, tc := range []struct {
		h                     Header
		storage, min, str     string
		tooNew, resave, noNot []string
	}{
		{v2, "v2.0.0", "2.0.0", "v2.0.0",
			[]string{"saved at storage v2.0.0 (header numbers 999 and 69: what DuckDB 2.0 saves by default; writer v2.0.0)"},
			[]string{"DuckDB 2.0.0 or newer at STORAGE_VERSION 'v1.5.0'"}, []string{"1.6"}},
		// Numbers between v1.5.0's and v2.0.0's: DuckDB 2.0.0 opens them.
		{headerOf(t, 68, 8, ""), "v2.0.0", "2.0.0", "v2.0.0", []string{"saved at storage v2.0.0 (header numbers 68 and 8: what DuckDB 2.0 saves by default)"}, nil, []string{"1.6"}},
		{headerOf(t, 1000, 69, "v2.1.0"), "", "2.1.0", "newer than v2.0.0 (storage number 1000, serialization 69)",
			[]string{"saved at a storage newer than v2.0.0 (header numbers 1000 and 69; writer v2.1.0)"},
			[]string{"the DuckDB that wrote it at STORAGE_VERSION 'v1.5.0'"}, []string{"1.6"}},
		{headerOf(t, 999, 70, ""), "", "2.1.0", "newer than v2.0.0 (storage number 999, serialization 70)", nil, nil, nil},
	} {
		h := tc.h
		if h.Storage != tc.storage || h.MinDuckDB().String() != tc.min || h.String() != tc.str || !h.Newer() {
			t.Errorf("%d/%d: storage %q, min %s, String %q, Newer %t; want %q, %s, %q, true", h.VersionNumber, h.Serialization, h.Storage, h.MinDuckDB(), h, h.Newer(), tc.storage, tc.min, tc.str)
		}
		for _, want := range tc.tooNew {
			if !strings.Contains(h.TooNew(), want) {
				t.Errorf("TooNew() = %q, want %q", h.TooNew(), want)
			}
		}
		for _, want := range tc.resave {
			if !strings.Contains(h.Resave(), want) {
				t.Errorf("Resave() = %q, want %q", h.Resave(), want)
			}
		}
		for _, not := range tc.noNot {
			if strings.Contains(h.TooNew()+h.Resave()+h.String(), not) {
				t.Errorf("%q / %q names %s", h.TooNew(), h.Resave(), not)
			}
		}
	}
	if h := headerOf(t, 68, 7, ""); h.Newer() || h.Storage != "v1.5.0" {
		t.Errorf("v1.5.0's numbers: %+v, Newer %t", h, h.Newer())
	}
}

// headerOf reads a file whose headers carry the given numbers and writer.
func headerOf(t *testing.T, number, serialization uint64, writer string) Header {
	t.Helper()
	h, err := Read(bytes.NewReader(header(number, 1, serialization, 0, 0, 0, 0, 0, 0, writer)))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestReadBadInput(t *testing.T) {
	valid, err := os.ReadFile(filepath.Join(testlakes.Lake(t, "lakes", "02_add_drop_columns"), "versions", "01a18f7b-04d1-76eb-8109-44e6a174cbb3", "ducklake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrNotDuckDB},
		{"text", []byte(strings.Repeat("not a database\n", 1000)), ErrNotDuckDB},
		{"parquet", append([]byte("PAR1"), make([]byte, 20000)...), ErrNotDuckDB},
		{"truncated", valid[:5000], ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Read(bytes.NewReader(tc.data)); !errors.Is(err, tc.want) {
				t.Errorf("Read = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestPatchStorageNames: DuckDB accepts every release's name as a
// STORAGE_VERSION, and a patch release's name saves the storage of its
// line's first release; MinDuckDB of the name is the DuckDB that opens the
// file DuckDB writes at it. Before, MinDuckDB("duckdb-v1.5.3") was 1.5.3, so
// a frozen catalog claimed so was kept from DuckDB 1.5.2, which opens it.
func TestPatchStorageNames(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	// The release names DuckDB 1.5.6 accepts (its error for an unknown one
	// lists them), except those Storages lists (TestStoragesMatchDuckDB).
	for _, name := range []string{"v0.10.1", "v0.10.2", "v0.10.3", "v1.1.1", "v1.1.2", "v1.1.3", "v1.2.1", "v1.2.2",
		"v1.3.1", "v1.3.2", "v1.4.1", "v1.4.2", "v1.4.3", "v1.4.4", "v1.4.5", "v1.5.1", "v1.5.2", "v1.5.3", "v1.5.4", "v1.5.5", "v1.5.6"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name+".duckdb")
			saveTable(ctx, t, db, p, fmt.Sprintf("STORAGE_VERSION '%s'", name), "SELECT 42 AS a")
			h := readFile(t, p)
			line := name[:strings.LastIndex(name, ".")] + ".0"
			if name == "v0.10.3" {
				line = "v1.0.0" // 0.10.3 writes 1.0's serialization
			}
			if h.Storage != line {
				t.Errorf("saved at %s, header says %s, want %s", name, h, line)
			}
			for _, claim := range []string{name, "duckdb-" + name} {
				if got := MinDuckDB(claim); got == nil || !got.Equal(h.MinDuckDB()) {
					t.Errorf("MinDuckDB(%q) = %v, want %s (the file it names opens there)", claim, got, h.MinDuckDB())
				}
			}
		})
	}
}

func TestMinDuckDBOfNames(t *testing.T) {
	for in, want := range map[string]string{"duckdb-v1.5.0": "1.5.0", "v1.4.0": "1.4.0", "duckdb-v2.0.0": "2.0.0", "1.3.0": "1.3.0",
		// A patch name is its line's storage; a line Storages does not list
		// is taken as named.
		"duckdb-v1.5.3": "1.5.0", "v1.4.4": "1.4.0", "v1.5.9": "1.5.0", "v0.10.2": "0.10.0", "v0.10.3": "0.10.3", "v1.0.0": "0.10.3", "duckdb-v2.0.3": "2.0.3", "v0.9.2": "0.9.2", "v1.6.1": "1.6.1"} {
		if got := MinDuckDB(in); got == nil || got.String() != want {
			t.Errorf("MinDuckDB(%q) = %v, want %s", in, got, want)
		}
	}
	for _, in := range []string{"", "duckdb-latest", "sqlite"} {
		if got := MinDuckDB(in); got != nil {
			t.Errorf("MinDuckDB(%q) = %v, want nil", in, got)
		}
	}
}

func TestBlockSize(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		option string
		want   uint64
	}{
		{"default", "", 262144},
		{"16 KiB", ", BLOCK_SIZE 16384", 16384},
		{"64 KiB", ", BLOCK_SIZE 65536", 65536},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "")+".duckdb")
			saveTable(ctx, t, db, p, "STORAGE_VERSION 'v1.3.0'"+tc.option, "SELECT range AS a FROM range(100000)")
			h := readFile(t, p)
			if h.BlockSize != tc.want {
				t.Errorf("block size %d, want %d", h.BlockSize, tc.want)
			}
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if info.Size() != h.Length() {
				t.Errorf("file of %d bytes, header says %d", info.Size(), h.Length())
			}
		})
	}
}

func TestOlder(t *testing.T) {
	for _, tc := range []struct {
		storage, than string
		older, known  bool
	}{
		{"v1.3.0", DictFSSTReadable, true, true},
		{"duckdb-v1.3.0", DictFSSTReadable, true, true},
		{"v1.4.0", DictFSSTReadable, false, true},
		{"v1.5.0", "v1.2.0", false, true},
		{"v1.0.0", "v1.2.0", true, true},
		{"latest", "v1.2.0", false, false},
	} {
		if older, known := Older(tc.storage, tc.than); older != tc.older || known != tc.known {
			t.Errorf("Older(%q, %q) = %v, %v; want %v, %v", tc.storage, tc.than, older, known, tc.older, tc.known)
		}
	}
}

// TestCut: DuckDB truncates the free blocks at the end of a file at a
// checkpoint without rewriting its header, so a file DuckDB wrote and reads
// can be shorter than its header says. Cut accepts that end (a block
// boundary) and only that: a copy cut anywhere else is cut short.
func TestCut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.duckdb")
	// A session per step: the last checkpoint frees the blocks at the end.
	for _, session := range [][]string{
		{"CREATE TABLE a AS SELECT range i, range::VARCHAR s FROM range(300000)", "CREATE TABLE b AS SELECT range i, md5(range::VARCHAR) s FROM range(300000)", "CHECKPOINT"},
		{"DROP TABLE b", "CHECKPOINT"},
		{"UPDATE a SET s = 'x' WHERE i < 10", "CHECKPOINT"},
		{"DELETE FROM a WHERE i > 1000", "CHECKPOINT"},
	} {
		db := testduck.Open(t, path)
		for _, s := range session {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		db.Close()
	}
	size := fileSize(t, path)
	h := readHeader(t, path)
	if size >= h.Length() {
		t.Fatalf("DuckDB left %d bytes, its header says %d: want a file DuckDB truncated", size, h.Length())
	}
	// DuckDB reads the file it truncated.
	db := testduck.Open(t, path+"?access_mode=read_only")
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM a").Scan(&n); err != nil || n != 1001 {
		t.Fatalf("read the truncated file: %d rows, %v", n, err)
	}
	db.Close()
	for _, tc := range []struct {
		size int64
		cut  bool
	}{
		{h.Length(), false},
		{h.Length() + 1, false},
		{size, false},                       // where DuckDB ended it
		{size - int64(h.BlockSize), false},  // a block boundary: reads decide
		{size - 1, true},                    // a torn copy
		{size + int64(h.BlockSize)/2, true}, // inside a block
		{HeadersSize - 1, true},
	} {
		if got := h.Cut(tc.size); got != tc.cut {
			t.Errorf("Cut(%d) = %t, want %t (header length %d, block size %d)", tc.size, got, tc.cut, h.Length(), h.BlockSize)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func readHeader(t *testing.T, path string) Header {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Package testlakes gives tests the real DuckLake lakes of the conformance
// set, committed as archives under testdata/conformance (or
// $FDL_CONFORMANCE_DIR, to test against a newer set), unpacked once into a
// cache folder. A test that needs a missing archive fails: a fresh clone
// must test itself, never pass by skipping.
package testlakes

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // the database/sql driver
)

// Archives are the tarballs of the conformance set, each unpacking to one
// top-level folder of the same name.
var Archives = []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "migrations", "lakes-0.3-reader", "lakes-0.3-compaction"}

// SourceDir is the conformance folder: $FDL_CONFORMANCE_DIR or the
// module's testdata/conformance.
func SourceDir() string {
	if d := os.Getenv("FDL_CONFORMANCE_DIR"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	return filepath.Join(root, "testdata", "conformance")
}

// Dir returns the unpacked folder of one archive ("lakes", "migrations", ...).
// The test fails when the archive is absent.
//
// The folder is shared by every test and test binary: a test that writes
// into it (a rewritten delete file, a temporary file) changes what the
// others read, and fails when it ends, naming what it changed. The tree is
// then unpacked again by the next Unpack. A test that reads one lake takes
// it from Lake, whose check at the test's end reads that lake alone.
func Dir(tb testing.TB, archive string) string {
	tb.Helper()
	dir := unpacked(tb, archive)
	tb.Cleanup(func() { guard(tb, archive, filepath.Dir(dir), "") })
	return dir
}

// Lake returns one lake folder of an unpacked archive: Dir(tb,
// archive)/name, a folder the archive holds (else the test fails). Like
// Dir's, the folder is shared, and a test that writes into it fails when it
// ends, naming what it changed; but the check reads only what the test was
// handed, the lake's files and folders, and the archive folder's own
// entries (a file added beside the lakes), not the whole archive: about 100
// entries of 2,700 (about 1.6 ms of CPU, where Dir's check costs 15-26 ms).
func Lake(tb testing.TB, archive, name string) string {
	tb.Helper()
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		tb.Fatalf("conformance archive %s: %q is no lake name (one folder name)", archive, name)
	}
	dir := filepath.Join(unpacked(tb, archive), name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		tb.Fatalf("conformance archive %s holds no lake %s (unpacked in %s): %v", archive, name, filepath.Dir(dir), err)
	}
	tb.Cleanup(func() { guard(tb, archive, filepath.Dir(filepath.Dir(dir)), name) })
	return dir
}

func unpacked(tb testing.TB, archive string) string {
	tb.Helper()
	dir, err := Unpack(archive)
	if err != nil {
		tb.Fatalf("conformance archive %s: %v (the archives are committed under testdata/conformance; FDL_CONFORMANCE_DIR=%q)", archive, err, os.Getenv("FDL_CONFORMANCE_DIR"))
	}
	return dir
}

// guard fails tb when the unpacked tree in root changed (ChangedIn: the
// whole tree, or with lake set, that lake of the archive).
func guard(tb testing.TB, archive, root, lake string) {
	changed, err := ChangedIn(root, lake)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(changed) == 0 {
		// Unchanged, or already reported by the test that found
		// it changed (which removed its .complete).
		return
	}
	// Unpacked again by the next Unpack; this tree stays readable
	// for the tests still using it.
	_ = os.Remove(filepath.Join(root, completeName))
	if err != nil {
		tb.Errorf("conformance archive %s unpacked in %s: %v", archive, root, err)
		return
	}
	tb.Errorf("conformance archive %s unpacked in %s was changed by a test, which must copy a lake before writing into it: %s", archive, root, strings.Join(changed, "; "))
}

// Unpack unpacks <archive>.tar.gz from SourceDir into the cache (once per
// archive content) and returns the unpacked folder. Safe for concurrent test
// binaries: each unpacks into a private folder and renames it into place.
func Unpack(archive string) (string, error) {
	src := filepath.Join(SourceDir(), archive+".tar.gz")
	// Keyed by content, so every checkout of the same archive shares one copy.
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	key := sha256.Sum256(data)
	cache := os.Getenv("FDL_CONFORMANCE_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "fdl-formats", "conformance")
	}
	// "-3": the layout whose .complete holds the tree's manifest with
	// permissions (Changed); older folders may have been changed by tests
	// ("-2": a manifest without permissions).
	final := filepath.Join(cache, archive+"-"+hex.EncodeToString(key[:6])+"-3")
	if _, err := os.Stat(filepath.Join(final, completeName)); err == nil {
		return filepath.Join(final, archive), nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, archive+".tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := untar(src, tmp); err != nil {
		return "", fmt.Errorf("unpack %s: %w", src, err)
	}
	entries, err := manifest(tmp, "")
	if err != nil {
		return "", fmt.Errorf("unpack %s: %w", src, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, completeName), []byte(strings.Join(entries, "\n")), 0o644); err != nil {
		return "", err
	}
	if _, err := os.Stat(final); err == nil {
		// A tree a test changed (Dir): moved aside, not removed in
		// place, as tests may still be reading it.
		if stale, err := os.MkdirTemp(cache, archive+".stale-"); err == nil {
			if os.Rename(final, filepath.Join(stale, "tree")) == nil {
				defer os.RemoveAll(stale)
			} else {
				os.Remove(stale)
			}
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another test binary won the race; use its copy.
		if _, statErr := os.Stat(filepath.Join(final, completeName)); statErr != nil {
			return "", err
		}
	}
	return filepath.Join(final, archive), nil
}

// completeName marks an unpacked tree whole; it holds the tree's manifest.
const completeName = ".complete"

// manifest lists the files and folders under root but root itself and
// .complete: its path, type and permissions, size and modification time,
// sorted. With lake set, it lists the entries at the first two levels (the
// archive folder and the lakes in it) and the files and folders inside
// lake alone (in the archive folder's lake), not those of the other lakes.
func manifest(root, lake string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || rel == completeName {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		out = append(out, fmt.Sprintf("%s\t%v\t%d\t%d", rel, info.Mode(), info.Size(), info.ModTime().UnixNano()))
		if lake != "" && d.IsDir() && strings.Count(rel, "/") == 1 && path.Base(rel) != lake {
			return filepath.SkipDir
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// inLake reports whether manifest(root, lake) lists the entry rel.
func inLake(rel, lake string) bool {
	if lake == "" || strings.Count(rel, "/") <= 1 {
		return true
	}
	_, rest, _ := strings.Cut(rel, "/")
	return strings.HasPrefix(rest, lake+"/")
}

// Changed lists what differs in an unpacked tree (the folder Unpack's
// result lies in) from what was unpacked: files and folders added,
// removed or written to (a folder is written to when a file is created or
// removed in it; a chmod counts as a write).
func Changed(root string) ([]string, error) { return ChangedIn(root, "") }

// ChangedIn is Changed limited to one lake of the archive (lake "": the
// whole tree): the archive folder's own entries and the lake's subtree.
func ChangedIn(root, lake string) ([]string, error) {
	want, err := os.ReadFile(filepath.Join(root, completeName))
	if err != nil {
		return nil, err
	}
	got, err := manifest(root, lake)
	if err != nil {
		return nil, err
	}
	path := func(entry string) string { p, _, _ := strings.Cut(entry, "\t"); return p }
	was := map[string]string{}
	for _, e := range strings.Split(string(want), "\n") {
		if e != "" && inLake(path(e), lake) {
			was[path(e)] = e
		}
	}
	var out []string
	for _, e := range got {
		switch before, ok := was[path(e)]; {
		case !ok:
			out = append(out, "added "+path(e))
		case before != e:
			out = append(out, "written to "+path(e))
		}
		delete(was, path(e))
	}
	for p := range was {
		out = append(out, "removed "+p)
	}
	slices.Sort(out)
	return out, nil
}

func untar(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			return fmt.Errorf("unsafe path %q in archive", h.Name)
		}
		target := filepath.Join(dst, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		}
	}
}

// Lakes lists the lake folders of an unpacked archive, sorted; an archive
// without any fails the test.
func Lakes(tb testing.TB, archive string) []string {
	tb.Helper()
	dir := Dir(tb, archive)
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		// Tests loop over the lakes: with none they would pass having
		// checked nothing.
		tb.Fatalf("conformance archive %s holds no lake (unpacked in %s)", archive, dir)
	}
	return out
}

// EditVersion rewrites a version's version.json through edit (nil: none),
// then records the real size and sha256 of the files it names under reseal
// (default: the frozen catalog, "catalog") in it, so that only the claims
// edit makes are false.
func EditVersion(tb testing.TB, vdir string, edit func(m map[string]any), reseal ...string) {
	tb.Helper()
	p := filepath.Join(vdir, "version.json")
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	if len(reseal) == 0 {
		reseal = []string{"catalog"}
	}
	for _, key := range reseal {
		ref := m[key].(map[string]any)
		body, err := os.ReadFile(filepath.Join(vdir, ref["path"].(string)))
		if err != nil {
			tb.Fatal(err)
		}
		sum := sha256.Sum256(body)
		ref["bytes"], ref["sha256"] = len(body), hex.EncodeToString(sum[:])
	}
	if data, err = json.MarshalIndent(m, "", "  "); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// FlushedInlinedTables is, per conformance lake of format 1.0 in the
// "lakes" archive, SQL that gives its last version the empty inlined data
// tables DuckLake 0.4 and 1.0 keep after ducklake_flush_inlined_data: every
// ALTER of a table with inlining on creates one with the table's columns
// then, registered with the new schema version, and a flush empties them
// (DuckLakeTransactionState::DropEmptySupersededInlinedTables, 1.0, drops
// all but the newest). 04_type_promotion (tables 1-4) and
// 02_add_drop_columns gain the newest of each table (retyped columns;
// columns dropped and added again with another type: their names are
// those of the table's first snapshot); 16_data_inlining has its inlined
// tables and inlined deletions emptied (the newest,
// ducklake_inlined_data_1_4, has column j renamed j_renamed).
var FlushedInlinedTables = map[string][]string{
	"04_type_promotion": {
		`CREATE TABLE ducklake_inlined_data_1_4(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER, c BIGINT)`,
		`CREATE TABLE ducklake_inlined_data_2_9(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER, c UBIGINT, s SMALLINT)`,
		`CREATE TABLE ducklake_inlined_data_3_13(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER, ti DOUBLE, f DOUBLE)`,
		`CREATE TABLE ducklake_inlined_data_4_15(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER, c TIMESTAMP WITH TIME ZONE)`,
		`INSERT INTO ducklake_inlined_data_tables VALUES (1, 'ducklake_inlined_data_1_4', 4), (2, 'ducklake_inlined_data_2_9', 9), (3, 'ducklake_inlined_data_3_13', 13), (4, 'ducklake_inlined_data_4_15', 15)`,
	},
	"02_add_drop_columns": {
		`CREATE TABLE ducklake_inlined_data_1_5(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, id INTEGER, a VARCHAR, b VARCHAR, d BOOLEAN)`,
		`CREATE TABLE ducklake_inlined_data_2_8(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, col1 INTEGER, col3 INTEGER, col2 VARCHAR)`,
		`CREATE TABLE ducklake_inlined_data_4_11(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, x VARCHAR, y INTEGER)`,
		`INSERT INTO ducklake_inlined_data_tables VALUES (1, 'ducklake_inlined_data_1_5', 5), (2, 'ducklake_inlined_data_2_8', 8), (4, 'ducklake_inlined_data_4_11', 11)`,
	},
	"16_data_inlining": {
		`DELETE FROM ducklake_inlined_data_1_2`, `DELETE FROM ducklake_inlined_data_1_3`, `DELETE FROM ducklake_inlined_data_1_4`,
		`DELETE FROM ducklake_inlined_data_2_6`, `DELETE FROM ducklake_inlined_data_4_8`, `DELETE FROM ducklake_inlined_data_5_11`,
		`DELETE FROM ducklake_inlined_delete_1`,
	},
}

// FreeTrailingBlocks makes DuckDB leave the DuckDB file at path shorter
// than its header says, as a real catalog may be: in sessions of their
// own it adds two scratch tables, then drops them, each time with a
// checkpoint, so the last checkpoint frees the blocks at the end of the
// file and truncates them without rewriting the header
// (SingleFileBlockManager::Truncate). The file's tables are as they were.
func FreeTrailingBlocks(tb testing.TB, path string) {
	tb.Helper()
	var grown int64
	for _, session := range [][]string{
		{"CREATE TABLE zz_scratch_a AS SELECT range i, range::VARCHAR s FROM range(300000)", "CREATE TABLE zz_scratch_b AS SELECT range i, md5(range::VARCHAR) s FROM range(300000)", "CHECKPOINT"},
		{"DROP TABLE zz_scratch_b", "CHECKPOINT"},
		{"DROP TABLE zz_scratch_a", "CHECKPOINT"},
	} {
		db, err := sql.Open("duckdb", path)
		if err != nil {
			tb.Fatal(err)
		}
		for _, s := range session {
			if _, err := db.Exec(s); err != nil {
				db.Close()
				tb.Fatalf("%s: %s: %v", path, s, err)
			}
		}
		db.Close()
		if grown == 0 {
			st, err := os.Stat(path)
			if err != nil {
				tb.Fatal(err)
			}
			grown = st.Size()
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if st.Size() >= grown {
		tb.Fatalf("%s: %d bytes, %d with the scratch tables: DuckDB truncated nothing", path, st.Size(), grown)
	}
}

// NamedBefore is the base names of every data and delete file the
// files.json of the given versions of the repository root names: a file
// of the data folder not among them was written for a later version.
// (A lake's file names carry the UUIDv7 of its writer's clock, not the
// versions' ids, so they do not sort against them.)
func NamedBefore(tb testing.TB, root string, ids []string) map[string]bool {
	tb.Helper()
	named := map[string]bool{}
	for _, id := range ids {
		file := filepath.Join(root, "versions", id, "files.json")
		b, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		// Decoded here, not by fdljson, whose tests use this package.
		var files struct {
			Tables map[string]struct {
				Files []struct {
					Path    string `json:"path"`
					Deletes *struct {
						Path string `json:"path"`
					} `json:"deletes"`
				} `json:"files"`
			} `json:"tables"`
		}
		if err := json.Unmarshal(b, &files); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		for _, tab := range files.Tables {
			for _, f := range tab.Files {
				named[path.Base(f.Path)] = true
				if f.Deletes != nil {
					named[path.Base(f.Deletes.Path)] = true
				}
			}
		}
	}
	return named
}

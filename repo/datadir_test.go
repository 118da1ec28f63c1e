package repo

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
)

// Files of main.del in the last version of 06_deletes, as its frozen
// catalog stores them (relative to the table's folder data/main/del/).
const (
	delData   = "ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet"
	delDelete = "ducklake-01a229fa-2ac7-72d4-9938-39ccd8231a6c-delete.parquet"
)

// moveOutside points one data or delete file of main.del in a catalog at
// stored (path_is_relative as given), moves the file (from the
// repository's data folder) to where that path leads, and returns
// what a finding about it must say: kind, id, table and stored path.
func moveOutside(t *testing.T, root, catalog string, del bool, stored string, relative bool) string {
	t.Helper()
	table, idCol, old := "ducklake_data_file", "data_file_id", delData
	if del {
		table, idCol, old = "ducklake_delete_file", "delete_file_id", delDelete
	}
	db := testduck.Open(t, "")
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS c", catalog)); err != nil {
		t.Fatal(err)
	}
	var id, dataID int64
	if err := db.QueryRow(fmt.Sprintf("SELECT %s, data_file_id FROM c.%s WHERE path = ?", idCol, table), old).Scan(&id, &dataID); err != nil {
		t.Fatalf("find %s: %v", old, err)
	}
	if _, err := db.Exec(fmt.Sprintf("UPDATE c.%s SET path = ?, path_is_relative = ? WHERE %s = ?", table, idCol), stored, relative, id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DETACH c"); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join(root, "data", "main", "del", old)
	to := stored
	if relative {
		to = filepath.Join(root, "data", "main", "del", stored)
	}
	if to != from {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	var kind string
	if del {
		kind = fmt.Sprintf("delete file %d (of data file %d)", id, dataID)
	} else {
		kind = fmt.Sprintf("data file %d", id)
	}
	return fmt.Sprintf("%s of main.del is outside the data path (data_dir): path %q", kind, stored)
}

// rehash makes a version's files.json name path instead of the file's old
// path (as a publisher would write it from the catalog) and version.json
// record the new sizes and sha256 of its catalog and files.json: the
// version is consistent, only its data file is outside data_dir.
func rehash(t *testing.T, dir, old, path string) {
	t.Helper()
	files := filepath.Join(dir, "files.json")
	data, err := os.ReadFile(files)
	if err != nil {
		t.Fatal(err)
	}
	fixed := strings.ReplaceAll(string(data), `"main/del/`+old+`"`, fmt.Sprintf("%q", path))
	if fixed == string(data) {
		t.Fatalf("files.json does not name %s", old)
	}
	if err := os.WriteFile(files, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	testlakes.EditVersion(t, dir, nil, "catalog", "files")
}

// TestDataOutsideDataDir: a frozen catalog that names a data or delete file
// outside data_dir (by absolute path, or climbing out with "..") breaks
// the rule "every data file it names is under data_dir, recorded relative
// to the catalog's data path" (FDL 0.1, Versions). The file is moved out
// of data/, as the repository readers use lacks it; everything else is
// consistent (files.json, version.json's hashes). Before, backfill proved
// and published catalogs reading the checking machine's file, and check
// passed, also over HTTP while the site had no such file. Now backfill
// writes nothing, plan shows the cell in error, and check fails with a
// difference naming the version, the file's kind, id, table and path.
func TestDataOutsideDataDir(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := Options{Versions: []string{"3"}, Formats: []string{"1.0", "1.1"}, Jobs: 2}
	for _, tc := range []struct {
		name string
		del  bool
		// stored is the path to record: absolute when it starts with
		// "<elsewhere>", else relative to the table's folder data/main/del/.
		stored string
	}{
		{"absolute data file", false, "<elsewhere>/" + delData},
		{"absolute delete file", true, "<elsewhere>/" + delDelete},
		{"data file climbing out of data/", false, "../../../outside/" + delData},
		{"delete file climbing out of data/", true, "../../../outside/" + delDelete},
		{"data file with .. staying inside", false, "../../main/del/x/../" + delData},
		{"relative data file with a leading /", false, "/outside/" + delData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := smallLake(t)
			id := versionIDs(t, root)[2]
			dir := filepath.Join(root, "versions", id)
			stored, relative := tc.stored, true
			if rest, ok := strings.CutPrefix(stored, "<elsewhere>/"); ok {
				stored, relative = filepath.Join(t.TempDir(), rest), false
			}
			if strings.Contains(stored, "/x/../") {
				os.MkdirAll(filepath.Join(root, "data", "main", "del", "x"), 0o755)
			}
			want := moveOutside(t, root, filepath.Join(dir, "ducklake.duckdb"), tc.del, stored, relative)
			old, inFiles := delData, stored
			if tc.del {
				old = delDelete
			}
			if relative {
				inFiles = "main/del/" + stored
			}
			rehash(t, dir, old, inFiles)

			rep, err := Backfill(ctx, st, opts)
			if !errors.Is(err, ErrBackfillIncomplete) || rep.Counts[Written] != 0 {
				t.Fatalf("Backfill = %v (%v), want nothing written", err, rep.Counts)
			}
			for _, r := range rep.Results {
				if r.Outcome == Failed && (r.Problem != ProblemViolation || !strings.Contains(r.Error, want)) {
					t.Errorf("cell %s failed with %s: %s; want a violation naming %q", r.Format, r.Problem, r.Error, want)
				}
			}

			m, err := Plan(ctx, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c := m.Cell(id, "1.1"); c.State != Error || c.Problem != ProblemViolation || !strings.Contains(strings.Join(c.Reasons, " "), want) {
				t.Errorf("plan: cell 1.1 = %s/%s %q, want error/violation naming %q", c.State, c.Problem, c.Reasons, want)
			}

			site := webSite(t, http.FileServer(http.Dir(root)))
			for name, st := range map[string]store.Store{"folder": st, "web site": site} {
				copts := opts
				if name == "web site" {
					copts.Cache = t.TempDir()
				}
				rep, err := Check(ctx, st, copts)
				if !errors.Is(err, ErrDifferences) {
					t.Fatalf("%s: Check = %v, want a difference", name, err)
				}
				found := false
				for _, f := range rep.Findings {
					if f.Kind == KindDifference && f.Version == id && strings.Contains(f.Detail, want) && strings.Contains(f.Detail, "versions/"+id+"/ducklake.duckdb") {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no difference for version %s naming %q in %+v", name, id, want, rep.Findings)
				}
			}
		})
	}
}

// TestPublishedDataOutsideDataDir: a published catalog that names the
// repository's own file differently (by absolute path on the checking
// machine, or a delete file by a path with "..") reads the same rows and is
// proved equivalent (the proof compares data file paths relative to the
// data folder, and delete files by the positions they delete), but readers
// elsewhere would look for another file. The proof must fail with a
// violation naming the file.
func TestPublishedDataOutsideDataDir(t *testing.T) {
	ctx := context.Background()
	golden, opts := publishedLake(t)
	opts.Formats = []string{"1.0", "1.1"}
	for _, tc := range []struct {
		name     string
		del      bool
		stored   func(root string) string
		relative bool
	}{
		{"data file by absolute path", false, func(root string) string {
			return filepath.Join(root, "data", "main", "del", delData)
		}, false},
		{"delete file with ..", true, func(string) string { return "../del/" + delDelete }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			id := versionIDs(t, root)[2]
			want := moveOutside(t, root, filepath.Join(root, "versions", id, "catalogs", "1.1.duckdb"), tc.del, tc.stored(root), tc.relative)
			rep, err := Check(ctx, st, opts)
			if !errors.Is(err, ErrDifferences) {
				t.Fatalf("Check = %v, want a difference", err)
			}
			if len(rep.Proofs) != 1 || rep.Proofs[0].OK || !strings.Contains(rep.Proofs[0].Error, want) {
				t.Errorf("proofs %+v, want the 1.1 proof failed naming %q", rep.Proofs, want)
			}
		})
	}
}

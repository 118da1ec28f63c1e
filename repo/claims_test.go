package repo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store"
)

// saveAtStorage replaces a DuckDB file by a copy of its tables saved at
// DuckDB storage version storage (COPY FROM DATABASE, the real DuckDB).
func saveAtStorage(t *testing.T, path, storage string) {
	t.Helper()
	db := testduck.Open(t, "")
	defer db.Close()
	tmp := path + ".new"
	for _, stmt := range []string{
		fmt.Sprintf("ATTACH '%s' AS src (READ_ONLY)", path),
		fmt.Sprintf("ATTACH '%s' AS dst (STORAGE_VERSION '%s')", tmp, storage),
		"COPY FROM DATABASE src TO dst",
		"DETACH dst", "DETACH src",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if h, err := duckfile.Read(f); err != nil || h.Storage != storage {
		t.Fatalf("%s saved at %s, header says %v (%v)", path, storage, h, err)
	}
}

func setClaim(section, field, value string) func(m map[string]any) {
	return func(m map[string]any) { m[section].(map[string]any)[field] = value }
}

// TestCheckFalseClaims: check compares version.json's claims with the files
// they describe: the frozen catalog's DuckLake format (found by the content
// pass, which opens it anyway) and its storage version (from the headers
// of the bytes hashed), and a dataset.json or files.json version.json does
// not name. Each false claim is a difference naming the version, the file,
// the claim and the truth; the readers table follows the truth. A storage
// older than claimed is no finding (every DuckDB the claim admits opens
// the file). Before, every case but the last passed the check.
func TestCheckFalseClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	golden, opts := publishedLake(t)
	id := versionIDs(t, golden)[2]
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, v string)
		want   error
		detail string
		// unreadBy names a declared format whose readers must not be told
		// they read the version.
		unreadBy string
	}{
		{"frozen catalog in 1.1, version.json says 1.0", func(t *testing.T, v string) {
			copyFile(t, filepath.Join(v, "catalogs", "1.1.duckdb"), filepath.Join(v, "ducklake.duckdb.new"))
			os.Rename(filepath.Join(v, "ducklake.duckdb.new"), filepath.Join(v, "ducklake.duckdb"))
			testlakes.EditVersion(t, v, nil)
		}, ErrDifferences, "versions/" + id + "/ducklake.duckdb holds DuckLake format 1.1 (detected from its version row and tables), but version.json's ducklake.format says 1.0", "1.0"},
		{"storage v1.5.0, version.json says v1.4.0", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, setClaim("catalog", "storage", "duckdb-v1.4.0"))
		}, ErrDifferences, "versions/" + id + `/ducklake.duckdb: its DuckDB header says storage v1.5.0 (DuckDB 1.5.0 or newer opens it), but version.json's catalog.storage says "duckdb-v1.4.0"`, ""},
		{"files.json not named", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, func(m map[string]any) { delete(m, "files") })
		}, ErrDifferences, "versions/" + id + `/files.json: not named in version.json (its "files" field is absent)`, ""},
		{"dataset.json not named, another path named", func(t *testing.T, v string) {
			os.Link(filepath.Join(v, "dataset.json"), filepath.Join(v, "about.json"))
			testlakes.EditVersion(t, v, setClaim("dataset", "path", "about.json"))
		}, ErrDifferences, "versions/" + id + `/dataset.json: not named in version.json (its "dataset" field names about.json)`, ""},
		{"storage v1.4.0, version.json says v1.5.0", func(t *testing.T, v string) {
			saveAtStorage(t, filepath.Join(v, "ducklake.duckdb"), "v1.4.0")
			testlakes.EditVersion(t, v, nil)
		}, nil, "", ""},
		// A claim that names no storage version (upper case, a trailing
		// space, another engine's) tells readers nothing.
		{"version.json says DuckDB-v1.5.0", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, setClaim("catalog", "storage", "DuckDB-v1.5.0"))
		}, ErrDifferences, "versions/" + id + `/ducklake.duckdb: version.json's catalog.storage "DuckDB-v1.5.0" names no DuckDB storage version`, ""},
		{"version.json says duckdb-v1.5.0 and a space", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, setClaim("catalog", "storage", "duckdb-v1.5.0 "))
		}, ErrDifferences, `catalog.storage "duckdb-v1.5.0 " names no DuckDB storage version (like "duckdb-v1.5.0"), so readers cannot tell from version.json whether they open the file (its DuckDB header says storage v1.5.0)`, ""},
		{"version.json says sqlite3", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, setClaim("catalog", "storage", "sqlite3"))
		}, ErrDifferences, `catalog.storage "sqlite3" names no DuckDB storage version`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			tc.mutate(t, filepath.Join(root, "versions", id))
			rep, err := Check(ctx, st, opts)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			var details []string
			for _, f := range rep.Findings {
				details = append(details, fmt.Sprintf("%s %s %s: %s", f.Kind, f.Version, f.Key, f.Detail))
				if f.Kind != KindWarning && f.Kind != KindDifference {
					t.Errorf("finding of kind %s: %s", f.Kind, f.Detail)
				}
			}
			all := strings.Join(details, "\n")
			if tc.detail != "" && !strings.Contains(all, "difference "+id) || !strings.Contains(all, tc.detail) {
				t.Errorf("no difference of version %s about %q:\n%s", id, tc.detail, all)
			}
			for _, rr := range rep.Readers {
				if rr.Format != tc.unreadBy {
					continue
				}
				for _, rv := range rr.Readable {
					if rv.Version == id {
						t.Errorf("readers of %s (DuckDB %s) told they read version %s: %v", rr.Format, rr.DuckDB, id, rv.Opens)
					}
				}
			}
		})
	}
}

// TestPlanBackfillRefuseFalseClaims: a version whose frozen catalog breaks
// version.json's claims gets no cell planned or written: the plan puts the
// version and all its cells in error, naming the claim and the truth, and
// backfill writes nothing for it, not even the delete files
// --rewrite-deletes writes for 0.3 (before, the plan offered a 0.3 catalog
// and backfill wrote it with its delete files, from a catalog in another
// format than version.json says, or at a storage version.json's readers
// cannot open).
func TestPlanBackfillRefuseFalseClaims(t *testing.T) {
	ctx := context.Background()
	base, root := deletesLake(t)
	id := versionIDs(t, root)[2]
	// The golden lake: version 3 also in 1.1, a proved conversion.
	if _, err := Backfill(ctx, base, Options{Versions: []string{"3"}, Formats: []string{"1.1"}, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	opts := Options{Versions: []string{"3"}, Formats: []string{"0.3", "1.0"}, Jobs: 2}
	opts.Convert.RewriteDeletes = true
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, v string)
		detail string
		failed bool // backfill fails (the conversion found it), else the plan did
	}{
		{"frozen catalog in 1.1, version.json says 1.0", func(t *testing.T, v string) {
			os.Rename(filepath.Join(v, "catalogs", "1.1.duckdb"), filepath.Join(v, "ducklake.duckdb"))
			testlakes.EditVersion(t, v, nil)
		}, "holds DuckLake format 1.1 (detected from its version row and tables), but version.json's ducklake.format says 1.0", true},
		{"storage v1.5.0, version.json says v1.4.0", func(t *testing.T, v string) {
			testlakes.EditVersion(t, v, setClaim("catalog", "storage", "duckdb-v1.4.0"))
		}, `its DuckDB header says storage v1.5.0 (DuckDB 1.5.0 or newer opens it), but version.json's catalog.storage says "duckdb-v1.4.0"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, root)
			v := filepath.Join(root, "versions", id)
			tc.mutate(t, v)
			refused := func(what string, m *Matrix) {
				t.Helper()
				vp := m.Versions[0]
				if vp.ID != id || !strings.Contains(vp.Error, tc.detail) {
					t.Errorf("%s: version %s error %q, want one about %q", what, vp.ID, vp.Error, tc.detail)
				}
				for _, c := range vp.Cells {
					if c.State != Error || c.Problem != ProblemMismatch {
						t.Errorf("%s: cell %s is %s (%s), want error (mismatch)", what, c.Format, c.State, c.Problem)
					}
				}
			}
			m, err := Plan(ctx, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			refused("plan", m)
			before := listFiles(t, root)
			rep, err := Backfill(ctx, st, opts)
			if tc.failed != (err != nil) {
				t.Fatalf("Backfill = %v, want failed=%v", err, tc.failed)
			}
			if err != nil && !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("Backfill = %v, want an error about %q", err, tc.detail)
			}
			refused("backfill", rep.Plan)
			if added := newNames(before, listFiles(t, root)); len(added) > 0 {
				t.Errorf("backfill wrote %v for a version with a false claim", added)
			}
		})
	}
}

// TestResolveHeaderNewerThanClaim: resolve reads the frozen catalog's
// headers (12 KiB) and does not send a DuckDB that version.json's
// catalog.storage admits, but the file's storage does not, to that file.
// The lake is a real 0.3 lake (DuckDB 1.4 readers) whose frozen catalog is
// saved again at storage v1.5.0 while version.json still says v1.0.0:
// before, DuckDB 1.4.3 was pointed at it.
func TestResolveHeaderNewerThanClaim(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		storage string // the frozen catalog's storage ("": as the lake has it)
		duckdb  string
		opens   bool
	}{
		{"as made", "", "1.4.3", true},
		{"saved at v1.5.0", "v1.5.0", "1.4.3", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := copyLake(t, testlakes.Lake(t, "lakes-0.3", "06_deletes"))
			id := versionIDs(t, st.Root())[0]
			v := filepath.Join(st.Root(), "versions", id)
			if tc.storage != "" {
				saveAtStorage(t, filepath.Join(v, "ducklake.duckdb"), tc.storage)
				testlakes.EditVersion(t, v, nil)
			}
			res, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: tc.duckdb})
			if tc.opens {
				if err != nil || res.File == nil || !res.File.Frozen {
					t.Fatalf("Resolve = %v, want the frozen catalog", err)
				}
				return
			}
			if !errors.Is(err, ErrNoCatalog) {
				t.Fatalf("Resolve = %v (file %+v), want ErrNoCatalog", err, res.File)
			}
			frozen := res.Files[len(res.Files)-1]
			if frozen.Storage != tc.storage || !strings.Contains(frozen.StorageFrom, "file header") || !strings.Contains(frozen.Reason, "needs 1.5.0 or newer") {
				t.Errorf("frozen catalog: storage %s from %q, reason %q", frozen.Storage, frozen.StorageFrom, frozen.Reason)
			}
		})
	}
}

// TestCheckDataFolderOverBucket: with a local --data folder (DataPath)
// over a store without local paths (a bucket), check reads the data files
// from the folder but asks the store whether it holds each one, at the size
// the catalog records: before, a bucket without the files passed the check
// as long as the folder had them.
func TestCheckDataFolderOverBucket(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := lake11(t) // shared: copied before any change
	files, err := filepath.Glob(filepath.Join(root, "data", "main", "del", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("data files: %v %v", files, err)
	}
	victim, _ := filepath.Rel(root, files[0])
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, p string)
		want   error
		detail string
	}{
		{"bucket holds every file", func(*testing.T, string) {}, nil, ""},
		{"data file missing from the bucket", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, ErrUnverifiable, ", as the store holds it (the --data folder's copy is read in its place): "},
		{"data file of another size in the bucket", func(t *testing.T, p string) {
			if err := os.Truncate(p, 10); err != nil {
				t.Fatal(err)
			}
		}, ErrDifferences, "10 bytes in the store, the catalog records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, root)
			data := t.TempDir()
			if err := copyTree(filepath.Join(root, "data"), data); err != nil {
				t.Fatal(err)
			}
			tc.mutate(t, filepath.Join(root, victim))
			bucket := struct{ store.Store }{st} // no local paths
			rep, err := Check(ctx, bucket, Options{Jobs: 2, Formats: []string{"1.1"}, DataPath: data, WorkDir: t.TempDir(), Cache: t.TempDir()})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			var details []string
			for _, f := range rep.Findings {
				details = append(details, f.Detail)
			}
			if all := strings.Join(details, "\n"); !strings.Contains(all, filepath.ToSlash(victim)) || !strings.Contains(all, tc.detail) {
				t.Errorf("no finding naming %s and %q:\n%s", victim, tc.detail, all)
			}
		})
	}
}

// TestResolveVerify: without Verify, Resolve reads only headers and takes
// version.json's ducklake.format and the published files' names as they
// are; with it, the file it would choose is opened first, and one that is
// not what version.json or its name says is passed over, naming why (the
// version's frozen catalog is its 1.1 conversion while version.json says
// 1.0; a catalogs/0.4.duckdb holds 1.0).
func TestResolveVerify(t *testing.T) {
	ctx := context.Background()
	golden, _ := publishedLake(t)
	id := versionIDs(t, golden)[2]
	frozenIn11 := func(t *testing.T, v string) {
		copyFile(t, filepath.Join(v, "catalogs", "1.1.duckdb"), filepath.Join(v, "ducklake.duckdb.new"))
		os.Rename(filepath.Join(v, "ducklake.duckdb.new"), filepath.Join(v, "ducklake.duckdb"))
		testlakes.EditVersion(t, v, nil)
	}
	v04Holds10 := func(t *testing.T, v string) {
		os.Remove(filepath.Join(v, "catalogs", "0.4.duckdb"))
		copyFile(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(v, "catalogs", "0.4.duckdb"))
	}
	// A byte of the frozen catalog's header changed, version.json not
	// resealed: not the file version.json names.
	tampered := func(t *testing.T, v string) {
		f, err := os.OpenFile(filepath.Join(v, "ducklake.duckdb"), os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte{0xff}, 100); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		mutate func(t *testing.T, v string)
		duckdb string
		verify bool
		file   string // chosen, "" for none
		reason string // of the file passed over
	}{
		{"honest, verified", nil, "1.5.3", true, "ducklake.duckdb", ""},
		{"frozen catalog changed, not verified", tampered, "1.5.3", false, "ducklake.duckdb", ""},
		{"frozen catalog changed, verified", tampered, "1.5.3", true, "", "sha256"},
		{"format claim false, not verified", frozenIn11, "1.5.3", false, "ducklake.duckdb", ""},
		{"format claim false, verified", frozenIn11, "1.5.3", true, "", "holds DuckLake format 1.1 (detected from its version row and tables), but version.json's ducklake.format says 1.0"},
		{"format claim false, DuckDB 2.0 verified", frozenIn11, "2.0.0", true, "catalogs/1.1.duckdb", ""},
		{"0.4 holds 1.0, verified", v04Holds10, "1.5.0", true, "", "catalogs/0.4.duckdb holds DuckLake format 1.0 (detected from its version row and tables), not 0.4 as its name says"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, root := cloneRepo(t, golden)
			if tc.mutate != nil {
				tc.mutate(t, filepath.Join(root, "versions", id))
			}
			res, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: tc.duckdb, Verify: tc.verify})
			if tc.file != "" {
				if err != nil || res.File == nil || res.File.Key != "versions/"+id+"/"+tc.file || res.File.Verified != tc.verify {
					t.Fatalf("Resolve = %v, file %+v; want %s (verified %v)", err, res.File, tc.file, tc.verify)
				}
				return
			}
			if !errors.Is(err, ErrNoCatalog) {
				t.Fatalf("Resolve = %v (file %+v), want ErrNoCatalog", err, res.File)
			}
			var reasons []string
			for _, f := range res.Files {
				reasons = append(reasons, f.Key+": "+f.Reason)
			}
			if all := strings.Join(reasons, "\n"); !strings.Contains(all, tc.reason) {
				t.Errorf("no file passed over for %q:\n%s", tc.reason, all)
			}
		})
	}
}

// TestCheckKeptContentPassNamesTheClaim: a clean content pass kept in the
// digest cache certifies the format version.json claimed when it ran: a
// version.json that later claims another format for the same frozen
// catalog (the same bytes, the same sha256) misses the kept pass, and the
// check finds the false claim. The first run keeps the pass; the second
// differs only in the claim.
func TestCheckKeptContentPassNamesTheClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, root := smallLake(t)
	id := versionIDs(t, root)[2]
	cache, err := digestcache.Open(filepath.Join(t.TempDir(), "cache"), digestcache.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Versions: []string{"3"}, Formats: []string{"1.1"}, Jobs: 2, DigestCache: cache}
	if _, err := Backfill(ctx, st, opts); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		claim string
		want  error
	}{
		{"1.0", nil},
		{"1.0", nil}, // from the kept pass
		{"0.4", ErrDifferences},
	} {
		testlakes.EditVersion(t, filepath.Join(root, "versions", id), setClaim("ducklake", "format", tc.claim))
		rep, err := Check(ctx, st, opts)
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Fatalf("claim %s: Check = %v, want %v", tc.claim, err, tc.want)
		}
		if tc.want == nil {
			continue
		}
		detail := "holds DuckLake format 1.0 (detected from its version row and tables), but version.json's ducklake.format says 0.4"
		found := false
		for _, f := range rep.Findings {
			found = found || (f.Kind == KindDifference && f.Version == id && strings.Contains(f.Detail, detail))
		}
		if !found {
			t.Errorf("claim %s: no difference about %q: %+v", tc.claim, detail, rep.Findings)
		}
	}
}

// TestCheckWarnsOtherFDLVersions: a repository or version written for
// another FDL version than the one whose rules the tool implements is
// checked by those rules, and says so as a warning naming the file, in
// its words and its key (before, the key was empty, where the created_at
// warning's named versions/<id>/version.json).
func TestCheckWarnsOtherFDLVersions(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	id := versionIDs(t, root)[2]
	testlakes.EditVersion(t, filepath.Join(root, "versions", id), func(m map[string]any) { m["fdl"] = "9.0" })
	rep, err := Check(ctx, st, Options{Versions: []string{"3"}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	if err != nil {
		t.Fatalf("Check = %v", err)
	}
	want := "version " + id + ": version.json is written for FDL 9.0; this tool checks FDL 0.1's rules only"
	var found bool
	for _, f := range rep.Findings {
		found = found || (f.Kind == KindWarning && f.Detail == want && f.Key == "versions/"+id+"/version.json")
	}
	if !found {
		t.Errorf("no warning %q with key versions/%s/version.json in %+v", want, id, rep.Findings)
	}
}

// TestCheckWarnsOtherFDLRepository: the warning that fdl.json is written
// for another FDL version is a check finding whose key is fdl.json (it
// was empty, unlike the version.json's warning).
func TestCheckWarnsOtherFDLRepository(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t)
	path := filepath.Join(root, "fdl.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["fdl"] = "9.0"
	if raw, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ctx, st, Options{Versions: []string{"3"}, Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	if err != nil {
		t.Fatalf("Check = %v", err)
	}
	const want = "fdl.json is written for FDL 9.0; this tool checks FDL 0.1's rules only"
	var found bool
	for _, f := range rep.Findings {
		found = found || (f.Kind == KindWarning && f.Detail == want && f.Key == FDLKey)
	}
	if !found {
		t.Errorf("no warning %q with key %s in %+v", want, FDLKey, rep.Findings)
	}
}

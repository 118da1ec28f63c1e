package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// readerLake copies 02_add_drop_columns (3 versions, frozen in 1.0 at
// storage v1.5.0) and declares its formats without an until, so that a
// backfill writes them: 0.3 (DuckDB 1.4), 0.4 (1.5.0-1.5.1), 1.0 (1.5.2+),
// 1.1 (2.0+).
func readerLake(t *testing.T) (*local.Store, []string) {
	t.Helper()
	st := copyLake(t, testlakes.Lake(t, "lakes", "02_add_drop_columns"))
	fdl := filepath.Join(st.Root(), "fdl.json")
	os.Remove(fdl)
	writeFile(t, fdl, `{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0"},
		{"ducklake": "0.4", "duckdb": ">= 1.5.0, < 1.5.2"},
		{"ducklake": "1.0", "duckdb": ">= 1.5.2"},
		{"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`)
	return st, versionIDs(t, st.Root())
}

// resolveCase is what the spec's rule picks for one DuckDB: the file (""
// for none) and, when none, the files that would open with their DuckDBs.
type resolveCase struct {
	duckdb string
	file   string            // "ducklake.duckdb" or "catalogs/<format>.duckdb"; "" for none
	would  map[string]string // file -> DuckDB range, when none opens
}

// TestResolveConformance: on a real lake, before and after backfill, each
// DuckDB gets the file the FDL rule picks (newest published format it
// opens, else the frozen catalog), or the "no catalog" error with the
// DuckDBs that would; the statement's paths resolve: the catalog opens
// read-only in the linked DuckDB and the data folder holds every file it
// names.
func TestResolveConformance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("backfills three catalogs")
	}
	ctx := context.Background()
	st, ids := readerLake(t)
	frozenOnly := map[string]string{"ducklake.duckdb": ">= 1.5.2"}
	before := []resolveCase{
		{"1.3.2", "", frozenOnly},
		{"1.4.3", "", frozenOnly},
		{"1.5.0", "", frozenOnly},
		{"1.5.6", "ducklake.duckdb", nil},
		{"2.0.0", "ducklake.duckdb", nil},
	}
	for _, id := range ids {
		runResolveCases(ctx, t, st, "before", id, before)
	}

	// Backfill the newest version only, in the formats older and newer
	// DuckDBs need (1.0 is the frozen catalog's own).
	latest := ids[len(ids)-1]
	if _, err := Backfill(ctx, st, Options{Formats: []string{"0.3", "0.4", "1.1"}, Versions: []string{latest}, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	after := []resolveCase{
		{"1.3.2", "", map[string]string{
			"catalogs/1.1.duckdb": ">= 2.0.0", "catalogs/0.4.duckdb": ">= 1.5.0, < 1.5.2",
			"catalogs/0.3.duckdb": ">= 1.4.0, < 1.5.0", "ducklake.duckdb": ">= 1.5.2"}},
		{"1.4.3", "catalogs/0.3.duckdb", nil},
		{"1.5.0", "catalogs/0.4.duckdb", nil},
		{"1.5.6", "ducklake.duckdb", nil},
		{"2.0.0", "catalogs/1.1.duckdb", nil},
	}
	runResolveCases(ctx, t, st, "after", latest, after)
	runResolveCases(ctx, t, st, "after", ids[0], before) // the others are unchanged

	// The same matrix from the reader's side, in check's report.
	rep, err := Check(ctx, st, Options{Formats: []string{"0.3", "0.4", "1.1"}, Jobs: 2})
	if !errors.Is(err, ErrWorkMissing) {
		t.Fatalf("Check = %v, want ErrWorkMissing (versions 1 and 2 lack their catalogs)", err)
	}
	want := map[string]struct{ readable, unreadable []int64 }{
		"0.3": {[]int64{3}, []int64{1, 2}},
		"0.4": {[]int64{3}, []int64{1, 2}},
		"1.1": {[]int64{1, 2, 3}, nil},
	}
	if len(rep.Readers) != len(want) {
		t.Fatalf("readers: %d ranges, want %d", len(rep.Readers), len(want))
	}
	for _, rr := range rep.Readers {
		w := want[rr.Format]
		if got := seqs(rr.Readable); !slices.Equal(got, w.readable) {
			t.Errorf("range %s (%s): readable %v, want %v", rr.Format, rr.DuckDB, got, w.readable)
		}
		if got := seqs(rr.Unreadable); !slices.Equal(got, w.unreadable) {
			t.Errorf("range %s (%s): unreadable %v, want %v", rr.Format, rr.DuckDB, got, w.unreadable)
		}
	}
	warned := 0
	for _, f := range rep.Findings {
		if f.Kind == KindWarning && strings.HasPrefix(f.Detail, "readers: ") {
			warned++
			if !strings.Contains(f.Detail, "cannot read 2 of 3 versions") {
				t.Errorf("warning %q", f.Detail)
			}
		}
	}
	if warned != 2 {
		t.Errorf("%d reader warnings, want 2 (ranges of 0.3 and 0.4)", warned)
	}
}

func seqs(vs []*ReaderVersion) []int64 {
	var out []int64
	for _, v := range vs {
		out = append(out, v.Seq)
	}
	return out
}

func runResolveCases(ctx context.Context, t *testing.T, st *local.Store, phase, id string, cases []resolveCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", phase, id[len(id)-4:], tc.duckdb), func(t *testing.T) {
			res, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: tc.duckdb})
			prefix := VersionsDir + id + "/"
			if tc.file == "" {
				var nc *NoCatalogError
				if !errors.As(err, &nc) || !errors.Is(err, ErrNoCatalog) || res == nil || res.OK {
					t.Fatalf("Resolve = %v, want a *NoCatalogError", err)
				}
				got := map[string]string{}
				for _, f := range nc.Would {
					got[strings.TrimPrefix(f.Key, prefix)] = f.DuckDB
					if !strings.Contains(err.Error(), f.Key) || !strings.Contains(err.Error(), "DuckDB "+f.DuckDB) {
						t.Errorf("message %q does not name %s and its DuckDB %s", err, f.Key, f.DuckDB)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.would) {
					t.Errorf("would = %v, want %v", got, tc.would)
				}
				if !strings.Contains(err.Error(), "no catalog of version "+id) || !strings.Contains(err.Error(), "opens in DuckDB "+tc.duckdb) {
					t.Errorf("message %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimPrefix(res.File.Key, prefix); got != tc.file {
				t.Fatalf("DuckDB %s opens %s, want %s", tc.duckdb, got, tc.file)
			}
			checkStatement(ctx, t, res)
		})
	}
}

// checkStatement proves the statement's paths resolve: the catalog opens
// read-only in the linked DuckDB and is in the chosen format, and every
// data and delete file it names at the frozen snapshot is in the data
// folder. Where the linked DuckDB can load the ducklake extension and the
// resolution is for it, the statement itself is run and a table read.
func checkStatement(ctx context.Context, t *testing.T, res *Resolution) {
	t.Helper()
	wantAttach := fmt.Sprintf(`ATTACH 'ducklake:%s' AS "add_drop_columns" (READ_ONLY, DATA_PATH '%s', OVERRIDE_DATA_PATH true)`, res.CatalogURL, res.DataURL)
	if res.Attach != wantAttach {
		t.Errorf("statement\n %s\nwant\n %s", res.Attach, wantAttach)
	}
	if !filepath.IsAbs(res.CatalogURL) || !strings.HasSuffix(res.DataURL, string(filepath.Separator)) {
		t.Errorf("catalog %s, data %s: want absolute local paths", res.CatalogURL, res.DataURL)
	}
	db := testduck.Open(t, "")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// DuckDB parses the statement (preparing an ATTACH opens nothing).
	if stmt, err := conn.PrepareContext(ctx, res.Attach); err != nil {
		t.Errorf("DuckDB does not parse %s: %v", res.Attach, err)
	} else {
		stmt.Close()
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS cat (READ_ONLY)", sqlString(res.CatalogURL))); err != nil {
		t.Fatalf("plain ATTACH of %s: %v", res.CatalogURL, err)
	}
	var stamp string
	if err := conn.QueryRowContext(ctx, "SELECT value FROM cat.ducklake_metadata WHERE key = 'version'").Scan(&stamp); err != nil {
		t.Fatal(err)
	}
	if v, err := formats.Lookup(stamp); err != nil || (v.Name != res.File.Format && v.Release != res.File.Format) {
		t.Errorf("%s is stamped %q, want format %s", res.CatalogURL, stamp, res.File.Format)
	}
	if _, err := conn.ExecContext(ctx, "DETACH cat"); err != nil {
		t.Fatal(err)
	}

	rd, err := compare.Open(ctx, res.CatalogURL, compare.ReaderOptions{DataPath: res.DataURL})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	snaps, err := rd.Snapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap := snaps[len(snaps)-1].ID
	tables, err := rd.Tables(ctx, snap)
	if err != nil || len(tables) == 0 {
		t.Fatalf("tables at snapshot %d: %v %v", snap, tables, err)
	}
	named := 0
	for _, tb := range tables {
		files, err := rd.Files(ctx, tb, snap)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			paths := []string{f.Path}
			if f.Delete != nil {
				paths = append(paths, f.Delete.Path)
			}
			for _, p := range paths {
				named++
				if !strings.HasPrefix(p, res.DataURL) {
					t.Errorf("%s: %s is not under the data URL %s", tb.FullName(), p, res.DataURL)
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s names %s: %v", res.CatalogURL, p, err)
				}
			}
		}
	}
	if named == 0 {
		t.Errorf("%s names no data file", res.CatalogURL)
	}

	linked, err := LinkedDuckDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if linked != res.DuckDB {
		return
	}
	// Only an extension already installed: no download from a test.
	if _, err := conn.ExecContext(ctx, "SET autoinstall_known_extensions = false"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "LOAD ducklake"); err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		t.Logf("the ducklake extension cannot be loaded here, the statement itself is not run: %s", msg)
		return
	}
	if _, err := conn.ExecContext(ctx, res.Attach); err != nil {
		t.Fatalf("%s: %v", res.Attach, err)
	}
	var n int64
	q := fmt.Sprintf("SELECT count(*) FROM %s.%s.%s", sqlIdent(res.Name), sqlIdent(tables[0].Schema), sqlIdent(tables[0].Name))
	if err := conn.QueryRowContext(ctx, q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	t.Logf("%s: %d rows through the ducklake extension", q, n)
}

// TestResolveStorage: a file a DuckDB's format range admits is still not
// opened when its storage is newer than that DuckDB: the published file's
// own header decides for a published catalog, catalog.storage in
// version.json for the frozen one.
func TestResolveStorage(t *testing.T) {
	ctx := context.Background()
	st, ids := readerLake(t)
	id := ids[0]
	dir := filepath.Join(st.Root(), "versions", id)
	// A 0.3 catalog saved at storage v1.5.0: DuckDB 1.4 cannot open it.
	if err := os.MkdirAll(filepath.Join(dir, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := convert.Catalog(ctx, filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalogs", "0.3.duckdb"), formats.V0_3, convert.Options{Storage: "v1.5.0"}); err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: "1.4.3"})
	var nc *NoCatalogError
	if !errors.As(err, &nc) {
		t.Fatalf("Resolve for DuckDB 1.4.3 = %v, want no catalog", err)
	}
	f := res.Files[0]
	if f.Format != "0.3" || f.Storage != "v1.5.0" || f.StorageFrom != "file header" || f.DuckDB != "" || !strings.Contains(f.Reason, "storage v1.5.0, which DuckDB 1.4.3 cannot open") {
		t.Errorf("0.3 file: %+v", f)
	}
	if len(nc.Would) != 1 || !nc.Would[0].Frozen {
		t.Errorf("would = %v, want only the frozen catalog (no DuckDB opens a 0.3 catalog at storage v1.5.0)", nc.Would)
	}

	// The frozen catalog's storage comes from version.json, where its header
	// needs no newer one. A patch release's name is the storage of its line
	// (DuckDB saves v1.5.0's at STORAGE_VERSION 'v1.5.3'): before, DuckDB
	// 1.5.2 was kept from a catalog claimed "duckdb-v1.5.3". A line
	// duckfile does not know (v2.0.0) is taken as named.
	for _, tc := range []struct {
		claim, duckdb string
		opens         bool
		min, would    string
	}{
		{"duckdb-v1.5.3", "1.5.2", true, "1.5.0", ""},
		{"duckdb-v1.5.3", "1.5.6", true, "1.5.0", ""},
		{"duckdb-v2.0.0", "1.5.6", false, "2.0.0", "ducklake.duckdb (format 1.0, storage v2.0.0): DuckDB >= 1.5.2, >= 2.0.0"},
		{"duckdb-v2.0.0", "2.0.0", true, "2.0.0", ""},
	} {
		t.Run(tc.claim+"/"+tc.duckdb, func(t *testing.T) {
			testlakes.EditVersion(t, dir, setClaim("catalog", "storage", tc.claim))
			res, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: tc.duckdb})
			var nc *NoCatalogError
			switch {
			case !tc.opens && !errors.As(err, &nc):
				t.Fatalf("Resolve = %v, want no catalog", err)
			case !tc.opens && !strings.Contains(nc.Error(), tc.would):
				t.Errorf("Resolve = %v, want it to say %q", nc, tc.would)
			case tc.opens && (err != nil || !res.File.Frozen):
				t.Fatalf("Resolve = %v, want the frozen catalog", err)
			}
			frozen := res.Files[len(res.Files)-1]
			if frozen.Storage != strings.TrimPrefix(tc.claim, "duckdb-") || frozen.StorageFrom != "version.json" || frozen.MinDuckDB != tc.min {
				t.Errorf("frozen catalog: storage %s from %s, min DuckDB %s; want %s from version.json, min %s", frozen.Storage, frozen.StorageFrom, frozen.MinDuckDB, tc.claim, tc.min)
			}
		})
	}
}

// TestResolveOrder: where a DuckDB opens several catalogs of a version
// (DuckDB 2.0 opens 1.0 and 1.1), it gets the newest published format, and a
// published catalog before the frozen one, as the FDL rule says.
func TestResolveOrder(t *testing.T) {
	ctx := context.Background()
	st, ids := readerLake(t)
	fdl := filepath.Join(st.Root(), "fdl.json")
	os.Remove(fdl)
	writeFile(t, fdl, `{"fdl": "0.1", "formats": [{"ducklake": "0.4"}, {"ducklake": "1.0"}, {"ducklake": "1.1"}]}`)
	dir := filepath.Join(st.Root(), "versions", ids[0])
	if err := os.MkdirAll(filepath.Join(dir, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, to := range []*formats.Version{formats.V0_4, formats.V1_1} {
		if _, err := convert.Catalog(ctx, filepath.Join(dir, "ducklake.duckdb"), filepath.Join(dir, "catalogs", to.Name+".duckdb"), to, convert.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	for duckdb, want := range map[string]string{"1.5.0": "catalogs/0.4.duckdb", "1.5.6": "ducklake.duckdb", "2.0.0": "catalogs/1.1.duckdb"} {
		res, err := Resolve(ctx, st, ResolveOptions{Version: ids[0], DuckDB: duckdb})
		if err != nil {
			t.Fatalf("DuckDB %s: %v", duckdb, err)
		}
		if got := strings.TrimPrefix(res.File.Key, VersionsDir+ids[0]+"/"); got != want {
			t.Errorf("DuckDB %s opens %s, want %s", duckdb, got, want)
		}
		var order []string
		for _, f := range res.Files {
			order = append(order, f.Format)
		}
		if fmt.Sprint(order) != "[1.1 0.4 1.0]" || !res.Files[2].Frozen {
			t.Errorf("files tried in order %v, want [1.1 0.4 1.0] (frozen last)", order)
		}
	}
}

// TestResolveVersions: a version by ID, by seq, latest (the newest not
// expired), and what is refused.
func TestResolveVersions(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	ids := versionIDs(t, root)
	writeFile(t, filepath.Join(root, "versions", ids[2], "expired.json"), `{"reason": "withdrawn"}`)
	for _, tc := range []struct {
		sel, want string
		err       error
	}{
		{"", ids[1], nil},
		{"latest", ids[1], nil},
		{ids[0], ids[0], nil},
		{"2", ids[1], nil},
		{ids[2], ids[2], ErrNoCatalog},
		{"9", "", ErrBadFilter},
		{"019a0000-0000-7000-8000-000000000000", "", ErrBadFilter},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			res, err := Resolve(ctx, st, ResolveOptions{Version: tc.sel, DuckDB: "1.5.6", DataURL: "https://fdl.example/06_deletes/data"})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Resolve(%q) = %v, want %v", tc.sel, err, tc.err)
			}
			if tc.want != "" && res.Version != tc.want {
				t.Errorf("Resolve(%q) picked %s, want %s", tc.sel, res.Version, tc.want)
			}
			if tc.err == ErrNoCatalog && !strings.Contains(err.Error(), "withdrawn (expired.json)") {
				t.Errorf("message %q", err)
			}
			if tc.err == nil && (res.DataURL != "https://fdl.example/06_deletes/data/" || !strings.Contains(res.Attach, `AS "deletes" (READ_ONLY, DATA_PATH 'https://fdl.example/06_deletes/data/'`)) {
				t.Errorf("data URL %s, statement %s", res.DataURL, res.Attach)
			}
		})
	}
	if _, err := Resolve(ctx, st, ResolveOptions{DuckDB: "one point five"}); !errors.Is(err, ErrMalformedDuckDB) || errors.Is(err, ErrBadFilter) {
		t.Errorf("bad DuckDB version: %v", err)
	}
}

// urlStore is a local store that also names its objects by URL, as an
// s3:// or https:// store does.
type urlStore struct {
	*local.Store
	base string
}

func (u urlStore) BaseURL() string { return u.base }

// TestResolveURLStore: a store with a base URL gets URLs in the statement,
// for the catalog and the data folder alike.
func TestResolveURLStore(t *testing.T) {
	ctx := context.Background()
	st, _ := smallLake(t, "fdl.json", "versions")
	res, err := Resolve(ctx, urlStore{st, "s3://bucket/lakes/06/"}, ResolveOptions{DuckDB: "1.5.6", Name: "Deletes 2026"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`ATTACH 'ducklake:s3://bucket/lakes/06/%s' AS "Deletes 2026" (READ_ONLY, DATA_PATH 's3://bucket/lakes/06/data/', OVERRIDE_DATA_PATH true)`, res.File.Key)
	if res.Attach != want {
		t.Errorf("statement\n %s\nwant\n %s", res.Attach, want)
	}
}

func TestConstraintPoints(t *testing.T) {
	for c, want := range map[string]string{
		">= 1.5.2": "[1.5.2]",
		"< 2.0.0":  "[2.0.0]",
		"> 1.5.1":  "[1.5.1 1.5.2]",
		"<= 1.4":   "[1.4.0 1.4.1]",
		"~> 1.4.0": "[1.4.0 1.5.0]",
		"~> 1.4":   "[1.4.0 2.0.0]",
		"= 1.3.2":  "[1.3.2 1.3.3]",
	} {
		var got []string
		for _, v := range constraintPoints(c) {
			got = append(got, v.String())
		}
		if fmt.Sprint(got) != want {
			t.Errorf("constraintPoints(%q) = %v, want %s", c, got, want)
		}
	}
}

// TestResolveWhatDuckDBCanOpen: a DuckDB opens what it can open, not only
// what fdl.json promises it: README's fdl.json declares 1.0 for DuckDB
// ">= 1.5.2, < 2.0.0" and 1.1 for ">= 2.0.0", yet DuckDB 2.0 opens 1.0
// catalogs. Without a 1.1 catalog it opens the frozen 1.0 one; with a frozen
// 1.1 catalog and catalogs/1.0.duckdb it opens catalogs/1.0.duckdb, as the
// spec orders them ("A reader tries the formats it can open, newest first,
// then falls back to ducklake.duckdb"). Check's readers table says the
// same; the promise (1.1 missing) is still work missing. Before, resolve
// exited 8 for DuckDB 2.0 in the first repository and named the frozen
// catalog in the second, and check warned that DuckDB 2.0 read no version.
func TestResolveWhatDuckDBCanOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	readme := `{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "1.0", "duckdb": ">= 1.5.2, < 2.0.0"},
		{"ducklake": "1.1", "duckdb": ">= 2.0.0"}]}`
	for _, tc := range []struct {
		name string
		// frozen11 makes the newest version's frozen catalog a 1.1 one,
		// with its 1.0 original as catalogs/1.0.duckdb.
		frozen11 bool
		opens    map[string]string // DuckDB -> file of the newest version ("" none)
	}{
		{"frozen 1.0, no 1.1 catalog", false, map[string]string{
			"1.5.0": "", "1.5.2": "ducklake.duckdb", "1.5.6": "ducklake.duckdb", "2.0.0": "ducklake.duckdb", "2.1.0": "ducklake.duckdb"}},
		{"frozen 1.1, catalogs/1.0.duckdb", true, map[string]string{
			"1.5.0": "", "1.5.2": "catalogs/1.0.duckdb", "2.0.0": "catalogs/1.0.duckdb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ids := readerLake(t)
			fdl := filepath.Join(st.Root(), "fdl.json")
			os.Remove(fdl)
			writeFile(t, fdl, readme)
			latest := ids[len(ids)-1]
			dir := filepath.Join(st.Root(), "versions", latest)
			if tc.frozen11 {
				frozen, tmp := filepath.Join(dir, "ducklake.duckdb"), filepath.Join(t.TempDir(), "1.1.duckdb")
				if _, err := convert.Catalog(ctx, frozen, tmp, formats.V1_1, convert.Options{}); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(dir, "catalogs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(frozen, filepath.Join(dir, "catalogs", "1.0.duckdb")); err != nil {
					t.Fatal(err)
				}
				copyFile(t, tmp, frozen)
				testlakes.EditVersion(t, dir, setClaim("ducklake", "format", "1.1"))
			}
			prefix := VersionsDir + latest + "/"
			for duckdb, want := range tc.opens {
				res, err := Resolve(ctx, st, ResolveOptions{Version: latest, DuckDB: duckdb})
				if want == "" {
					if !errors.Is(err, ErrNoCatalog) {
						t.Errorf("DuckDB %s: Resolve = %v, want no catalog", duckdb, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("DuckDB %s: %v", duckdb, err)
					continue
				}
				if got := strings.TrimPrefix(res.File.Key, prefix); got != want {
					t.Errorf("DuckDB %s opens %s, want %s", duckdb, got, want)
				}
				for _, f := range res.Files {
					if f.Format == "1.0" && (f.Readers != ">= 1.5.2" || f.Declared != ">= 1.5.2, < 2.0.0" || f.DuckDB != ">= 1.5.2") {
						t.Errorf("%s: readers %q, declared %q, opened by %q; want the registry's >= 1.5.2, fdl.json's >= 1.5.2, < 2.0.0, opened by >= 1.5.2", f.Key, f.Readers, f.Declared, f.DuckDB)
					}
				}
			}

			// check: DuckDB 2.0, the 1.1 range, reads every version; the 1.1
			// catalogs fdl.json promises are still missing.
			rep, err := Check(ctx, st, Options{Jobs: 2})
			if !errors.Is(err, ErrWorkMissing) || errors.Is(err, ErrDifferences) {
				t.Fatalf("Check = %v, want only work missing (the 1.1 catalogs)", err)
			}
			for _, rr := range rep.Readers {
				if len(rr.Unreadable) > 0 {
					t.Errorf("range %s (%s) cannot read %v", rr.Format, rr.DuckDB, seqs(rr.Unreadable))
				}
				if rr.Format != "1.1" {
					continue
				}
				for _, rv := range rr.Readable {
					want := VersionsDir + rv.Version + "/ducklake.duckdb"
					if rv.Version == latest && tc.frozen11 {
						want = VersionsDir + rv.Version + "/catalogs/1.0.duckdb"
					}
					if rv.Opens["2.0.0"] != want {
						t.Errorf("readers of 1.1: DuckDB 2.0.0 opens %q in seq %d, want %s", rv.Opens["2.0.0"], rv.Seq, want)
					}
				}
			}
			for _, f := range rep.Findings {
				if strings.HasPrefix(f.Detail, "readers: ") {
					t.Errorf("warning %q", f.Detail)
				}
			}
		})
	}
}

// TestAttachAlias: the statement's alias is always quoted, so that DuckDB
// parses it whatever the dataset is named: SQL's reserved words ("order",
// the alias of a dataset named "Order"), any case, spaces, quotes. Each
// statement is parsed by DuckDB (prepared: an ATTACH opens nothing until
// run), and the quoting round-trips: a database attached under the quoted
// alias has that name. Before, `AS order` was a parser error.
func TestAttachAlias(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, name := range []string{"lake", "order", "select", "Order", "group by", `we"ird`, "2026", "naïve", "lake'1"} {
		t.Run(name, func(t *testing.T) {
			stmt := AttachSQL("/srv/fdl/versions/x/ducklake.duckdb", name, "/srv/fdl/data/", true)
			p, err := conn.PrepareContext(ctx, stmt)
			if err != nil {
				t.Fatalf("DuckDB does not parse %s: %v", stmt, err)
			}
			p.Close()
			if _, err := conn.ExecContext(ctx, "ATTACH ':memory:' AS "+sqlIdent(name)); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "DETACH "+sqlIdent(name))
			var got string
			if err := conn.QueryRowContext(ctx, "SELECT database_name FROM duckdb_databases() WHERE database_name = ?", name).Scan(&got); err != nil {
				t.Errorf("no database named %q after attaching it as %s: %v", name, sqlIdent(name), err)
			}
		})
	}

	// From a dataset named with a reserved word, through Resolve.
	st, ids := readerLake(t)
	latest := ids[len(ids)-1]
	dir := filepath.Join(st.Root(), "versions", latest)
	ds := filepath.Join(dir, "dataset.json")
	data, err := os.ReadFile(ds)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(ds)
	writeFile(t, ds, strings.Replace(string(data), `"name": "add_drop_columns"`, `"name": "Order"`, 1))
	testlakes.EditVersion(t, dir, nil, "dataset")
	res, err := Resolve(ctx, st, ResolveOptions{DuckDB: "1.5.6"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Name != "order" || !strings.Contains(res.Attach, `' AS "order" (READ_ONLY`) {
		t.Fatalf("alias %q, statement %s; want \"order\" quoted", res.Name, res.Attach)
	}
	p, err := conn.PrepareContext(ctx, res.Attach)
	if err != nil {
		t.Fatalf("DuckDB does not parse %s: %v", res.Attach, err)
	}
	p.Close()
}

// TestCheckPatchStorageClaim: version.json's catalog.storage may name a
// patch release ("duckdb-v1.5.3"), which is its line's storage: every DuckDB
// of format 1.0 opens such a catalog saved at v1.5.0, so check's readers
// table reads it there and no claim is false. A claim of an older line
// than the header is still false. Before, check warned that DuckDB 1.5.2
// could not read the version.
func TestCheckPatchStorageClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		claim string
		want  error
	}{
		{"duckdb-v1.5.0", nil},
		{"duckdb-v1.5.3", nil},
		{"duckdb-v1.5.6", nil},
		{"duckdb-v1.4.4", ErrDifferences},
	} {
		t.Run(tc.claim, func(t *testing.T) {
			st, ids := readerLake(t)
			fdl := filepath.Join(st.Root(), "fdl.json")
			os.Remove(fdl)
			writeFile(t, fdl, `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`)
			latest := ids[len(ids)-1]
			testlakes.EditVersion(t, filepath.Join(st.Root(), "versions", latest), setClaim("catalog", "storage", tc.claim))
			rep, err := Check(ctx, st, Options{Jobs: 2})
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				return
			}
			for _, f := range rep.Findings {
				// The lake's evo and mixed tables re-add a dropped
				// column's name: files.json's readers by name are
				// warned of (TestFilesJSONReadByName), not this test's.
				if f.Kind == KindWarning && strings.Contains(f.Detail, "lets readers without DuckLake read") {
					continue
				}
				t.Errorf("finding %s: %s", f.Kind, f.Detail)
			}
			if len(rep.Readers) != 1 || len(rep.Readers[0].Readable) != 3 || rep.Readers[0].Readable[2].Opens["1.5.2"] == "" {
				t.Errorf("readers: %+v, want DuckDB 1.5.2 to read all 3 versions", rep.Readers[0])
			}
		})
	}
}

// TestFrozenStorageShutsOutItsReaders: a frozen 0.3 catalog saved at
// storage v1.5.0 (or claimed so in version.json) does not open in DuckDB
// 1.4, the readers fdl.json declares for 0.3. Backfill cannot help (no
// catalog in the frozen catalog's own format is written in catalogs/):
// resolve's hint and check's warning say that the writer must save the
// frozen catalog at an older storage, as the spec asks ("catalog.storage
// should be the oldest DuckDB storage format the declared readers can
// open"); "should" keeps it a warning. Before, resolve told the reader the
// publisher would run backfill, and check's only word was the readers
// table's gap, pointing at the plan.
func TestFrozenStorageShutsOutItsReaders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, save, from string // save: the storage the frozen catalog is saved at ("" as made: v0.10.0)
	}{
		{"saved at v1.5.0", "v1.5.0", "version.json"},
		{"saved at v0.10.0, claimed v1.5.0", "", "version.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := copyLake(t, testlakes.Lake(t, "lakes-0.3", "06_deletes"))
			fdl := filepath.Join(st.Root(), "fdl.json")
			os.Remove(fdl)
			writeFile(t, fdl, `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0"}]}`)
			id := versionIDs(t, st.Root())[0]
			v := filepath.Join(st.Root(), "versions", id)
			if tc.save != "" {
				saveAtStorage(t, filepath.Join(v, "ducklake.duckdb"), tc.save)
			}
			testlakes.EditVersion(t, v, setClaim("catalog", "storage", "duckdb-v1.5.0"))
			key := VersionsDir + id + "/ducklake.duckdb"
			remedy := []string{key + ", the frozen catalog, is in format 0.3", "saved at storage v1.5.0 (" + tc.from + "), which it cannot open",
				"`fdl-formats backfill` cannot help", "the writer must save the frozen catalog at storage v1.4.0 (STORAGE_VERSION 'v1.4.0'", "catalog.storage should be the oldest DuckDB storage format the declared readers can open"}

			_, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: "1.4.3"})
			var nc *NoCatalogError
			if !errors.As(err, &nc) {
				t.Fatalf("Resolve = %v, want no catalog", err)
			}
			hint := nc.Hint()
			for _, want := range append(remedy, "which DuckDB 1.4.3 reads") {
				if !strings.Contains(hint, want) {
					t.Errorf("hint %q lacks %q", hint, want)
				}
			}
			if strings.Contains(hint, "runs `fdl-formats backfill") || len(nc.Declared) > 0 || len(nc.TooNew) != 1 {
				t.Errorf("hint %q (declared %v, too new %v): backfill writes nothing that opens here", hint, nc.Declared, nc.TooNew)
			}

			rep, err := Check(ctx, st, Options{Jobs: 2})
			if err != nil {
				t.Fatalf("Check = %v, want a warning only", err)
			}
			var frozen, gap []string
			for _, f := range rep.Findings {
				switch {
				case f.Kind == KindWarning && f.Key == key:
					frozen = append(frozen, f.Detail)
				case f.Kind == KindWarning && strings.HasPrefix(f.Detail, "readers: "):
					gap = append(gap, f.Detail)
				default:
					t.Errorf("finding %s %s: %s", f.Kind, f.Key, f.Detail)
				}
			}
			if len(frozen) != 1 {
				t.Fatalf("warnings about %s: %q, want one", key, frozen)
			}
			for _, want := range append(remedy, "which DuckDB 1.4.0, a reader fdl.json declares for it (DuckDB >= 1.4.0, < 1.5.0), reads") {
				if !strings.Contains(frozen[0], want) {
					t.Errorf("warning %q lacks %q", frozen[0], want)
				}
			}
			if len(gap) != 1 || !strings.Contains(gap[0], "seq 1 (its frozen catalog's storage is too new: see that warning)") || strings.Contains(gap[0], "see plan") {
				t.Errorf("readers warnings %q", gap)
			}

			// A check that leaves 0.3 out (--formats) does not look at it.
			os.Remove(fdl)
			writeFile(t, fdl, `{"fdl": "0.1", "data_dir": "data/", "formats": [{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0"}, {"ducklake": "1.0"}]}`)
			rep, err = Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.0"}})
			if !errors.Is(err, ErrWorkMissing) {
				t.Fatalf("Check --formats 1.0 = %v, want work missing (no 1.0 catalog)", err)
			}
			for _, f := range rep.Findings {
				if f.Key == key {
					t.Errorf("check --formats 1.0 warns of the 0.3 catalog: %s", f.Detail)
				}
			}
		})
	}
}

// TestResolveDevLayoutOpensNowhere: what a DuckDB opens comes from the
// registry, where a development layout (1.1-dev1, stamped by DuckDB's 2.0
// development line) opens in no released DuckDB: a version frozen in it is
// sent to no DuckDB, 2.0 included, whatever fdl.json declares for 1.1.
func TestResolveDevLayoutOpensNowhere(t *testing.T) {
	ctx := context.Background()
	st := copyLake(t, testlakes.Lake(t, "lakes-1.1-dev1", "06_deletes"))
	for _, duckdb := range []string{"1.5.6", "2.0.0", "2.1.0"} {
		res, err := Resolve(ctx, st, ResolveOptions{DuckDB: duckdb})
		var nc *NoCatalogError
		if !errors.As(err, &nc) || len(nc.Would) != 0 || len(nc.TooNew) != 0 {
			t.Fatalf("DuckDB %s: Resolve = %v, want no catalog, none that would open", duckdb, err)
		}
		frozen := res.Files[len(res.Files)-1]
		if frozen.Format != "1.1-dev1" || frozen.Readers != formats.V1_1Dev1.DuckDB || frozen.Declared != "" || frozen.DuckDB != "" || frozen.Opens {
			t.Errorf("DuckDB %s: frozen catalog %+v", duckdb, frozen)
		}
	}
}

// TestResolveAttachForDuckDB13: DuckDB 1.3's DuckLake refuses options it
// does not know, OVERRIDE_DATA_PATH among them (from 1.4.0), and uses a
// given DATA_PATH without it; the statement for 1.3 leaves it out, the one
// for 1.4 and later keeps it. Before, 1.3 readers were given a statement
// their DuckLake fails on ("Unsupported option override_data_path").
func TestResolveAttachForDuckDB13(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, ids := readerLake(t)
	fdl := filepath.Join(st.Root(), "fdl.json")
	os.Remove(fdl)
	writeFile(t, fdl, `{"fdl": "0.1", "data_dir": "data/", "formats": [
		{"ducklake": "0.2", "duckdb": ">= 1.3.1, < 1.4.0"},
		{"ducklake": "0.3", "duckdb": ">= 1.4.0, < 1.5.0"},
		{"ducklake": "1.0", "duckdb": ">= 1.5.2"}]}`)
	latest := ids[len(ids)-1]
	if _, err := Backfill(ctx, st, Options{Formats: []string{"0.2", "0.3"}, Versions: []string{latest}, Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		duckdb, file string
		override     bool
	}{
		{"1.3.1", "catalogs/0.2.duckdb", false},
		{"1.3.2", "catalogs/0.2.duckdb", false},
		{"1.4.0", "catalogs/0.3.duckdb", true},
		{"1.5.6", "ducklake.duckdb", true},
	} {
		t.Run(tc.duckdb, func(t *testing.T) {
			res, err := Resolve(ctx, st, ResolveOptions{Version: latest, DuckDB: tc.duckdb})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimPrefix(res.File.Key, VersionsDir+latest+"/"); got != tc.file {
				t.Fatalf("DuckDB %s opens %s, want %s", tc.duckdb, got, tc.file)
			}
			if got := strings.Contains(res.Attach, "OVERRIDE_DATA_PATH"); got != tc.override {
				t.Errorf("DuckDB %s: %s: OVERRIDE_DATA_PATH given %v, want %v", tc.duckdb, res.Attach, got, tc.override)
			}
			if !strings.Contains(res.Attach, "DATA_PATH '"+res.DataURL+"'") {
				t.Errorf("statement %s does not give the data path %s", res.Attach, res.DataURL)
			}
		})
	}
}

// TestHugeDuckDBBound: fdl.json accepts a duckdb range whose bound is at
// int64's maximum ("> 1.5.9223372036854775807" lies within format 1.0's
// readers), and the boundaries the readers matrix and resolve evaluate
// (constraintPoints: the version just past a bound) overflowed to
// "1.5.-9223372036854775808", which goversion.Must panicked on: check of
// such a repository crashed, even one with no version (--allow-empty).
// The newcomer review fixed the same overflow in formats' nearBounds.
func TestHugeDuckDBBound(t *testing.T) {
	for _, c := range []string{"> 1.5.9223372036854775807", "~> 1.9223372036854775807.0", ">= 1.5.2, != 1.5.9223372036854775807"} {
		t.Run(c, func(t *testing.T) {
			root := t.TempDir()
			fdl := `{"fdl": "0.1", "formats": [{"ducklake": "1.0", "duckdb": "` + c + `"}]}`
			if err := os.WriteFile(filepath.Join(root, "fdl.json"), []byte(fdl), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(root, "versions"), 0o755); err != nil {
				t.Fatal(err)
			}
			st, err := local.New(root)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("Check panics: %v", p)
				}
			}()
			if _, err := Check(context.Background(), st, Options{AllowEmpty: true, WorkDir: t.TempDir()}); err != nil {
				t.Errorf("Check = %v, want nil (an empty repository, allowed)", err)
			}
		})
	}
}

// TestResolveWebURLsAsDuckDBSendsThem: over HTTP(S) the statement names the
// data folder as fdl.json writes it, not percent-encoded, and DuckDB's HTTP
// clients encode each request's path themselves: httplib's encode_path (a
// space, ', ",", ";", CR, LF and bytes >= 0x80) and curl's URL API (a space
// and bytes >= 0x80, when a path is set on the base URL, as httpfs does);
// neither touches a "%", so the escaped base URL is sent as it is. A
// repository below a folder with a space, whose data_dir holds a space,
// non-ASCII letters and characters only httplib encodes, is served by a
// plain file server: the catalog and a data file, asked for as each client
// sends them, are the repository's bytes.
func TestResolveWebURLsAsDuckDBSendsThem(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	site := filepath.Join(t.TempDir(), "site")
	repoDir := filepath.Join(site, "my lakes")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(root, repoDir); err != nil {
		t.Fatal(err)
	}
	const dataDir = "dätä's, dir;/"
	if err := os.Rename(filepath.Join(repoDir, "data"), filepath.Join(repoDir, strings.TrimSuffix(dataDir, "/"))); err != nil {
		t.Fatal(err)
	}
	fdl, err := os.ReadFile(filepath.Join(repoDir, "fdl.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repoDir, "fdl.json"), strings.Replace(string(fdl), `"data_dir": "data/"`, `"data_dir": "`+dataDir+`"`, 1))
	web := webSite(t, http.FileServer(http.Dir(site)))
	base := strings.TrimSuffix(web.BaseURL(), "/")
	lake, err := httpstore.New(base+"/my%20lakes/", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(ctx, lake, ResolveOptions{DuckDB: "1.5.6"})
	if err != nil {
		t.Fatal(err)
	}
	if want := base + "/my%20lakes/" + dataDir; res.DataURL != want {
		t.Fatalf("DATA_PATH %q, want %q (as fdl.json writes it)", res.DataURL, want)
	}
	var dataFile string
	err = filepath.WalkDir(filepath.Join(repoDir, strings.TrimSuffix(dataDir, "/")), func(p string, d os.DirEntry, err error) error {
		if err == nil && dataFile == "" && strings.HasSuffix(p, ".parquet") {
			dataFile = p
		}
		return err
	})
	if err != nil || dataFile == "" {
		t.Fatalf("no data file: %v", err)
	}
	rel, _ := filepath.Rel(filepath.Join(repoDir, strings.TrimSuffix(dataDir, "/")), dataFile)
	for _, c := range []struct {
		name   string
		encode func(byte) string
	}{
		{"httplib", func(b byte) string {
			if b == ' ' || b == '\'' || b == ',' || b == ';' || b >= 0x80 {
				return fmt.Sprintf("%%%02X", b)
			}
			return string(b)
		}},
		{"curl", func(b byte) string {
			if b == ' ' || b >= 0x80 {
				return fmt.Sprintf("%%%02x", b)
			}
			return string(b)
		}},
	} {
		for _, f := range []struct{ url, local string }{
			{strings.TrimPrefix(res.CatalogURL, "ducklake:"), filepath.Join(repoDir, filepath.FromSlash(res.File.Key))},
			{res.DataURL + filepath.ToSlash(rel), dataFile},
		} {
			var sent strings.Builder
			for i := 0; i < len(f.url); i++ {
				sent.WriteString(c.encode(f.url[i]))
			}
			resp, err := http.Get(sent.String())
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s GET %s: %s %v", c.name, sent.String(), resp.Status, err)
			}
			want, err := os.ReadFile(f.local)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s GET %s: %d bytes, not the %d of %s", c.name, sent.String(), len(got), len(want), f.local)
			}
		}
	}
}

// TestResolveSelectionMessages: a seq two versions share, a repository
// whose every version is expired and one with no version at all are bad
// arguments (ErrBadFilter, exit 2), each saying what it is; they said the
// filter "names nothing", and the last that every version was expired.
func TestResolveSelectionMessages(t *testing.T) {
	ctx := context.Background()
	st, root := smallLake(t, "fdl.json", "versions")
	ids := versionIDs(t, root)
	testlakes.EditVersion(t, filepath.Join(root, "versions", ids[0]), func(m map[string]any) { m["seq"] = 2 })
	for _, tc := range []struct {
		name, sel, want      string
		expireAll, removeAll bool
	}{
		{"shared seq", "2", fmt.Sprintf("seq 2 names 2 versions (%s, %s): give the ID", ids[0], ids[1]), false, false},
		{"all expired", "latest", "every version is expired or withdrawn (expired.json): none is left to read", true, false},
		{"no version", "latest", "no version found under versions/: none to read", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.expireAll {
				for _, id := range ids {
					writeFile(t, filepath.Join(root, "versions", id, "expired.json"), `{"reason": "withdrawn"}`)
				}
			}
			if tc.removeAll {
				for _, id := range ids {
					if err := os.RemoveAll(filepath.Join(root, "versions", id)); err != nil {
						t.Fatal(err)
					}
				}
			}
			_, err := Resolve(ctx, st, ResolveOptions{Version: tc.sel, DuckDB: "1.5.6"})
			if !errors.Is(err, ErrBadFilter) || err.Error() != tc.want {
				t.Errorf("Resolve(%q) = %v, want %q (ErrBadFilter)", tc.sel, err, tc.want)
			}
		})
	}
}

// TestResolveNoCatalogPastUntil: a DuckDB whose declared format the
// version lacks is told to wait for backfill only while the format is
// written; past its until (for this version) backfill writes nothing, and
// the hint said to run it all the same.
func TestResolveNoCatalogPastUntil(t *testing.T) {
	ctx := context.Background()
	st := copyLake(t, testlakes.Lake(t, "lakes", "02_add_drop_columns"))
	// Its versions were created after the lake's 0.3 until (2026-06-30):
	// one after them.
	fdl := filepath.Join(st.Root(), "fdl.json")
	data, err := os.ReadFile(fdl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fdl, []byte(strings.Replace(string(data), `"until": "2026-06-30"`, `"until": "2027-06-30"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now      time.Time
		declared []string
		expired  []ExpiredFormat
		hint     string
	}{
		{time.Date(2027, 6, 29, 0, 0, 0, 0, time.UTC), []string{"0.3"}, nil, "the publisher runs `fdl-formats backfill REPO`"},
		{time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC), nil, []ExpiredFormat{{"0.3", "2027-06-30"}}, "fdl.json declares format 0.3 for DuckDB 1.4.3 until 2027-06-30, which has passed for this version: no catalog in it is written any more"},
	} {
		_, err := Resolve(ctx, st, ResolveOptions{Version: "1", DuckDB: "1.4.3", Now: tc.now})
		var nc *NoCatalogError
		if !errors.As(err, &nc) {
			t.Fatalf("Resolve at %v = %v, want no catalog", tc.now, err)
		}
		if !slices.Equal(nc.Declared, tc.declared) || !slices.Equal(nc.Expired, tc.expired) || !strings.Contains(nc.Hint(), tc.hint) {
			t.Errorf("at %v: declared %v, expired %v, hint %q; want %v, %v and %q", tc.now, nc.Declared, nc.Expired, nc.Hint(), tc.declared, tc.expired, tc.hint)
		}
		if tc.expired != nil && strings.Contains(nc.Hint(), "runs `fdl-formats backfill") {
			t.Errorf("at %v: hint %q says to run backfill, which writes nothing past until", tc.now, nc.Hint())
		}
	}
}

// TestResolveNoCatalogNamesUnusable: when the catalog of the format a
// DuckDB reads is there but cannot be used (its header unreadable, or
// passed over by --verify), the "no catalog" error names it with why, and
// the hint says to delete it and backfill. Before, the error listed only
// the other formats' catalogs and the hint said the version "has no
// catalog in it: the publisher runs `fdl-formats backfill`", which finds
// the catalog already there and writes nothing.
func TestResolveNoCatalogNamesUnusable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		verify bool
		write  func(t *testing.T, frozen, dst string)
		why    string
	}{
		{"header unreadable", false, func(t *testing.T, _, dst string) {
			writeFile(t, dst, "not a DuckDB file")
		}, "read the header of"},
		{"passed over by --verify", true, func(t *testing.T, frozen, dst string) {
			// The frozen 1.0 catalog under the 0.4 name: its header
			// reads, and --verify finds the format is not its name's.
			data, err := os.ReadFile(frozen)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, ids := readerLake(t)
			v := filepath.Join(st.Root(), "versions", ids[0])
			if err := os.MkdirAll(filepath.Join(v, "catalogs"), 0o755); err != nil {
				t.Fatal(err)
			}
			key := "versions/" + ids[0] + "/catalogs/0.4.duckdb"
			tc.write(t, filepath.Join(v, "ducklake.duckdb"), filepath.Join(st.Root(), key))
			_, err := Resolve(ctx, st, ResolveOptions{Version: ids[0], DuckDB: "1.5.1", Verify: tc.verify})
			var nc *NoCatalogError
			if !errors.As(err, &nc) {
				t.Fatalf("Resolve = %v, want no catalog", err)
			}
			msg, hint := nc.Error(), nc.Hint()
			if !strings.Contains(msg, key) || !strings.Contains(msg, tc.why) {
				t.Errorf("error does not name %s and why (%q):\n%s", key, tc.why, msg)
			}
			if strings.Contains(hint, "has no catalog in it") || !strings.Contains(hint, key) || !strings.Contains(hint, "deletes "+filepath.Join(st.Root(), filepath.FromSlash(key))+" and runs `fdl-formats backfill REPO`") {
				t.Errorf("hint %q: want it to name %s, to be deleted where it is and backfilled", hint, key)
			}
		})
	}
}

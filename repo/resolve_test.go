package repo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// readerLake copies 02_add_drop_columns (3 versions, frozen in 1.0 at
// storage v1.5.0) and declares its formats without an until, so that a
// backfill writes them: 0.3 (DuckDB 1.4), 0.4 (1.5.0-1.5.1), 1.0 (1.5.2+),
// 1.1 (2.0+).
func readerLake(t *testing.T) (*local.Store, []string) {
	t.Helper()
	st := copyLake(t, filepath.Join(testlakes.Dir(t, "lakes"), "02_add_drop_columns"))
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
	wantAttach := fmt.Sprintf("ATTACH 'ducklake:%s' AS add_drop_columns (READ_ONLY, DATA_PATH '%s', OVERRIDE_DATA_PATH true)", res.CatalogURL, res.DataURL)
	if res.Attach != wantAttach {
		t.Errorf("statement\n %s\nwant\n %s", res.Attach, wantAttach)
	}
	if !filepath.IsAbs(res.CatalogURL) || !strings.HasSuffix(res.DataURL, string(filepath.Separator)) {
		t.Errorf("catalog %s, data %s: want absolute local paths", res.CatalogURL, res.DataURL)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
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

	// The frozen catalog's storage comes from version.json.
	vj := filepath.Join(dir, "version.json")
	data, err := os.ReadFile(vj)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(vj)
	writeFile(t, vj, strings.Replace(string(data), `"duckdb-v1.5.0"`, `"duckdb-v1.5.3"`, 1))
	for duckdb, want := range map[string]string{"1.5.2": "", "1.5.3": "ducklake.duckdb"} {
		res, err := Resolve(ctx, st, ResolveOptions{Version: id, DuckDB: duckdb})
		switch {
		case want == "" && !errors.As(err, &nc):
			t.Errorf("DuckDB %s: %v, want no catalog", duckdb, err)
		case want == "" && !strings.Contains(nc.Error(), "ducklake.duckdb (format 1.0, storage v1.5.3): DuckDB >= 1.5.2, >= 1.5.3"):
			t.Errorf("DuckDB %s: %v", duckdb, nc)
		case want != "" && (err != nil || !res.File.Frozen):
			t.Errorf("DuckDB %s: %v, want the frozen catalog", duckdb, err)
		}
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
			if tc.err == nil && (res.DataURL != "https://fdl.example/06_deletes/data/" || !strings.Contains(res.Attach, "AS deletes (READ_ONLY, DATA_PATH 'https://fdl.example/06_deletes/data/'")) {
				t.Errorf("data URL %s, statement %s", res.DataURL, res.Attach)
			}
		})
	}
	if _, err := Resolve(ctx, st, ResolveOptions{DuckDB: "one point five"}); !errors.Is(err, ErrBadFilter) {
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

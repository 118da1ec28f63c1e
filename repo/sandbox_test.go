package repo

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/sandboxtest"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/local"
)

// TestCheckSandbox: the DuckDB databases a run lends its readers and
// conversions (as check, backfill and plan open them) open nothing outside
// the run's folders, write nothing there, and cannot turn their sandbox
// off, while a reader of a version's catalog and data gets one; and a
// check and backfill of the repository still read and write what they
// need. Before the sandbox, each of these statements ran.
func TestCheckSandbox(t *testing.T) {
	ctx := context.Background()
	st, root := deletesLake(t)
	outside, secret := sandboxtest.Outside(t)
	r, err := load(ctx, st, &Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	catalog := filepath.Join(root, "versions", r.versions[0].id, "ducklake.duckdb")
	// A reader of a version's catalog, as check opens one (the
	// conversions' databases: convert's TestConversionSandbox).
	db, _, err := r.engines.GetWithin(duckpool.Reach{Files: []string{catalog}, Dirs: []string{r.dataPath}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.engines.Discard(db)
	if _, err := db.ExecContext(ctx, "ATTACH '"+catalog+"' AS cat (READ_ONLY); DETACH cat"); err != nil {
		t.Errorf("attach a version's catalog: %v", err)
	}
	sandboxtest.Refused(t, "a run's", func(q string) error {
		_, err := db.ExecContext(ctx, q)
		return err
	}, outside, secret, "")
	if _, err := Backfill(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("backfill in the sandbox: %v", err)
	}
	if _, err := Check(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("check in the sandbox: %v", err)
	}
}

// TestRunSpill: a run's DuckDB databases, started by a user inside the
// repository's folder, spill what does not fit in their memory into a
// folder of their own beside the run's work folders (Options.WorkDir),
// not into the repository (DuckDB's default, ".tmp" in the working
// folder, did: a write into a repository that must not change, and one
// that fails on a read-only mount). The spill folder a killed run left
// (another host's, untouched for two days) goes when the next run starts.
func TestRunSpill(t *testing.T) {
	ctx := context.Background()
	st, root := deletesLake(t)
	before := listFiles(t, root)
	work := t.TempDir()
	left := filepath.Join(work, duckpool.SpillPrefix+"0badc0de-1-1")
	if err := os.Mkdir(left, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(left, old, old); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	r, err := load(ctx, st, &Options{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("a killed run's spill folder %s is left (%v)", left, err)
	}
	conn, err := readerSpilling(ctx, t, r)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var where string
	if err := conn.QueryRowContext(ctx, "SELECT count(*), coalesce(min(path), '') FROM duckdb_temporary_files()").Scan(&n, &where); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing spilled")
	}
	if !filepath.IsAbs(where) {
		where = filepath.Join(root, where)
	}
	if dir := filepath.Dir(where); filepath.Dir(dir) != work || !strings.HasPrefix(filepath.Base(dir), duckpool.SpillPrefix) {
		t.Errorf("the run's database spilled to %s, want a folder %s* in the work folder %s", where, duckpool.SpillPrefix, work)
	}
	if after := listFiles(t, root); !slices.Equal(after, before) {
		t.Errorf("the repository's folder changed while its run spilled: %v, was %v", after, before)
	}
}

// TestRunMaxSpill: a run's bound on spilling (Options.MaxSpill, the
// commands' --max-spill) reaches its readers' and its conversions'
// databases: a statement that would spill past it fails, naming DuckDB's
// setting. Each database spilled up to duckpool.MaxSpill whatever the
// run asked.
func TestRunMaxSpill(t *testing.T) {
	ctx := context.Background()
	st, _ := deletesLake(t)
	r, err := load(ctx, st, &Options{WorkDir: t.TempDir(), MaxSpill: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	_, err = readerSpilling(ctx, t, r)
	if err == nil || !strings.Contains(err.Error(), "max_temp_directory_size") {
		t.Errorf("a reader's database spilling past the run's bound: %v, want DuckDB's refusal naming max_temp_directory_size", err)
	}
	if got := r.convEngines.SpillBound(); got != 4<<20 {
		t.Errorf("the run's conversions spill at most %d bytes, want %d", got, 4<<20)
	}
}

// TestGlobFolderSandbox: a repository in a folder whose name holds
// DuckDB's glob characters ("lake*? [v2]") is backfilled and checked in
// the sandbox. The readers and conversions hand DuckDB its data files'
// paths escaped (parquetsql.Path), and DuckDB checks the escaped pattern
// against the sandbox: every read of a data file failed with "Permission
// Error: Cannot access file .../lake[*][?] [[]v2]/...".
func TestGlobFolderSandbox(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	root := filepath.Join(t.TempDir(), "lake*? [v2]")
	copyParts(t, lake, root)
	os.Remove(filepath.Join(root, "fdl.json"))
	writeFile(t, filepath.Join(root, "fdl.json"), `{"fdl":"0.1","data_dir":"data/","formats":[{"ducklake":"0.3"},{"ducklake":"1.0"},{"ducklake":"1.1"}]}`)
	st, err := local.New(root)
	if err != nil {
		t.Fatal(err)
	}
	backfillThenCheck(ctx, t, st, root)
}

// TestBackfillThroughLinks: a backfill of a repository whose data and
// delete files are symbolic links to files outside it (docs/repository.md:
// links are followed, as readers follow them; check warns) converts and
// proves every missing catalog, and check passes. The conversions' sandbox
// held the data folder, not where its links lead, so every conversion
// that read a data file's footer failed ("Permission Error").
func TestBackfillThroughLinks(t *testing.T) {
	ctx := context.Background()
	st, root := deletesLake(t)
	elsewhere := t.TempDir()
	for _, p := range listFiles(t, filepath.Join(root, "data")) {
		if filepath.Ext(p) != ".parquet" {
			continue
		}
		from := filepath.Join(root, "data", filepath.FromSlash(p))
		to := filepath.Join(elsewhere, filepath.Base(p))
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, from); err != nil {
			t.Fatal(err)
		}
	}
	backfillThenCheck(ctx, t, st, root)
}

// backfillThenCheck backfills the repository in root (st) and fails the
// test unless the check after it passes.
func backfillThenCheck(ctx context.Context, t *testing.T, st *local.Store, root string) {
	t.Helper()
	if _, err := Backfill(ctx, st, Options{WorkDir: t.TempDir()}); err != nil {
		t.Fatalf("backfill of the repository in %s: %v", root, err)
	}
	rep, err := Check(ctx, st, Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatalf("check of the repository in %s: %v", root, err)
	}
	if !rep.OK {
		t.Errorf("check of the repository in %s: not ok: %+v", root, rep.Findings)
	}
}

// TestUploadNewReadersFromRunPool: the readers with which a backfill of a
// remote repository lists the data files a converted catalog adds
// (remote.needed, for uploadNew) take their databases from the run's
// pool, so that --max-spill and the run's spill folder hold for them as
// for every other database of the run. They opened databases of their
// own, spilling in $TMPDIR up to duckpool.MaxSpill whatever --max-spill
// said: the pool stayed empty.
func TestUploadNewReadersFromRunPool(t *testing.T) {
	ctx := context.Background()
	_, root := deletesLake(t)
	site, err := httpstore.New(webtest.Serve(t, filepath.Dir(root), webtest.Options{Validators: webtest.ETag})+"/"+filepath.Base(root), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := coldRemote(t)
	opts.MaxSpill = 4 << 20
	r, err := load(ctx, site, &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if r.remote == nil {
		t.Fatal("a web site's repository has no remote")
	}
	var catalog string
	for _, p := range listFiles(t, filepath.Join(root, "versions")) {
		if strings.HasSuffix(p, ".duckdb") {
			catalog = filepath.Join(root, "versions", filepath.FromSlash(p))
			break
		}
	}
	if catalog == "" {
		t.Fatal("no catalog in the lake")
	}
	idle := r.engines.Idle()
	if _, err := r.remote.needed(ctx, catalog); err != nil {
		t.Fatal(err)
	}
	if got := r.engines.Idle(); got != idle+1 {
		t.Errorf("the run's readers' pool holds %d idle databases after needed, want %d: its reader's database was not the run's", got, idle+1)
	}
}

// readerSpilling takes a database for the run's readers and makes it
// spill (a 32 MB memory limit, 2 M rows), returning its connection (open
// until the test ends) and what the spilling statement said.
func readerSpilling(ctx context.Context, t *testing.T, r *repository) (*sql.Conn, error) {
	t.Helper()
	db, _, err := r.engines.GetWithin(duckpool.Reach{Dirs: []string{r.dataPath}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.engines.Discard(db) })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_, err = conn.ExecContext(ctx, "SET memory_limit = '32MB'; SET threads = 1; CREATE TEMP TABLE big AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(2000000)")
	return conn, err
}

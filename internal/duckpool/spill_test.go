package duckpool

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxSpillShown is MaxSpill as DuckDB shows it.
const maxSpillShown = "8.0 GiB"

// TestSpill: sandboxed databases that spill (a temporary table larger than
// a small memory_limit) write their spill files into a folder of their
// own in the pool's spill folder (SpillIn), bounded by MaxSpill, never
// into the working folder: before, DuckDB spilled into ".tmp" in the
// working folder (a repository's folder when the tool runs in it), and
// two databases spilling at once wrote the same files there (DuckDB names
// them after their block size only), which read back another database's
// blocks or crashed the process. Each spill folder goes when its
// database closes.
func TestSpill(t *testing.T) {
	repo, spill := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "fdl.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo) // the tool run inside the repository
	p := New(2)
	p.Within(repo)
	p.SpillIn(spill)
	ctx := context.Background()
	type user struct {
		db   *sql.DB
		conn *sql.Conn
	}
	var users []user
	folders := map[string]bool{}
	for i := range 2 {
		db, _, err := p.GetWithin(Reach{Dirs: []string{repo}})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, user{db, conn})
		folders[spillOwnRows(ctx, t, conn, i, repo, spill)] = true
	}
	if len(folders) != 2 {
		t.Errorf("two databases spilled into %d folders, want one each: %v", len(folders), folders)
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the repository's folder holds %v, want fdl.json alone", names)
	}
	for i, u := range users {
		readBackOwnRows(ctx, t, u.conn, i)
	}
	for _, u := range users {
		u.conn.Close()
		if err := p.Put(u.db); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for dir := range folders {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("spill folder %s left after its database closed (%v)", dir, err)
		}
	}
}

// spillFiles are the paths of the files conn's database spilled to.
func spillFiles(t *testing.T, conn *sql.Conn) []string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), "SELECT path FROM duckdb_temporary_files()")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var paths []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestSpillOpen: databases opened without a sandbox, by Open (lakegen,
// resolve's version query, the tests' row and block helpers) and by a
// pool's Get (a conversion's without a reach), spill as sandboxed ones do:
// each into a folder of its own, Open's in os.TempDir() and Get's in the
// pool's spill folder (SpillIn), bounded by MaxSpill. Before, they
// spilled into ".tmp" in the working folder (the repository's, when the
// tool ran in it), both into the same files, with 90% of the disk's free
// space allowed.
func TestSpillOpen(t *testing.T) {
	repo, tmp, spill := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Chdir(repo)
	ctx := context.Background()
	p := New(2)
	defer p.Close()
	p.SpillIn(spill)
	plain, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	got, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard(got)
	folders := map[string]bool{}
	var conns []*sql.Conn
	for i, u := range []struct {
		db    *sql.DB
		where string
	}{{plain, tmp}, {got, spill}} {
		conn, err := u.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conns = append(conns, conn)
		folders[spillOwnRows(ctx, t, conn, i, repo, u.where)] = true
	}
	if len(folders) != 2 {
		t.Errorf("two databases spilled into %d folders, want one each: %v", len(folders), folders)
	}
	if entries, err := os.ReadDir(repo); err != nil {
		t.Fatal(err)
	} else if len(entries) != 0 {
		t.Errorf("the working folder holds %v, want nothing", entries)
	}
	for i, conn := range conns {
		readBackOwnRows(ctx, t, conn, i)
		conn.Close()
	}
	plain.Close()
	p.Discard(got)
	for dir := range folders {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("spill folder %s left after its database closed (%v)", dir, err)
		}
	}
}

// TestOpensThroughOpen: the module's code opens DuckDB databases through
// this package only (Open, OpenWithin, a Pool), so that each spills in a
// folder of its own, bounded by MaxSpill: a database opened with
// sql.Open("duckdb", ...) spills into ".tmp" in the working folder. Tests
// and the helpers only tests use (below) may open their own; so may the
// benchmarks, which time DuckDB as it comes.
func TestOpensThroughOpen(t *testing.T) {
	allowed := map[string]bool{
		"internal/duckpool/duckpool.go":                   true, // Open itself
		"internal/testduck/testduck.go":                   true, // tests' databases
		"internal/testlakes/testlakes.go":                 true, // tests' lakes
		"internal/parquetfooter/footertest/footertest.go": true, // tests' Parquet files
		"scripts/benchproof/main.go":                      true, // DuckDB alone, timed
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || (strings.HasPrefix(name, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if allowed[filepath.ToSlash(rel)] {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, call := range []string{`sql.Open("duckdb"`, "duckdb.NewConnector("} {
			if strings.Contains(string(src), call) {
				t.Errorf("%s opens DuckDB with %s: open it with duckpool.Open (or OpenWithin)", rel, call)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSpillAtMost: a pool's spill bound (SpillAtMost, the commands'
// --max-spill) reaches its databases, sandboxed or not, unless a reach
// names its own; a statement that would spill past it fails, naming the
// setting.
func TestSpillAtMost(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := New(2)
	defer p.Close()
	p.SpillIn(dir)
	p.SpillAtMost(4 << 20)
	own, _, err := p.GetWithin(Reach{Dirs: []string{dir}, MaxSpill: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard(own)
	for _, u := range []struct {
		name string
		get  func() (*sql.DB, error)
		want string
	}{
		{"Get", p.Get, "4.0 MiB"},
		{"GetWithin", func() (*sql.DB, error) { db, _, err := p.GetWithin(Reach{Dirs: []string{dir}}); return db, err }, "4.0 MiB"},
		{"GetWithin, a reach's own bound", func() (*sql.DB, error) { return own, nil }, "64.0 MiB"},
	} {
		db, err := u.get()
		if err != nil {
			t.Fatal(err)
		}
		var limit string
		if err := db.QueryRowContext(ctx, "SELECT current_setting('max_temp_directory_size')").Scan(&limit); err != nil {
			t.Fatal(err)
		}
		if limit != u.want {
			t.Errorf("%s: max_temp_directory_size %s, want %s", u.name, limit, u.want)
		}
		if u.want != "4.0 MiB" {
			continue
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.ExecContext(ctx, "SET memory_limit = '32MB'; SET threads = 1; CREATE TEMP TABLE big AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(2000000)")
		conn.Close()
		if err == nil || !strings.Contains(err.Error(), "max_temp_directory_size") {
			t.Errorf("%s: spilling past the bound: %v, want DuckDB's refusal naming max_temp_directory_size", u.name, err)
		}
		p.Discard(db)
	}
}

// spillOwnRows checks that database i's bound is MaxSpill, makes it spill
// rows of its own (they differ from every other database's: a block read
// back from another's spill file would show, readBackOwnRows), and
// returns the folder it spilled into, which must be a folder SpillPrefix*
// in where (a relative spill path is taken from the working folder wd).
func spillOwnRows(ctx context.Context, t *testing.T, conn *sql.Conn, i int, wd, where string) string {
	t.Helper()
	var limit string
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('max_temp_directory_size')").Scan(&limit); err != nil {
		t.Fatal(err)
	}
	if limit != maxSpillShown {
		t.Errorf("database %d: max_temp_directory_size %s, want %s (MaxSpill)", i, limit, maxSpillShown)
	}
	q := "SET memory_limit = '32MB'; SET threads = 1; CREATE TEMP TABLE big AS SELECT range AS i, md5((range + " + strconv.Itoa(i) + ")::VARCHAR) AS s FROM range(2000000)"
	if _, err := conn.ExecContext(ctx, q); err != nil {
		t.Fatalf("database %d: %v", i, err)
	}
	paths := spillFiles(t, conn)
	if len(paths) == 0 {
		t.Fatalf("database %d spilled nothing", i)
	}
	var folder string
	for _, path := range paths {
		if !filepath.IsAbs(path) {
			path = filepath.Join(wd, path)
		}
		dir := filepath.Dir(path)
		if filepath.Dir(dir) != where || !strings.HasPrefix(filepath.Base(dir), SpillPrefix) || folder != "" && dir != folder {
			t.Fatalf("database %d spilled to %s, want one folder %s* in %s", i, path, SpillPrefix, where)
		}
		folder = dir
	}
	return folder
}

// readBackOwnRows checks that database i reads back the rows spillOwnRows
// made it spill.
func readBackOwnRows(ctx context.Context, t *testing.T, conn *sql.Conn, i int) {
	t.Helper()
	var bad int64
	q := "SELECT count(*) FROM big WHERE s <> md5((i + " + strconv.Itoa(i) + ")::VARCHAR)"
	if err := conn.QueryRowContext(ctx, q).Scan(&bad); err != nil {
		t.Fatalf("database %d: read back its spilled rows: %v", i, err)
	}
	if bad != 0 {
		t.Errorf("database %d read back %d rows that are not its own", i, bad)
	}
}

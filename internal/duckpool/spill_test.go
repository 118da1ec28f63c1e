package duckpool

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
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
		var limit string
		if err := conn.QueryRowContext(ctx, "SELECT current_setting('max_temp_directory_size')").Scan(&limit); err != nil {
			t.Fatal(err)
		}
		if limit != maxSpillShown {
			t.Errorf("database %d: max_temp_directory_size %s, want %s (MaxSpill)", i, limit, maxSpillShown)
		}
		// Database i's rows differ from the other's: a block read back
		// from the other's spill file would show.
		q := "SET memory_limit = '32MB'; SET threads = 1; CREATE TEMP TABLE big AS SELECT range AS i, md5((range + " + string(rune('0'+i)) + ")::VARCHAR) AS s FROM range(2000000)"
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("database %d: %v", i, err)
		}
		paths := spillFiles(t, conn)
		if len(paths) == 0 {
			t.Fatalf("database %d spilled nothing", i)
		}
		for _, path := range paths {
			if !filepath.IsAbs(path) {
				path = filepath.Join(repo, path)
			}
			dir := filepath.Dir(path)
			if filepath.Dir(dir) != spill || !strings.HasPrefix(filepath.Base(dir), SpillPrefix) {
				t.Fatalf("database %d spilled to %s, want a folder %s* in %s", i, path, SpillPrefix, spill)
			}
			folders[dir] = true
		}
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
		var bad int64
		q := "SELECT count(*) FROM big WHERE s <> md5((i + " + string(rune('0'+i)) + ")::VARCHAR)"
		if err := u.conn.QueryRowContext(ctx, q).Scan(&bad); err != nil {
			t.Fatalf("database %d: read back its spilled rows: %v", i, err)
		}
		if bad != 0 {
			t.Errorf("database %d read back %d rows that are not its own", i, bad)
		}
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

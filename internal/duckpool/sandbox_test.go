package duckpool

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// TestSandbox: a database opened within a reach reads and writes what the
// reach names (a folder, a file by an absolute or a relative path) and
// nothing else, and no statement widens it again.
func TestSandbox(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "one.csv")
	outside := filepath.Join(dir, "secret.txt")
	for _, f := range []string{file, outside, filepath.Join(in, "a.csv")} {
		if err := os.WriteFile(f, []byte("x\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	db, loads, err := OpenWithin(Reach{Dirs: []string{in}, Files: []string{"one.csv"}, Load: []string{"parquet"}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err, ok := loads["parquet"]; !ok || err != nil {
		t.Fatalf("LOAD parquet: %v (%v)", err, ok)
	}
	for _, q := range []string{
		"SELECT count(*) FROM read_csv('" + filepath.Join(in, "a.csv") + "')",
		"SELECT count(*) FROM read_csv('" + file + "')",
		"SELECT count(*) FROM read_csv('one.csv')",
		"COPY (SELECT 1 AS x) TO '" + filepath.Join(in, "out.parquet") + "'",
		"SET threads = 1",
		"RESET threads",
		// The ducklake extension's ATTACH lists the secrets: with
		// persistent secrets on, that reads ~/.duckdb/stored_secrets,
		// which the sandbox refuses.
		"FROM duckdb_secrets()",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	for _, q := range []string{
		"SELECT * FROM read_text('/etc/hostname')",
		"SELECT * FROM read_text('" + outside + "')",
		"SELECT * FROM read_text('secret.txt')",
		"SELECT * FROM read_text('" + in + "/../secret.txt')",
		"COPY (SELECT 1 AS x) TO '" + filepath.Join(dir, "marker.csv") + "'",
		"ATTACH '" + filepath.Join(dir, "new.duckdb") + "' AS n",
		"SET enable_external_access = true",
		"RESET enable_external_access",
		"SET allowed_directories = ['/']",
		"SET allowed_paths = ['" + outside + "']",
		"SET temp_directory = '" + dir + "'",
		"INSTALL httpfs",
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("%s: ran in the sandbox", q)
		} else if !strings.Contains(err.Error(), "Permission Error") && !strings.Contains(err.Error(), "enable_external_access is disabled") && !strings.Contains(err.Error(), "Cannot enable external access") {
			t.Errorf("%s: %v, want DuckDB's refusal", q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "marker.csv")); err == nil {
		t.Error("COPY TO wrote outside the reach")
	}
}

// TestPoolReach: a pool hands out a database again only to a user of the
// same reach; within an outer reach (Within), users whose reaches it
// covers share its databases.
func TestPoolReach(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	p := New(2)
	defer p.Close()
	db, _, err := p.GetWithin(Reach{Dirs: []string{a}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Put(db); err != nil {
		t.Fatal(err)
	}
	other, _, err := p.GetWithin(Reach{Dirs: []string{b}})
	if err != nil {
		t.Fatal(err)
	}
	if other == db {
		t.Fatal("a database of reach a was handed out for reach b")
	}
	p.Put(other)
	again, _, err := p.GetWithin(Reach{Dirs: []string{a + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	if again != db {
		t.Fatal("the idle database of reach a was not handed out again for it")
	}
	p.Put(again)
	if plain, err := p.Get(); err != nil {
		t.Fatal(err)
	} else if plain == db || plain == other {
		t.Fatal("a sandboxed database was handed out as an unbounded one")
	} else {
		plain.Close()
	}
	p.Within(dir)
	x, _, err := p.GetWithin(Reach{Dirs: []string{a}, Files: []string{filepath.Join(b, "f")}})
	if err != nil {
		t.Fatal(err)
	}
	p.Put(x)
	y, _, err := p.GetWithin(Reach{Dirs: []string{b}})
	if err != nil {
		t.Fatal(err)
	}
	if y != x {
		t.Fatal("two users within the outer reach did not share its database")
	}
	if _, err := y.Exec("SELECT * FROM read_text('/etc/hostname')"); err == nil {
		t.Fatal("the outer reach's database read /etc/hostname")
	}
	p.Put(y)
}

// TestSandboxGlobFolder: a folder whose path holds DuckDB's glob
// characters (a repository in "lake [v2]") is read within its reach, by a
// folder and by a file, as compare and convert read data files: the path
// escaped (parquetsql.Path). DuckDB checks the escaped pattern against
// the reach before it globs, and refused it ("Permission Error: Cannot
// access file .../lake [[]v2]/..."). Its sibling stays out of reach.
func TestSandboxGlobFolder(t *testing.T) {
	root := t.TempDir()
	var files []string
	for _, d := range []string{"data", "secret"} {
		dir := filepath.Join(root, "lake*? [v2]", d)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, "a.parquet"))
	}
	plain, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for _, f := range files {
		if _, err := plain.Exec("COPY (SELECT 1 AS x) TO " + sqlString(f) + " (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
	}
	data, secret := files[0], files[1]
	for _, reach := range []Reach{{Dirs: []string{filepath.Dir(data)}}, {Files: []string{data}}} {
		db, _, err := OpenWithin(reach)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(" + parquetsql.Path(data) + ")").Scan(&n); err != nil || n != 1 {
			t.Errorf("reach %v: read %s: %d rows, %v", reach, data, n, err)
		}
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(" + parquetsql.Path(secret) + ")").Scan(&n); err == nil {
			t.Errorf("reach %v: read %s, out of reach", reach, secret)
		}
		db.Close()
	}
}

// TestSandboxGlobFile: a file whose name holds DuckDB's glob characters,
// added to a reach alone (AddFiles, as a reader adds a data file its
// catalog names outside the data folder), is read by its escaped pattern
// (parquetsql.Path), and a sibling in its folder stays out of reach.
// AddFiles added the whole folder for such a name, and the sibling was
// read.
func TestSandboxGlobFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	plain, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	sibling := filepath.Join(dir, "secret.parquet")
	names := []string{"a[1]*.parquet", "b?.parquet", "c{x,y}.parquet", "d[!a].parquet"}
	for _, f := range append(slices.Clone(names), "secret.parquet") {
		if _, err := plain.Exec("COPY (SELECT 1 AS x) TO " + sqlString(filepath.Join(dir, f)) + " (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range names {
		file := filepath.Join(dir, name)
		var reach Reach
		reach.AddFiles(file)
		db, _, err := OpenWithin(reach)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(" + parquetsql.Path(file) + ")").Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: read it: %d rows, %v", name, n, err)
		}
		if err := db.QueryRow("SELECT count(*) FROM read_parquet(" + parquetsql.Path(sibling) + ")").Scan(&n); err == nil {
			t.Errorf("%s: its sibling %s was read, out of reach", name, sibling)
		}
		db.Close()
	}
}

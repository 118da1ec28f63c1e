package duckpool

import (
	"database/sql"
	"testing"
)

func setting(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("SELECT current_setting('" + name + "')::VARCHAR").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestIdleWithoutWorkers: an idle database runs one thread (its worker
// threads stopped, their memory given back) and is handed out again with
// DuckDB's default threads, the same database; a full or closed pool
// closes what it gets back.
func TestIdleWithoutWorkers(t *testing.T) {
	fresh, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	want := setting(t, fresh, "threads")

	p := New(1)
	db, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	if got := setting(t, db, "threads"); got != want {
		t.Fatalf("new database: threads %s, want %s", got, want)
	}
	extra, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		put  *sql.DB
		idle int
	}{{"first back", db, 1}, {"pool full", extra, 1}} {
		if err := p.Put(step.put); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if p.Idle() != step.idle {
			t.Fatalf("%s: %d idle, want %d", step.name, p.Idle(), step.idle)
		}
	}
	if got := setting(t, db, "threads"); got != "1" {
		t.Errorf("idle database: threads %s, want 1", got)
	}
	if err := extra.Ping(); err == nil {
		t.Error("the database a full pool got back is still open")
	}
	again, err := p.Get()
	if err != nil {
		t.Fatal(err)
	}
	if again != db {
		t.Fatal("the idle database was not handed out again")
	}
	if got := setting(t, again, "threads"); got != want {
		t.Errorf("database handed out again: threads %s, want %s", got, want)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Put(again); err != nil || p.Idle() != 0 {
		t.Fatalf("closed pool: put %v, %d idle", err, p.Idle())
	}
	if err := again.Ping(); err == nil {
		t.Error("the database a closed pool got back is still open")
	}
}

// TestOpenConfig: every database starts with extension autoloading and
// autoinstalling off and DuckDB's external file cache off, and keeps them
// when reused.
func TestOpenConfig(t *testing.T) {
	p := New(1)
	defer p.Close()
	for round := 0; round < 2; round++ {
		db, err := p.Get()
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"autoinstall_known_extensions", "autoload_known_extensions", "enable_external_file_cache"} {
			var v string
			if err := db.QueryRow("SELECT current_setting('" + name + "')::VARCHAR").Scan(&v); err != nil {
				t.Fatal(err)
			}
			if v != "false" {
				t.Errorf("round %d: %s = %s", round, name, v)
			}
		}
		if err := p.Put(db); err != nil {
			t.Fatal(err)
		}
	}
	var nilPool *Pool
	if nilPool.Idle() != 0 || nilPool.Close() != nil {
		t.Error("a nil pool")
	}
}

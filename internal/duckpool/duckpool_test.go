package duckpool

import (
	"context"
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
// threads stopped, their memory given back) and is handed out again as it
// is, the same database (its user sets the threads it needs); a full or
// closed pool closes what it gets back.
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
	if got := setting(t, again, "threads"); got != "1" {
		t.Errorf("database handed out again: threads %s, want 1 (as it idled)", got)
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

// TestRetiredAfterMaxUses: a database serves MaxUses users, whatever the
// pool's size, then Put closes it and keeps a new one in its place (the
// pool stays as full as before); the pool forgets the closed one's count.
func TestRetiredAfterMaxUses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxIdle int
		users   int // users in turn, each getting and putting back one database
	}{
		{"one idle", 1, 2*MaxUses + 1},
		{"several idle", 4, MaxUses + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(tc.maxIdle)
			defer p.Close()
			served := map[*sql.DB]int{}
			var order []*sql.DB
			for i := 0; i < tc.users; i++ {
				db, err := p.Get()
				if err != nil {
					t.Fatal(err)
				}
				if served[db] == 0 {
					order = append(order, db)
				}
				served[db]++
				if err := p.Put(db); err != nil {
					t.Fatalf("user %d: %v", i, err)
				}
				if p.Idle() != 1 {
					t.Fatalf("user %d: %d idle databases after Put, want 1", i, p.Idle())
				}
			}
			want := (tc.users + MaxUses - 1) / MaxUses
			if len(order) != want {
				t.Fatalf("%d users were served by %d databases, want %d", tc.users, len(order), want)
			}
			for i, db := range order {
				retired := served[db] == MaxUses
				if !retired && i != len(order)-1 {
					t.Errorf("database %d served %d users, want %d", i, served[db], MaxUses)
				}
				if err := db.Ping(); (err != nil) != retired {
					t.Errorf("database %d, %d users: ping %v, want closed %v", i, served[db], err, retired)
				}
			}
			if tc.users%MaxUses == 0 {
				return
			}
			again, err := p.Get()
			if err != nil {
				t.Fatal(err)
			}
			if again != order[len(order)-1] {
				t.Error("the idle database was not handed out again")
			}
			p.mu.Lock()
			counted := len(p.uses)
			p.mu.Unlock()
			if counted != 1 {
				t.Errorf("the pool counts the uses of %d databases, want 1 (the one in use)", counted)
			}
			p.Put(again) //nolint:errcheck // test cleanup
		})
	}
}

// TestAllThreadsAfterPanic: AllThreads puts the connection back on one
// thread even when fn panics (a caller may recover and go on using it).
func TestAllThreadsAfterPanic(t *testing.T) {
	ctx := context.Background()
	conn := openConn(t)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, OneThread); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("fn's panic did not reach the caller")
			}
		}()
		_ = AllThreads(ctx, conn, func() error { panic("boom") })
	}()
	var threads string
	if err := conn.QueryRowContext(ctx, "SELECT current_setting('threads')::VARCHAR").Scan(&threads); err != nil {
		t.Fatal(err)
	}
	if threads != "1" {
		t.Errorf("threads after a panic in fn: %s, want 1", threads)
	}
}

// TestDiscardForgets: a database its user closes instead of giving back
// (Discard) leaves no count in the pool, reused or new, and is closed.
func TestDiscardForgets(t *testing.T) {
	p := New(1)
	defer p.Close()
	for i := range 5 {
		db, err := p.Get()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Put(db); err != nil {
			t.Fatal(err)
		}
		if db, err = p.Get(); err != nil {
			t.Fatal(err)
		}
		if err := p.Discard(db); err != nil {
			t.Fatal(err)
		}
		if err := db.Ping(); err == nil {
			t.Fatalf("round %d: a discarded database is still open", i)
		}
	}
	p.mu.Lock()
	n := len(p.uses)
	p.mu.Unlock()
	if n != 0 {
		t.Errorf("the pool counts %d databases its users discarded, want 0", n)
	}
	var nilPool *Pool
	db, err := nilPool.Get()
	if err != nil {
		t.Fatal(err)
	}
	if err := nilPool.Discard(db); err != nil || db.Ping() == nil {
		t.Errorf("no pool: Discard = %v, database still open: %v", err, db.Ping() == nil)
	}
}

// TestRelease: a connection whose user detached what it attached (and
// made only temporary tables) leaves its database as a new one; anything
// else left (a table in the default database, another attached database)
// makes Release say so. The connection is closed either way.
func TestRelease(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		stmts    []string
		attached []string
		clean    bool
	}{
		{"nothing done", nil, nil, true},
		{"attached and named", []string{"ATTACH ':memory:' AS w", "USE w", "CREATE TABLE t (a INT)"}, []string{"w"}, true},
		{"temporary table", []string{"CREATE TEMP TABLE tmp AS SELECT 1 AS a"}, nil, true},
		{"table left in the default database", []string{"CREATE TABLE memory.main.t (a INT)"}, nil, false},
		{"attached, not named", []string{"ATTACH ':memory:' AS other"}, nil, false},
		{"view left", []string{"CREATE VIEW memory.main.v AS SELECT 1"}, nil, false},
		{"sequence left", []string{"CREATE SEQUENCE memory.main.s"}, nil, false},
		{"everything left", []string{"ATTACH ':memory:' AS other", "CREATE TABLE memory.main.t (a INT)", "CREATE VIEW memory.main.v AS SELECT 1", "CREATE SEQUENCE memory.main.s"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := openConn(t)
			for _, q := range tc.stmts {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if got := Release(conn, tc.attached...); got != tc.clean {
				t.Errorf("Release = %v, want %v", got, tc.clean)
			}
			if err := conn.PingContext(ctx); err == nil {
				t.Error("the connection is still open")
			}
		})
	}
}

// openConn opens a connection on a new database, closed with the test.
func openConn(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

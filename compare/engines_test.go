package compare

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// engineState lists what a pooled database holds besides its own: attached
// databases and temporary tables, seen from a new connection.
func engineState(t *testing.T, db *sql.DB) (attached, temp int) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	q := `SELECT (SELECT count(*) FROM duckdb_databases() WHERE NOT internal AND database_name <> 'memory'),
		(SELECT count(*) FROM duckdb_tables() WHERE temporary)`
	if err := conn.QueryRowContext(ctx, q).Scan(&attached, &temp); err != nil {
		t.Fatal(err)
	}
	return attached, temp
}

// TestEnginesReusedClean reads lakes of different formats one after the
// other through one pooled DuckDB database: each reader gets the database
// the previous one closed, with nothing of it left (no attached catalog, no
// staged delete positions), and reads DuckLake's rows at every snapshot.
func TestEnginesReusedClean(t *testing.T) {
	engines := NewEngines(1)
	engines.Within(fixtureDirs...) // its checks write their rows beside the lake
	defer engines.Close()
	var last *sql.DB
	for _, tc := range []struct {
		archive, lake string
		maxInline     int // stage delete lists longer than this in temp tables
	}{
		{"lakes", "06_deletes", 10},
		{"lakes", "24_deletion_vectors", 10},
		{"lakes-0.3", "17_compaction", 10000},
		{"lakes", "06_deletes", 10000},
	} {
		lake := testlakes.Lake(t, tc.archive, tc.lake)
		m := readManifest(t, lake)
		for _, v := range m.Versions {
			r, err := Open(context.Background(), filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: engines})
			if err != nil {
				t.Fatal(err)
			}
			if last != nil && r.db != last {
				t.Errorf("%s/%s version %s: a new DuckDB database, not the one the last reader closed", tc.archive, tc.lake, v.ID)
			}
			r.maxInlinePositions = tc.maxInline
			checkVersion(t, r, lake, v.ID, v.Snapshots)
			staged := len(r.tempTables)
			last = r.db
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if engines.Idle() != 1 {
				t.Fatalf("%s/%s: %d idle databases after Close, want 1", tc.archive, tc.lake, engines.Idle())
			}
			if attached, temp := engineState(t, last); attached != 0 || temp != 0 {
				t.Errorf("%s/%s version %s (%d position sets staged): the closed reader left %d attached databases and %d temporary tables", tc.archive, tc.lake, v.ID, staged, attached, temp)
			}
		}
	}
}

// TestEnginesProofs proves catalogs with pooled databases: an equivalent
// pair, then a planted difference, then the pair again; each proof reads
// its own catalogs whatever the databases held before.
func TestEnginesProofs(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	other := filepath.Join(t.TempDir(), "copy.duckdb")
	copyFile(t, catalog, other)
	changed := tamper(t, catalog, "UPDATE ducklake_data_file SET record_count = record_count + 1 WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)")
	engines := NewEngines(2)
	defer engines.Close()
	for i, tc := range []struct {
		b    string
		want bool
	}{{other, true}, {changed, false}, {other, true}} {
		rep, err := Catalogs(context.Background(), catalog, tc.b, Options{DataPath: data, Engines: engines})
		if rep == nil || rep.Equivalent != tc.want || (err == nil) != tc.want {
			t.Fatalf("proof %d: equivalent %v, want %v (error %v)", i, rep != nil && rep.Equivalent, tc.want, err)
		}
		if engines.Idle() != 2 {
			t.Fatalf("proof %d: %d idle databases, want 2", i, engines.Idle())
		}
	}
}

// TestReaderClosedTwice: closing a reader again does nothing, even when its
// database already serves another reader.
func TestReaderClosedTwice(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	ctx := context.Background()
	engines := NewEngines(1)
	defer engines.Close()
	opts := ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: engines}
	r1, err := Open(ctx, catalog, opts)
	if err != nil {
		t.Fatal(err)
	}
	db := r1.db
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}
	r2, err := Open(ctx, catalog, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if r2.db != db {
		t.Fatal("the pool did not hand the database back out")
	}
	if err := r1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r2.db.PingContext(ctx); err != nil {
		t.Fatalf("the second reader's database after the first reader closed again: %v", err)
	}
}

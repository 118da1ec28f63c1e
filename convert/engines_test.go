package convert

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

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestEnginesReused converts catalogs of several formats to every release
// through one pooled DuckDB database and through a database of their own:
// each conversion gets the database the last one gave back (refused ones
// too) and writes the same catalog as one with a database of its own.
func TestEnginesReused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	engines := NewEngines(1)
	defer engines.Close()
	for _, tc := range []struct{ archive, lake string }{
		{"lakes", "06_deletes"}, {"lakes-0.3", "17_compaction"}, {"lakes-1.1-dev1", "16_data_inlining"},
	} {
		lake := testlakes.Lake(t, tc.archive, tc.lake)
		vs := versionCatalogs(t, lake)
		src := vs[len(vs)-1]
		tmp := t.TempDir()
		for _, target := range formats.All.Releases() {
			opts := Options{DataPath: filepath.Join(lake, "data"), AllowInlined: true}
			own := filepath.Join(tmp, "own-"+target.Name+".duckdb")
			_, errOwn := Catalog(ctx, src, own, target, opts)
			opts.Engines = engines
			pooled := filepath.Join(tmp, "pooled-"+target.Name+".duckdb")
			_, err := Catalog(ctx, src, pooled, target, opts)
			name := tc.archive + "/" + tc.lake + " -> " + target.Name
			if (err == nil) != (errOwn == nil) || (err != nil && errors.Is(err, ErrRefused) != errors.Is(errOwn, ErrRefused)) {
				t.Fatalf("%s: pooled %v, own database %v", name, err, errOwn)
			}
			if engines.Idle() != 1 {
				t.Fatalf("%s: %d idle databases after the conversion, want 1", name, engines.Idle())
			}
			if err != nil {
				continue
			}
			if diffs := diffDumps(dump(t, own), dump(t, pooled)); len(diffs) > 0 {
				t.Errorf("%s: the pooled conversion wrote another catalog:\n%s", name, strings.Join(diffs, "\n"))
			}
		}
	}
}

// TestLeftClean checks what a conversion's database must not keep to be
// reused: anything attached, any table, view or sequence.
func TestLeftClean(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		stmts []string
		clean bool
	}{
		{"nothing made", nil, true},
		{"working tables", []string{"CREATE TABLE t (x INTEGER)", "CREATE VIEW v AS SELECT 1"}, true},
		{"table in the default database", []string{"CREATE TABLE memory.main.t (x INTEGER)"}, false},
		{"view in the default database", []string{"CREATE VIEW memory.main.v AS SELECT 1"}, false},
		{"sequence in the default database", []string{"CREATE SEQUENCE memory.main.s"}, false},
		{"another database attached", []string{"ATTACH ':memory:' AS other"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			engines := NewEngines(1)
			defer engines.Close()
			conn, release, err := openWork(ctx, engines, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range tc.stmts {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			release()
			if got := engines.Idle() == 1; got != tc.clean {
				t.Errorf("database reused: %v, want %v", got, tc.clean)
			}
		})
	}
}

// TestMetadataSchemaThroughEngines converts a catalog kept in a metadata
// schema other than main (DuckLake's METADATA_SCHEMA) through Engines, twice
// (the second with the source's listing kept from the first), and with a
// database of its own: all three write the same tables,
// constraints and rows in that schema, and nothing in main.
func TestMetadataSchemaThroughEngines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	dir := t.TempDir()
	src := filepath.Join(dir, "schema.duckdb")
	const schema = `my "lake".meta`
	stmts := []string{"CREATE SCHEMA " + quote(schema), "ATTACH " + literal(vs[len(vs)-1]) + " AS orig (READ_ONLY)"}
	for _, tab := range query(t, vs[len(vs)-1], `SELECT table_name FROM duckdb_tables() WHERE database_name = 'c' ORDER BY 1`) {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s.%s AS SELECT * FROM orig.main.%s", quote(schema), quote(tab[0]), quote(tab[0])))
	}
	execOn(t, src, append(stmts, "DETACH orig")...)
	engines := NewEngines(1)
	defer engines.Close()
	content := func(t *testing.T, path string) [][]string {
		out := query(t, path, `SELECT schema_name, table_name, sql FROM duckdb_tables() WHERE database_name = 'c' UNION ALL
			SELECT schema_name, table_name || ' ' || constraint_type, constraint_text FROM duckdb_constraints() WHERE database_name = 'c' ORDER BY ALL`)
		for _, tab := range query(t, path, `SELECT table_name FROM duckdb_tables() WHERE database_name = 'c' ORDER BY 1`) {
			rows := query(t, path, fmt.Sprintf("SELECT t::VARCHAR FROM c.%s.%s t ORDER BY 1", quote(schema), quote(tab[0])))
			for _, r := range rows {
				out = append(out, append([]string{tab[0]}, r...))
			}
		}
		return out
	}
	for _, target := range []*formats.Version{formats.V0_4, formats.All.Releases()[len(formats.All.Releases())-1]} {
		var want [][]string
		for i, e := range []*Engines{nil, engines, engines} {
			out := filepath.Join(dir, fmt.Sprintf("%s-%d.duckdb", target.Name, i))
			if _, err := Catalog(ctx, src, out, target, Options{Engines: e}); err != nil {
				t.Fatalf("%s, write %d: %v", target.Name, i, err)
			}
			got := content(t, out)
			for _, r := range got {
				if r[0] != schema && len(r) == 3 {
					t.Fatalf("%s, write %d: %v outside schema %s", target.Name, i, r, schema)
				}
			}
			if i == 0 {
				want = got
				continue
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("%s, write %d through Engines:\n%v\nwant (own database)\n%v", target.Name, i, got, want)
			}
		}
	}
}

// TestEnginesKeepSourceOfSameFile checks that Engines reuse what a
// conversion read of a source file only for that same file: a catalog
// replaced at the same path (another file, of another format) is read
// again, and a second conversion of an unchanged file reuses it.
func TestEnginesKeepSourceOfSameFile(t *testing.T) {
	ctx := context.Background()
	v03 := versionCatalogs(t, testlakes.Lake(t, "lakes-0.3", "06_deletes"))
	v10 := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	dir := t.TempDir()
	src := filepath.Join(dir, "src.duckdb")
	engines := NewEngines(1)
	defer engines.Close()
	for i, tc := range []struct {
		from     string // copied to src ("" keeps the file)
		wantFrom string
		kept     bool // what the conversion reads was kept before it
	}{
		{v10[len(v10)-1], "1.0", false},
		{"", "1.0", true},
		{v03[len(v03)-1], "0.3", false},
		{"", "0.3", true},
	} {
		if tc.from != "" {
			tmp := filepath.Join(dir, "next.duckdb")
			copyFile(t, tc.from, tmp)
			if err := os.Rename(tmp, src); err != nil {
				t.Fatal(err)
			}
		}
		st, err := os.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, kept := engines.source(src, st); kept != tc.kept {
			t.Errorf("conversion %d: source kept = %v, want %v", i, kept, tc.kept)
		}
		res, err := Catalog(ctx, src, filepath.Join(dir, fmt.Sprintf("out-%d.duckdb", i)), formats.V0_4, Options{Engines: engines})
		if err != nil {
			t.Fatalf("conversion %d: %v", i, err)
		}
		if res.From != tc.wantFrom {
			t.Errorf("conversion %d: converted from %s, want %s", i, res.From, tc.wantFrom)
		}
	}
}

// TestEnginesReusedAfterCorruptSource converts copies of a catalog with one
// block's bytes damaged through one pooled database: every copy fails
// (ErrNotCatalog when DuckDB cannot read a block), some while copying the
// tables in (inside the copies' transaction), and the database is still
// reused, clean: the intact catalog then converts as it does alone.
func TestEnginesReusedAfterCorruptSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	good := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))[0]
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	const header, block = 3 * 4096, 256 * 1024
	engines := NewEngines(1)
	defer engines.Close()
	dir := t.TempDir()
	inCopy := 0
	for off := header + 64; off < len(b); off += block {
		bad := filepath.Join(dir, fmt.Sprintf("bad-%d.duckdb", off))
		damaged := slices.Clone(b)
		for i := off; i < min(off+512, len(b)); i++ {
			damaged[i] ^= 0xff
		}
		if err := os.WriteFile(bad, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Catalog(ctx, bad, filepath.Join(dir, fmt.Sprintf("out-%d.duckdb", off)), formats.V0_4, Options{Engines: engines})
		if err == nil {
			continue // a block no conversion reads (free space)
		}
		if !errors.Is(err, ErrNotCatalog) {
			t.Errorf("block at %d: %v, want ErrNotCatalog", off, err)
		}
		// The copy's IO errors come back as "convert SRC: not a DuckLake
		// catalog: unreadable ..." (sourceReadError).
		if strings.HasPrefix(err.Error(), "convert "+bad+": ") {
			inCopy++
			if !strings.Contains(err.Error(), "copy table main.ducklake_") {
				t.Errorf("block at %d: %v; want the table whose copy failed named", off, err)
			}
		}
		if engines.Idle() != 1 {
			t.Fatalf("block at %d: %d idle databases after the failed conversion (%v), want 1", off, engines.Idle(), err)
		}
	}
	if inCopy == 0 {
		t.Fatal("no damaged block failed the copy of the tables: the test does not reach it")
	}
	own := filepath.Join(dir, "own.duckdb")
	if _, err := Catalog(ctx, good, own, formats.V0_4, Options{}); err != nil {
		t.Fatal(err)
	}
	pooled := filepath.Join(dir, "pooled.duckdb")
	if _, err := Catalog(ctx, good, pooled, formats.V0_4, Options{Engines: engines}); err != nil {
		t.Fatal(err)
	}
	if diffs := diffDumps(dump(t, own), dump(t, pooled)); len(diffs) > 0 {
		t.Errorf("after the failures the pooled database wrote another catalog:\n%s", strings.Join(diffs, "\n"))
	}
}

// TestOutputsRefuseEachOthersWAL: every catalog written through one Engines
// is a database of its own, as DuckDB tells them apart: a write-ahead log
// left by one (a DuckDB that crashed while writing to it) is refused beside
// another, for every release. Output files once were copies of one empty
// catalog per target, and shared the identifier in its header; DuckDB then
// replayed the other file's log into it. (Targets of DuckDB storage older
// than 1.4.0, 0.1 to 0.3, have no such identifier: DuckDB cannot tell their
// logs apart, whoever made the files.)
func TestOutputsRefuseEachOthersWAL(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	engines := NewEngines(1)
	defer engines.Close()
	for _, target := range []*formats.Version{formats.V0_4, formats.V1_0, formats.V1_1} {
		t.Run(target.Name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.duckdb"), filepath.Join(dir, "b.duckdb")
			for _, out := range []string{a, b} {
				if _, err := Catalog(ctx, src, out, target, Options{Engines: engines}); err != nil {
					t.Fatal(err)
				}
			}
			conn, closeDB, err := openDuckDB(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"ATTACH " + literal(a) + " AS a", "SET checkpoint_threshold = '1GB'",
				"INSERT INTO a.ducklake_metadata (key, value) VALUES ('only_in_a', 'wal')", "PRAGMA disable_checkpoint_on_shutdown"} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					closeDB()
					t.Fatalf("%s: %v", q, err)
				}
			}
			closeDB()
			wal, err := os.ReadFile(a + ".wal")
			if err != nil {
				t.Fatalf("no write-ahead log left on %s: %v", a, err)
			}
			if err := os.WriteFile(b+".wal", wal, 0o644); err != nil {
				t.Fatal(err)
			}
			conn, closeDB, err = openDuckDB(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			_, err = conn.ExecContext(ctx, "ATTACH "+literal(b)+" AS b (READ_ONLY)")
			var n int
			if err == nil {
				err = conn.QueryRowContext(ctx, "SELECT count(*) FROM b.ducklake_metadata WHERE key = 'only_in_a'").Scan(&n)
				if err == nil {
					t.Errorf("%s opened with the log of %s (%d of its rows replayed); want the log refused", b, a, n)
				}
			}
		})
	}
}

// TestEnginesSourceWithWAL: a catalog with a write-ahead log beside it
// changes without its file changing (DuckDB replays the log when it
// attaches the file), so what was read of it is not reused: a conversion
// through Engines after a change that only the log holds ends as one with
// a database of its own does.
func TestEnginesSourceWithWAL(t *testing.T) {
	ctx := context.Background()
	v10 := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	dir := t.TempDir()
	src := filepath.Join(dir, "src.duckdb")
	copyFile(t, v10[len(v10)-1], src)
	engines := NewEngines(1)
	defer engines.Close()
	if _, err := Catalog(ctx, src, filepath.Join(dir, "first.duckdb"), formats.V0_4, Options{Engines: engines}); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	// A writer that stopped before its checkpoint: the change is in the log only.
	conn, closeDB, err := openDuckDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"ATTACH " + literal(src) + " AS s", "SET checkpoint_threshold = '1GB'",
		"ALTER TABLE s.ducklake_snapshot ADD COLUMN only_in_log INTEGER", "PRAGMA disable_checkpoint_on_shutdown"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			closeDB()
			t.Fatalf("%s: %v", q, err)
		}
	}
	closeDB()
	if _, err := os.Stat(src + ".wal"); err != nil {
		t.Fatalf("no write-ahead log: %v", err)
	}
	if err := os.Chtimes(src, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(src); err != nil || after.Size() != before.Size() || !os.SameFile(before, after) {
		t.Fatalf("the writer changed the file itself (%v); the test needs the change in the log only", err)
	}
	_, errOwn := Catalog(ctx, src, filepath.Join(dir, "own.duckdb"), formats.V0_4, Options{})
	_, errPooled := Catalog(ctx, src, filepath.Join(dir, "pooled.duckdb"), formats.V0_4, Options{Engines: engines})
	if errOwn == nil {
		t.Fatal("a conversion of its own converted a catalog with an unknown column; want it refused")
	}
	if errPooled == nil || errPooled.Error() != errOwn.Error() {
		t.Errorf("through Engines: %v\nwith a database of its own: %v", errPooled, errOwn)
	}
}

// TestFileMemo: what was kept of a file is given back for that same file
// only (not once it is replaced at its path), and a memo at its limit
// starts afresh rather than growing.
func TestFileMemo(t *testing.T) {
	dir := t.TempDir()
	stat := func(name, content string) (string, os.FileInfo) {
		t.Helper()
		p := filepath.Join(dir, name)
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return p, st
	}
	m := newFileMemo[int](2)
	a, aSt := stat("a", "x")
	m.put(a, aSt, 1)
	if v, ok := m.get(a, aSt); !ok || v != 1 {
		t.Errorf("same file: %d, %v; want 1, true", v, ok)
	}
	_, aNew := stat("a", "y")
	if _, ok := m.get(a, aNew); ok {
		t.Error("a file replaced at its path: kept value given back")
	}
	b, bSt := stat("b", "x")
	m.put(b, bSt, 2)
	c, cSt := stat("c", "x")
	m.put(c, cSt, 3) // past the limit: a and b dropped
	for _, tc := range []struct {
		path string
		st   os.FileInfo
		want bool
	}{{a, aSt, false}, {b, bSt, false}, {c, cSt, true}} {
		if _, ok := m.get(tc.path, tc.st); ok != tc.want {
			t.Errorf("after the limit: %s kept %v, want %v", filepath.Base(tc.path), ok, tc.want)
		}
	}
}

// openDuckDB is openDuckDBWithin unbounded (duckpool.Open), for tests that
// read their own fixtures through a conversion's kind of connection.
func openDuckDB(ctx context.Context) (*sql.Conn, func(), error) {
	db, err := duckpool.Open()
	if err != nil {
		return nil, nil, err
	}
	return oneConn(ctx, db)
}

// TestReleasedOnlyForPool: a conversion's database is cleaned for a next
// user (duckpool.Release) only where a pool keeps it; without Engines it
// is closed as the conversion left it, and a refused conversion too.
func TestReleasedOnlyForPool(t *testing.T) {
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	released := 0
	ctx := faults.With(context.Background(), func(p faults.Point) error {
		if p.Name == "convert/release" {
			released++
		}
		return nil
	})
	engines := NewEngines(1)
	defer engines.Close()
	for _, tc := range []struct {
		name    string
		engines *Engines
		want    int
	}{{"without engines", nil, 0}, {"pooled", engines, 1}} {
		for _, target := range []*formats.Version{formats.V1_1, formats.V0_1} {
			released = 0
			dst := filepath.Join(t.TempDir(), "out.duckdb")
			_, err := Catalog(ctx, vs[len(vs)-1], dst, target, Options{Engines: tc.engines, DataPath: filepath.Join(lake, "data")})
			var refused *RefusedError
			if err != nil && !errors.As(err, &refused) {
				t.Fatalf("%s, to %s: %v", tc.name, target, err)
			}
			if released != tc.want {
				t.Errorf("%s, to %s (refused: %v): released %d times, want %d", tc.name, target, refused != nil, released, tc.want)
			}
		}
	}
}

// TestUnpooledWorkClosed: without a pool, openWork's closer closes the
// connection and the database (00c8caf skips cleaning them for a next
// user, not closing them): a file the conversion's database attached is
// checkpointed and let go only when the last of both is closed, so its
// write-ahead log outlives a closer that leaves either open.
func TestUnpooledWorkClosed(t *testing.T) {
	ctx := context.Background()
	conn, closeWork, err := openWork(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "kept.duckdb")
	if _, err := conn.ExecContext(ctx, "ATTACH '"+file+"' AS kept; CREATE TABLE kept.t AS SELECT 1 AS i"); err != nil {
		closeWork()
		t.Fatal(err)
	}
	if _, err := os.Stat(file + ".wal"); err != nil {
		closeWork()
		t.Fatalf("no write-ahead log while open: %v", err)
	}
	closeWork()
	if err := conn.PingContext(ctx); !errors.Is(err, sql.ErrConnDone) {
		t.Errorf("the connection after the closer: %v, want %v", err, sql.ErrConnDone)
	}
	if _, err := os.Stat(file + ".wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the write-ahead log after the closer: %v, want gone (the database closed)", err)
	}
}

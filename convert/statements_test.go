package convert

import (
	"context"
	"errors"
	"fmt"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// statementLog turns on DuckDB's query log in the one database engines
// keeps (NewEngines(1)) and returns a function that gives, and then
// forgets, the statements the database ran since: DuckDB's own count of
// what a conversion asked of it.
func statementLog(t *testing.T, engines *Engines) func() []string {
	t.Helper()
	ctx := context.Background()
	// The conversions' databases are sandboxed: within the fixtures'
	// folders, every conversion's is the one the pool keeps for them.
	reach := duckpool.Reach{Dirs: fixtureDirs(t), Load: []string{"httpfs"}}
	engines.Within(reach.Dirs...)
	db, _, err := engines.pool.GetWithin(reach)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CALL enable_logging('QueryLog')"); err != nil {
		t.Fatal(err)
	}
	if err := engines.pool.Put(db); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		t.Helper()
		db, _, err := engines.pool.GetWithin(reach)
		if err != nil {
			t.Fatal(err)
		}
		defer engines.pool.Put(db) //nolint:errcheck // the test reads what it needs first
		rows, err := db.QueryContext(ctx, "SELECT message FROM duckdb_logs() WHERE type = 'QueryLog' AND NOT contains(message, 'duckdb_logs')")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.TrimSpace(m))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "CALL truncate_duckdb_logs()"); err != nil {
			t.Fatal(err)
		}
		// A conversion attaches its source: a log without it is not the
		// conversion's database (the pool started another).
		attached := false
		for _, m := range out {
			attached = attached || strings.HasPrefix(m, "ATTACH ")
		}
		if !attached {
			t.Fatalf("the query log holds no ATTACH: not the database the conversions ran in (%d statements)", len(out))
		}
		return out
	}
}

// containing counts the statements that contain s.
func containing(stmts []string, s string) int {
	n := 0
	for _, q := range stmts {
		if strings.Contains(q, s) {
			n++
		}
	}
	return n
}

// unmappedLake is the lakes-0.3-reader lake whose data file has neither
// field ids nor a name mapping, with more such data files beside it:
// copies of its file (one under a name with glob characters, one named by
// two data files) and a file with field ids. It returns the catalog, its
// data folder and the path of the file with field ids.
func unmappedLake(t *testing.T) (src, data, withIDs string) {
	t.Helper()
	var lk *readerLake
	for _, l := range readerLakes(t) {
		if l.name == "q_delete__delete_legacy_missing_mapping_after_rename_add_files" {
			lk = &l
		}
	}
	if lk == nil {
		t.Fatal("lakes-0.3-reader has no q_delete__delete_legacy_missing_mapping_after_rename_add_files")
	}
	orig := query(t, lk.src, "SELECT path FROM c.ducklake_data_file WHERE data_file_id = 1")[0][0]
	dir := t.TempDir()
	plain, odd := filepath.Join(dir, "plain.parquet"), filepath.Join(dir, "odd[1]*.parquet")
	withIDs = filepath.Join(dir, "ids.parquet")
	copyFile(t, orig, plain)
	copyFile(t, orig, odd)
	src = filepath.Join(dir, "catalog.duckdb")
	copyFile(t, lk.src, src)
	// Data files 2 and 5 are the same file; 4 has field ids.
	var stmts []string
	for id, p := range map[int]string{2: plain, 3: odd, 4: withIDs, 5: plain} {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO ducklake_data_file SELECT * REPLACE (%d AS data_file_id, %s AS path) FROM ducklake_data_file WHERE data_file_id = 1", id, literal(p)))
	}
	stmts = append(stmts, fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT parquet, FIELD_IDS 'auto')", literal(orig), literal(withIDs)))
	execOn(t, src, stmts...)
	return src, lk.data, withIDs
}

// unmappedRefusal converts src to 0.4 and returns the detail of its
// unmapped-files-read-null refusal, the only one it must have.
func unmappedRefusal(t *testing.T, src string, opts Options) string {
	t.Helper()
	_, err := Catalog(context.Background(), src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_4, opts)
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("converted to 0.4: %v, want refused for unmapped-files-read-null", err)
	}
	if len(refused.Findings) != 1 || refused.Findings[0].Code != "unmapped-files-read-null" {
		t.Fatalf("refused with %v, want unmapped-files-read-null alone", refused.Findings)
	}
	return refused.Findings[0].Detail
}

// TestUnmappedFilesFooterReads: the footers of the unmapped data files are
// read in one statement for all of them, and not again by a later
// conversion of the same run (Engines) while the files are unchanged; the
// refusal names the same data files whichever way they were read, and a
// file changed since is read again.
func TestUnmappedFilesFooterReads(t *testing.T) {
	t.Parallel()
	src, data, withIDs := unmappedLake(t)
	item := func(id int, path string) string {
		return fmt.Sprintf("data_file_id %d %s has no name mapping and not a field id on every top-level column", id, path)
	}
	alone := unmappedRefusal(t, src, Options{DataPath: data})
	for _, id := range []int{1, 2, 3, 5} {
		if !strings.Contains(alone, fmt.Sprintf("data_file_id %d ", id)) {
			t.Errorf("refusal does not name data file %d: %s", id, alone)
		}
	}
	if strings.Contains(alone, item(4, withIDs)) || strings.Contains(alone, "data_file_id 4 ") {
		t.Errorf("refusal names data file 4, which has field ids: %s", alone)
	}

	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T) // before the conversion
		reads   int                // parquet_schema statements
		without []int              // data files refused for lacking field ids, when not alone's
	}{
		{name: "first", reads: 1},
		{name: "again", reads: 0},
		{name: "file-4-rewritten-without-ids", change: func(t *testing.T) {
			tmp := filepath.Join(t.TempDir(), "plain.parquet")
			execOn(t, filepath.Join(t.TempDir(), "scratch.duckdb"), fmt.Sprintf("COPY (SELECT * FROM read_parquet(%s)) TO %s (FORMAT parquet)", literal(withIDs), literal(tmp)))
			if err := os.Rename(tmp, withIDs); err != nil {
				t.Fatal(err)
			}
			// A different modification time even on a coarse clock.
			if err := os.Chtimes(withIDs, time.Now(), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}, reads: 1, without: []int{1, 2, 3, 4, 5}},
		{name: "again-after-change", reads: 0, without: []int{1, 2, 3, 4, 5}},
		// Same inode, size and modification time, a new change time: what a
		// same-size rewrite with its time set back leaves (fileid).
		{name: "change-time-only", change: func(t *testing.T) {
			if err := os.Chmod(withIDs, 0o600); err != nil {
				t.Fatal(err)
			}
		}, reads: 1, without: []int{1, 2, 3, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.change != nil {
				tc.change(t)
			}
			detail := unmappedRefusal(t, src, Options{DataPath: data, Engines: engines})
			if got := containing(statements(), "parquet_schema("); got != tc.reads {
				t.Errorf("%d parquet_schema statements, want %d", got, tc.reads)
			}
			if tc.without == nil {
				if detail != alone {
					t.Errorf("refusal detail\n%s\nwant (as without Engines)\n%s", detail, alone)
				}
				return
			}
			for _, id := range tc.without {
				if !strings.Contains(detail, fmt.Sprintf("data_file_id %d ", id)) {
					t.Errorf("refusal does not name data file %d: %s", id, detail)
				}
			}
		})
	}
}

// TestUnmappedFilesFooterError: a data file whose footer cannot be read
// fails the conversion naming the file and its table, though its footer
// is read in one statement with the others.
func TestUnmappedFilesFooterError(t *testing.T) {
	src, data, _ := unmappedLake(t)
	bad := query(t, src, "SELECT path FROM c.ducklake_data_file WHERE data_file_id = 2")[0][0]
	if err := os.WriteFile(bad, []byte("not a Parquet file"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, engines := range []*Engines{nil, NewEngines(1)} {
		_, err := Catalog(context.Background(), src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_4, Options{DataPath: data, Engines: engines})
		want := fmt.Sprintf("read the footer of data file %s (table t): ", bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one containing %q", err, want)
		}
		engines.Close()
	}
}

// TestWriteErrorNamesTable: the output's tables are created and filled in
// one batch; when it fails, the error still names the table, nothing is
// written, and the pooled database is clean for the next conversion.
func TestWriteErrorNamesTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	good := vs[len(vs)-1]
	bad := filepath.Join(t.TempDir(), "bad.duckdb")
	copyFile(t, good, bad)
	// snapshot_id is the output's primary key: a second row of the last
	// snapshot, in a copy of the table without the key, violates it there.
	execOn(t, bad, "CREATE TABLE s AS SELECT * FROM ducklake_snapshot", "DROP TABLE ducklake_snapshot", "ALTER TABLE s RENAME TO ducklake_snapshot",
		"INSERT INTO ducklake_snapshot SELECT * FROM ducklake_snapshot WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)")
	engines := NewEngines(1)
	defer engines.Close()
	for _, engines := range []*Engines{nil, engines} {
		for _, target := range []*formats.Version{formats.V0_4, formats.V1_1} {
			dst := filepath.Join(t.TempDir(), "out.duckdb")
			_, err := Catalog(ctx, bad, dst, target, Options{Engines: engines})
			if err == nil || !strings.Contains(err.Error(), "write ducklake_snapshot: ") {
				t.Errorf("to %s: error %v, want one naming ducklake_snapshot", target, err)
			}
			if _, err := os.Lstat(dst); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("to %s: %s written (%v)", target, dst, err)
			}
			if _, err := Catalog(ctx, good, dst, target, Options{Engines: engines}); err != nil {
				t.Errorf("to %s after the failure: %v", target, err)
			}
		}
	}
}

// TestCopiesPlannedWithoutOptimizer: a conversion plans its plain table
// copies (the copy-in and the output's rows) without DuckDB's optimizer,
// and every other statement with it: the statements that read data files
// (Parquet footers, merged files) above all, and the connection has it
// back on when the conversion ends. DuckDB's own query log of the
// conversions' database, read in order.
func TestCopiesPlannedWithoutOptimizer(t *testing.T) {
	ctx := context.Background()
	vs := versionCatalogs(t, testlakes.Lake(t, "lakes", "06_deletes"))
	unmapped, unmappedData, _ := unmappedLake(t)
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	for _, tc := range []struct {
		name, src, data string
		target          *formats.Version
		wantParquet     bool // the conversion reads data files (and is refused)
	}{
		{"newest to 0.4", vs[len(vs)-1], "", formats.V0_4, false},
		{"newest to 1.1", vs[len(vs)-1], "", formats.V1_1, false},
		{"unmapped files to 0.4 (footers read, refused)", unmapped, unmappedData, formats.V0_4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out.duckdb")
			_, err := Catalog(ctx, tc.src, dst, tc.target, Options{Engines: engines, DataPath: tc.data})
			var refused *RefusedError
			if (err != nil) != tc.wantParquet || (err != nil && !errors.As(err, &refused)) {
				t.Fatalf("conversion: %v", err)
			}
			off, copies, parquet := false, 0, 0
			for _, q := range statements() {
				switch {
				case strings.HasPrefix(q, optimizerOff):
					off = true
				case strings.HasPrefix(q, optimizerOn):
					off = false
				case strings.HasPrefix(q, "CREATE TABLE main.") && strings.Contains(q, " AS SELECT * FROM src."),
					strings.HasPrefix(q, "INSERT INTO dst."):
					copies++
					if !off {
						t.Errorf("planned with the optimizer: %s", q)
					}
				case strings.Contains(q, "read_parquet(") || strings.Contains(q, "parquet_"):
					// DuckDB's Parquet readers (read_parquet, parquet_schema,
					// parquet_metadata, ...), not a delete file's format
					// value 'parquet' (formats.Version.DeleteFileFormatSQL).
					parquet++
					if off {
						t.Errorf("reads data files without the optimizer: %s", q)
					}
				}
			}
			if copies == 0 || (parquet > 0) != tc.wantParquet {
				t.Errorf("%d copies and %d statements reading data files logged; want copies, and data files read %t", copies, parquet, tc.wantParquet)
			}
			if off {
				t.Error("the conversion ended with the optimizer off")
			}
		})
	}
}

// TestSourceColumnsAskedOnce: a conversion with a data folder reads
// whether the source's schemas and tables have folders from the columns
// openSource listed, not from duckdb_columns() (which binds every view of
// every attached database, about 1.3 ms of CPU a statement): no statement
// of a pass asks it, whatever the source's format. Its outputs still
// record every file where the source does (TestConversionFollowsLinks,
// TestRoundTrips).
func TestSourceColumnsAskedOnce(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	for _, target := range []*formats.Version{formats.V0_4, formats.V1_1} {
		dst := filepath.Join(t.TempDir(), "out.duckdb")
		if _, err := Catalog(ctx, vs[len(vs)-1], dst, target, Options{Engines: engines, DataPath: filepath.Join(lake, "data"), Lossy: LossyOptions}); err != nil {
			t.Fatalf("to %s: %v", target, err)
		}
		if n := containing(statements(), "duckdb_columns()"); n != 0 {
			t.Errorf("to %s: %d statements read duckdb_columns(), want 0", target, n)
		}
	}
}

// TestSourceListedInTwoStatements: the source's tables, columns, column
// types and CREATE statements are read by two statements (listColumns),
// not again for metadataColumnTypes; a later conversion of the unchanged
// file reads none of them (Engines).
func TestSourceListedInTwoStatements(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	for i, target := range []*formats.Version{formats.V0_4, formats.V1_1} {
		dst := filepath.Join(t.TempDir(), "out.duckdb")
		if _, err := Catalog(ctx, vs[len(vs)-1], dst, target, Options{Engines: engines, DataPath: filepath.Join(lake, "data"), Lossy: LossyOptions}); err != nil {
			t.Fatalf("to %s: %v", target, err)
		}
		stmts := statements()
		want := 1
		if i > 0 {
			want = 0 // kept
		}
		for _, s := range []string{`pragma_table_info('"src"`, `sql ILIKE '%COLLATE%'`} {
			if n := containing(stmts, s); n != want {
				t.Errorf("to %s: %d statements hold %s, want %d", target, n, s, want)
			}
		}
	}
}

// TestStepChecksOncePerPass: the outputs of a pass that walk the same
// steps from the source run each step's declared checks once: 1.0 to
// 0.1, 0.2, 0.3 and 0.4 run 0.4->0.3's checks (ducklake_macro's among
// them) for the first of 0.1, 0.2 and 0.3 alone (stepCheckMemo). Each
// output's findings, refusals and rows are those of its conversion
// alone, with and without rewritten delete files (which write files a
// later output must not take as found).
func TestStepChecksOncePerPass(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	macros := "FROM ducklake_macro ORDER BY macro_id"
	for _, rewrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("rewrite=%t", rewrite), func(t *testing.T) {
			data := filepath.Join(lake, "data")
			if rewrite {
				// Rewritten delete files are published into the data folder.
				dir := t.TempDir()
				copyTree(t, lake, dir)
				src, data = filepath.Join(dir, strings.TrimPrefix(src, lake)), filepath.Join(dir, "data")
			}
			opts := Options{DataPath: data, AllowInlined: true, Lossy: LossyOptions, RewriteDeletes: rewrite}
			var outs []Output
			for _, v := range []*formats.Version{formats.V0_1, formats.V0_2, formats.V0_3, formats.V0_4, formats.V1_1} {
				outs = append(outs, Output{Target: v, Dst: filepath.Join(t.TempDir(), "out.duckdb")})
			}
			engines := NewEngines(1)
			defer engines.Close()
			statements := statementLog(t, engines)
			opts.Engines = engines
			got := Catalogs(ctx, src, outs, opts)
			if n := containing(statements(), macros); n != 1 {
				t.Errorf("%d statements read %q in the pass, want 1", n, macros)
			}
			opts.Engines = nil
			for k, out := range outs {
				if rewrite && got[k].Err != nil {
					t.Errorf("to %s with rewritten delete files: %v", out.Target, got[k].Err)
				}
				// Alone, from a lake of its own: with rewritten delete
				// files, not the files the pass published.
				aloneSrc, aloneOpts := src, opts
				if rewrite {
					dir := t.TempDir()
					copyTree(t, lake, dir)
					aloneSrc, aloneOpts.DataPath = filepath.Join(dir, strings.TrimPrefix(vs[len(vs)-1], lake)), filepath.Join(dir, "data")
				}
				alone := filepath.Join(t.TempDir(), "alone.duckdb")
				res, err := Catalog(ctx, aloneSrc, alone, out.Target, aloneOpts)
				if fmt.Sprint(err) != fmt.Sprint(got[k].Err) {
					t.Errorf("to %s: in the pass %v, alone %v", out.Target, got[k].Err, err)
					continue
				}
				if err != nil {
					continue
				}
				if fmt.Sprint(res.Findings) != fmt.Sprint(got[k].Result.Findings) {
					t.Errorf("to %s: findings in the pass %v, alone %v", out.Target, got[k].Result.Findings, res.Findings)
				}
				if !reflect.DeepEqual(dump(t, out.Dst), dump(t, alone)) {
					t.Errorf("to %s: the pass's output differs from the conversion alone", out.Target)
				}
			}
		})
	}
}

// TestChangeTokensOneUpdateAStep: a step that renames change tokens in
// many snapshots' changes_made writes them in one statement, not one a
// snapshot: every odd snapshot of 01_primitive_types holds every change
// kind of 1.0 (as TestChangeKindsConverted's one), and each is written as
// that test wants it, the other snapshots as they were.
func TestChangeTokensOneUpdateAStep(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "01_primitive_types")
	vs := versionCatalogs(t, lake)
	const all = `inserted_into_table:1,inlined_insert:1,inlined_delete:2,flushed_inlined:3,inline_flush:3,inline_flush:4,merge_adjacent:5,rewrite_delete:6,` +
		`created_scalar_macro:"main"."m",created_table_macro:"main"."tm",dropped_scalar_macro:7,dropped_table_macro:8`
	const in02 = `inserted_into_table:1,deleted_from_table:2,compacted_table:3,compacted_table:4,compacted_table:5,compacted_table:6`
	src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_snapshot_changes SET changes_made = '`+all+`' WHERE snapshot_id % 2 = 1`)
	before := query(t, src, `SELECT snapshot_id, changes_made, snapshot_id % 2 = 1 FROM c.ducklake_snapshot_changes ORDER BY snapshot_id`)
	if len(before) < 4 {
		t.Fatalf("%d snapshots: the test tests too few", len(before))
	}
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	out := filepath.Join(t.TempDir(), "out.duckdb")
	res, err := Catalog(ctx, src, out, formats.V0_2, Options{Engines: engines, DataPath: filepath.Join(lake, "data")})
	if err != nil {
		t.Fatal(err)
	}
	n := containing(statements(), "UPDATE ducklake_snapshot_changes SET changes_made")
	if steps := len(res.Path) - 1; n > steps {
		t.Errorf("%d statements wrote changes_made in %d steps, want at most one a step", n, steps)
	}
	got := query(t, out, `SELECT snapshot_id, changes_made FROM c.ducklake_snapshot_changes ORDER BY snapshot_id`)
	if len(got) != len(before) {
		t.Fatalf("%d snapshots written, want %d", len(got), len(before))
	}
	for i, b := range before {
		want := b[1]
		if b[2] == "true" {
			want = in02
		}
		if got[i][0] != b[0] || got[i][1] != want {
			t.Errorf("snapshot %s: changes_made %q, want %q", got[i][0], got[i][1], want)
		}
	}
}

// TestReplacedTableRelisted: a step's CREATE OR REPLACE TABLE (0.4->0.3's
// ducklake_schema_versions) has the working copy's listing read again for
// that table alone: a conversion from 1.0 to 0.3 lists the working tables
// once (openSource's), and the listing kept is what listing every table
// gives, also for a table the statement creates.
func TestReplacedTableRelisted(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	_, err := Catalog(ctx, vs[len(vs)-1], filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_3, Options{Engines: engines, DataPath: filepath.Join(lake, "data"), Lossy: LossyOptions})
	if err != nil && !errors.Is(err, ErrRefused) {
		t.Fatal(err)
	}
	stmts := statements()
	if n := containing(stmts, "CREATE OR REPLACE TABLE ducklake_schema_versions AS"); n != 1 {
		t.Fatalf("%d statements replaced ducklake_schema_versions, want 1", n)
	}
	// listColumns' first statement (openSource's also reads each table's
	// CREATE statement there).
	if n := containing(stmts, "starts_with(table_name, ?) ORDER BY schema_name, table_name"); n != 1 {
		t.Errorf("the working tables listed %d times, want once", n)
	}

	for q, want := range map[string]string{
		"CREATE OR REPLACE TABLE t AS\n\tSELECT 1":            "t",
		`CREATE OR REPLACE TABLE "T" AS SELECT 1`:             "",
		"CREATE OR REPLACE TABLE t (a INT)":                   "",
		"CREATE TABLE t AS SELECT 1":                          "",
		"CREATE OR REPLACE TABLE main.t AS SELECT 1":          "",
		"CREATE OR REPLACE TABLE t AS SELECT 1; DROP TABLE u": "",
	} {
		if got, ok := replacedTable(q); got != want || ok != (want != "") {
			t.Errorf("replacedTable(%q) = %q, %t; want %q", q, got, ok, want)
		}
	}

	p, closeDB, err := prepare(ctx, vs[len(vs)-1], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	w := &work{conn: p.conn, db: workDB, schema: p.schema}
	if err := w.copyIn(ctx, p.tables); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE OR REPLACE TABLE ducklake_schema_versions AS SELECT 1 AS b, 'x' AS a",
		"CREATE OR REPLACE TABLE zz_new AS SELECT 1 AS c",
		"CREATE OR REPLACE TABLE aa_new AS SELECT 1 AS c, 2 AS d",
	} {
		if err := w.exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		kept := w.tables
		if kept == nil {
			t.Fatalf("after %s: no listing kept", q)
		}
		listed, err := columnsOf(ctx, w.conn, w.db, "")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(kept, listed) {
			t.Errorf("after %s: listing kept\n%v\nlisted\n%v", q, kept, listed)
		}
	}
}

// TestCutBoundsFilesListedOnce: the check of folded VARCHAR bounds
// (cutStringBounds) lists the live data files of every table it reads in
// one statement, and asks whether a table holds inlined rows once a
// table, not once a statistics row: 21_multi_schema_options from 1.0 to
// 1.1 reads four tables' VARCHAR bounds (TestMinMaxVarcharConverted holds
// what it finds).
func TestCutBoundsFilesListedOnce(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "21_multi_schema_options")
	vs := versionCatalogs(t, lake)
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	if _, err := Catalog(ctx, vs[len(vs)-1], filepath.Join(t.TempDir(), "out.duckdb"), formats.V1_1, Options{Engines: engines, DataPath: filepath.Join(lake, "data")}); err != nil {
		t.Fatal(err)
	}
	stmts := statements()
	if n := containing(stmts, "min(v), max(v) FROM read_parquet("); n < 4 {
		t.Fatalf("%d data files' VARCHAR min and max read, want 4 or more: the test no longer tests", n)
	}
	// localDataFiles' listing (1.1's readers have no footer quirk to
	// check): the bounds' check's alone.
	if n := containing(stmts, "THEN 'rel:'"); n != 1 {
		t.Errorf("the data files listed %d times, want once", n)
	}
	if n := containing(stmts, "FROM ducklake_inlined_data_tables WHERE table_id = "); n > 4 {
		t.Errorf("inlined rows asked %d times, want once a table (4)", n)
	}
}

// TestHistoryTellsArgumentsApart: a working copy's history (the key of the
// step checks a pass keeps) differs for statements whose arguments print
// alike with %v: a list of one text holding a space and a list of two.
func TestHistoryTellsArgumentsApart(t *testing.T) {
	for _, pair := range [][2][]any{
		{{[]string{"a b"}}, {[]string{"a", "b"}}},
		{{[]any{"1", int64(2)}}, {[]any{int64(1), "2"}}},
		{{int64(1)}, {float64(1)}},
		{{[]any{int64(1)}}, {[]any{1.0}}},
		{{"x"}, {[]string{"x"}}},
	} {
		var a, b work
		a.record("UPDATE t SET v = ?", pair[0]...)
		b.record("UPDATE t SET v = ?", pair[1]...)
		if a.history == b.history {
			t.Errorf("%#v and %#v: one history", pair[0], pair[1])
		}
	}
}

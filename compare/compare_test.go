package compare

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// lastVersion returns a lake folder and the catalog of its last version.
func lastVersion(t *testing.T, archive, name string) (lake, catalog string) {
	t.Helper()
	lake = testlakes.Lake(t, archive, name)
	m := readManifest(t, lake)
	v := m.Versions[len(m.Versions)-1]
	return lake, filepath.Join(lake, "versions", v.ID, "ducklake.duckdb")
}

// openForTest opens a catalog with its data folder for the test (closed
// when it ends), on a database from readerDBs.
func openForTest(t *testing.T, catalog, data string) *Reader {
	t.Helper()
	r, err := Open(context.Background(), catalog, ReaderOptions{DataPath: data, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// readerDBs lends the readers of openForTest, and of the proofs of tests
// that are not about Options.Engines (the rest prove with a database of
// each reader's own), their DuckDB databases, as Engines lends a
// backfill's: starting a database for each cost about as much CPU as the
// reader's reads of a small lake. It keeps four idle, for two parallel
// tests' proofs of two readers each. A reader's Close gives
// its database back only when it holds nothing of the reader's
// (duckpool.Release); a test that turns on a database-wide setting turns
// it off again before its reader closes (queryLog).
var readerDBs = NewEngines(4)

// openPooled is openForTest with a database from engines.
func openPooled(t *testing.T, catalog, data string, engines *Engines) *Reader {
	t.Helper()
	r, err := Open(context.Background(), catalog, ReaderOptions{DataPath: data, Engines: engines})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// openWithSnapshots opens a catalog for the test (closed when it ends)
// with its data folder, and lists its snapshots.
func openWithSnapshots(t *testing.T, catalog, data string) (*Reader, []Snapshot) {
	t.Helper()
	r := openForTest(t, catalog, data)
	snaps, err := r.Snapshots(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r, snaps
}

// prefetchAll reads up front, as a comparison does, every data file plan of
// every snapshot listed.
func prefetchAll(r *Reader, snaps []Snapshot) {
	ids := make([]int64, len(snaps))
	for i, s := range snaps {
		ids[i] = s.ID
	}
	r.prefetch(context.Background(), ids, rowOptions())
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tamper copies a catalog and runs SQL against the copy's metadata tables.
func tamper(t *testing.T, catalog string, stmts ...string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tampered.duckdb")
	copyFile(t, catalog, dst)
	execCatalog(t, dst, stmts...)
	return dst
}

func hasDifference(rep *Report, kind, contains string) bool {
	for _, d := range rep.Differences {
		if d.Kind == kind && strings.Contains(d.String(), contains) {
			return true
		}
	}
	return false
}

func TestCatalogsEquivalentToItself(t *testing.T) {
	for _, tc := range []struct{ archive, lake string }{
		{"lakes", "06_deletes"}, {"lakes", "19_add_data_files"}, {"lakes", "24_deletion_vectors"},
		{"lakes-0.3", "17_compaction"}, {"lakes-1.1-dev1", "16_data_inlining"},
	} {
		t.Run(tc.archive+"/"+tc.lake, func(t *testing.T) {
			lake, catalog := lastVersion(t, tc.archive, tc.lake)
			other := filepath.Join(t.TempDir(), "copy.duckdb")
			copyFile(t, catalog, other)
			rep, err := Catalogs(context.Background(), catalog, other, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if err != nil {
				t.Fatalf("%v\n%v", err, rep)
			}
			if !rep.Equivalent || len(rep.Tables) == 0 || rep.Readers[0] != ReaderOwn {
				t.Fatalf("report: %+v", rep)
			}
			if len(rep.ReaderNotes) == 0 || !strings.Contains(rep.ReaderNotes[0], "LOAD ducklake failed") {
				t.Errorf("report should say why the ducklake extension was not used: %v", rep.ReaderNotes)
			}
			// The reason is the LOAD's before the sandbox closed (the
			// extension not installed), not the sandbox's refusal of any
			// LOAD.
			if strings.Contains(rep.ReaderNotes[0], "disabled through configuration") {
				t.Errorf("the note gives the sandbox's refusal, not why the extension did not load: %v", rep.ReaderNotes)
			}
		})
	}
}

func TestCatalogsFindPlantedDifferences(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	const delFile = "main/del/ducklake-01a229fa-2280-7a87-ac6f-bba0032cc116.parquet"
	type want struct{ kind, text string }
	cases := []struct {
		name  string
		stmts []string
		want  []want
	}{
		{"data file swapped", []string{`UPDATE ducklake_data_file SET path = (SELECT path FROM ducklake_data_file WHERE data_file_id = 1) WHERE data_file_id = 0`},
			[]want{{"files", "data file " + delFile + " only in A"}, {"rows", "in main.del: rows differ"}}},
		{"delete file dropped", []string{`DELETE FROM ducklake_delete_file WHERE data_file_id = 0`},
			[]want{{"files", "deletes of " + delFile + " only in A"}, {"rows", "in main.del: rows differ"}}},
		{"delete positions changed", []string{`UPDATE ducklake_delete_file SET path = (SELECT path FROM ducklake_delete_file WHERE data_file_id = 1) WHERE data_file_id = 0`},
			[]want{{"files", "deletes of " + delFile + " differs"}, {"files", "deleted only in"}}},
		{"column default altered", []string{`UPDATE ducklake_column SET default_value = '7' WHERE table_id = 1 AND column_id = 1`},
			[]want{{"schema", "column main.del (id 1) differs: default"}}},
		{"column type altered", []string{`UPDATE ducklake_column SET column_type = 'int32' WHERE table_id = 1 AND column_id = 1`},
			[]want{{"schema", "column main.del (id 1) differs: type"}}},
		{"snapshot removed", []string{`DELETE FROM ducklake_snapshot WHERE snapshot_id = 5`},
			[]want{{"snapshot", "snapshot 5 is only in A"}}},
		// Each file with a key: an encrypted catalog's file without one
		// is not DuckLake's (formats.Column.NullWhen).
		{"encrypted option changed", []string{`UPDATE ducklake_metadata SET value = 'true' WHERE key = 'encrypted'`, `INSERT INTO ducklake_metadata SELECT * REPLACE ('encrypted' AS key, 'true' AS value) FROM ducklake_metadata WHERE key = 'version' AND NOT EXISTS (SELECT 1 FROM ducklake_metadata WHERE key = 'encrypted')`,
			`UPDATE ducklake_data_file SET encryption_key = 'a2V5'`, `UPDATE ducklake_delete_file SET encryption_key = 'a2V5'`},
			[]want{{"schema", "the encrypted option differs"}}},
		// DuckLake 1.5.5+ prunes bucket partitions by these values.
		{"partition value changed", []string{`INSERT INTO ducklake_file_partition_value VALUES (0, 1, 0, '3')`},
			[]want{{"files", "data file " + delFile + " differs"}}},
		// Real readers cache a schema by schema_version: one number for
		// every snapshot reads all of them with one schema.
		{"schema versions merged", []string{`UPDATE ducklake_snapshot SET schema_version = 0`},
			[]want{{"snapshot", "schema_version groups the snapshot differently"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, tc.stmts...)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			for _, w := range tc.want {
				if rep.Equivalent || !hasDifference(rep, w.kind, w.text) {
					var all []string
					for _, d := range rep.Differences {
						all = append(all, d.String())
					}
					t.Fatalf("no %s difference containing %q; got:\n%s", w.kind, w.text, strings.Join(all, "\n"))
				}
			}
		})
	}

	t.Run("parquet rows changed", func(t *testing.T) {
		dataB := filepath.Join(t.TempDir(), "data")
		copyTree(t, data, dataB)
		// A warm cache (digests and the proof of the untouched copy) must
		// not hide the change.
		store := memStore{}
		if _, err := Catalogs(context.Background(), catalog, catalog, Options{DataPath: data, DataPathB: dataB, DigestCache: store, Engines: readerDBs}); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dataB, filepath.FromSlash(delFile))
		db := testduck.Open(t, "")
		defer db.Close()
		tmp := target + ".new"
		if _, err := db.Exec(`COPY (SELECT id, CASE WHEN id = 3 THEN 'changed' ELSE v END AS v FROM read_parquet('` + target + `')) TO '` + tmp + `' (FORMAT parquet, FIELD_IDS {id: 1, v: 2})`); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, target); err != nil {
			t.Fatal(err)
		}
		rep, err := Catalogs(context.Background(), catalog, catalog, Options{DataPath: data, DataPathB: dataB, DigestCache: store, Engines: readerDBs})
		if !errors.Is(err, ErrNotEquivalent) {
			t.Fatalf("want ErrNotEquivalent, got %v", err)
		}
		if !hasDifference(rep, "files", "catalog B: "+target+" is ") || !hasDifference(rep, "files", "bytes on disk, the catalog records") {
			t.Errorf("size change not reported: %v", rep.Differences)
		}
		if !hasDifference(rep, "rows", "main.del: rows differ") {
			t.Fatalf("row change not reported: %v", rep.Differences)
		}
		found := false
		for _, tr := range rep.Tables {
			if tr.Status == "differed" && tr.Rows != nil && len(tr.Rows.OnlyB) > 0 && strings.Contains(tr.Rows.OnlyB[0], "changed") {
				found = true
			}
		}
		if !found {
			t.Errorf("first differing rows do not show the changed row: %+v", rep.Tables)
		}
	})

	// A data file only B names, missing on disk: B's readers fail where
	// A's read, and its statistics belong to no file of A, so B is not
	// equivalent (it was "could not compare", which tells an operator to
	// restore a file A never needed; a file both name missing still is:
	// TestBCannotBeReadWhereACan).
	t.Run("data file only B names is a difference", func(t *testing.T) {
		b := tamper(t, catalog, `UPDATE ducklake_data_file SET path = 'no-such-file.parquet' WHERE data_file_id = 0`)
		rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: data, Engines: readerDBs})
		if !errors.Is(err, ErrNotEquivalent) || errors.Is(err, ErrIncomparable) || !hasDifference(rep, "stats", "no-such-file.parquet") ||
			!strings.Contains(err.Error(), "B names main/del/no-such-file.parquet, which does not exist") {
			t.Fatalf("want ErrNotEquivalent with a stats difference naming the file, got %v", err)
		}
	})
}

// TestIndependentOfConvert keeps the proof independent of the converter.
func TestIndependentOfConvert(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/fdl-formats/convert") || strings.Contains(dep, "/fdl-formats/convert/") {
			t.Fatalf("package compare depends on %s; the proof must not share code with the converter", dep)
		}
	}
}

func TestDigestMultiset(t *testing.T) {
	r := openAny(t)
	ctx := context.Background()
	d := func(q string) Digest {
		t.Helper()
		v, err := digestOf(ctx, r.conn, q)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ab := d("SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(i, s)")
	ba := d("SELECT * FROM (VALUES (2, 'b'), (1, 'a')) v(i, s)")
	aab := d("SELECT * FROM (VALUES (1, 'a'), (1, 'a'), (2, 'b')) v(i, s)")
	abb := d("SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (2, 'b')) v(i, s)")
	aa := d("SELECT * FROM (VALUES (1, 'a'), (1, 'a')) v(i, s)")
	none := d("SELECT * FROM (VALUES (1, 'a'), (1, 'a')) v(i, s) WHERE false")
	if ab != ba {
		t.Errorf("order changes the digest: %v %v", ab, ba)
	}
	if aab == abb || aab == ab || aa == none || aa.Hi == 0 {
		t.Errorf("duplicates cancel or vanish: %v %v %v %v %v", aab, abb, ab, aa, none)
	}
	a := d("SELECT * FROM (VALUES (1, 'a')) v(i, s)")
	b := d("SELECT * FROM (VALUES (2, 'b')) v(i, s)")
	if a.Add(b) != ab {
		t.Errorf("parts do not add up: %v + %v != %v", a, b, ab)
	}
	z := d("SELECT * FROM (VALUES (0.0::DOUBLE), ('nan'::DOUBLE)) v(x)")
	nz := d("SELECT * FROM (VALUES (-0.0::DOUBLE), ('nan'::DOUBLE)) v(x)")
	if z == nz {
		t.Errorf("-0.0 and 0.0 give the same digest")
	}
}

// TestTableDigestMatchesExpected: the per-file digests of a table add up to
// the digest of what DuckLake returned.
func TestTableDigestMatchesExpected(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	ctx := context.Background()
	r, err := Open(ctx, catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m := readManifest(t, lake)
	v := m.Versions[len(m.Versions)-1]
	tb, err := r.Table(ctx, "main.del", v.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	got, parts, err := r.TableDigest(ctx, tb, v.Snapshot, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 2 {
		t.Fatalf("want a part per data file, got %v", parts)
	}
	exp := filepath.Join(lake, "expected", v.ID, itoa(v.Snapshot), "main.del.parquet")
	want, err := digestOf(ctx, r.conn, "SELECT * FROM read_parquet("+sqlString(exp)+")")
	if err != nil {
		t.Fatal(err)
	}
	if got != want || got.Rows != v.Snapshots[itoa(v.Snapshot)]["main.del"] {
		t.Fatalf("digest %v, DuckLake's rows give %v", got, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func openAny(t *testing.T) *Reader {
	t.Helper()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	r, err := Open(context.Background(), catalog, ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRowsWithRowIDs(t *testing.T) {
	r := openAny(t)
	ctx := context.Background()
	rows, err := r.Rows(ctx, "main.del", 4, ScanOptions{RowIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || strings.Join(cols, ",") != "id,v,"+RowIDColumn {
		t.Fatalf("columns %v %v", cols, err)
	}
	n, seen := 0, map[int64]bool{}
	for rows.Next() {
		var id, rid int64
		var v string
		if err := rows.Scan(&id, &v, &rid); err != nil {
			t.Fatal(err)
		}
		// 06_deletes inserts ids 0..999 (row ids 0..999), then 15000..15999
		// (row ids 1000..1999), and never updates.
		want := id
		if id >= 15000 {
			want = id - 15000 + 1000
		}
		if rid != want || seen[rid] {
			t.Fatalf("row id %d for id %d (or repeated)", rid, id)
		}
		seen[rid] = true
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 666 {
		t.Fatalf("%d rows at snapshot 4, DuckLake returned 666", n)
	}
}

func TestCatalogsFindMetadataDifferences(t *testing.T) {
	for _, tc := range []struct {
		lake, stmt, kind, want string
		// aStmt, when set, tampers A first; B is A's copy tampered by stmt.
		aStmt string
	}{
		{lake: "10_macros", stmt: `UPDATE ducklake_macro_impl SET sql = '(a + 2)' WHERE macro_id = 2`, kind: "schema", want: "macro main.add_default impl 0 differs: sql"},
		// The same parameter rows stored in another order: DuckLake's
		// readers list a macro's parameters in storage order (LIST()
		// without ORDER BY; column_id is not read) and bind arguments by
		// that position, so multi_add(1, 2, 3) binds c = 1.
		{"10_macros", `CREATE TEMP TABLE p AS SELECT * FROM ducklake_macro_parameters WHERE macro_id = 5 AND impl_id = 3;
			DELETE FROM ducklake_macro_parameters WHERE macro_id = 5 AND impl_id = 3;
			INSERT INTO ducklake_macro_parameters SELECT * FROM p ORDER BY column_id DESC`, "schema", "macro main.multi_add impl 3 differs: params", ""},
		{"20_time_travel", `UPDATE ducklake_snapshot_changes SET commit_message = 'rewritten' WHERE snapshot_id = (SELECT min(snapshot_id) FROM ducklake_snapshot_changes WHERE commit_message IS NOT NULL)`, "schema", "commit info differs", ""},
		{"09_views", `UPDATE ducklake_view SET sql = sql || ' LIMIT 1'`, "schema", "differs: sql", ""},
		{"11_comments_tags", `UPDATE ducklake_column_tag SET value = 'changed'`, "schema", "column tag main.tagged column 1 key comment differs", ""},
		{"08_partitioning", `UPDATE ducklake_partition_column SET transform = 'identity' WHERE transform = 'year'`, "schema", "partitioning main.", ""},
		// A tag row with a NULL value is no tag to DuckLake's readers
		// (LoadTags skips it, in every release line), so the comment a
		// reader shows is the last non-NULL one visible: a NULL row
		// stored after the live comment hides neither A's comment nor B's
		// changed one (before, the proof took the NULL row as the
		// table's comment on both sides and called them equivalent).
		{lake: "11_comments_tags", aStmt: `INSERT INTO ducklake_tag VALUES (1, 7, NULL, 'comment', NULL)`,
			stmt: `UPDATE ducklake_tag SET value = 'changed' WHERE object_id = 1 AND begin_snapshot = 7 AND value IS NOT NULL`,
			kind: "schema", want: "tag table main.tagged2 key comment differs"},
		{lake: "11_comments_tags", aStmt: `INSERT INTO ducklake_column_tag VALUES (1, 1, 4, NULL, 'comment', NULL)`,
			stmt: `UPDATE ducklake_column_tag SET value = 'changed' WHERE column_id = 1 AND value IS NOT NULL`,
			kind: "schema", want: "column tag main.tagged2 column 1 key comment differs"},
		// DuckLake's readers join a partition spec's columns to it by
		// partition_id alone (JOIN ... USING (partition_id), every release
		// line): a ducklake_partition_column row naming another table_id is
		// still a key of the spec, here a bucket key on the table whose spec
		// was reset, which DuckDB 1.5.4+ prunes files by (before, the proof
		// joined on table_id too, left the row out and proved B equivalent).
		// A macro without an implementation fails the readers' load of
		// the catalog (their LIST() of its implementations is NULL, which
		// LoadMacroImplementations hands to ListValue::GetChildren: an
		// InternalException); the proof's join left it out and proved B
		// equivalent.
		{lake: "10_macros", stmt: `INSERT INTO ducklake_macro VALUES (0, 99, 'ghost', 16, NULL)`, kind: "schema", want: "macro main.ghost without implementation"},
		{lake: "10_macros", stmt: `DELETE FROM ducklake_macro_impl WHERE macro_id = 1`, kind: "schema", want: "macro main.simple without implementation"},
		// A visible partition spec of an id no table has at the snapshot
		// fails the readers' load of the catalog ("Could not find matching
		// table for partition entry"); the proof described specs per
		// visible table only.
		{lake: "08_partitioning", stmt: `INSERT INTO ducklake_partition_info VALUES (90, 99, 27, NULL); INSERT INTO ducklake_partition_column VALUES (90, 99, 0, 1, 'identity')`,
			kind: "schema", want: "partitioning of table_id 99"},
		// A visible sort hint of no visible table: the readers with sort
		// hints (0.4+) fail the load ("Could not find matching table for
		// sort entry"); sort hints were not described at all.
		{lake: "22_sorted_tables", stmt: `INSERT INTO ducklake_sort_info VALUES (90, 999, 18, NULL); INSERT INTO ducklake_sort_expression VALUES (90, 999, 0, 'a', 'duckdb', 'ASC', 'NULLS_LAST')`,
			kind: "schema", want: "sort hint of table_id 999"},
		{lake: "08_partitioning", stmt: `INSERT INTO ducklake_partition_column VALUES (5, 999, 0, 1, 'bucket(4)')`,
			kind: "schema", want: "partitioning main.events"},
	} {
		t.Run(tc.lake, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			if tc.aStmt != "" {
				catalog = tamper(t, catalog, tc.aStmt)
			}
			b := tamper(t, catalog, tc.stmt)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			if !hasDifference(rep, tc.kind, tc.want) {
				var all []string
				for _, d := range rep.Differences {
					all = append(all, d.String())
				}
				t.Fatalf("no %s difference containing %q; got:\n%s", tc.kind, tc.want, strings.Join(all, "\n"))
			}
		})
	}
}

// TestSnapshotTimeTiesStorageOrder: AT (TIMESTAMP => t) reads, of the
// snapshots at or before t with the latest time, the first in storage
// order (MAX_BY in DuckLake 1.3/1.4, ORDER BY ... LIMIT 1 from 1.5: the
// real DuckDB 1.3.0 to 2.0.0 all keep the first of a tie). Two snapshots
// sharing a time, stored in another order in B, are read otherwise at
// that time, though every snapshot is the same.
func TestSnapshotTimeTiesStorageOrder(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "20_time_travel")
	opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	a := tamper(t, catalog, `UPDATE ducklake_snapshot SET snapshot_time = (SELECT snapshot_time FROM ducklake_snapshot WHERE snapshot_id = 2) WHERE snapshot_id = 3`)
	same := filepath.Join(t.TempDir(), "same.duckdb")
	copyFile(t, a, same)
	if rep, err := Catalogs(context.Background(), a, same, opts); err != nil {
		t.Fatalf("the same tie in the same order: %v\n%v", err, rep)
	}
	b := tamper(t, a, `CREATE TEMP TABLE s AS SELECT * FROM ducklake_snapshot WHERE snapshot_id IN (2, 3);
		DELETE FROM ducklake_snapshot WHERE snapshot_id IN (2, 3);
		INSERT INTO ducklake_snapshot SELECT * FROM s ORDER BY snapshot_id DESC`)
	rep, err := Catalogs(context.Background(), a, b, opts)
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want ErrNotEquivalent, got %v", err)
	}
	if !hasDifference(rep, "snapshot", "AT (TIMESTAMP") {
		t.Fatalf("no snapshot difference for the tie; got %v", rep.Differences)
	}
}

// TestMacroParameterNamesKeptApart: a macro's parameter list is compared as
// a list of its fields, not as their text joined with separators: a
// parameter named like two (a quoted identifier may hold ',', ':' and '=')
// is not the two parameters, which DuckLake's readers bind as a macro of
// two arguments.
func TestMacroParameterNamesKeptApart(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "10_macros")
	a := tamper(t, catalog, `UPDATE ducklake_macro_parameters SET parameter_name = 'a:unknown=NULL:unknown,b' WHERE macro_id = 1`)
	b := tamper(t, catalog, `INSERT INTO ducklake_macro_parameters VALUES (1, 0, 1, 'b', 'unknown', 'NULL', 'unknown')`)
	rep, err := Catalogs(context.Background(), a, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if !errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("want ErrNotEquivalent, got %v", err)
	}
	if !hasDifference(rep, "schema", "macro main.simple impl 0 differs: params") {
		t.Fatalf("no macro difference; got %v", rep.Differences)
	}
}

// TestStagedDeletePositions reads a lake with delete lists staged in
// temporary tables (as long lists are) and still gets DuckLake's rows.
func TestStagedDeletePositions(t *testing.T) {
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	ctx := context.Background()
	m := readManifest(t, lake)
	v := m.Versions[len(m.Versions)-1]
	r, err := Open(ctx, filepath.Join(lake, "versions", v.ID, "ducklake.duckdb"), ReaderOptions{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.maxInlinePositions = 10
	checkVersion(t, r, lake, v.ID, v.Snapshots)
	if len(r.tempTables) == 0 {
		t.Fatal("no delete list was staged")
	}
}

func TestDigestJSON(t *testing.T) {
	d := Digest{Rows: 3, Hi: 0xfedcba9876543210, Lo: 1}
	b, err := json.Marshal(d)
	if err != nil || string(b) != `{"rows":3,"hash":"fedcba98765432100000000000000001"}` {
		t.Fatalf("%s %v", b, err)
	}
	var back Digest
	if err := json.Unmarshal(b, &back); err != nil || back != d {
		t.Fatalf("%v %v", back, err)
	}
}

// TestFooterHitsReadOncePerRun: a backfill or check proves many versions
// that name the same data files, each proof holding B to the footer
// quirks (footerQuirkDifferences); the footers are read once a run, kept
// in the run's Digests by path, size and copy (footerRunKey), not once
// per proof.
func TestFooterHitsReadOncePerRun(t *testing.T) {
	// B in 0.3, whose readers have footer quirks; A in another format.
	lakeA, catalogA := lastVersion(t, "lakes", "06_deletes")
	lakeB, catalogB := lastVersion(t, "lakes-0.3", "06_deletes")
	ctx := context.Background()
	d := NewDigests(nil)
	a, err := Open(ctx, catalogA, ReaderOptions{DataPath: filepath.Join(lakeA, "data"), AsSource: true, Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rb, err := Open(ctx, catalogB, ReaderOptions{DataPath: filepath.Join(lakeB, "data"), Engines: readerDBs})
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Close()
	if _, err := footerQuirkDifferences(ctx, a, rb, "", d); err != nil {
		t.Fatal(err)
	}
	stored, err := rb.StoredFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range stored {
		if f.Delete {
			continue
		}
		if _, ok := d.footerHits(footerRunKey(rb.listings, f.Path, f.SizeBytes)); !ok {
			t.Errorf("data file %s: footer not kept for the run", f.Path)
		}
	}
	// A second proof takes them from there, not from the files: a hit
	// kept for the first data file is reported.
	var first StoredFile
	for _, f := range stored {
		if !f.Delete {
			first = f
			break
		}
	}
	d.keepFooterHits(footerRunKey(rb.listings, first.Path, first.SizeBytes), []parquetfooter.Hit{{Quirk: formats.FooterStringStatsInvalidUTF8, Column: "kept", Detail: "kept for the run"}})
	diffs, err := footerQuirkDifferences(ctx, a, rb, "", d)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 1 || !strings.Contains(diffs[0].Reason, "kept for the run") {
		t.Fatalf("second proof: %v, want the kept hit reported", diffs)
	}
}

package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// deleteTarget is a data file with a Parquet delete file visible at a
// catalog's latest snapshot.
type deleteTarget struct {
	table Table
	file  DataFile
	last  int64
}

// latestDelete finds, at the latest snapshot of catalog, a data file whose
// delete file is a partial deletion file (Parquet, three columns: DuckLake
// 1.0 writes no other) with at least two positions.
func latestDelete(t *testing.T, catalog, data string) deleteTarget {
	t.Helper()
	ctx := context.Background()
	r, snaps := openWithSnapshots(t, catalog, data)
	last := snaps[len(snaps)-1].ID
	tables, err := r.Tables(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	for _, tb := range tables {
		files, err := r.Files(ctx, tb, last)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Delete == nil || f.Delete.Format != "parquet" || f.Delete.DeleteCount < 2 {
				continue
			}
			names, _, err := describeDB(ctx, db, "SELECT * FROM read_parquet("+sqlString(f.Delete.Path)+")")
			if err != nil {
				t.Fatal(err)
			}
			if len(names) == 3 {
				return deleteTarget{table: tb, file: f, last: last}
			}
		}
	}
	t.Fatalf("no partial deletion file with 2+ positions at the latest snapshot of %s", catalog)
	return deleteTarget{}
}

// writeDeleteFile writes the rows of query (over the original delete file,
// named orig in it) as a new Parquet file with DuckDB's COPY, and returns
// the statement that points delete file id at it in a catalog.
func writeDeleteFile(t *testing.T, orig string, id int64, query string) (path, stmt string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "bad-delete.parquet")
	db := openDB(t)
	q := strings.ReplaceAll(query, "orig", "read_parquet("+sqlString(orig)+")")
	if _, err := db.Exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", q, sqlString(path))); err != nil {
		t.Fatalf("write %s: %v", q, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	footer, err := footerSize(f, st.Size(), "parquet")
	if err != nil {
		t.Fatal(err)
	}
	return path, fmt.Sprintf("UPDATE ducklake_delete_file SET path = %s, path_is_relative = false, file_size_bytes = %d, footer_size = %d WHERE delete_file_id = %d",
		sqlString(path), st.Size(), footer, id)
}

// TestDeleteFilesRealReadersRefuse: every DuckLake reader (v1.3-ossivalis
// to main, DuckLakeDeleteFilter::ScanDeleteFile) refuses a Parquet delete
// file whose positions are not strictly increasing in file order, that
// holds a NULL position, or whose columns are not file_path VARCHAR, pos
// BIGINT and at most one more; 0.4+ readers also a NULL snapshot in a
// partial deletion file. The proof sorted and de-duplicated positions and
// read any column types, and called such a catalog equivalent to the
// original. Each file is written by DuckDB's COPY from a delete file of
// lakes/06_deletes (format 1.0). Named by B only: a difference of kind
// "unreadable" (B's readers fail where A's read). Named by both: the input
// cannot be read, could not compare (ErrIncomparable).
func TestDeleteFilesRealReadersRefuse(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	target := latestDelete(t, catalog, data)
	r, _ := openWithSnapshots(t, catalog, data)
	for _, tc := range []struct {
		name, query, detail string
	}{
		{"unsorted positions", "SELECT * FROM orig ORDER BY pos DESC", "must be sorted and strictly increasing"},
		{"a repeated position", "SELECT * FROM (SELECT * FROM orig UNION ALL (SELECT * FROM orig ORDER BY pos LIMIT 1)) ORDER BY pos", "must be sorted and strictly increasing"},
		{"a negative position", "SELECT * FROM (SELECT * FROM orig UNION ALL (SELECT * REPLACE (-1::BIGINT AS pos) FROM orig LIMIT 1)) ORDER BY pos", "but found -1 after -1"},
		{"a NULL position", "SELECT * FROM (SELECT * FROM orig UNION ALL (SELECT * REPLACE (NULL::BIGINT AS pos) FROM orig LIMIT 1)) ORDER BY pos NULLS LAST", "cannot have NULL values"},
		{"INTEGER positions", "SELECT * REPLACE (pos::INTEGER AS pos) FROM orig ORDER BY pos", "Invalid schema"},
		{"four columns", "SELECT *, 2::BIGINT AS b FROM orig ORDER BY pos", "Invalid schema"},
		{"a NULL snapshot", "SELECT * REPLACE (NULL::BIGINT AS _ducklake_internal_snapshot_id) FROM orig ORDER BY pos", "snapshot_id cannot be NULL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad, stmt := writeDeleteFile(t, target.file.Delete.Path, target.file.Delete.ID, tc.query)
			// Read ahead with another file (prefetchDeletes), it is left
			// out, so that it is read alone and refused.
			batch, err := r.readDeleteBatch(ctx, []string{target.file.Delete.Path, bad})
			if _, ok := batch[bad]; ok || err != nil {
				t.Errorf("batched read: %v, kept %v; want it left out", err, ok)
			}
			if _, ok := batch[target.file.Delete.Path]; !ok {
				t.Errorf("batched read left out the good file %s", target.file.Delete.Path)
			}
			b := tamper(t, catalog, stmt)
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", tc.detail) || !hasDifference(rep, "unreadable", filepath.Base(bad)) {
				t.Fatalf("B names it: %v; want an unreadable difference naming %s and %q", err, bad, tc.detail)
			}
			for _, d := range rep.Differences {
				if d.Kind == "unreadable" && (d.B == "" || d.A != "") {
					t.Errorf("difference %s: want B's readers failing, not A's", d)
				}
			}
			other := tamper(t, b)
			_, err = Catalogs(ctx, b, other, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrIncomparable) || errors.Is(err, ErrNotEquivalent) || !strings.Contains(err.Error(), filepath.Base(bad)) || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("both name it: %v; want could not compare, naming %s and %q", err, bad, tc.detail)
			}
		})
	}
}

// TestDeleteCountCompared: DuckLake 0.4+ readers answer count(*) at the
// catalog's latest snapshot from record_count minus delete_count (and
// MIN/MAX from 1.5.5 when that count equals the table statistics), so a
// delete file whose delete_count is not the number of positions it holds
// makes them answer another count than the rows. The proof compared
// neither. Edits of lakes/06_deletes (format 1.0): B's delete_count off by
// one is a difference naming the delete file and both numbers, and a
// count(*) difference; the same edit on both sides is a difference on each
// side (neither catalog's count(*) is its rows); an older delete file's
// delete_count (lakes/23_row_lineage), which no reader uses (a query at an
// older snapshot scans), is no difference.
func TestDeleteCountCompared(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	target := latestDelete(t, catalog, data)
	bump := fmt.Sprintf("UPDATE ducklake_delete_file SET delete_count = delete_count + 1 WHERE delete_file_id = %d", target.file.Delete.ID)
	name := filepath.Base(target.file.Delete.Path)
	n := target.file.Delete.DeleteCount
	olake, ocatalog := lastVersion(t, "lakes", "23_row_lineage")
	older := queryInt(t, ocatalog, "SELECT min(delete_file_id) FROM ducklake_delete_file WHERE end_snapshot IS NOT NULL")
	if older < 0 {
		t.Fatal("no delete file with an end snapshot in lakes/23_row_lineage")
	}
	for _, tc := range []struct {
		name          string
		catalog, data string
		a, b          []string
		want          []string // "kind substring" of each wanted difference
		nothing       bool
	}{
		{"B's delete_count off by one", catalog, data, nil, []string{bump}, []string{
			"files catalog B: delete file", "files " + name,
			fmt.Sprintf("files records delete_count %d but deletes %d positions", n+1, n),
			"count count(*) answers differ"}, false},
		{"both off by one", catalog, data, []string{bump}, []string{bump}, []string{
			"files catalog A: delete file", "files catalog B: delete file", "files " + name}, false},
		{"an older delete file's delete_count", ocatalog, filepath.Join(olake, "data"), nil, []string{fmt.Sprintf("UPDATE ducklake_delete_file SET delete_count = delete_count + 5 WHERE delete_file_id = %d", older)}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.catalog
			if tc.a != nil {
				a = tamper(t, tc.catalog, tc.a...)
			}
			b := tamper(t, tc.catalog, tc.b...)
			rep, err := Catalogs(ctx, a, b, Options{DataPath: tc.data, Engines: readerDBs})
			if tc.nothing {
				if err != nil {
					t.Fatalf("Catalogs: %v; want equivalent", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("Catalogs: %v; want not equivalent", err)
			}
			for _, w := range tc.want {
				kind, sub, _ := strings.Cut(w, " ")
				if !hasDifference(rep, kind, sub) {
					t.Errorf("no %s difference with %q among %v", kind, sub, rep.Differences)
				}
			}
			if len(tc.a) > 0 && hasDifference(rep, "count", "") {
				t.Errorf("a count difference where both catalogs answer the same: %v", rep.Differences)
			}
		})
	}
}

// TestInlinedDeletionDuplicates: DuckLake 0.4+ readers read a data file's
// inlined deletions as a set when they scan, but count(*) subtracts every
// row of ducklake_inlined_delete_<table> (and a delete file's delete_count
// besides): a row given twice, or a position the delete file deletes too,
// makes count(*) answer fewer rows than a scan returns. The proof
// de-duplicated them and called such a catalog equivalent to one without.
// Edits of lakes/16_data_inlining and lakes/06_deletes (format 1.0): B
// gains a duplicate, or an inlined deletion of a position its delete file
// holds: a count(*) difference, the rows the same; the same duplicate on
// both sides: equivalent (both readers answer alike).
func TestInlinedDeletionDuplicates(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "16_data_inlining")
	data := filepath.Join(lake, "data")
	inl := queryString(t, catalog, "SELECT min(table_name) FROM duckdb_tables() WHERE table_name LIKE 'ducklake_inlined_delete_%'")
	if inl == "" || queryInt(t, catalog, "SELECT count(*) FROM "+inl) == 0 {
		t.Fatal("no inlined deletions in lakes/16_data_inlining")
	}
	live := fmt.Sprintf("FROM %s WHERE file_id IN (SELECT data_file_id FROM ducklake_data_file WHERE end_snapshot IS NULL)", inl)
	if queryInt(t, catalog, "SELECT count(*) "+live) == 0 {
		t.Fatalf("no inlined deletion of a data file visible at the latest snapshot in %s", inl)
	}
	dup := fmt.Sprintf("INSERT INTO %s SELECT * %s ORDER BY file_id, row_id LIMIT 1", inl, live)
	dlake, dcatalog := lastVersion(t, "lakes", "06_deletes")
	ddata := filepath.Join(dlake, "data")
	target := latestDelete(t, dcatalog, ddata)
	pos, err := func() ([]int64, error) {
		r, _ := openWithSnapshots(t, dcatalog, ddata)
		return r.DeletedPositions(ctx, target.table, target.file, target.last)
	}()
	if err != nil || len(pos) == 0 {
		t.Fatalf("deleted positions: %v %v", pos, err)
	}
	dtable := fmt.Sprintf("ducklake_inlined_delete_%d", target.table.ID)
	overlap := []string{
		fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s(file_id BIGINT, row_id BIGINT, begin_snapshot BIGINT)", dtable),
		fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, %d)", dtable, target.file.ID, pos[0], target.last),
	}
	for _, tc := range []struct {
		name          string
		catalog, data string
		a, b          []string
		equivalent    bool
		// feed: the change feed differs too: v1.5/main's delete scan
		// gives the position the inlined deletion's snapshot, not the
		// delete file's (DuckLakeDeleteFilter::Initialize; feeddeletes.go).
		feed bool
	}{
		{"a row given twice", catalog, data, nil, []string{dup}, false, false},
		{"a position the delete file holds", dcatalog, ddata, nil, overlap, false, true},
		{"the same duplicate on both sides", catalog, data, []string{dup}, []string{dup}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.catalog
			if tc.a != nil {
				a = tamper(t, tc.catalog, tc.a...)
			}
			b := tamper(t, tc.catalog, tc.b...)
			rep, err := Catalogs(ctx, a, b, Options{DataPath: tc.data, Engines: readerDBs})
			if tc.equivalent {
				if err != nil {
					t.Fatalf("Catalogs: %v; want equivalent", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "count", "count(*) answers differ") {
				t.Fatalf("Catalogs: %v; want a count(*) difference", err)
			}
			if tc.feed && !hasDifference(rep, "files", "change feed deletions of") {
				t.Errorf("no change feed difference; want one (the inlined deletion's snapshot)")
			}
			for _, d := range rep.Differences {
				if d.Kind != "count" && (!tc.feed || !strings.HasPrefix(d.Item, "change feed deletions of ")) {
					t.Errorf("difference %s; want only count(*) (and the change feed) to differ (the rows are the same)", d)
				}
			}
		})
	}
}

// queryInt returns the BIGINT a query over a catalog returns (-1: NULL).
func queryInt(t *testing.T, catalog, q string) int64 {
	t.Helper()
	var v sql.NullInt64
	queryRow(t, catalog, q, &v)
	if !v.Valid {
		return -1
	}
	return v.Int64
}

// queryString returns the text a query over a catalog returns ("": NULL).
func queryString(t *testing.T, catalog, q string) string {
	t.Helper()
	var v sql.NullString
	queryRow(t, catalog, q, &v)
	return v.String
}

// queryRow scans the row a query over a catalog returns into dest: the
// catalog attached read-only as the default database (USE) of a database
// from helperDBs, as execCatalog attaches one to edit it.
func queryRow(t *testing.T, catalog, q string, dest any) {
	t.Helper()
	onCatalog(t, catalog, "queried", "(READ_ONLY)", func(conn *sql.Conn) {
		if err := conn.QueryRowContext(context.Background(), q).Scan(dest); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	})
}

// TestTwoColumnDeletesFormats: DuckLake on DuckDB 1.3 (v1.3-ossivalis,
// ScanDeleteFile) and the DuckLake DuckDB 1.4.0 pins (09f9b85b) accept
// delete files of exactly two columns; DuckDB 1.4.1 and later accept a
// third (formats.QuirkDeleteFilesTwoColumns). A catalog written as 0.3
// must read alike in 1.4.0, a 0.3 source is read as 1.4.5 reads it.
// Before, 0.3 was held to the 1.4.1+ reading only.
func TestTwoColumnDeletesFormats(t *testing.T) {
	want := map[string]bool{"0.1": true, "0.2": true, "0.3-dev1": true, "0.3": true}
	wantSource := map[string]bool{"0.1": true, "0.2": true, "0.3-dev1": true}
	for _, v := range formats.All {
		r := &Reader{format: v}
		if got := r.readsWith(formats.QuirkDeleteFilesTwoColumns); got != want[v.Name] {
			t.Errorf("format %s (DuckDB %s): two-column delete files only = %v, want %v", v.Name, v.DuckDB, got, want[v.Name])
		}
		r.asSource = true
		if got := r.readsWith(formats.QuirkDeleteFilesTwoColumns); got != wantSource[v.Name] {
			t.Errorf("format %s read as a source: two-column delete files only = %v, want %v", v.Name, got, wantSource[v.Name])
		}
	}
}

// TestTwoVisibleDeleteFiles: with two delete files of one data file
// visible at a snapshot, DuckLake readers (GetFilesForTable's LEFT JOIN)
// read the data file once per delete file, its rows twice. This reader
// does not model it; it stopped, could not compare, also when only B had
// them. Now B alone: a difference naming the data file and both delete
// files; both: could not compare. An edit of lakes/06_deletes (format
// 1.0): a second row for its latest delete file.
func TestTwoVisibleDeleteFiles(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	target := latestDelete(t, catalog, data)
	second := fmt.Sprintf("INSERT INTO ducklake_delete_file SELECT * REPLACE (delete_file_id + 1000 AS delete_file_id) FROM ducklake_delete_file WHERE delete_file_id = %d", target.file.Delete.ID)
	b := tamper(t, catalog, second)
	rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
	want := fmt.Sprintf("has two visible delete files (ids %d, %d)", target.file.Delete.ID, target.file.Delete.ID+1000)
	if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "files", want) || !hasDifference(rep, "files", "catalog B") {
		t.Fatalf("B has them: %v; want a files difference of catalog B with %q", err, want)
	}
	_, err = Catalogs(ctx, b, tamper(t, b), Options{DataPath: data, Engines: readerDBs})
	if !errors.Is(err, ErrIncomparable) || errors.Is(err, ErrNotEquivalent) {
		t.Fatalf("both have them: %v; want could not compare", err)
	}
}

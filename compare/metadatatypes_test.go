package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// retypeSnapshotTime makes ducklake_snapshot.snapshot_time a VARCHAR
// holding the text DuckDB gives the TIMESTAMPTZ under UTC (the proof's
// session), whatever the helper's time zone: the same text as A's.
const retypeSnapshotTime = `ALTER TABLE ducklake_snapshot ALTER snapshot_time SET DATA TYPE VARCHAR USING timezone('UTC', snapshot_time)::VARCHAR || '+00'`

// TestMetadataColumnTypesReadAsReaders: the proof held a catalog's metadata
// tables to their format's column names only (formats.Detect), and read
// their values as text or numbers, so a published catalog B whose column
// holds A's values under another type was equivalent to A, while
// DuckLake's readers bind their SQL to the type: first the premise, with
// the SQL those readers run, then the proof.
func TestMetadataColumnTypesReadAsReaders(t *testing.T) {
	ctx := context.Background()

	// 0.1-0.3 readers (DuckDB 1.3, 1.4) resolve AT (TIMESTAMP => v) with
	// MAX_BY(snapshot_id, snapshot_time) over snapshot_time <= '<v as
	// text>' (GetSnapshot, v1.3-ossivalis and v1.4-andium; the binder
	// keeps a string literal's type, BindAtClause): on a VARCHAR column
	// that compares texts, so a time written without its offset, as a user
	// types it, leaves out the snapshot taken at that very time.
	lake03, a03 := lastVersion(t, "lakes-0.3", "06_deletes")
	b03 := tamper(t, a03, retypeSnapshotTime)
	at := func(catalog, ts string) int64 {
		t.Helper()
		conn, err := testduck.Open(t, "").Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SET TimeZone = 'UTC'; ATTACH "+sqlString(catalog)+" AS c (READ_ONLY)"); err != nil {
			t.Fatal(err)
		}
		var id int64
		if err := conn.QueryRowContext(ctx, `SELECT snapshot_id FROM c.ducklake_snapshot WHERE snapshot_id = (
			SELECT MAX_BY(snapshot_id, snapshot_time) FROM c.ducklake_snapshot WHERE snapshot_time <= `+sqlString(ts)+`)`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// The newest snapshot's time as a user types it: no offset.
	var ts string
	var id int64
	db := testduck.Open(t, "")
	if _, err := db.Exec("ATTACH " + sqlString(a03) + " AS s (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT snapshot_id, strftime(timezone('UTC', snapshot_time), '%Y-%m-%d %H:%M:%S.%f') FROM s.ducklake_snapshot
		ORDER BY snapshot_id DESC LIMIT 1`).Scan(&id, &ts); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := at(a03, ts); got != id {
		t.Fatalf("A at %s: snapshot %d, want %d", ts, got, id)
	}
	if got := at(b03, ts); got == id {
		t.Fatalf("B (snapshot_time VARCHAR) at %s: snapshot %d, want another than A's %d (the premise does not hold)", ts, got, id)
	}

	// Every release prunes files under a filter by matching the data
	// files' ids with their statistics rows' (v1.3-ossivalis's
	// DuckLakeMultiFileList: data_file_id IN (SELECT data_file_id FROM
	// the statistics WHERE ...); v1.4-andium and later join the
	// statistics' CTE on data_file_id): DuckDB binds no comparison of a
	// BIGINT column with a VARCHAR one, so every filtered read of B fails.
	lake10, a10 := lastVersion(t, "lakes", "06_deletes")
	const retypeFileID = `ALTER TABLE ducklake_file_column_stats ALTER data_file_id SET DATA TYPE VARCHAR`
	b10 := tamper(t, a10, retypeFileID)
	prune := func(catalog string) error {
		t.Helper()
		db := testduck.Open(t, "")
		if _, err := db.Exec("ATTACH " + sqlString(catalog) + " AS c (READ_ONLY)"); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT data_file_id FROM c.ducklake_data_file WHERE data_file_id IN (SELECT data_file_id FROM c.ducklake_file_column_stats WHERE column_id = 1 AND table_id = 1)`)
		if err == nil {
			rows.Close()
		}
		return err
	}
	if err := prune(a10); err != nil {
		t.Fatalf("A's pruning query: %v", err)
	}
	if err := prune(b10); err == nil || !strings.Contains(err.Error(), "Binder Error") {
		t.Fatalf("B's pruning query (data_file_id VARCHAR): %v, want a Binder Error (the premise does not hold)", err)
	}

	data03 := filepath.Join(lake03, "data")
	data10 := filepath.Join(lake10, "data")
	for _, tc := range []struct {
		name, a, data string
		b             []string
		want          string // "" equivalent
	}{
		{"0.3, snapshot_time VARCHAR with A's text", a03, data03, []string{retypeSnapshotTime},
			"ducklake_snapshot.snapshot_time is VARCHAR, format 0.3 has TIMESTAMP WITH TIME ZONE"},
		{"1.0, file statistics data_file_id VARCHAR", a10, data10, []string{retypeFileID},
			"ducklake_file_column_stats.data_file_id is VARCHAR, format 1.0 has BIGINT"},
		{"1.0, file statistics contains_nan VARCHAR", a10, data10,
			[]string{`ALTER TABLE ducklake_file_column_stats ALTER contains_nan SET DATA TYPE VARCHAR`},
			"ducklake_file_column_stats.contains_nan is VARCHAR, format 1.0 has BOOLEAN"},
		{"1.0, file statistics null_count INTEGER", a10, data10,
			[]string{`ALTER TABLE ducklake_file_column_stats ALTER null_count SET DATA TYPE INTEGER`},
			"ducklake_file_column_stats.null_count is INTEGER, format 1.0 has BIGINT"},
		{"1.0, a column retyped and typed back", a10, data10,
			[]string{retypeFileID, `ALTER TABLE ducklake_file_column_stats ALTER data_file_id SET DATA TYPE BIGINT`}, ""},
		{"0.3, a copy", a03, data03, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, tc.a, tc.b...)
			rep, err := Catalogs(ctx, tc.a, b, Options{DataPath: tc.data, Engines: readerDBs})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Catalogs: %v, want equivalent\n%s", err, reportLines(rep))
				}
				return
			}
			wantCatalogDifference(t, rep, err, b, tc.want)
			if !errors.Is(err, formats.ErrInconsistentLayout) {
				t.Errorf("Catalogs: %v, want it to match formats.ErrInconsistentLayout", err)
			}
			// The other way round A is the catalog that cannot be read:
			// could not compare, never equivalent.
			if _, err := Catalogs(ctx, b, tc.a, Options{DataPath: tc.data, Engines: readerDBs}); !errors.Is(err, ErrIncomparable) {
				t.Errorf("Catalogs with the retyped catalog as A: %v, want could not compare", err)
			}
		})
	}
}

// TestMetadataColumnCollation: duckdb_columns() names a VARCHAR COLLATE
// NOCASE column VARCHAR, so a catalog B whose statistics bounds were
// collated passed the type check and was equivalent to A, while every
// release's file pruning compares a VARCHAR column's bounds with the
// filter's constant as text ('Z' BETWEEN min_value AND max_value,
// GenerateConstantFilter in v1.3-ossivalis, v1.4-andium, v1.5-variegata
// and main: CastStatsToTarget casts numerics and temporals only), under
// the column's collation: a file whose bounds are 'B' and 'a' holds 'Z' by
// DuckDB's order, and B's readers skip it under WHERE s = 'Z'.
func TestMetadataColumnCollation(t *testing.T) {
	ctx := context.Background()
	lake, orig := lastVersion(t, "lakes", "01_primitive_types")
	data := filepath.Join(lake, "data")
	db := testduck.Open(t, "")
	if _, err := db.Exec("ATTACH " + sqlString(orig) + " AS o (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	var fileID, tableID, columnID int64
	if err := db.QueryRow(`SELECT s.data_file_id, s.table_id, s.column_id FROM o.ducklake_file_column_stats s
		JOIN o.ducklake_column c ON c.table_id = s.table_id AND c.column_id = s.column_id
		WHERE lower(c.column_type) = 'varchar' AND c.end_snapshot IS NULL AND s.min_value IS NOT NULL
		ORDER BY ALL LIMIT 1`).Scan(&fileID, &tableID, &columnID); err != nil {
		t.Fatalf("a VARCHAR column's file statistics: %v", err)
	}
	db.Close()
	// A: that file's bounds 'B' and 'a' (one side as the other: the
	// proof compares them, not the rows); B: A with the bounds collated.
	where := " WHERE data_file_id = " + itoa(fileID) + " AND column_id = " + itoa(columnID)
	a := tamper(t, orig, `UPDATE ducklake_file_column_stats SET min_value = 'B', max_value = 'a'`+where)
	collate := []string{
		`ALTER TABLE ducklake_file_column_stats ALTER min_value SET DATA TYPE VARCHAR COLLATE NOCASE`,
		`ALTER TABLE ducklake_file_column_stats ALTER max_value SET DATA TYPE VARCHAR COLLATE NOCASE`,
	}
	b := tamper(t, a, collate...)

	// The premise, with the readers' pruning condition for WHERE s = 'Z'.
	kept := func(catalog string) int {
		t.Helper()
		db := testduck.Open(t, "")
		if _, err := db.Exec("ATTACH " + sqlString(catalog) + " AS c (READ_ONLY)"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM c.ducklake_file_column_stats WHERE table_id = ` + itoa(tableID) + ` AND column_id = ` + itoa(columnID) +
			` AND data_file_id = ` + itoa(fileID) + ` AND (min_value IS NULL OR max_value IS NULL OR ('Z' BETWEEN min_value AND max_value))`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if ka, kb := kept(a), kept(b); ka != 1 || kb != 0 {
		t.Fatalf("file %d kept under WHERE s = 'Z': A %d, B %d; want 1 and 0 (the premise does not hold)", fileID, ka, kb)
	}

	rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
	const want = "ducklake_file_column_stats.max_value is VARCHAR COLLATE NOCASE, format 1.0 has VARCHAR"
	wantCatalogDifference(t, rep, err, b, want)
	// The collation removed again reads as A.
	c := tamper(t, b, `ALTER TABLE ducklake_file_column_stats ALTER min_value SET DATA TYPE VARCHAR`,
		`ALTER TABLE ducklake_file_column_stats ALTER max_value SET DATA TYPE VARCHAR`)
	if rep, err := Catalogs(ctx, a, c, Options{DataPath: data, Engines: readerDBs}); err != nil {
		t.Fatalf("Catalogs with the collation removed: %v, want equivalent\n%s", err, reportLines(rep))
	}
}

// TestMetadataColumnGenerated: a generated column shows its type alone in
// duckdb_columns(), and DuckDB computes its values in the reading session.
// B is A with ducklake_table.table_name computed from table_id and
// begin_snapshot: A's names where current_setting('TimeZone') is UTC (the
// proof's session), another name elsewhere. The proof read A's table list
// from it and called it equivalent; a reader in another time zone (a
// session's SET TimeZone, or the machine's own zone, which a new
// connection starts with) lists another table, and version() in its place
// would give every release but the linked one another.
func TestMetadataColumnGenerated(t *testing.T) {
	ctx := context.Background()
	lake, a := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	db := testduck.Open(t, "")
	if _, err := db.Exec("ATTACH " + sqlString(a) + " AS o (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	var names string
	if err := db.QueryRow(`SELECT string_agg('WHEN table_id = ' || table_id || ' AND begin_snapshot = ' || begin_snapshot || ' THEN ''' || replace(table_name, '''', '''''') || '''', ' ')
		FROM o.ducklake_table`).Scan(&names); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tab, _ := formats.V1_0.Table("ducklake_table")
	var defs, cols []string
	for _, c := range tab.Columns {
		if c.Name == "table_name" {
			defs = append(defs, c.Name+" "+c.Type+" GENERATED ALWAYS AS (CASE WHEN current_setting('TimeZone') = 'UTC' THEN CASE "+names+" END ELSE 'elsewhere' END) VIRTUAL")
			continue
		}
		defs = append(defs, c.Name+" "+c.Type)
		cols = append(cols, c.Name)
	}
	b := tamper(t, a,
		`CREATE TABLE kept AS SELECT * FROM ducklake_table`,
		`DROP TABLE ducklake_table`,
		`CREATE TABLE ducklake_table(`+strings.Join(defs, ", ")+`)`,
		`INSERT INTO ducklake_table (`+strings.Join(cols, ", ")+`) SELECT `+strings.Join(cols, ", ")+` FROM kept`,
		`DROP TABLE kept`)

	// The premise: B's table names as two sessions read them.
	listed := func(catalog, zone string) string {
		t.Helper()
		return readInZone(t, catalog, zone, `SELECT string_agg(table_name, ',' ORDER BY table_id, begin_snapshot) FROM c.ducklake_table`)
	}

	if la, lb, lbBerlin := listed(a, "UTC"), listed(b, "UTC"), listed(b, "Europe/Berlin"); la != lb || lbBerlin == la {
		t.Fatalf("table names: A %q, B in UTC %q, B in Europe/Berlin %q; want B in UTC as A and another list in Berlin (the premise does not hold)", la, lb, lbBerlin)
	}

	rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
	const want = "ducklake_table.table_name is VARCHAR GENERATED, format 1.0 has VARCHAR"
	wantCatalogDifference(t, rep, err, b, want)
}

// TestInlinedColumnGenerated: the same in an inlined data table, whose
// columns are the user's and not declared by the format: B's inlined rows
// of 16_data_inlining computed from current_setting('TimeZone') read as
// A's in the proof's UTC session and otherwise elsewhere.
func TestInlinedColumnGenerated(t *testing.T) {
	ctx := context.Background()
	lake, a := lastVersion(t, "lakes", "16_data_inlining")
	data := filepath.Join(lake, "data")
	const inlined = "ducklake_inlined_data_1_2" // row_id, begin_snapshot, end_snapshot, i INTEGER, j VARCHAR
	db := testduck.Open(t, "")
	if _, err := db.Exec("ATTACH " + sqlString(a) + " AS o (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	var cases string
	if err := db.QueryRow(`SELECT string_agg('WHEN row_id = ' || row_id || ' AND begin_snapshot = ' || begin_snapshot || ' THEN ' ||
		CASE WHEN j IS NULL THEN 'NULL' ELSE '''' || replace(j, '''', '''''') || '''' END, ' ') FROM o.` + inlined).Scan(&cases); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b := tamper(t, a,
		"CREATE TABLE kept AS SELECT * FROM "+inlined,
		"DROP TABLE "+inlined,
		"CREATE TABLE "+inlined+"(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, i INTEGER, j VARCHAR GENERATED ALWAYS AS (CASE WHEN current_setting('TimeZone') = 'UTC' THEN CASE "+cases+" END ELSE 'elsewhere' END) VIRTUAL)",
		"INSERT INTO "+inlined+" (row_id, begin_snapshot, end_snapshot, i) SELECT row_id, begin_snapshot, end_snapshot, i FROM kept",
		"DROP TABLE kept")
	values := func(catalog, zone string) string {
		t.Helper()
		return readInZone(t, catalog, zone, `SELECT string_agg(coalesce(j, 'NULL'), ',' ORDER BY row_id, begin_snapshot) FROM c.`+inlined)
	}

	if va, vb, vbBerlin := values(a, "UTC"), values(b, "UTC"), values(b, "Europe/Berlin"); va != vb || vbBerlin == va {
		t.Fatalf("inlined values: A %q, B in UTC %q, B in Europe/Berlin %q; want B in UTC as A and others in Berlin (the premise does not hold)", va, vb, vbBerlin)
	}
	rep, err := Catalogs(ctx, a, b, Options{DataPath: data, Engines: readerDBs})
	const want = inlined + ".j is VARCHAR GENERATED, which no DuckLake writer gives a column"
	wantCatalogDifference(t, rep, err, b, want)
}

// readInZone is the one text query answers in a session of the time zone
// zone with catalog attached as c, as a reader there reads it.
func readInZone(t *testing.T, catalog, zone, query string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := testduck.Open(t, "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET TimeZone = "+sqlString(zone)+"; ATTACH "+sqlString(catalog)+" AS c (READ_ONLY)"); err != nil {
		t.Fatal(err)
	}
	var s string
	if err := conn.QueryRowContext(ctx, query).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// wantCatalogDifference fails the test unless err is "not equivalent" and
// rep holds a catalog difference naming want and B's path b.
func wantCatalogDifference(t *testing.T, rep *Report, err error, b, want string) {
	t.Helper()
	if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "catalog", want) || !hasDifference(rep, "catalog", b) {
		t.Fatalf("Catalogs: %v, want a catalog difference naming %s and %q\n%s", err, b, want, reportLines(rep))
	}
}

// TestFrozenSnapshotTimeTimestamp: a frozen catalog whose snapshot_time is
// a TIMESTAMP of the same UTC instants (a working catalog in another
// database copied through a scanner that types times without a zone,
// formats.FrozenTypes) is read as a proof's source and alone (check's
// read of a frozen catalog), its times as those instants
// (formats.Version.StandInReads): a B holding them as the format's
// TIMESTAMPTZ is equivalent, one instant moved by a microsecond is a
// snapshot time that differs. Before proof v70 the times were compared as
// text and every snapshot's differed by the TIMESTAMPTZ's "+00". A catalog
// under proof with that type is a difference (DuckLake's readers resolve
// AT (TIMESTAMP => ...) in the session's wall time against it), whatever A
// holds.
func TestFrozenSnapshotTimeTimestamp(t *testing.T) {
	ctx := context.Background()
	lake, a := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	const retype = `SET TimeZone = 'UTC'; ALTER TABLE ducklake_snapshot ALTER snapshot_time TYPE TIMESTAMP`
	const want = "B's ducklake_snapshot.snapshot_time is TIMESTAMP, format 1.0 has TIMESTAMP WITH TIME ZONE"
	frozen := tamper(t, a, retype)
	copyA := filepath.Join(t.TempDir(), "copy.duckdb")
	copyFile(t, a, copyA)
	if rep, err := Catalogs(ctx, frozen, copyA, Options{DataPath: data, Engines: readerDBs}); err != nil {
		t.Fatalf("the TIMESTAMP frozen catalog as A, its catalog as B: %v, want equivalent\n%s", err, reportLines(rep))
	}
	// Another instant, by a microsecond.
	moved := tamper(t, a, `UPDATE ducklake_snapshot SET snapshot_time = snapshot_time + INTERVAL 1 MICROSECOND WHERE snapshot_id = 1`)
	rep, err := Catalogs(ctx, frozen, moved, Options{DataPath: data, Engines: readerDBs})
	if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "snapshot", "snapshot time differs") || len(rep.Differences) != 1 {
		t.Fatalf("B with snapshot 1 a microsecond later: %v, want that snapshot's time alone to differ\n%s", err, reportLines(rep))
	}
	d := rep.Differences[0]
	ta, errA := time.Parse("2006-01-02 15:04:05Z07", d.A)
	tb, errB := time.Parse("2006-01-02 15:04:05Z07", d.B)
	if d.Snapshot == nil || *d.Snapshot != 1 || errA != nil || errB != nil || tb.Sub(ta) != time.Microsecond {
		t.Fatalf("B with snapshot 1 a microsecond later: %s (%v, %v), want snapshot 1's instants in UTC a microsecond apart\n%s", d, errA, errB, reportLines(rep))
	}
	if self, err := Self(ctx, frozen, Options{DataPath: data, Engines: readerDBs}); err != nil {
		t.Fatalf("Self of the TIMESTAMP frozen catalog: %v\n%s", err, reportLines(self))
	}
	for name, pair := range map[string][2]string{"A as written": {a, frozen}, "A a TIMESTAMP too": {frozen, tamper(t, a, retype)}} {
		t.Run(name, func(t *testing.T) {
			rep, err := Catalogs(ctx, pair[0], pair[1], Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "catalog", want) {
				t.Fatalf("Catalogs: %v, want a catalog difference %q\n%s", err, want, reportLines(rep))
			}
			// The same instants: the type is the difference, not the times.
			if hasDifference(rep, "snapshot", "") {
				t.Fatalf("Catalogs: %v, want no snapshot difference\n%s", err, reportLines(rep))
			}
		})
	}
}

// TestMetadataCheckCollate: a COLLATE in a CHECK constraint of a metadata
// table, or in a column's DEFAULT expression, collates that expression,
// not the column (formats.Collations): the column holds and compares as
// it did, and a frozen catalog is only read. B is A with ducklake_table
// made again with both; it reads as A. Before, the proof took the
// table's CHECK for a collated column named "CHECK" and the DEFAULT's
// COLLATE for table_name's, and refused B.
func TestMetadataCheckCollate(t *testing.T) {
	ctx := context.Background()
	lake, a := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	tab, _ := formats.V1_0.Table("ducklake_table")
	var defs []string
	for _, c := range tab.Columns {
		def := c.Name + " " + c.Type
		if c.Name == "table_name" {
			def += " DEFAULT ('x' COLLATE NOCASE)"
		}
		defs = append(defs, def)
	}
	b := tamper(t, a,
		`CREATE TABLE kept AS SELECT * FROM ducklake_table`,
		`DROP TABLE ducklake_table`,
		`CREATE TABLE ducklake_table(`+strings.Join(defs, ", ")+`, CHECK ((table_name COLLATE NOCASE) <> 'nocase'))`,
		`INSERT INTO ducklake_table SELECT * FROM kept`,
		`DROP TABLE kept`)
	opts := Options{DataPath: data, Engines: readerDBs}
	if rep, err := Catalogs(ctx, a, b, opts); err != nil {
		t.Fatalf("Catalogs: %v, want equivalent\n%s", err, reportLines(rep))
	}
	if rep, err := Self(ctx, b, opts); err != nil {
		t.Fatalf("Self: %v, want it to read cleanly\n%s", err, reportLines(rep))
	}
}

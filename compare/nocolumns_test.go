package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableWithoutVisibleColumns: every release line's load
// (GetCatalogForSnapshot) joins a snapshot's tables with their visible
// columns by a LEFT JOIN filtered by "the column is visible OR column_id IS
// NULL": a table whose column rows have all ended at the snapshot gives no
// row at all, and is not loaded (only one without any column row gives
// the NULL column the readers fail on). Its name is then no entry's: a
// table of the name with a smaller table_id is the one read. Before, the
// proof read it and failed ("has no columns"), and paired the name with it.
func TestTableWithoutVisibleColumns(t *testing.T) {
	const last = `(SELECT max(snapshot_id) FROM ducklake_snapshot)`
	const del = `(SELECT min(table_id) FROM ducklake_table WHERE table_name = 'del' AND end_snapshot IS NULL)`
	// ended: table del's columns all end at the last snapshot, its
	// table row stays.
	ended := `UPDATE ducklake_column SET end_snapshot = ` + last + ` WHERE table_id = ` + del
	t.Run("read alone and against itself", func(t *testing.T) {
		lake, catalog := lastVersion(t, "lakes", "06_deletes")
		opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
		a := tamper(t, catalog, ended)
		if rep, err := Self(context.Background(), a, opts); err != nil {
			t.Fatalf("Self: %v\n%s", err, reportLines(rep))
		}
		b := tamper(t, catalog, ended)
		if rep, err := Catalogs(context.Background(), a, b, opts); err != nil {
			t.Fatalf("Catalogs: %v, want equivalent\n%s", err, reportLines(rep))
		}
		// A B whose table is still loaded there differs.
		rep, err := Catalogs(context.Background(), a, catalog, opts)
		if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "schema", "not loaded") {
			t.Fatalf("Catalogs against the untouched catalog: %v, want a schema difference naming the table not loaded\n%s", err, reportLines(rep))
		}
	})
	t.Run("its name resolves to the other table", func(t *testing.T) {
		// Table 99, of del's name and a larger table_id, whose only
		// columns are never visible: the readers read table del.
		lake, catalog := lastVersion(t, "lakes", "06_deletes")
		opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
		second := `INSERT INTO ducklake_table SELECT * REPLACE (99 AS table_id, '01a18fe9-0000-7000-8000-000000000099' AS table_uuid) FROM ducklake_table WHERE table_id = ` + del + ` AND end_snapshot IS NULL;
			INSERT INTO ducklake_column SELECT * REPLACE (99 AS table_id, begin_snapshot AS end_snapshot) FROM ducklake_column WHERE table_id = ` + del + ` AND end_snapshot IS NULL`
		a := tamper(t, catalog, second)
		r := openForTest(t, a, opts.DataPath)
		snaps, err := r.Snapshots(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		tb, err := r.Table(context.Background(), "main.del", snaps[len(snaps)-1].ID)
		if err != nil || tb.ID == 99 {
			t.Fatalf("main.del resolves to table id %d (%v), want the loaded one", tb.ID, err)
		}
		if rep, err := Self(context.Background(), a, opts); err != nil {
			t.Fatalf("Self: %v\n%s", err, reportLines(rep))
		}
		rep, err := Catalogs(context.Background(), catalog, a, opts)
		if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "schema", "main.del (id 99, not loaded)") {
			t.Fatalf("Catalogs: %v, want only a schema difference naming table 99\n%s", err, reportLines(rep))
		}
		for _, d := range rep.Differences {
			if d.Kind != "schema" || !strings.Contains(d.String(), "id 99") {
				t.Fatalf("a difference other than table 99's description: %s\n%s", d, reportLines(rep))
			}
		}
	})
}

// TestPartitionOfTableWithoutVisibleColumns: a visible partition spec of a
// table the readers leave out (its columns all ended) fails their load
// ("Could not find matching table for partition entry"), as a spec of no
// table: the self-read reports every table there unreadable.
func TestPartitionOfTableWithoutVisibleColumns(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "08_partitioning")
	opts := Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs}
	a := tamper(t, catalog, `UPDATE ducklake_column SET end_snapshot = (SELECT max(snapshot_id) FROM ducklake_snapshot) WHERE table_id = (SELECT max(table_id) FROM ducklake_partition_info WHERE end_snapshot IS NULL)`)
	rep, err := Self(context.Background(), a, opts)
	if !errors.Is(err, ErrCatalogDiffers) || !hasDifference(rep, "unreadable", "Could not find matching table for partition entry") {
		t.Fatalf("Self: %v, want the catalog's load refused for the partition spec\n%s", err, reportLines(rep))
	}
}

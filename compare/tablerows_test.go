package compare

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// snapsFrom is a FROM item listing snaps as the BIGINT column q.snap: the
// queries per snapshot below ask for several snapshots in one statement
// (one planning, not one per snapshot: most of what a small query cost),
// each row with its q.snap.
func snapsFrom(snaps []int64) string {
	ids := make([]string, len(snaps))
	for i, s := range snaps {
		ids[i] = fmt.Sprint(s)
	}
	return "(SELECT unnest([" + strings.Join(ids, ", ") + "]::BIGINT[]) AS snap) q"
}

// visibleAtQ is visible(alias, snap) with the snapshot q.snap of snapsFrom.
func visibleAtQ(alias string) string {
	return fmt.Sprintf("q.snap >= %[1]s.begin_snapshot AND (q.snap < %[1]s.end_snapshot OR %[1]s.end_snapshot IS NULL)", alias)
}

// tablesBySQL is what Tables returned before it read ducklake_schema and
// ducklake_table once per reader: the visible tables joined with their
// visible schemas, at each of snaps (asked in one query, as the query per
// snapshot was, with the snapshot q.snap for its number). Tables
// of the same name are in storage order (the table's rows, then the
// schema's), as Tables lists them.
func tablesBySQL(ctx context.Context, r *Reader, snaps []int64) (map[int64][]Table, error) {
	q := fmt.Sprintf(`SELECT q.snap, t.table_id, s.schema_name, t.table_name, s.schema_id, t.begin_snapshot,
		t.table_uuid::VARCHAR, s.schema_uuid::VARCHAR, %s, %s, %s, %s
		FROM %s JOIN cat.ducklake_table t ON %s JOIN cat.ducklake_schema s ON s.schema_id = t.schema_id AND %s
		ORDER BY q.snap, s.schema_name, t.table_name, t.rowid, s.rowid`,
		r.col("ducklake_schema", "s", "path"), r.col("ducklake_schema", "s", "path_is_relative"),
		r.col("ducklake_table", "t", "path"), r.col("ducklake_table", "t", "path_is_relative"),
		snapsFrom(snaps), visibleAtQ("t"), visibleAtQ("s"))
	out := map[int64][]Table{}
	err := r.eachRow(ctx, q, func(rows *sql.Rows) error {
		var snap int64
		var x Table
		var sPath, tPath sql.NullString
		var sRel, tRel sql.NullBool
		var tUUID, sUUID sql.NullString
		if err := rows.Scan(&snap, &x.ID, &x.Schema, &x.Name, &x.SchemaID, &x.BeginSnapshot, &tUUID, &sUUID, &sPath, &sRel, &tPath, &tRel); err != nil {
			return err
		}
		x.dir, _ = r.tableDir(sPath, sRel, tPath, tRel)
		x.uuid, x.schemaUUID = tUUID.String, sUUID.String
		// What the real reader refuses (refused.go), found by SQL.
		paths := r.format.Has(formats.CapTablePaths)
		switch {
		case paths && sPath.Valid && !sRel.Valid:
			x.folderRefusal = fmt.Sprintf("schema %s records path %q with a NULL path_is_relative", x.Schema, sPath.String)
		case paths && tPath.Valid && !tRel.Valid:
			x.folderRefusal = fmt.Sprintf("the table records path %q with a NULL path_is_relative", tPath.String)
		}
		out[snap] = append(out[snap], x)
		return nil
	})
	return out, err
}

// schemasBySQL is the schema part of the schema description as one query
// per snapshot read it, at each of snaps (an empty entries where
// no schema is visible), asked in one query; of schemas of the same name,
// the last in storage order is described, as a scan of the table did.
func schemasBySQL(ctx context.Context, r *Reader, snaps []int64) (map[int64]entries, error) {
	out := map[int64]entries{}
	for _, s := range snaps {
		out[s] = entries{}
	}
	err := r.eachRow(ctx, fmt.Sprintf(`SELECT q.snap, s.schema_id, s.schema_name, s.schema_uuid::VARCHAR FROM %s JOIN cat.ducklake_schema s ON %s ORDER BY q.snap, s.rowid`, snapsFrom(snaps), visibleAtQ("s")), func(rows *sql.Rows) error {
		var snap, id int64
		var name string
		var uuid sql.NullString
		if err := rows.Scan(&snap, &id, &name, &uuid); err != nil {
			return err
		}
		out[snap]["schema "+name] = fmt.Sprintf("id=%d uuid=%s", id, optString(nullString(uuid)))
		return nil
	})
	return out, err
}

// snapshotIDsAround is the ids of snaps with one before the first (-1)
// and one past the last.
func snapshotIDsAround(snaps []Snapshot) []int64 {
	ids := []int64{-1}
	for _, s := range snaps {
		ids = append(ids, s.ID)
	}
	if len(snaps) > 0 {
		ids = append(ids, snaps[len(snaps)-1].ID+1)
	}
	return ids
}

// tablesBySQLOf is what the queries per snapshot return at each of snaps:
// the tables (tablesBySQL) and the schema entries (schemasBySQL).
type tablesBySQLOf struct {
	tables  map[int64][]Table
	schemas map[int64]entries
}

func readTablesBySQL(ctx context.Context, r *Reader, snaps []int64) (tablesBySQLOf, error) {
	tables, err := tablesBySQL(ctx, r, snaps)
	if err != nil {
		return tablesBySQLOf{}, err
	}
	schemas, err := schemasBySQL(ctx, r, snaps)
	return tablesBySQLOf{tables, schemas}, err
}

// tablesMatchSQLAt requires Tables and the schema entries at a snapshot to
// be what the queries per snapshot return (want, read at s among others).
func tablesMatchSQLAt(ctx context.Context, r *Reader, s int64, want tablesBySQLOf) error {
	got, err := r.Tables(ctx, s)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(got, want.tables[s]) {
		return fmt.Errorf("snapshot %d: tables %+v, by SQL %+v", s, got, want.tables[s])
	}
	e, err := r.schemaEntries(ctx, s)
	if err != nil {
		return err
	}
	dropPrefix(e, "table ")
	dropPrefix(e, "column ")
	dropPrefix(e, "view ")
	dropPrefix(e, viewColumnTagPrefix)
	dropPrefix(e, "macro ")
	dropPrefix(e, "tag ")
	dropPrefix(e, "column tag ")
	dropPrefix(e, "partition")
	if !reflect.DeepEqual(e, want.schemas[s]) {
		return fmt.Errorf("snapshot %d: schemas %v, by SQL %v", s, e, want.schemas[s])
	}
	return nil
}

// checkTablesMatchSQL requires Tables and the schema entries at every
// snapshot of catalog (and one before the first and one past the last) to
// be what the queries per snapshot return. TestEpochAnswersMatchDirectReads
// requires it of every conformance lake's newest version.
func checkTablesMatchSQL(ctx context.Context, t *testing.T, catalog, data string) {
	t.Helper()
	r, snaps := openWithSnapshots(t, catalog, data)
	ids := snapshotIDsAround(snaps)
	want, err := readTablesBySQL(ctx, r, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ids {
		if err := tablesMatchSQLAt(ctx, r, s, want); err != nil {
			t.Error(err)
		}
	}
}

// TestTablesMatchSQLTampered: catalogs whose schema and table rows no
// writer makes (a table without its schema, lifetimes cut short or begun
// late, no beginning) still list what the queries listed.
func TestTablesMatchSQLTampered(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "21_multi_schema_options")
	for _, tc := range []struct {
		name  string
		stmts []string
	}{
		{"schema row gone", []string{"DELETE FROM ducklake_schema"}},
		{"schema ends early", []string{"UPDATE ducklake_schema SET end_snapshot = begin_snapshot + 1 WHERE schema_id = (SELECT max(schema_id) FROM ducklake_schema)"}},
		{"table ends early", []string{"UPDATE ducklake_table SET end_snapshot = begin_snapshot + 1"}},
		{"schema begins late", []string{"UPDATE ducklake_schema SET begin_snapshot = begin_snapshot + 2"}},
		// A NULL begin_snapshot, or path_is_relative beside a path: the
		// catalog is not opened at all (formats.CheckRequired,
		// TestCatalogsNullRequiredField, TestOpenNullRequiredElsewhere).
		{"NULL path_is_relative and uuids", []string{"UPDATE ducklake_table SET path = NULL, path_is_relative = NULL WHERE table_id = (SELECT min(table_id) FROM ducklake_table)",
			"UPDATE ducklake_table SET table_uuid = NULL WHERE table_id = (SELECT max(table_id) FROM ducklake_table)",
			"UPDATE ducklake_schema SET schema_uuid = NULL WHERE schema_id = (SELECT max(schema_id) FROM ducklake_schema)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := tamper(t, catalog, tc.stmts...)
			checkTablesMatchSQL(ctx, t, cat, filepath.Join(lake, "data"))
		})
	}
}

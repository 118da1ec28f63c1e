package compare

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// tablesBySQL is what Tables returned before it read ducklake_schema and
// ducklake_table once per reader: one query per snapshot, the visible
// tables joined with their visible schemas.
func tablesBySQL(ctx context.Context, r *Reader, snap int64) ([]Table, error) {
	q := fmt.Sprintf(`SELECT t.table_id, s.schema_name, t.table_name, s.schema_id, t.begin_snapshot,
		t.table_uuid::VARCHAR, s.schema_uuid::VARCHAR, %s, %s, %s, %s
		FROM cat.ducklake_table t JOIN cat.ducklake_schema s ON s.schema_id = t.schema_id AND %s
		WHERE %s ORDER BY s.schema_name, t.table_name`,
		r.col("ducklake_schema", "s", "path"), r.col("ducklake_schema", "s", "path_is_relative"),
		r.col("ducklake_table", "t", "path"), r.col("ducklake_table", "t", "path_is_relative"),
		visible("s", snap), visible("t", snap))
	var out []Table
	err := r.eachRow(ctx, q, func(rows *sql.Rows) error {
		var x Table
		var sPath, tPath sql.NullString
		var sRel, tRel sql.NullBool
		var tUUID, sUUID sql.NullString
		if err := rows.Scan(&x.ID, &x.Schema, &x.Name, &x.SchemaID, &x.BeginSnapshot, &tUUID, &sUUID, &sPath, &sRel, &tPath, &tRel); err != nil {
			return err
		}
		x.dir, _ = r.tableDir(sPath, sRel, tPath, tRel)
		x.uuid, x.schemaUUID = tUUID.String, sUUID.String
		// What the real reader refuses (refused.go), found by SQL.
		paths := r.format.Has(formats.CapTablePaths)
		switch {
		case !sUUID.Valid:
			x.folderRefusal = fmt.Sprintf("schema %s has a NULL schema_uuid", x.Schema)
		case !tUUID.Valid:
			x.folderRefusal = "the table has a NULL table_uuid"
		case paths && sPath.Valid && !sRel.Valid:
			x.folderRefusal = fmt.Sprintf("schema %s records path %q with a NULL path_is_relative", x.Schema, sPath.String)
		case paths && tPath.Valid && !tRel.Valid:
			x.folderRefusal = fmt.Sprintf("the table records path %q with a NULL path_is_relative", tPath.String)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// schemasBySQL is the schema part of the schema description as one query
// per snapshot read it.
func schemasBySQL(ctx context.Context, t *testing.T, r *Reader, snap int64) entries {
	t.Helper()
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT s.schema_id, s.schema_name, s.schema_uuid::VARCHAR FROM cat.ducklake_schema s WHERE %s`, visible("s", snap)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	e := entries{}
	for rows.Next() {
		var id int64
		var name string
		var uuid sql.NullString
		if err := rows.Scan(&id, &name, &uuid); err != nil {
			t.Fatal(err)
		}
		e["schema "+name] = fmt.Sprintf("id=%d uuid=%s", id, optString(nullString(uuid)))
	}
	return e
}

// checkTablesMatchSQL requires Tables and the schema entries at every
// snapshot of catalog (and one past the last) to be what the queries per
// snapshot return.
func checkTablesMatchSQL(ctx context.Context, t *testing.T, catalog, data string) (tables int) {
	t.Helper()
	r, snaps := openWithSnapshots(t, catalog, data)
	ids := []int64{-1}
	for _, s := range snaps {
		ids = append(ids, s.ID)
	}
	if len(snaps) > 0 {
		ids = append(ids, snaps[len(snaps)-1].ID+1)
	}
	for _, s := range ids {
		got, err := r.Tables(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tablesBySQL(ctx, r, s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("snapshot %d: tables %+v, by SQL %+v", s, got, want)
		}
		tables += len(got)
		e, err := r.schemaEntries(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		dropPrefix(e, "table ")
		dropPrefix(e, "column ")
		dropPrefix(e, "view ")
		dropPrefix(e, "macro ")
		dropPrefix(e, "tag ")
		dropPrefix(e, "column tag ")
		dropPrefix(e, "partition")
		if want := schemasBySQL(ctx, t, r, s); !reflect.DeepEqual(e, want) {
			t.Errorf("snapshot %d: schemas %v, by SQL %v", s, e, want)
		}
	}
	return tables
}

// TestTablesMatchSQL: the tables and schemas visible at each snapshot,
// found among the rows read once per reader, are what the queries per
// snapshot found, in every lake of the conformance archives (renamed and
// dropped schemas and tables, table paths, every format).
func TestTablesMatchSQL(t *testing.T) {
	ctx := context.Background()
	for _, archive := range []string{"lakes", "lakes-0.3", "lakes-1.1-dev1", "migrations"} {
		lakes, err := os.ReadDir(testlakes.Dir(t, archive))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lakes {
			lake := filepath.Join(testlakes.Dir(t, archive), l.Name())
			catalogs, _ := filepath.Glob(filepath.Join(lake, "versions", "*", "ducklake.duckdb"))
			if len(catalogs) == 0 || strings.HasPrefix(l.Name(), "zz_") { // zz_: catalogs DuckDB cannot open
				continue
			}
			t.Run(archive+"/"+l.Name(), func(t *testing.T) {
				t.Parallel() // a reader of its own on a lake it only reads
				checkTablesMatchSQL(ctx, t, catalogs[len(catalogs)-1], filepath.Join(lake, "data"))
			})
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
		{"NULL begin", []string{"UPDATE ducklake_table SET begin_snapshot = NULL WHERE table_id = (SELECT min(table_id) FROM ducklake_table)"}},
		{"NULL path_is_relative and uuids", []string{"UPDATE ducklake_table SET path_is_relative = NULL WHERE table_id = (SELECT min(table_id) FROM ducklake_table)",
			"UPDATE ducklake_table SET table_uuid = NULL WHERE table_id = (SELECT max(table_id) FROM ducklake_table)",
			"UPDATE ducklake_schema SET schema_uuid = NULL WHERE schema_id = (SELECT max(schema_id) FROM ducklake_schema)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := tamper(t, catalog, tc.stmts...)
			checkTablesMatchSQL(ctx, t, cat, filepath.Join(lake, "data"))
		})
	}
}

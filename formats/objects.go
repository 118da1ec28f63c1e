package formats

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// ErrNotBaseTable is returned (wrapped) for a catalog in which an object
// named like a DuckLake bookkeeping table is not a base table of its
// metadata schema (CheckObjects).
var ErrNotBaseTable = errors.New("an object named like a DuckLake table is not a base table of the catalog's metadata schema")

// Object is a named object of a DuckDB database: a base table, a view or
// a sequence.
type Object struct {
	Schema, Name string
	// Kind is "table", "view" or "sequence".
	Kind string
}

// objectsSQL lists the objects of one attached database (its name, as an
// SQL string, is the format's one argument: a plain query, not prepared,
// took half the time) whose name starts with "ducklake_" in any letter
// case, as DuckDB resolves names: the base tables outside schema main are
// listed too, the caller keeps those of the metadata schema. Left out, as
// no query of DuckLake's can read them in a table's place: types and
// indexes; macros and table macros (a table macro is called with
// parentheses, never by a table reference, and DuckLake calls no function
// of its metadata database), which only duckdb_functions() lists, at about
// 100 ms a call as it builds a row for every built-in function (a
// catalog's other objects take about 1 ms). The letter case is ASCII's
// only (ASCIILowerSQL): DuckDB resolves "duc\u212Alake_data_file" (the
// Kelvin sign) to no DuckLake table, though lower() lowers it to one.
var objectsSQL = objectKinds(func(kind, name, named string) (cols, where string) {
	return `schema_name, ` + name + `, '` + kind + `'`, named
}) + `
	ORDER BY 1, 2, 3`

// objectKinds is the UNION ALL of a select of each kind of object
// objectsSQL lists (table, view, sequence), from the function that lists
// them, of database %[1]s: arm gives its columns and its filter, from the
// kind, its name column and named, the condition that the name is a
// DuckLake table's in ASCII letter case (objectsSQL's filter). objectsSQL
// and listingSQL (which widens the tables' filter) both list through it,
// so that they list the same objects.
func objectKinds(arm func(kind, name, named string) (cols, where string)) string {
	var parts []string
	for _, k := range [...]struct{ kind, from, name string }{
		{"table", "duckdb_tables()", "table_name"},
		{"view", "duckdb_views()", "view_name"},
		{"sequence", "duckdb_sequences()", "sequence_name"},
	} {
		cols, where := arm(k.kind, k.name, `starts_with(`+ASCIILowerSQL(k.name)+`, 'ducklake_')`)
		parts = append(parts, `SELECT `+cols+` FROM `+k.from+` WHERE database_name = %[1]s AND (`+where+`)`)
	}
	return strings.Join(parts, "\n\tUNION ALL ")
}

// Querier is what the functions that read a catalog's rows (ReadObjects,
// ReadMetadata, FileColumnPairs, ...) need of a DuckDB connection: a *sql.DB,
// *sql.Conn or *sql.Tx the caller opened.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// ReadObjects lists the objects of attached database db named like DuckLake
// tables (case-insensitively "ducklake_..."), in schema and name order.
func ReadObjects(ctx context.Context, q Querier, db string) ([]Object, error) {
	rows, err := q.QueryContext(ctx, fmt.Sprintf(objectsSQL, "'"+strings.ReplaceAll(db, "'", "''")+"'"))
	if err != nil {
		return nil, fmt.Errorf("list the objects of %s: %w", db, err)
	}
	defer rows.Close()
	var out []Object
	for rows.Next() {
		var o Object
		if err := rows.Scan(&o.Schema, &o.Name, &o.Kind); err != nil {
			return nil, fmt.Errorf("list the objects of %s: %w", db, err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the objects of %s: %w", db, err)
	}
	return out, nil
}

// Listing is what ReadListing reads of an attached database in one
// statement: its objects as ReadObjects lists them, the columns of the
// tables and views of one schema, and the statements of that schema's
// tables that name a collation or a generated column.
type Listing struct {
	// Objects are ReadObjects' answer, in its order.
	Objects []Object
	// Columns are the schema's tables' and views' columns, by table name
	// and column position: the rows of duckdb_columns().
	Columns []ListedColumn
	// Statements are the CREATE statements (duckdb_tables().sql) of the
	// schema's tables that mention COLLATE or GENERATED (ASCII letter case
	// aside), by table name: what TypedWithCollations reads.
	Statements map[string]string
	// Tables are every base table of the database, of every schema (its
	// schema, its name), in schema and name order: the rows of
	// duckdb_tables() the statement reads anyway.
	Tables [][2]string
}

// ListedColumn is a column of a table or view: its table, name and
// DuckDB type as duckdb_columns() names them.
type ListedColumn struct{ Table, Name, Type string }

// listingSQL is objectsSQL, the schema's columns and its tables'
// statements in one statement (arguments: the database and the schema as
// SQL strings): duckdb_tables() renders every table's statement once for
// the objects and the statements, and a reader that opens a catalog runs
// one statement where it ran three (about 0.6 ms of CPU less an open,
// docs/compare.md "Where a proof's time goes"). part 0 are columns, part
// 1 objects (o: named like a DuckLake table), statements (v not NULL) or
// other tables (Listing.Tables: every table has a row).
var listingSQL = `SELECT 0 AS part, schema_name AS s, table_name AS n, column_name AS c, data_type AS v, column_index AS i, false AS o FROM duckdb_columns() WHERE database_name = %[1]s AND schema_name = %[2]s
	UNION ALL ` + objectKinds(func(kind, name, named string) (cols, where string) {
	if kind == "table" {
		// The objects, and the schema's tables with a statement to keep.
		// Every base table of the database, of any schema (Tables).
		statement := `schema_name = %[2]s AND (sql ILIKE '%%COLLATE%%' OR sql ILIKE '%%GENERATED%%')`
		return `1, schema_name, table_name, 'table', CASE WHEN ` + statement + ` THEN sql END, NULL, ` + named + ` AS o`, `true`
	}
	return `1, schema_name, ` + name + `, '` + kind + `', NULL, NULL, true`, named
}) + `
	ORDER BY part, s, n, i, c`

// ReadListing reads, in one statement, the objects of attached database db
// named like DuckLake tables (ReadObjects), the columns of schema's tables
// and views, the statements of schema's tables that name a collation
// or a generated column, and every table of db (Listing).
func ReadListing(ctx context.Context, q Querier, db, schema string) (*Listing, error) {
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	rows, err := q.QueryContext(ctx, fmt.Sprintf(listingSQL, lit(db), lit(schema)))
	if err != nil {
		return nil, fmt.Errorf("list the objects and columns of %s: %w", db, err)
	}
	defer rows.Close()
	l := &Listing{Statements: map[string]string{}}
	for rows.Next() {
		var part int
		var s, n string
		var c, v sql.NullString
		var i sql.NullInt64
		var o bool
		if err := rows.Scan(&part, &s, &n, &c, &v, &i, &o); err != nil {
			return nil, fmt.Errorf("list the objects and columns of %s: %w", db, err)
		}
		switch {
		case part == 0:
			// A view DuckDB cannot bind has one column without a name
			// or type.
			if !c.Valid || !v.Valid {
				return nil, fmt.Errorf("list the columns of %s: %s.%s has a column without a name or type (a view DuckDB cannot bind)", db, s, n)
			}
			l.Columns = append(l.Columns, ListedColumn{Table: n, Name: c.String, Type: v.String})
			continue
		case v.Valid:
			l.Statements[n] = v.String
		}
		if c.String == "table" {
			l.Tables = append(l.Tables, [2]string{s, n})
		}
		if o {
			l.Objects = append(l.Objects, Object{Schema: s, Name: n, Kind: c.String})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the objects and columns of %s: %w", db, err)
	}
	return l, nil
}

// NotBaseTableError is a catalog in which objects named like DuckLake
// tables are not base tables of its metadata schema (CheckObjects). It
// matches ErrNotBaseTable.
type NotBaseTableError struct {
	// Catalog names the catalog's file.
	Catalog string
	// Objects describes each object: schema, name and kind.
	Objects []string
}

func (e *NotBaseTableError) Error() string {
	return "catalog " + oneline.Name(e.Catalog) + ": " + e.Detail()
}

// Detail is the error without the catalog's name.
func (e *NotBaseTableError) Detail() string {
	return fmt.Sprintf("%s: %s (DuckLake reads its tables with SQL by name: such an object answers in a table's place, or beside it for a reader of another metadata schema)", ErrNotBaseTable, strings.Join(e.Objects, "; "))
}

// Is matches ErrNotBaseTable.
func (e *NotBaseTableError) Is(target error) bool { return target == ErrNotBaseTable }

// CheckObjects refuses catalog (a file name, for the error) when an object
// named like a DuckLake bookkeeping table is anything but a base table of
// its metadata schema (main, unless the catalog keeps its tables in
// another one): DuckLake reads its tables with SQL by name, and DuckDB
// resolves names without regard to letter case, so a view called
// ducklake_data_file answers DuckLake's queries in the table's place, with
// rows that may depend on the DuckDB release, the date or anything else a
// view can compute; a base table of that name in another schema is what a
// reader attached with another metadata schema reads. Sequences of such
// names are no part of any DuckLake catalog either.
// The error is a *NotBaseTableError naming every such object with its kind.
func CheckObjects(catalog string, objs []Object, metadataSchema string) error {
	var bad []string
	for _, o := range objs {
		if !strings.HasPrefix(ASCIILower(o.Name), "ducklake_") {
			continue
		}
		switch {
		case o.Kind == "table" && o.Schema == metadataSchema:
		case o.Kind == "table":
			bad = append(bad, fmt.Sprintf("%s.%s is a table outside the metadata schema %s", o.Schema, o.Name, metadataSchema))
		default:
			bad = append(bad, fmt.Sprintf("%s.%s is a %s", o.Schema, o.Name, o.Kind))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &NotBaseTableError{Catalog: catalog, Objects: bad}
}

// ErrInlinedRegistration is returned (wrapped) for a catalog whose inlined
// tables a converter cannot carry by name (CheckInlined).
var ErrInlinedRegistration = errors.New("the catalog's inlined tables are not where DuckLake writes them")

// Registration is a row of ducklake_inlined_data_tables.
type Registration struct {
	TableID       int64
	Name          string
	SchemaVersion int64
}

// ReadRegistrations reads the rows of ducklake_inlined_data_tables in
// schema schema of attached database db.
func ReadRegistrations(ctx context.Context, q Querier, db, schema string) ([]Registration, error) {
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	rows, err := q.QueryContext(ctx, fmt.Sprintf(`SELECT table_id, table_name, schema_version FROM %s.%s.ducklake_inlined_data_tables ORDER BY ALL`, quote(db), quote(schema)))
	if err != nil {
		return nil, fmt.Errorf("read the inlined data tables of %s: %w", db, err)
	}
	defer rows.Close()
	var out []Registration
	for rows.Next() {
		var id, sv sql.NullInt64
		var name sql.NullString
		if err := rows.Scan(&id, &name, &sv); err != nil {
			return nil, fmt.Errorf("read the inlined data tables of %s: %w", db, err)
		}
		out = append(out, Registration{TableID: id.Int64, Name: name.String, SchemaVersion: sv.Int64})
		if !id.Valid || !name.Valid || !sv.Valid {
			out[len(out)-1].Name = "\x00" // never a table's name: refused below
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the inlined data tables of %s: %w", db, err)
	}
	return out, nil
}

// CheckInlined refuses catalog (a file name, for the error) when its
// inlined tables are not all where DuckLake writes them, lower-case base
// tables of metadataSchema, as a converter that copies them by name
// needs: the readers read each table a registration of
// ducklake_inlined_data_tables names, whatever that name, and find
// ducklake_inlined_delete_<table id> in any letter case (DuckDB binds
// their unquoted names case-insensitively). So a registration must name
// ducklake_inlined_data_<table id>_<schema version>, a base table of the
// metadata schema, and no object is named like an inlined table in other
// letters. objs are the catalog's objects (ReadObjects). The error
// matches ErrInlinedRegistration.
func CheckInlined(catalog string, objs []Object, regs []Registration, metadataSchema string) error {
	var bad []string
	tables := map[string]bool{}
	for _, o := range objs {
		if o.Schema != metadataSchema {
			continue
		}
		if o.Kind == "table" {
			tables[o.Name] = true
		}
		if lower := ASCIILower(o.Name); lower != o.Name && IsDynamicTable(lower) {
			bad = append(bad, fmt.Sprintf("%s.%s is named like an inlined table in other letters (readers find it; DuckLake writes %s)", o.Schema, o.Name, lower))
		}
	}
	for _, g := range regs {
		want := fmt.Sprintf("ducklake_inlined_data_%d_%d", g.TableID, g.SchemaVersion)
		switch {
		case g.Name == "\x00":
			// A NULL field: CheckRequired names its column and row.
			continue
		case g.Name != want:
			bad = append(bad, fmt.Sprintf("ducklake_inlined_data_tables registers %q for table %d, schema version %d (DuckLake names it %s)", g.Name, g.TableID, g.SchemaVersion, want))
		case !tables[g.Name]:
			bad = append(bad, fmt.Sprintf("ducklake_inlined_data_tables registers %s, which is not a base table of schema %s (readers fail to read it)", g.Name, metadataSchema))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("catalog %s: %w: %s", catalog, ErrInlinedRegistration, strings.Join(bad, "; "))
}

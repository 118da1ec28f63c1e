package convert

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// work is the in-memory working copy of a catalog's metadata tables. All
// steps run against it; the source file is only ever attached read-only.
type work struct {
	conn   *sql.Conn
	schema string // metadata schema of the source ("main" unless METADATA_SCHEMA)
}

// quote quotes an identifier for DuckDB.
func quote(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }

// literal quotes a string literal for DuckDB.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// openSource attaches src read-only on conn and returns the metadata schema,
// the version row and the layout of its static tables. Errors say which of
// "missing", "not DuckDB", "newer storage", "truncated" or "not DuckLake" it is.
func openSource(ctx context.Context, conn *sql.Conn, src string) (schema, stamp string, layout formats.Layout, dynamic []string, err error) {
	if st, statErr := os.Stat(src); statErr != nil {
		return "", "", nil, nil, fmt.Errorf("open catalog %s: %w", src, statErr)
	} else if st.IsDir() {
		return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: it is a directory", src, ErrNotCatalog)
	}
	if err := checkComplete(src); err != nil {
		return "", "", nil, nil, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS src (READ_ONLY)", literal(src))); err != nil {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "newer version of DuckDB"):
			return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: DuckDB %s cannot open it (%s); re-save it with an older STORAGE_VERSION such as v1.5.0", src, ErrStorageTooNew, duckdbVersion(ctx, conn), oneline.First(msg))
		case strings.Contains(msg, "not a valid DuckDB database file"):
			return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: not a DuckDB database file", src, ErrNotCatalog)
		default:
			return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: unreadable DuckDB file (truncated or corrupt?): %s", src, ErrNotCatalog, oneline.First(msg))
		}
	}
	rows, err := conn.QueryContext(ctx, `SELECT schema_name, table_name, column_name FROM duckdb_columns()
		WHERE database_name = 'src' AND table_name LIKE 'ducklake\_%' ESCAPE '\' ORDER BY schema_name, table_name, column_index`)
	if err != nil {
		return "", "", nil, nil, sourceReadError(src, "read tables of", err)
	}
	defer rows.Close()
	bySchema := map[string]formats.Layout{}
	dyn := map[string][]string{}
	for rows.Next() {
		var s, t, c string
		if err := rows.Scan(&s, &t, &c); err != nil {
			return "", "", nil, nil, err
		}
		if bySchema[s] == nil {
			bySchema[s] = formats.Layout{}
		}
		if formats.IsDynamicTable(t) {
			if len(dyn[s]) == 0 || dyn[s][len(dyn[s])-1] != t {
				dyn[s] = append(dyn[s], t)
			}
			continue
		}
		bySchema[s][t] = append(bySchema[s][t], c)
	}
	if err := rows.Err(); err != nil {
		return "", "", nil, nil, err
	}
	for s, l := range bySchema {
		if _, ok := l["ducklake_metadata"]; ok {
			if schema != "" {
				return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: DuckLake tables in schemas %s and %s", src, ErrNotCatalog, schema, s)
			}
			schema, layout, dynamic = s, l, dyn[s]
		}
	}
	if schema == "" {
		return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: no ducklake_metadata table", src, ErrNotCatalog)
	}
	q := fmt.Sprintf("SELECT value FROM src.%s.ducklake_metadata WHERE key = 'version'", quote(schema))
	var stamps []string
	vrows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return "", "", nil, nil, sourceReadError(src, "read version of", err)
	}
	defer vrows.Close()
	for vrows.Next() {
		var v string
		if err := vrows.Scan(&v); err != nil {
			return "", "", nil, nil, err
		}
		stamps = append(stamps, v)
	}
	if len(stamps) != 1 {
		return "", "", nil, nil, fmt.Errorf("open catalog %s: %w: %d version rows in ducklake_metadata, want 1", src, ErrNotCatalog, len(stamps))
	}
	sort.Strings(dynamic)
	return schema, stamps[0], layout, dynamic, nil
}

func duckdbVersion(ctx context.Context, conn *sql.Conn) string {
	var v string
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "(unknown)"
	}
	return v
}

// layout lists the working copy's static tables with their columns in
// order, and its dynamic (inlined) tables.
func (w *work) layout(ctx context.Context) (formats.Layout, []string, error) {
	rows, err := w.conn.QueryContext(ctx, `SELECT table_name, column_name FROM duckdb_columns()
		WHERE database_name = 'memory' AND schema_name = 'main' ORDER BY table_name, column_index`)
	if err != nil {
		return nil, nil, fmt.Errorf("read working tables: %w", err)
	}
	defer rows.Close()
	layout := formats.Layout{}
	var dynamic []string
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, nil, err
		}
		if formats.IsDynamicTable(t) {
			if len(dynamic) == 0 || dynamic[len(dynamic)-1] != t {
				dynamic = append(dynamic, t)
			}
			continue
		}
		layout[t] = append(layout[t], c)
	}
	return layout, dynamic, rows.Err()
}

func (w *work) exec(ctx context.Context, query string, args ...any) error {
	if _, err := w.conn.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	return nil
}

// strings runs a query returning one text column.
func (w *work) strings(ctx context.Context, query string) ([]string, error) {
	rows, err := w.conn.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s.String)
	}
	return out, rows.Err()
}

func (w *work) count(ctx context.Context, query string) (int64, error) {
	var n int64
	if err := w.conn.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", oneline.First(strings.TrimSpace(query)), err)
	}
	return n, nil
}

func (w *work) hasTable(ctx context.Context, name string) (bool, error) {
	n, err := w.count(ctx, fmt.Sprintf(`SELECT count(*) FROM duckdb_tables() WHERE database_name = 'memory' AND schema_name = 'main' AND table_name = %s`, literal(name)))
	return n > 0, err
}

func (w *work) hasColumn(ctx context.Context, table, column string) (bool, error) {
	n, err := w.count(ctx, fmt.Sprintf(`SELECT count(*) FROM duckdb_columns() WHERE database_name = 'memory' AND schema_name = 'main' AND table_name = %s AND column_name = %s`, literal(table), literal(column)))
	return n > 0, err
}

// copyIn copies every DuckLake table of the attached source into the
// working database, keeping column types and row order.
func (w *work) copyIn(ctx context.Context, layout formats.Layout, dynamic []string) error {
	names := make([]string, 0, len(layout)+len(dynamic))
	for t := range layout {
		names = append(names, t)
	}
	names = append(names, dynamic...)
	sort.Strings(names)
	for _, t := range names {
		q := fmt.Sprintf("CREATE TABLE main.%s AS SELECT * FROM src.%s.%s", quote(t), quote(w.schema), quote(t))
		if err := w.exec(ctx, q); err != nil {
			return fmt.Errorf("copy table %s: %w", t, err)
		}
	}
	return nil
}

var errInternal = errors.New("internal error")

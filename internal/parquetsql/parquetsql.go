// Package parquetsql writes a Parquet file's path as the argument of
// DuckDB's read_parquet and parquet_schema, so that DuckDB reads the file
// of that very name and no other. compare and convert both read the data
// and delete files a catalog lists; neither may let DuckDB expand a glob.
package parquetsql

import (
	"context"
	"database/sql"
	"runtime"
	"strings"
)

// Path returns p as a SQL string literal with DuckDB's glob characters
// escaped (Escape): DuckDB expands them in any path given to read_parquet
// or parquet_schema, even alone in a list (`a*b.parquet` also reads
// `axxb.parquet`, `[1].parquet` reads `1.parquet`), where DuckLake hands
// DuckDB its list of files unexpanded.
//
// It runs for every file of every read plan a comparison builds: a path
// without glob characters, the usual one, costs no more than the literal
// (a strings.Replacer built per call was a tenth of what a backfill
// allocated).
func Path(p string) string { return literal(Escape(p)) }

// Escape is p with DuckDB's glob characters escaped as one-character
// classes (`*` as `[*]`, `?` as `[?]`, `[` as `[[]`), the pattern Path
// hands DuckDB; a path without them is unchanged. DuckDB checks that
// pattern, not the path it matches, against a sandbox's
// allowed_directories and allowed_paths before it globs (package
// duckpool, Reach).
//
// Left as it is: an http(s) URL (DuckDB does not expand globs there, so an
// escaped name would not exist), and, outside Windows, a path with a
// backslash (DuckDB's glob then matches nothing and opens the literal
// path, which the escaped name would not be). file:// paths are escaped:
// DuckDB expands globs in them.
func Escape(p string) string {
	if !strings.ContainsAny(p, "*?[") {
		return p
	}
	lower := strings.ToLower(p)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") ||
		(runtime.GOOS != "windows" && strings.Contains(p, `\`)) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 8)
	for _, c := range []byte(p) {
		switch c {
		case '*', '?', '[':
			b.WriteByte('[')
			b.WriteByte(c)
			b.WriteByte(']')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Describe returns the names and DuckDB types of a query's columns
// (DESCRIBE q), as the proof and the converter both read them.
func Describe(ctx context.Context, conn *sql.Conn, q string) (names, types []string, err error) {
	rows, err := conn.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE "+q+")")
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n, t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, nil, err
		}
		names, types = append(names, n), append(types, t)
	}
	return names, types, rows.Err()
}

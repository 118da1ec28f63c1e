// Package probe is the reading logic shared by the realduckdb programs: each
// links one DuckDB release, opens DuckDB files read-only with a plain ATTACH
// and prints, as JSON, that DuckDB's version and each table's row count and
// content digest (digest.sql: md5 of the sorted text of the rows, so the
// order rows come in does not matter). With -queries FILE (a JSON array of
// SELECT statements: read_parquet of Parquet files, say) it runs each
// statement instead and reports its row count and digest, or its error.
// The fdl-formats tests compare these readings with DuckDB 1.5.6's, which
// reads with the same SQL files.
package probe

import (
	"database/sql"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// DigestSQL reads one table: its row count and digest, as text; {table}
// stands for the table's quoted name.
//
//go:embed digest.sql
var DigestSQL string

// TablesSQL lists the (schema, table) pairs of the database attached as f.
//
//go:embed tables.sql
var TablesSQL string

// Querier runs statements in one DuckDB session.
type Querier interface {
	// Exec runs a statement that returns no rows (ATTACH, SET, DETACH).
	Exec(stmt string) error
	// Query runs a SELECT and returns its rows as text (NULL as "").
	Query(query string) ([][]string, error)
}

// Report is what a program prints.
type Report struct {
	DuckDB  string  `json:"duckdb"`
	Files   []File  `json:"files"`
	Queries []Query `json:"queries,omitempty"`
}

// Query is one statement's reading: its rows' count and digest (DigestSQL
// over it), or its error.
type Query struct {
	SQL    string `json:"sql"`
	Rows   string `json:"rows"`
	Digest string `json:"digest"`
	Error  string `json:"error,omitempty"`
}

// File is one DuckDB file's reading; Error is set when it does not open.
type File struct {
	Path      string  `json:"path"`
	Error     string  `json:"error,omitempty"`
	BlockSize string  `json:"block_size,omitempty"`
	Tables    []Table `json:"tables,omitempty"`
}

// Table is one table's reading; Error is set when it cannot be read.
type Table struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Rows   string `json:"rows"`
	Digest string `json:"digest"`
	Error  string `json:"error,omitempty"`
}

// Main reads the files named on the command line and prints the report;
// it returns the exit code (errors opening a file are data, not failures).
func Main(q Querier) int {
	var rep *Report
	var err error
	if len(os.Args) == 3 && os.Args[1] == "-queries" {
		var stmts []string
		data, rerr := os.ReadFile(os.Args[2])
		if rerr == nil {
			rerr = json.Unmarshal(data, &stmts)
		}
		if rerr != nil {
			fmt.Fprintln(os.Stderr, "read the queries:", rerr)
			return 1
		}
		rep, err = RunQueries(q, stmts)
	} else {
		rep, err = Read(q, os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := Print(os.Stdout, rep); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Read opens each file read-only, one at a time, and reads every table.
func Read(q Querier, paths []string) (*Report, error) {
	v, err := q.Query("SELECT version()")
	if err != nil || len(v) != 1 || len(v[0]) != 1 {
		return nil, fmt.Errorf("SELECT version(): %v %v", v, err)
	}
	// TIMESTAMPTZ values print in the session's time zone.
	if err := q.Exec("SET TimeZone = 'UTC'"); err != nil {
		return nil, fmt.Errorf("set the time zone: %w", err)
	}
	rep := &Report{DuckDB: strings.TrimPrefix(v[0][0], "v"), Files: []File{}}
	for _, p := range paths {
		f := File{Path: p}
		if err := q.Exec("ATTACH " + literal(p) + " AS f (READ_ONLY)"); err != nil {
			f.Error = err.Error()
			rep.Files = append(rep.Files, f)
			continue
		}
		if rows, err := q.Query("SELECT CAST(block_size AS VARCHAR) FROM pragma_database_size() WHERE database_name = 'f'"); err == nil && len(rows) == 1 {
			f.BlockSize = rows[0][0]
		}
		tables, err := q.Query(TablesSQL)
		if err != nil {
			f.Error = "list tables: " + err.Error()
		}
		for _, r := range tables {
			t := Table{Schema: r[0], Name: r[1]}
			got, err := q.Query(strings.Replace(DigestSQL, "{table}", "f."+ident(t.Schema)+"."+ident(t.Name), 1))
			switch {
			case err != nil:
				t.Error = err.Error()
			case len(got) != 1 || len(got[0]) != 2:
				t.Error = fmt.Sprintf("digest query returned %q", got)
			default:
				t.Rows, t.Digest = got[0][0], got[0][1]
			}
			f.Tables = append(f.Tables, t)
		}
		if err := q.Exec("DETACH f"); err != nil {
			return nil, fmt.Errorf("detach %s: %w", p, err)
		}
		rep.Files = append(rep.Files, f)
	}
	return rep, nil
}

// RunQueries runs each statement, as a subquery of DigestSQL, in one
// session (time zone UTC); a statement's error is data, not a failure.
func RunQueries(q Querier, stmts []string) (*Report, error) {
	v, err := q.Query("SELECT version()")
	if err != nil || len(v) != 1 || len(v[0]) != 1 {
		return nil, fmt.Errorf("SELECT version(): %v %v", v, err)
	}
	if err := q.Exec("SET TimeZone = 'UTC'"); err != nil {
		return nil, fmt.Errorf("set the time zone: %w", err)
	}
	rep := &Report{DuckDB: strings.TrimPrefix(v[0][0], "v"), Files: []File{}, Queries: []Query{}}
	for _, s := range stmts {
		r := Query{SQL: s}
		got, err := q.Query(strings.Replace(DigestSQL, "{table}", "("+s+")", 1))
		switch {
		case err != nil:
			r.Error = err.Error()
		case len(got) != 1 || len(got[0]) != 2:
			r.Error = fmt.Sprintf("digest query returned %q", got)
		default:
			r.Rows, r.Digest = got[0][0], got[0][1]
		}
		rep.Queries = append(rep.Queries, r)
	}
	return rep, nil
}

// Print writes the report as indented JSON.
func Print(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// DB reads through database/sql (the duckdb-go driver).
type DB struct{ *sql.DB }

// Exec implements Querier.
func (db DB) Exec(stmt string) error {
	_, err := db.DB.Exec(stmt)
	return err
}

// Query implements Querier.
func (db DB) Query(query string) ([][]string, error) {
	rows, err := db.DB.Query(query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// OpenDB opens an in-memory DuckDB through database/sql on one connection
// (ATTACH and SET belong to the session).
func OpenDB(driver string) (DB, error) {
	db, err := sql.Open(driver, "")
	if err != nil {
		return DB{}, err
	}
	db.SetMaxOpenConns(1)
	return DB{db}, nil
}

// CSV reads through a bare statement runner (the C API of the raw
// duckdb-go-bindings, which has no text getter that works on every release):
// a query's rows are copied to a CSV file in Dir and read back.
type CSV struct {
	Run func(stmt string) error
	Dir string
}

// Exec implements Querier.
func (c CSV) Exec(stmt string) error { return c.Run(stmt) }

// Query implements Querier.
func (c CSV) Query(query string) ([][]string, error) {
	f, err := os.CreateTemp(c.Dir, "query-*.csv")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	f.Close()
	defer os.Remove(name)
	if err := c.Run("COPY (" + query + ") TO " + literal(name) + " (FORMAT csv, HEADER false)"); err != nil {
		return nil, err
	}
	data, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer data.Close()
	return csv.NewReader(data).ReadAll()
}

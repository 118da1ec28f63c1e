// Package realduckdb reads DuckDB files with real DuckDB releases other than
// the one linked into this module (older ones, and DuckDB 2.0.0), so that
// tests prove what a user of that release sees. A binary cannot link two
// DuckDBs, so each release is a small Go module of its own under
// testdata/realduckdb (duckdb-<release>/, pinned to the duckdb-go or raw
// duckdb-go-bindings version that links it; probe/ is their shared logic and
// SQL). Build compiles one with the go command (modules from the Go module
// proxy) into the user cache, once per content of its sources; Read runs it.
// ReadLinked reads the same way with the DuckDB linked into this module, with
// the same SQL (probe/digest.sql, probe/tables.sql), so that readings compare.
// ReadQueries and ReadQueriesLinked run given statements instead (read_parquet of
// Parquet files, say) and read each one's rows the same way.
package realduckdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/fdl-formats/fdl-formats/internal/testbin"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Release is one DuckDB release a probe program links.
type Release struct {
	// DuckDB is the release ("1.4.3").
	DuckDB string
	// Module is its folder under testdata/realduckdb.
	Module string
	// Binding names what links it, for reports.
	Binding string
}

// Releases are the DuckDBs the tests read with, oldest first: the older
// releases and 2.0.0, newer than the linked 1.5.6.
var Releases = []Release{
	{"1.3.0", "duckdb-1.3.0", "duckdb-go-bindings/linux-amd64 v0.1.10 (raw C API)"},
	{"1.3.2", "duckdb-1.3.2", "duckdb-go-bindings/linux-amd64 v0.1.12 (raw C API)"},
	{"1.4.3", "duckdb-1.4.3", "duckdb-go/v2 v2.5.4"},
	{"1.5.0", "duckdb-1.5.0", "duckdb-go/v2 v2.10500.0"},
	{"1.5.1", "duckdb-1.5.1", "duckdb-go/v2 v2.10501.0"},
	{"2.0.0", "duckdb-2.0.0", "duckdb-go/v2 v2.20000.0"},
}

// Report is a probe's reading: its DuckDB and each file's tables, or each
// query's rows (ReadQueries, ReadQueriesLinked).
type Report struct {
	DuckDB  string  `json:"duckdb"`
	Files   []File  `json:"files"`
	Queries []Query `json:"queries,omitempty"`
}

// Query is one statement's reading: the row count and content digest of
// its rows (probe/digest.sql over it as a subquery), or its error.
type Query struct {
	SQL    string `json:"sql"`
	Rows   string `json:"rows"`
	Digest string `json:"digest"`
	Error  string `json:"error,omitempty"`
}

// File is one file's reading; Error is set when it does not open.
type File struct {
	Path      string  `json:"path"`
	Error     string  `json:"error,omitempty"`
	BlockSize string  `json:"block_size,omitempty"`
	Tables    []Table `json:"tables,omitempty"`
}

// Table is one table's row count and content digest (probe/digest.sql);
// Error is set when it cannot be read.
type Table struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Rows   string `json:"rows"`
	Digest string `json:"digest"`
	Error  string `json:"error,omitempty"`
}

// File returns the reading of path, or nil.
func (r *Report) File(path string) *File {
	for i := range r.Files {
		if r.Files[i].Path == path {
			return &r.Files[i]
		}
	}
	return nil
}

// Diff lists how got's tables differ from want's (nil when equal).
func Diff(got, want *File) []string {
	var out []string
	key := func(t Table) string { return t.Schema + "." + t.Name }
	wm := map[string]Table{}
	for _, t := range want.Tables {
		wm[key(t)] = t
	}
	for _, g := range got.Tables {
		w, ok := wm[key(g)]
		delete(wm, key(g))
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("table %s: not in the reference reading", key(g)))
		case g.Error != "" || w.Error != "":
			out = append(out, fmt.Sprintf("table %s: error %q (reference: %q)", key(g), g.Error, w.Error))
		case g.Rows != w.Rows || g.Digest != w.Digest:
			out = append(out, fmt.Sprintf("table %s: %s rows, digest %s; reference %s rows, digest %s", key(g), g.Rows, g.Digest, w.Rows, w.Digest))
		}
	}
	for k := range wm {
		out = append(out, fmt.Sprintf("table %s: missing (the reference reads it)", k))
	}
	slices.Sort(out)
	return out
}

// Dir is testdata/realduckdb of this module.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "realduckdb")
}

// Build compiles the probe of a release (or finds it built) and returns the
// binary: <user cache>/fdl-formats-test/realduckdb/<module>-<key>/probe,
// where key hashes the module's and probe/'s sources and the go version, so a
// changed pin or program is rebuilt and an unchanged one never. A build that
// fails (no go command, no proxy) is an error: the caller's test fails.
// Test binaries that need the same probe at once (compare's and repo's, run
// side by side by go test) build it once: the others wait for its lock.
func Build(ctx context.Context, rel Release) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("build the DuckDB %s probe: no go command on PATH: %w", rel.DuckDB, err)
	}
	out, err := exec.CommandContext(ctx, goBin, "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("build the DuckDB %s probe: go env: %w", rel.DuckDB, err)
	}
	src := filepath.Join(Dir(), rel.Module)
	key, err := sourceKey(string(out), src, filepath.Join(Dir(), "probe"))
	if err != nil {
		return "", fmt.Errorf("build the DuckDB %s probe: %w", rel.DuckDB, err)
	}
	folder := filepath.Join("realduckdb", rel.Module+"-"+key)
	unlock, err := lockBuild(ctx, folder)
	if err != nil {
		return "", fmt.Errorf("build the DuckDB %s probe: %w", rel.DuckDB, err)
	}
	defer unlock()
	bin, err := testbin.Cached(folder, "probe", func(dir string) error {
		cmd := exec.CommandContext(ctx, goBin, "build", "-o", filepath.Join(dir, "probe"), ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false", "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s, %s: %w\n%s", src, rel.Binding, err, out)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("build the DuckDB %s probe: %w", rel.DuckDB, err)
	}
	return bin, nil
}

// sourceKey hashes the go environment and every file of the folders.
func sourceKey(env string, dirs ...string) (string, error) {
	h := sha256.New()
	h.Write([]byte(env))
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(d, e.Name()))
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "%s/%s %d\n", filepath.Base(d), e.Name(), len(data))
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:6]), nil
}

// Read runs a built probe on the files.
func Read(ctx context.Context, bin string, paths []string) (*Report, error) {
	cmd := exec.CommandContext(ctx, bin, paths...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("run %s: %w: %s", bin, err, stderr.Bytes())
	}
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		return nil, fmt.Errorf("run %s: its report: %w", bin, err)
	}
	return &rep, nil
}

// ReadQueries runs a built probe on the statements (probe -queries FILE, the
// statements as a JSON array in a temporary file), all in one run: one
// reading per statement, in order.
func ReadQueries(ctx context.Context, bin string, stmts []string) (*Report, error) {
	f, err := os.CreateTemp("", "realduckdb-queries-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	err = json.NewEncoder(f).Encode(stmts)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write the queries for %s: %w", bin, err)
	}
	rep, err := Read(ctx, bin, []string{"-queries", f.Name()})
	if err != nil {
		return nil, err
	}
	if len(rep.Queries) != len(stmts) {
		return nil, fmt.Errorf("run %s: %d readings of %d queries", bin, len(rep.Queries), len(stmts))
	}
	return rep, nil
}

// ReadQueriesLinked runs the statements as a probe does, with the DuckDB linked
// into this module (through db), on one connection in the time zone UTC.
func ReadQueriesLinked(ctx context.Context, db *sql.DB, stmts []string) (*Report, error) {
	digestSQL, err := os.ReadFile(filepath.Join(Dir(), "probe", "digest.sql"))
	if err != nil {
		return nil, err
	}
	conn, rep, err := linkedSession(ctx, db)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	rep.Queries = []Query{}
	for _, s := range stmts {
		q := Query{SQL: s}
		if err := conn.QueryRowContext(ctx, strings.Replace(string(digestSQL), "{table}", "("+s+")", 1)).Scan(&q.Rows, &q.Digest); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			q.Error = err.Error()
		}
		rep.Queries = append(rep.Queries, q)
	}
	return rep, nil
}

// ReadLinked reads the files as a probe does, with the DuckDB linked into
// this module (through db, whose driver is duckdb-go): one connection, each
// file attached read-only in turn.
func ReadLinked(ctx context.Context, db *sql.DB, paths []string) (*Report, error) {
	digestSQL, err := os.ReadFile(filepath.Join(Dir(), "probe", "digest.sql"))
	if err != nil {
		return nil, err
	}
	tablesSQL, err := os.ReadFile(filepath.Join(Dir(), "probe", "tables.sql"))
	if err != nil {
		return nil, err
	}
	conn, rep, err := linkedSession(ctx, db)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	for _, p := range paths {
		f := File{Path: p}
		if _, err := conn.ExecContext(ctx, "ATTACH '"+strings.ReplaceAll(p, "'", "''")+"' AS f (READ_ONLY)"); err != nil {
			f.Error = err.Error()
			rep.Files = append(rep.Files, f)
			continue
		}
		var bs sql.NullString
		if err := conn.QueryRowContext(ctx, "SELECT CAST(block_size AS VARCHAR) FROM pragma_database_size() WHERE database_name = 'f'").Scan(&bs); err == nil {
			f.BlockSize = bs.String
		}
		if f.Tables, err = readTables(ctx, conn, string(tablesSQL), string(digestSQL)); err != nil {
			f.Error = err.Error()
		}
		if _, err := conn.ExecContext(ctx, "DETACH f"); err != nil {
			return nil, fmt.Errorf("detach %s: %w", p, err)
		}
		rep.Files = append(rep.Files, f)
	}
	return rep, nil
}

// linkedSession opens the one connection a linked reading runs on, set up as
// a probe's session is (time zone UTC, so TIMESTAMPTZ values print alike),
// and the report naming its DuckDB.
func linkedSession(ctx context.Context, db *sql.DB) (*sql.Conn, *Report, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Files: []File{}}
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&rep.DuckDB); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("SELECT version(): %w", err)
	}
	rep.DuckDB = strings.TrimPrefix(rep.DuckDB, "v")
	if _, err := conn.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("set the time zone: %w", err)
	}
	return conn, rep, nil
}

func readTables(ctx context.Context, conn *sql.Conn, tablesSQL, digestSQL string) ([]Table, error) {
	rows, err := conn.QueryContext(ctx, tablesSQL)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var out []Table
	for rows.Next() {
		var t Table
		if err := rows.Scan(&t.Schema, &t.Name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list tables: %w", err)
		}
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	for i := range out {
		t := &out[i]
		name := `f."` + strings.ReplaceAll(t.Schema, `"`, `""`) + `"."` + strings.ReplaceAll(t.Name, `"`, `""`) + `"`
		if err := conn.QueryRowContext(ctx, strings.Replace(digestSQL, "{table}", name, 1)).Scan(&t.Rows, &t.Digest); err != nil {
			t.Error = err.Error()
		}
	}
	return out, nil
}

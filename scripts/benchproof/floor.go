package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// The backfill's floor: what DuckDB alone needs to write and read back the
// outputs of a backfill, with no conversion and no proof. Per version, its
// catalog is copied twice into fresh files (COPY FROM DATABASE, one per
// target format) and each copy is read back whole (every row of every
// table hashed, as a check reads what it certifies); then one hashed scan
// reads every data file once. It runs as a process of its own ("benchproof
// copy-versions REPO OUT JOBS") with JOBS workers, timed like the backfill,
// so that backfill / floor says how much of the backfill is this tool's own
// work, and floor / proof how low backfill / proof can go at all.

// copyVersionsCmd is the hidden first argument of that process.
const copyVersionsCmd = "copy-versions"

// outputsPerVersion is the number of formats a backfill writes per version
// (0.4 and 1.1).
const outputsPerVersion = 2

func copyVersions(ctx context.Context, repo, out string, jobs int) error {
	cats, err := filepath.Glob(filepath.Join(repo, "versions", "*", "ducklake.duckdb"))
	if err != nil || len(cats) == 0 {
		return fmt.Errorf("no version in %s", repo)
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(out)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	for i, cat := range cats {
		g.Go(func() error {
			for k := range outputsPerVersion {
				if err := copyAndRead(gctx, cat, filepath.Join(out, fmt.Sprintf("%d-%d.duckdb", i, k))); err != nil {
					return fmt.Errorf("%s: %w", cat, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	files := dataFiles(repo)
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = quote(f)
	}
	return inDuckDB(ctx, func(conn *sql.Conn) error {
		return execOn(ctx, conn, "CREATE TEMP TABLE r AS SELECT count(*), sum(hash(t)) FROM read_parquet(["+strings.Join(q, ", ")+"]) t")
	})
}

// copyAndRead copies the catalog src into the new file dst and reads every
// row of every table of dst, on one DuckDB thread (as a backfill's
// conversions and metadata reads run).
func copyAndRead(ctx context.Context, src, dst string) error {
	return inDuckDB(ctx, func(conn *sql.Conn) error {
		stmts := append([]string{"SET threads = 1"}, copyStatements(src, dst)...)
		if err := execOn(ctx, conn, append(stmts, "ATTACH "+quote(dst)+" AS chk (READ_ONLY)")...); err != nil {
			return err
		}
		rows, err := conn.QueryContext(ctx, "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'chk'")
		if err != nil {
			return err
		}
		var parts []string
		for rows.Next() {
			var s, t string
			if err := rows.Scan(&s, &t); err != nil {
				rows.Close()
				return err
			}
			parts = append(parts, fmt.Sprintf(`SELECT count(*), bit_xor(hash(t)) FROM chk."%s"."%s" t`, s, t))
		}
		rows.Close()
		if len(parts) == 0 {
			return fmt.Errorf("%s has no table", dst)
		}
		return execOn(ctx, conn, "CREATE TEMP TABLE r AS "+strings.Join(parts, " UNION ALL "))
	})
}

func copyVersionsMain(args []string) bool {
	if len(args) != 5 || args[1] != copyVersionsCmd {
		return false
	}
	jobs, err := strconv.Atoi(args[4])
	if err != nil || jobs < 1 {
		fail(fmt.Errorf("%s: jobs %q", copyVersionsCmd, args[4]))
	}
	if err := copyVersions(context.Background(), args[2], args[3], jobs); err != nil {
		fail(err)
	}
	return true
}

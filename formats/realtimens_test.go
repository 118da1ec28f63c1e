package formats_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestRealReleasesReadTimeNS holds time-ns-files-unreadable to the real
// releases: a TIME_NS column DuckDB 1.5.6 writes (Parquet TIME(NANOS)), a
// TIME column, and a TIME_NS stored as text (what DuckDB wrote for TIME_NS
// before its Parquet writer knew the type) are read with read_parquet's
// field id schema as TIME_NS, as DuckLake's column mapper reads a file for
// a time_ns column. Every release that opens a format with the time_ns
// type fails on the Parquet TIMEs where the format reads with the quirk
// (DuckDB 1.5.0 and 1.5.1, format 0.4), and otherwise reads 1.5.6's rows
// (2.0.0, format 1.1; the text in every release). Before the quirk was
// modelled, a 1.0 catalog with a time_ns column converted to 0.4 was
// proved equivalent though no 0.4 reader reads it.
func TestRealReleasesReadTimeNS(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	dir := t.TempDir()
	var stmts []string
	var parquetTime []bool // per statement: the field is a Parquet TIME
	for _, c := range []struct {
		name, value string
		time        bool
	}{
		{"time_ns.parquet", "TIME_NS '12:34:56.123456789'", true},
		{"time.parquet", "TIME '12:34:56.5'", true},
		{"text.parquet", "CAST(TIME_NS '12:34:56.123456789' AS VARCHAR)", false},
	} {
		parquetTime = append(parquetTime, c.time)
		path := filepath.Join(dir, c.name)
		if _, err := db.ExecContext(ctx, "COPY (SELECT 1 AS id, "+c.value+" AS t) TO "+sqlLit(path)+" (FORMAT parquet, FIELD_IDS {id: 1, t: 2})"); err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, "SELECT id, CAST(t AS VARCHAR) AS t FROM read_parquet("+sqlLit(path)+
			", schema = MAP {1: {name: 'id', type: 'INTEGER', default_value: NULL}, 2: {name: 't', type: 'TIME_NS', default_value: NULL}})")
	}
	ref, got := readings(t, ctx, db, stmts)
	q := formats.QuirkTimeNSFilesUnreadable
	for i, s := range stmts {
		if ref.Queries[i].Error != "" {
			t.Fatalf("%s: DuckDB 1.5.6: %s", s, ref.Queries[i].Error)
		}
		for rel, rep := range got {
			var with, without []string
			for _, v := range formats.All {
				if !v.Opens(rel) || !v.SupportsType("time_ns") {
					continue
				}
				if v.ReadsWith(q) || v.ReadsAsSourceWith(q) {
					with = append(with, v.Name)
				} else {
					without = append(without, v.Name)
				}
			}
			g := rep.Queries[i]
			first, _, _ := strings.Cut(g.Error, "\n")
			switch {
			case len(with) > 0 && parquetTime[i] && !strings.Contains(g.Error, "Unimplemented type for cast (TIME -> TIME_NS)"):
				t.Errorf("%s: DuckDB %s (format %v, %s): error %q, rows %s; want the cast from TIME to TIME_NS to fail", s, rel, with, q.Info().Name, first, g.Rows)
			case (len(without) > 0 || len(with) > 0 && !parquetTime[i]) && !sameRows(g, ref.Queries[i]):
				t.Errorf("%s: DuckDB %s (format %v): error %q, rows %s digest %s; want DuckDB 1.5.6's %s, %s", s, rel, append(with, without...), first, g.Rows, g.Digest, ref.Queries[i].Rows, ref.Queries[i].Digest)
			}
		}
	}
}

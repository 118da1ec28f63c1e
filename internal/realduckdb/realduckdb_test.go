package realduckdb

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // the database/sql driver

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

func TestDiff(t *testing.T) {
	a := Table{Schema: "main", Name: "a", Rows: "2", Digest: "x"}
	b := Table{Schema: "main", Name: "b", Rows: "0", Digest: ""}
	for _, tc := range []struct {
		name      string
		got, want []Table
		diffs     []string
	}{
		{"equal", []Table{a, b}, []Table{b, a}, nil},
		{"digest", []Table{{Schema: "main", Name: "a", Rows: "2", Digest: "y"}, b}, []Table{a, b},
			[]string{"table main.a: 2 rows, digest y; reference 2 rows, digest x"}},
		{"rows", []Table{{Schema: "main", Name: "a", Rows: "1", Digest: "x"}}, []Table{a},
			[]string{"table main.a: 1 rows, digest x; reference 2 rows, digest x"}},
		{"extra and missing", []Table{a, {Schema: "s", Name: "b"}}, []Table{a, b},
			[]string{"table main.b: missing (the reference reads it)", "table s.b: not in the reference reading"}},
		{"error", []Table{{Schema: "main", Name: "a", Error: "boom"}}, []Table{a},
			[]string{`table main.a: error "boom" (reference: "")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(&File{Tables: tc.got}, &File{Tables: tc.want})
			if !slices.Equal(got, tc.diffs) {
				t.Errorf("Diff = %q, want %q", got, tc.diffs)
			}
		})
	}
}

// TestBuildWithoutGo: a probe that cannot be built is an error (the caller's
// test fails), never a silent skip.
func TestBuildWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if bin, err := Build(context.Background(), Releases[0]); err == nil {
		t.Fatalf("Build without a go command = %s, want an error", bin)
	}
}

// TestReadQueries: a probe run on statements reads each one's rows as
// ReadQueriesLinked does (the same count and digest for the same rows),
// and a statement that fails is a reading with its error, not a failure.
func TestReadQueries(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	defer db.Close()
	stmts := []string{
		"SELECT i, 'v' || i AS s, {a: i} AS st FROM range(3000) r(i)",
		"SELECT * FROM read_parquet('" + filepath.Join(t.TempDir(), "missing.parquet") + "')",
		"SELECT 1 WHERE false",
	}
	ref, err := ReadQueriesLinked(ctx, db, stmts)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(ctx, Releases[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadQueries(ctx, bin, stmts)
	if err != nil {
		t.Fatal(err)
	}
	if got.DuckDB != Releases[0].DuckDB || len(got.Queries) != len(stmts) {
		t.Fatalf("DuckDB %s read %d statements, want %s and %d", got.DuckDB, len(got.Queries), Releases[0].DuckDB, len(stmts))
	}
	for i, r := range []*Report{ref, got} {
		q := r.Queries
		if q[0].Rows != "3000" || q[0].Digest == "" || q[0].Error != "" {
			t.Errorf("reading %d of the range: %+v", i, q[0])
		}
		if q[1].Error == "" || !strings.Contains(q[1].Error, "missing.parquet") {
			t.Errorf("reading %d of a missing file: %+v, want its error", i, q[1])
		}
		if q[2].Rows != "0" || q[2].Error != "" {
			t.Errorf("reading %d of no rows: %+v", i, q[2])
		}
	}
	if got.Queries[0].Digest != ref.Queries[0].Digest {
		t.Errorf("DuckDB %s digest %s, linked %s", got.DuckDB, got.Queries[0].Digest, ref.Queries[0].Digest)
	}
}

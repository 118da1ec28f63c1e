package realduckdb

import (
	"context"
	"slices"
	"testing"
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

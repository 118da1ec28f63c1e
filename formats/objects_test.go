package formats

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckObjects: only base tables of the metadata schema may be named
// like DuckLake tables (in any letter case); the error names each other
// object and its kind. The listing itself (ReadObjects, on real DuckDB
// files) is tested with the converter and the reader (convert
// TestImpostorObjects).
func TestCheckObjects(t *testing.T) {
	tables := []Object{{"main", "ducklake_metadata", "table"}, {"main", "ducklake_snapshot", "table"}}
	for _, tc := range []struct {
		name   string
		schema string
		extra  []Object
		want   []string // nil: accepted
	}{
		{"base tables only", "main", nil, nil},
		{"other names", "main", []Object{{"main", "my_view", "view"}, {"other", "ducklakes", "table"}, {"main", "x_ducklake_y", "sequence"}}, nil},
		{"view", "main", []Object{{"main", "ducklake_data_file", "view"}}, []string{"main.ducklake_data_file is a view"}},
		{"letter case", "main", []Object{{"main", "DuckLake_Data_File", "view"}}, []string{"main.DuckLake_Data_File is a view"}},
		{"views and sequences", "main", []Object{{"s", "ducklake_v", "view"}, {"main", "ducklake_seq", "sequence"}},
			[]string{"s.ducklake_v is a view", "main.ducklake_seq is a sequence"}},
		{"table of another schema", "main", []Object{{"meta", "ducklake_snapshot", "table"}}, []string{"meta.ducklake_snapshot is a table outside the metadata schema main"}},
		{"metadata schema other than main", "meta", []Object{{"meta", "ducklake_snapshot", "table"}},
			[]string{"main.ducklake_metadata is a table outside the metadata schema meta", "main.ducklake_snapshot is a table outside"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckObjects("cat.duckdb", append(append([]Object{}, tables...), tc.extra...), tc.schema)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("CheckObjects = %v, want nil", err)
				}
				return
			}
			var nb *NotBaseTableError
			if !errors.Is(err, ErrNotBaseTable) || !errors.As(err, &nb) || nb.Catalog != "cat.duckdb" || len(nb.Objects) != len(tc.want) {
				t.Fatalf("CheckObjects = %v, want a *NotBaseTableError of cat.duckdb naming %d objects", err, len(tc.want))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v lacks %q", err, w)
				}
			}
		})
	}
}

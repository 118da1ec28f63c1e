package formats

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
)

// TestMetadataDataPathRules: how each format's readers take a second
// global data_path row without a DATA_PATH (DataPathRule, by release line):
// DuckDB 1.3 (0.1, 0.2, 0.3-dev1) ignores it, 1.4 to 1.5.1 (0.3, 0.4)
// require the first with a '/' appended, 1.5.2 on (1.0, 1.1) the first with
// its trailing slashes trimmed to one. Two different values are refused
// for every format (1.3 takes the first in scan order).
func TestMetadataDataPathRules(t *testing.T) {
	row := func(v string) MetadataRow {
		return MetadataRow{Key: "data_path", Value: sql.NullString{String: v, Valid: true}}
	}
	for _, tc := range []struct {
		format string
		values []string
		want   string // "" read as the first value, else in the error
	}{
		{"0.2", []string{"/lake/data"}, ""},
		{"0.2", []string{"/lake/data", "/lake/data"}, ""},
		{"0.3-dev1", []string{"/lake/data", "/lake/data"}, ""},
		{"0.2", []string{"/lake/data/", "/other/"}, "rows ('data_path', '/lake/data/'), ('data_path', '/other/')"},
		{"0.3", []string{"/lake/data/", "/lake/data/"}, ""},
		{"0.3", []string{"/lake/data", "/lake/data"}, "format 0.3's readers keep the first as '/lake/data/'"},
		{"0.4", []string{"/lake/data//", "/lake/data//"}, ""},
		{"1.0", []string{"/lake/data//", "/lake/data//"}, "format 1.0's readers keep the first as '/lake/data/'"},
		{"1.1", []string{"/lake/data/", "/lake/data/"}, ""},
		{"1.1", []string{"/lake/data/", "/lake/data"}, "from DuckDB 1.4 DuckLake fails the ATTACH"},
	} {
		t.Run(tc.format+" "+strings.Join(tc.values, " "), func(t *testing.T) {
			v, err := Lookup(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			var rows []MetadataRow
			for _, s := range tc.values {
				rows = append(rows, row(s))
			}
			m, err := CheckMetadata("c.duckdb", rows)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.DataPath(v)
			if tc.want == "" {
				if err != nil || got != tc.values[0] {
					t.Fatalf("DataPath = %q, %v; want %q", got, err, tc.values[0])
				}
				return
			}
			if !errors.Is(err, ErrMetadataRows) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "catalog c.duckdb") {
				t.Fatalf("DataPath: %v, want a refusal naming c.duckdb and %q", err, tc.want)
			}
		})
	}
}

package formats

import (
	"fmt"
	"testing"
)

// TestStatsReadAlike: the statistics row written for a data file that a
// column was added after (QuirkFilesWithoutColumnStatsPruned): counts from
// the record count and the default's NULL-ness; min and max only where the
// reader compares the text as the value.
func TestStatsReadAlike(t *testing.T) {
	s := func(v string) *string { return &v }
	show := func(r ColumnStatsRow) string {
		p := func(v any) string {
			switch v := v.(type) {
			case *int64:
				if v != nil {
					return fmt.Sprint(*v)
				}
			case *string:
				if v != nil {
					return fmt.Sprintf("%q", *v)
				}
			case *bool:
				if v != nil {
					return fmt.Sprint(*v)
				}
			}
			return "NULL"
		}
		return fmt.Sprintf("%s %s %s %s %s", p(r.ValueCount), p(r.NullCount), p(r.MinValue), p(r.MaxValue), p(r.ContainsNaN))
	}
	for _, tc := range []struct {
		name     string
		inFile   bool
		types    []string
		defaults []*string
		want     string
	}{
		{"no default", false, []string{"int32"}, []*string{nil}, "0 5 NULL NULL NULL"},
		{"integer", false, []string{"int32"}, []*string{s("7")}, `5 0 "7" "7" NULL`},
		{"widened integer", false, []string{"int8", "int16", "float64"}, []*string{s("7"), s("7"), s("7")}, `5 0 "7" "7" false`},
		{"decimal", false, []string{"decimal(18,6)"}, []*string{s("12.345678")}, `5 0 "12.345678" "12.345678" NULL`},
		{"double", false, []string{"float64"}, []*string{s("1.5")}, `5 0 "1.5" "1.5" false`},
		{"double NaN", false, []string{"float64"}, []*string{s("nan")}, "5 0 NULL NULL NULL"},
		{"double infinity", false, []string{"float32"}, []*string{s("inf")}, "5 0 NULL NULL NULL"},
		{"varchar", false, []string{"varchar"}, []*string{s("hello")}, `5 0 "hello" "hello" NULL`},
		{"empty varchar", false, []string{"varchar"}, []*string{s("")}, `5 0 "" "" NULL`},
		{"boolean", false, []string{"boolean"}, []*string{s("TRUE")}, `5 0 "true" "true" NULL`},
		{"boolean as 1", false, []string{"boolean"}, []*string{s("1")}, "5 0 NULL NULL NULL"},
		{"uuid", false, []string{"uuid"}, []*string{s("12345678-1234-1234-1234-12345678ABCD")}, `5 0 "12345678-1234-1234-1234-12345678abcd" "12345678-1234-1234-1234-12345678abcd" NULL`},
		{"date: text order is not the value's", false, []string{"date"}, []*string{s("2020-01-01")}, "5 0 NULL NULL NULL"},
		{"timestamp", false, []string{"timestamp"}, []*string{s("2024-06-15 12:34:56")}, "5 0 NULL NULL NULL"},
		{"blob", false, []string{"blob"}, []*string{s("abc")}, "5 0 NULL NULL NULL"},
		{"struct", false, []string{"struct"}, []*string{nil}, "0 5 NULL NULL NULL"},
		{"defaults disagree", false, []string{"int32", "int32"}, []*string{s("7"), s("8")}, "NULL NULL NULL NULL NULL"},
		{"default and none", false, []string{"int32", "int32"}, []*string{s("7"), nil}, "NULL NULL NULL NULL NULL"},
		{"column in the file", true, []string{"int32"}, []*string{s("7")}, "NULL NULL NULL NULL NULL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := show(StatsReadAlike(MissingColumnStats{InFile: tc.inFile, Types: tc.types, Defaults: tc.defaults, RecordCount: 5}))
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

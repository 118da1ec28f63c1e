package formats

import (
	"reflect"
	"strings"
	"testing"
)

// span returns the positions [lo, hi).
func span(lo, hi int64) []int64 {
	var out []int64
	for p := lo; p < hi; p++ {
		out = append(out, p)
	}
	return out
}

// TestSkippedVectorReads: the stretches QuirkStructNullsAfterSkippedVector
// can misread are runs of wholly deleted 2048-row vectors, counted from
// each row group's start, followed by a read vector of the same row group
// (where DuckDB 1.3.0-1.5.0 read the structs wrong: the quirk's Evidence).
func TestSkippedVectorReads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		groups  []int64
		deleted []int64
		records int64
		want    []SkippedVectorRead
	}{
		{"aligned run, one row group", []int64{122880}, span(59392, 112640), 122880, []SkippedVectorRead{{59392, 112640, 114688}}},
		{"first vector partly kept", []int64{122880}, span(59393, 112640), 122880, []SkippedVectorRead{{61440, 112640, 114688}}},
		{"no vector wholly deleted", []int64{122880}, append(span(0, 2047), span(2048, 4095)...), 122880, nil},
		{"skip at the end of a row group", []int64{61440, 61440}, span(59392, 61440), 122880, nil},
		{"second row group, from its start", []int64{61440, 61440}, span(59392, 112640), 122880, []SkippedVectorRead{{61440, 112640, 114688}}},
		{"row group not a multiple of 2048", []int64{3000, 5000}, span(3000, 5048), 8000, []SkippedVectorRead{{3000, 5048, 7096}}},
		{"unaligned run of 2048 in one row group", []int64{122880}, span(1000, 3048), 122880, nil},
		{"read vector cut by the row group's end", []int64{3000}, span(0, 2048), 3000, []SkippedVectorRead{{0, 2048, 3000}}},
		{"two runs", []int64{20480}, append(span(0, 2048), span(6144, 10240)...), 20480, []SkippedVectorRead{{0, 2048, 4096}, {6144, 10240, 12288}}},
		{"everything deleted", []int64{4096}, span(0, 4096), 4096, nil},
		{"footer unknown: any run of 2048", nil, span(1000, 3048), 10000, []SkippedVectorRead{{1000, 3048, 5096}}},
		{"footer unknown: short run", nil, span(1000, 3047), 10000, nil},
		{"footer unknown: run to the end", nil, span(5000, 10000), 10000, nil},
	} {
		got := SkippedVectorReads(tc.groups, tc.deleted, tc.records)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStructSkipColumns: the columns the quirk misreads are top-level
// structs with a leaf reached through structs only (parquet_schema rows
// as DuckDB 1.5.6 gives them for the files of exp.sql).
func TestStructSkipColumns(t *testing.T) {
	rows := func(spec string) []ParquetSchemaRow {
		var out []ParquetSchemaRow
		for _, r := range strings.Split(spec, ";") {
			f := strings.Split(r, ",")
			var n int64
			for _, c := range f[1] {
				n = n*10 + int64(c-'0')
			}
			out = append(out, ParquetSchemaRow{Name: f[0], Children: n, Repetition: f[2], Annotation: f[3]})
		}
		return out
	}
	for _, tc := range []struct {
		name, schema string
		want         []StructSkipColumn
	}{
		{"struct of scalars", "duckdb_schema,2,REQUIRED,;id,0,OPTIONAL,INT_64;col,2,OPTIONAL,;a,0,OPTIONAL,UTF8;b,0,OPTIONAL,",
			[]StructSkipColumn{{Column: "col", Structs: [][]string{{}}}}},
		{"struct in struct", "duckdb_schema,2,REQUIRED,;id,0,OPTIONAL,INT_64;col,2,OPTIONAL,;a,1,OPTIONAL,;x,0,OPTIONAL,UTF8;b,0,OPTIONAL,",
			[]StructSkipColumn{{Column: "col", Structs: [][]string{{}, {"a"}}}}},
		{"struct with a list and a scalar", "duckdb_schema,2,REQUIRED,;id,0,OPTIONAL,INT_64;col,2,OPTIONAL,;l,1,OPTIONAL,LIST;list,1,REPEATED,;element,0,OPTIONAL,INT_32;b,0,OPTIONAL,",
			[]StructSkipColumn{{Column: "col", Structs: [][]string{{}}}}},
		{"struct of a list only", "duckdb_schema,2,REQUIRED,;id,0,OPTIONAL,INT_64;col,1,OPTIONAL,;l,1,OPTIONAL,LIST;list,1,REPEATED,;element,0,OPTIONAL,INT_32", nil},
		{"list of structs", "duckdb_schema,2,REQUIRED,;id,0,OPTIONAL,INT_64;col,1,OPTIONAL,LIST;list,1,REPEATED,;element,2,OPTIONAL,;a,0,OPTIONAL,UTF8;b,0,OPTIONAL,", nil},
		{"map of structs", "duckdb_schema,2,REQUIRED,;id,0,OPTIONAL,INT_64;col,1,OPTIONAL,MAP;key_value,2,REPEATED,;key,0,REQUIRED,INT_32;value,2,OPTIONAL,;a,0,OPTIONAL,UTF8;b,0,OPTIONAL,", nil},
		{"struct with an empty-leaved struct and a scalar", "duckdb_schema,1,REQUIRED,;col,2,OPTIONAL,;s,1,OPTIONAL,;l,1,OPTIONAL,LIST;list,1,REPEATED,;element,0,OPTIONAL,INT_32;b,0,OPTIONAL,",
			[]StructSkipColumn{{Column: "col", Structs: [][]string{{}}}}},
	} {
		got, err := StructSkipColumns(rows(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

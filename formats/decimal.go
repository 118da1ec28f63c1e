package formats

import (
	"strconv"
	"strings"
)

// DecimalWidthScale parses a DuckDB type name DECIMAL(W,S), as DuckDB
// renders it (parquet_schema's duckdb_type, typeof, compare's
// Column.DuckType), with 0 <= S <= W <= 38 and W >= 1; ok is false for
// anything else, a DuckLake catalog's column_type (decimal(W,S), in lower
// case) included.
// compare's folding of DECIMAL extremes and parquetfooter's check of a
// VARIANT shredded on a 16-bit DECIMAL read a type's width here.
func DecimalWidthScale(t string) (w, s int, ok bool) {
	in, found := strings.CutPrefix(t, "DECIMAL(")
	if !found {
		return 0, 0, false
	}
	in, found = strings.CutSuffix(in, ")")
	ws, ss, comma := strings.Cut(in, ",")
	if !found || !comma {
		return 0, 0, false
	}
	w, err1 := strconv.Atoi(strings.TrimSpace(ws))
	s, err2 := strconv.Atoi(strings.TrimSpace(ss))
	if err1 != nil || err2 != nil || w < 1 || w > 38 || s < 0 || s > w {
		return 0, 0, false
	}
	return w, s, true
}

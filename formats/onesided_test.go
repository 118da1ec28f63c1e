package formats

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestOneSidedExtremes: the extremes OneSidedMisreadSQL compares a
// one-sided bound with are DuckDB 1.5.6's own (Value::MinimumValue and
// MaximumValue): each literal casts, where exact the value just beyond it
// does not (or nothing lies beyond: false, 0, -inf, 00:00:00, the zero
// UUID), and the timestamps' are the microseconds Value::MinimumValue
// computes (INT64 min floored to a day, INT64 max - 1).
func TestOneSidedExtremes(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	beyond := map[string][2]string{ // below min, above max ("" nothing lies beyond)
		"boolean":      {"", ""},
		"int8":         {"-129", "128"},
		"int16":        {"-32769", "32768"},
		"int32":        {"-2147483649", "2147483648"},
		"int64":        {"-9223372036854775809", "9223372036854775808"},
		"uint8":        {"-1", "256"},
		"uint16":       {"-1", "65536"},
		"uint32":       {"-1", "4294967296"},
		"uint64":       {"-1", "18446744073709551616"},
		"float32":      {"", ""},
		"float64":      {"", ""},
		"date":         {"5877642-06-24 (BC)", "5881580-07-11"},
		"time":         {"", "24:00:00.000001"},
		"timestamp":    {"290309-12-21 (BC) 23:59:59.999999", "294247-01-10 04:00:54.775807"},
		"timestamp_s":  {"290309-12-21 (BC) 23:59:59", "294247-01-10 04:00:55"},
		"timestamp_ms": {"290309-12-21 (BC) 23:59:59.999", "294247-01-10 04:00:54.776"},
		"uuid":         {"", ""},
	}
	for typ, e := range oneSidedExtremes {
		for _, lit := range []string{e.min, e.max} {
			var got sql.NullString
			if err := db.QueryRow("SELECT TRY_CAST(? AS "+e.castAs+")::VARCHAR", lit).Scan(&got); err != nil || !got.Valid {
				t.Errorf("%s: %q does not cast to %s: %v", typ, lit, e.castAs, err)
			}
		}
		if !e.exact {
			continue
		}
		b, ok := beyond[typ]
		if !ok {
			t.Errorf("%s: exact, but no values beyond its extremes to test", typ)
		}
		for _, lit := range b {
			if lit == "" {
				continue
			}
			var got sql.NullString
			if err := db.QueryRow("SELECT TRY_CAST(? AS "+e.castAs+")::VARCHAR", lit).Scan(&got); err != nil || got.Valid {
				t.Errorf("%s: %q beyond the extreme casts to %s as %v (%v)", typ, lit, e.castAs, got, err)
			}
		}
	}
	// DECIMAL(W,S): the text decimalMisreadSQL writes for the maximum is
	// Value::MaximumValue's, 10^W - 1 in units of 10^-S: it casts to
	// DECIMAL(W,S) unchanged, one unit more does not, and the same for the
	// minimum, its negation.
	for _, ws := range [][2]int{{1, 0}, {4, 2}, {4, 4}, {9, 2}, {18, 3}, {19, 0}, {38, 0}, {38, 10}, {38, 38}} {
		w, s := ws[0], ws[1]
		typ := fmt.Sprintf("DECIMAL(%d,%d)", w, s)
		text := strings.Repeat("9", w-s)
		beyond := "1" + strings.Repeat("0", w-s)
		if s > 0 {
			text += "." + strings.Repeat("9", s)
			beyond += "." + strings.Repeat("0", s)
		}
		var ok bool
		q := "SELECT TRY_CAST('" + text + "' AS " + typ + ")::VARCHAR = '" + text + "' AND TRY_CAST('" + beyond + "' AS " + typ + ") IS NULL AND TRY_CAST('-" + text + "' AS " + typ + ") = -CAST('" + text + "' AS " + typ + ") AND TRY_CAST('-" + beyond + "' AS " + typ + ") IS NULL"
		if err := db.QueryRow(q).Scan(&ok); err != nil || !ok {
			t.Errorf("%s: %s: %t %v", typ, q, ok, err)
		}
	}
	// Inherent extremes: nothing sorts below false, 0, -inf, 00:00:00
	// (the unsigned types above: -1 does not cast), or above true, inf.
	for _, q := range []string{
		"SELECT CAST('-inf' AS FLOAT) <= CAST('-3.4028235e38' AS FLOAT) AND CAST('inf' AS DOUBLE) >= CAST('1.7976931348623157e308' AS DOUBLE)",
		"SELECT CAST('00000000-0000-0000-0000-000000000000' AS UUID) < CAST('00000000-0000-0000-0000-000000000001' AS UUID) AND CAST('ffffffff-ffff-ffff-ffff-ffffffffffff' AS UUID) > CAST('ffffffff-ffff-ffff-ffff-fffffffffffe' AS UUID) AND CAST('80000000-0000-0000-0000-000000000000' AS UUID) < CAST('ffffffff-ffff-ffff-ffff-ffffffffffff' AS UUID)",
		"SELECT TRY_CAST('-00:00:01' AS TIME) IS NULL OR TRY_CAST('-00:00:01' AS TIME) >= CAST('00:00:00' AS TIME)",
		"SELECT epoch_us(CAST('290309-12-22 (BC) 00:00:00' AS TIMESTAMP)) = -9223372022400000000", // INT64 min floored to a day, toward zero
		"SELECT epoch_us(CAST('294247-01-10 04:00:54.775806' AS TIMESTAMP)) = 9223372036854775806",
		"SELECT epoch_ms(CAST('294247-01-10 04:00:54.775' AS TIMESTAMP_MS)) = 9223372036854775 AND epoch(CAST('294247-01-10 04:00:54' AS TIMESTAMP_S)) = 9223372036854",
		"SELECT epoch_us(CAST('290309-12-22 (BC) 00:00:00' AS TIMESTAMP_S)) = -9223372022400000000 AND epoch_us(CAST('290309-12-22 (BC) 00:00:00' AS TIMESTAMP_MS)) = -9223372022400000000",
		// TIMESTAMP_NS: INT64 min floored to a day (toward zero), and INT64 max - 1.
		"SELECT make_timestamp_ns(-9223286400000000000) = CAST('1677-09-22 00:00:00' AS TIMESTAMP) AND epoch_ns(CAST('2262-04-11 23:47:16.854775806' AS TIMESTAMP_NS)) = 9223372036854775806",
		// TIMESTAMPTZ: the band is five days inside each extreme, more
		// than the largest offset DuckDB parses (+-99:99:99), and the
		// parse takes none larger.
		"SELECT epoch_us(CAST('290309-12-27 (BC) 00:00:00' AS TIMESTAMP)) = -9223372022400000000 + 5 * 86400000000 AND epoch_us(CAST('294247-01-05 04:00:54.775806' AS TIMESTAMP)) = 9223372036854775806 - 5 * 86400000000",
		"SELECT epoch(CAST('2020-01-01 00:00:00+99:99:99' AS TIMESTAMPTZ)) - epoch(TIMESTAMP '2020-01-01 00:00:00') = -362439 AND epoch(CAST('2020-01-01 00:00:00-99:99:99' AS TIMESTAMPTZ)) - epoch(TIMESTAMP '2020-01-01 00:00:00') = 362439",
		"SELECT epoch_us(CAST('290309-12-26 (BC) 04:40:39+99:99:99' AS TIMESTAMPTZ)) = -9223372022400000000 AND epoch_us(CAST('294247-01-05 23:20:15.775806-99:99:99' AS TIMESTAMPTZ)) = 9223372036854775806",
		"SELECT TRY_CAST('2020-01-01 00:00:00+100' AS TIMESTAMPTZ) IS NULL AND TRY_CAST('2020-01-01 00:00:00+99:99:99:99' AS TIMESTAMPTZ) IS NULL AND TRY_CAST('2020-01-01 00:00:00+99:99:99.5' AS TIMESTAMPTZ) IS NULL",
		"SELECT epoch_us(CAST('294247-01-10 04:00:54.775806+00' AS TIMESTAMPTZ)) = 9223372036854775806 AND epoch_us(CAST('290309-12-22 (BC) 00:00:00+00' AS TIMESTAMPTZ)) = -9223372022400000000",
		"SELECT CAST('5877642-06-25 (BC)' AS DATE) < CAST('5877642-06-26 (BC)' AS DATE)",
	} {
		var ok bool
		if err := db.QueryRow(q).Scan(&ok); err != nil || !ok {
			t.Errorf("%s: %t %v", q, ok, err)
		}
	}
}

// TestOneSidedMisreadSQL: OneSidedMisreadSQL, run by DuckDB 1.5.6, is true
// for a one-sided row whose bound is at or beyond its type's extreme in its
// direction (the readers of 0.4, 1.0, 1.1 read it as a single-value range),
// and for the types it cannot test exactly, and false for one not at the
// extreme (read as no statistics: HasMinMax is false where min > max), for
// a type the format's readers do not cast, for FLOAT/DOUBLE that may hold
// NaN, and for 0.3. Text that does not cast counts as misread and fails no
// query. Before, every one-sided row of a cast type counted (the model
// missed HasMinMax).
func TestOneSidedMisreadSQL(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	type row struct {
		typ, nan, min, max string // "NULL" for NULL
	}
	null := func(s string) string {
		if s == "NULL" {
			return "NULL"
		}
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	for _, c := range []struct {
		v    *Version
		r    row
		want bool
	}{
		{V0_4, row{"uint32", "NULL", "0", "NULL"}, true},
		{V0_4, row{"uint32", "NULL", "1", "NULL"}, false},
		{V0_4, row{"uint32", "NULL", "NULL", "4294967295"}, true},
		{V0_4, row{"uint32", "NULL", "NULL", "4294967294"}, false},
		{V0_4, row{"UInt32 ", "NULL", "0", "NULL"}, true},
		{V0_4, row{"int32", "NULL", "1", "NULL"}, false},
		{V0_4, row{"int32", "NULL", "-2147483648", "NULL"}, true},
		{V0_4, row{"int32", "NULL", "1", "2"}, false},
		{V0_4, row{"int32", "NULL", "NULL", "NULL"}, false},
		{V0_4, row{"int32", "NULL", "not a number", "NULL"}, true},
		{V0_4, row{"int64", "NULL", "NULL", "9223372036854775807"}, true},
		{V0_4, row{"uint64", "NULL", "NULL", "18446744073709551615"}, true},
		{V0_4, row{"boolean", "NULL", "false", "NULL"}, false}, // 1.5.0, 1.5.1 do not cast BOOLEAN
		{V1_0, row{"boolean", "NULL", "false", "NULL"}, true},
		{V1_0, row{"boolean", "NULL", "true", "NULL"}, false},
		{V1_0, row{"boolean", "NULL", "NULL", "true"}, true},
		{V1_0, row{"int8", "NULL", "-128", "NULL"}, true},
		{V1_0, row{"int8", "NULL", "-127", "NULL"}, false},
		{V1_0, row{"decimal(9,2)", "NULL", "1.5", "NULL"}, false},
		{V1_0, row{"decimal(9,2)", "NULL", "-9999999.99", "NULL"}, true},
		{V1_0, row{"decimal(9,2)", "NULL", "-9999999.98", "NULL"}, false},
		{V1_0, row{"decimal(9,2)", "NULL", "-9999999.994", "NULL"}, true}, // rounds to the minimum
		{V1_0, row{"decimal(9,2)", "NULL", "-9999999.995", "NULL"}, true}, // overflows: the readers fail
		{V1_0, row{"decimal(9,2)", "NULL", "NULL", "9999999.99"}, true},
		{V1_0, row{"decimal(9,2)", "NULL", "NULL", "9999999.98"}, false},
		{V1_0, row{"Decimal(9, 2)", "NULL", "NULL", "9999999.99"}, true},
		{V1_0, row{"decimal(4,0)", "NULL", "-9999", "NULL"}, true},
		{V1_0, row{"decimal(4,0)", "NULL", "-9998", "NULL"}, false},
		{V1_0, row{"decimal(4,4)", "NULL", "NULL", ".9999"}, true},
		{V1_0, row{"decimal(4,4)", "NULL", "NULL", "0.9998"}, false},
		{V1_0, row{"decimal(38,38)", "NULL", "NULL", "0.99999999999999999999999999999999999999"}, true},
		{V1_0, row{"decimal(38,0)", "NULL", "-99999999999999999999999999999999999999", "NULL"}, true},
		{V1_0, row{"decimal(38,0)", "NULL", "-99999999999999999999999999999999999998", "NULL"}, false},
		{V1_0, row{"decimal(18,3)", "NULL", "NULL", "999999999999999.999"}, true},
		{V1_0, row{"decimal(18,3)", "NULL", "NULL", "999999999999999.998"}, false},
		{V1_0, row{"decimal(9,2)", "NULL", "not a number", "NULL"}, true},
		{V1_0, row{"decimal(x)", "NULL", "1", "NULL"}, true},              // not DECIMAL(W,S): counted
		{V0_4, row{"decimal(9,2)", "NULL", "-9999999.99", "NULL"}, false}, // 1.5.0, 1.5.1 do not cast DECIMAL
		{V1_0, row{"uuid", "NULL", "00000000-0000-0000-0000-000000000000", "NULL"}, true},
		{V1_0, row{"uuid", "NULL", "00000000-0000-0000-0000-000000000001", "NULL"}, false},
		{V1_0, row{"uuid", "NULL", "NULL", "ffffffff-ffff-ffff-ffff-ffffffffffff"}, true},
		{V0_4, row{"float64", "false", "-inf", "NULL"}, true},
		{V0_4, row{"float64", "false", "-1e308", "NULL"}, false},
		{V0_4, row{"float64", "NULL", "-inf", "NULL"}, false},
		{V0_4, row{"float64", "true", "-inf", "NULL"}, false},
		{V0_4, row{"float32", "false", "NULL", "inf"}, true},
		{V0_4, row{"float32", "false", "NULL", "nan"}, true}, // NaN sorts above inf
		{V0_4, row{"float32", "false", "NULL", "3.4e38"}, false},
		{V0_4, row{"date", "NULL", "5877642-06-25 (BC)", "NULL"}, true},
		{V0_4, row{"date", "NULL", "-infinity", "NULL"}, true},
		{V0_4, row{"date", "NULL", "2020-01-01", "NULL"}, false},
		{V0_4, row{"date", "NULL", "NULL", "infinity"}, true},
		{V0_4, row{"time", "NULL", "00:00:00", "NULL"}, true},
		{V0_4, row{"time", "NULL", "00:00:01", "NULL"}, false},
		{V0_4, row{"time", "NULL", "NULL", "24:00:00"}, true},
		{V0_4, row{"time", "NULL", "NULL", "23:59:59.999999"}, false},
		{V0_4, row{"timestamp", "NULL", "290309-12-22 (BC) 00:00:00", "NULL"}, true},
		{V0_4, row{"timestamp", "NULL", "290309-12-22 (BC) 00:00:00.000001", "NULL"}, false},
		{V0_4, row{"timestamp", "NULL", "NULL", "294247-01-10 04:00:54.775806"}, true},
		{V0_4, row{"timestamp", "NULL", "NULL", "2020-01-01 00:00:00"}, false},
		{V0_4, row{"timestamp_s", "NULL", "NULL", "294247-01-10 04:00:54"}, true},
		{V0_4, row{"timestamp_s", "NULL", "NULL", "294247-01-10 04:00:53"}, false},
		{V0_4, row{"timestamp_ms", "NULL", "NULL", "294247-01-10 04:00:54.775"}, true},
		{V0_4, row{"timestamp_ns", "NULL", "1677-09-22 00:00:00", "NULL"}, true},
		{V0_4, row{"timestamp_ns", "NULL", "1677-09-21 00:12:44", "NULL"}, true}, // casts, below the type's minimum
		{V0_4, row{"timestamp_ns", "NULL", "2020-01-01 00:00:00", "NULL"}, false},
		{V0_4, row{"timestamp_ns", "NULL", "NULL", "2262-04-11 23:47:16.854775806"}, true},
		{V0_4, row{"timestamp_ns", "NULL", "NULL", "2262-04-11 23:47:16.854"}, false},
		{V0_4, row{"timestamptz", "NULL", "290309-12-22 (BC) 00:00:00+00", "NULL"}, true},
		{V0_4, row{"timestamptz", "NULL", "290309-12-22 (BC) 10:00:00+10", "NULL"}, true},
		{V0_4, row{"timestamptz", "NULL", "290309-12-26 (BC) 04:40:39+99:99:99", "NULL"}, true},   // UTC the minimum
		{V0_4, row{"timestamptz", "NULL", "NULL", "294247-01-05 23:20:15.775806-99:99:99"}, true}, // UTC the maximum
		{V0_4, row{"timestamptz", "NULL", "2020-01-01 00:00:00+00", "NULL"}, false},
		{V0_4, row{"timestamptz", "NULL", "NULL", "294247-01-10 04:00:54.775806+00"}, true},
		{V0_4, row{"timestamptz", "NULL", "NULL", "2020-01-01 00:00:00 America/New_York"}, true}, // conservative
		{V0_4, row{"timestamptz_ns", "NULL", "2020-01-01 00:00:00", "NULL"}, false},
		{V1_1, row{"timestamptz_ns", "NULL", "2020-01-01 00:00:00", "NULL"}, true}, // conservative
		{V1_1, row{"int32", "NULL", "1", "NULL"}, false},
		{V1_1, row{"int32", "NULL", "NULL", "2147483647"}, true},
		{V0_3, row{"int32", "NULL", "-2147483648", "NULL"}, false},
		{V0_4, row{"varchar", "NULL", "", "NULL"}, false},
	} {
		q := "SELECT " + OneSidedMisreadSQL(c.v, "typ", "nan", "mn", "mx") + " FROM (SELECT " + null(c.r.typ) + " AS typ, CAST(" + c.r.nan + " AS BOOLEAN) AS nan, CAST(" + null(c.r.min) + " AS VARCHAR) AS mn, CAST(" + null(c.r.max) + " AS VARCHAR) AS mx)"
		var got bool
		if err := db.QueryRow(q).Scan(&got); err != nil {
			t.Errorf("format %s %+v: %v", c.v.Name, c.r, err)
			continue
		}
		if got != c.want {
			t.Errorf("format %s %+v: misread %t, want %t", c.v.Name, c.r, got, c.want)
		}
	}
	// Text that does not cast, or casts out of range, fails no query.
	for typ := range oneSidedExtremes {
		for _, bad := range []string{"", "garbage", "99999999999-01-01 00:00:00", "1677-09-21 00:12:44", "-1e400"} {
			for _, mm := range [][2]string{{null(bad), "NULL"}, {"NULL", null(bad)}} {
				q := "SELECT " + OneSidedMisreadSQL(V1_1, "typ", "nan", "mn", "mx") + " FROM (SELECT '" + typ + "' AS typ, false AS nan, CAST(" + mm[0] + " AS VARCHAR) AS mn, CAST(" + mm[1] + " AS VARCHAR) AS mx)"
				var got bool
				if err := db.QueryRow(q).Scan(&got); err != nil {
					t.Errorf("%s bound %q: %v", typ, bad, err)
				}
			}
		}
	}
}

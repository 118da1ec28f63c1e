package compare

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestMinMaxFoldedValues edits B's table statistics of a 1.0 catalog
// (05_defaults_not_null, table d, column i: rows 1..1000, statistics
// '1'..'1000') and compares it with the original: DuckDB 1.5.4+ folds
// min/max of B from them, and each folded answer must be one A's readers
// give (its own folded value, or its scan, which DuckDB 1.5.2 answers).
// A row with one bound folds where the bound is at its type's extreme
// (HasMinMax holds for [v, type minimum]).
// The statistics rows differ in every case (kind stats); only the kind
// minmax is asserted here.
func TestMinMaxFoldedValues(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	const col = `table_id = 1 AND column_id = 1`
	for _, tc := range []struct {
		name, edit string
		want       string // in the minmax difference; "" for none
		unreadable bool   // B's readers fail on the statistics (refused.go)
	}{
		{"wrong max folds", `UPDATE ducklake_table_column_stats SET max_value = '100' WHERE ` + col, "max 100", false},
		{"same value, other text", `UPDATE ducklake_table_column_stats SET max_value = '+1000' WHERE ` + col, "", false},
		{"does not cast: every reader fails, unreadable", `UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE ` + col, "", true},
		{"min above max: not folded", `UPDATE ducklake_table_column_stats SET min_value = '2000' WHERE ` + col, "", false},
		{"no max: not folded", `UPDATE ducklake_table_column_stats SET max_value = NULL WHERE ` + col, "", false},
		// One bound at its type's extreme: [v, type minimum] or [type
		// maximum, v], min <= max, folded.
		{"min only at the type's minimum folds", `UPDATE ducklake_table_column_stats SET min_value = '-2147483648', max_value = NULL WHERE ` + col, "min -2147483648, max -2147483648 from", false},
		{"max only at the type's maximum folds", `UPDATE ducklake_table_column_stats SET min_value = NULL, max_value = '2147483647' WHERE ` + col, "min 2147483647, max 2147483647 from", false},
		{"max only short of the maximum: not folded", `UPDATE ducklake_table_column_stats SET min_value = NULL, max_value = '2147483646' WHERE ` + col, "", false},
		{"record_count not net: not exact", `UPDATE ducklake_table_column_stats SET max_value = '100' WHERE ` + col + `; UPDATE ducklake_table_stats SET record_count = 6 WHERE table_id = 1`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, strings.Split(tc.edit, "; ")...)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if err != nil && !errors.Is(err, ErrNotEquivalent) {
				t.Fatal(err)
			}
			wantMinMax(t, rep, "i", tc.want, "min 1, max 1000 by a scan", tc.unreadable)
		})
	}
}

// TestColumnStatsReadOnce: the refusal of statistics that do not cast
// (uncastableStats) and the min/max a folding reader answers
// (foldedMinMax) share one reading of ducklake_table_column_stats per
// reader and table: one query of its rows and one query of the casts (a
// text that does not cast is cast once more, alone, for DuckDB's error).
func TestColumnStatsReadOnce(t *testing.T) {
	ctx := context.Background()
	lake, catalog := lastVersion(t, "lakes", "05_defaults_not_null")
	data := filepath.Join(lake, "data")
	const col = `table_id = 1 AND column_id = 1`
	for _, tc := range []struct {
		name, edit string
		bad        string // in the refusal's text of column 1; "" for none
		folded     string // column 1's folded answer
		casts      int    // queries that cast
	}{
		{"as written", "", "", "min 1, max 1000", 1},
		{"max does not cast", `UPDATE ducklake_table_column_stats SET max_value = 'many' WHERE ` + col, `max_value "many"`, "error: ", 2},
		{"no max", `UPDATE ducklake_table_column_stats SET max_value = NULL WHERE ` + col, "", "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := catalog
			if tc.edit != "" {
				path = tamper(t, catalog, tc.edit)
			}
			r := openRead(t, path, data)
			snaps, err := r.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			last := latestSnapshot(snaps)
			tables, err := r.Tables(ctx, last)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(tables, func(x Table) bool { return x.ID == 1 })
			if i < 0 {
				t.Fatalf("no table 1 at snapshot %d", last)
			}
			net, err := r.int64s(ctx, `SELECT record_count FROM cat.ducklake_table_stats WHERE table_id = 1`)
			if err != nil || len(net) != 1 {
				t.Fatal(net, err)
			}
			log := queryLog(t, r)
			bad, err := r.uncastableStats(ctx, tables[i])
			if err != nil {
				t.Fatal(err)
			}
			folded, _, err := r.foldedMinMax(ctx, tables[i], last, net[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.uncastableStats(ctx, tables[i]); err != nil {
				t.Fatal(err)
			}
			stmts := log()
			var reads, casts int
			for _, s := range stmts {
				switch {
				case strings.Contains(s, "ducklake_table_column_stats"):
					reads++
				case strings.Contains(s, "CAST("):
					casts++
				}
			}
			if reads != 1 || casts != tc.casts {
				t.Errorf("%d reads of ducklake_table_column_stats and %d casts, want 1 and %d:\n%s", reads, casts, tc.casts, strings.Join(stmts, "\n"))
			}
			if got := bad[1]; (tc.bad == "") != (got == "") || !strings.Contains(got, tc.bad) {
				t.Errorf("refusal of column 1: %q, want %q", got, tc.bad)
			}
			got := ""
			if m, ok := folded[1]; ok {
				got = m.String()
			}
			if (tc.folded == "") != (got == "") || !strings.HasPrefix(got, tc.folded) {
				t.Errorf("folded answer of column 1: %q, want %q", got, tc.folded)
			}
		})
	}
}

// TestMinMaxTimestampNSBeforeRenderable edits the TIMESTAMP_NS statistics
// of a 1.0 catalog (01_primitive_types, table 1, column ts_ns: statistics
// '2000-01-01 00:00:00.123456789'..'2200-01-01 00:00:00.000000001') to a
// minimum on 1677-09-21 after 00:12:43.145224192: every DuckDB from 1.3.0
// to 2.0.0 casts that text to TIMESTAMP_NS (DefaultCastAs, as the readers
// do), but renders no value before 1677-09-22 as text
// (Timestamp::Convert: "Date out of range in timestamp_ns conversion").
// B's readers read the statistic and DuckDB 1.5.4+ folds min(ts_ns) to it;
// the proof used to fail on the text. A text before the type's range does
// not cast: B's readers fail (uncastable-column-stats).
func TestMinMaxTimestampNSBeforeRenderable(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "01_primitive_types")
	data := filepath.Join(lake, "data")
	const col = `table_id = 1 AND column_id = 22`
	for _, tc := range []struct {
		name, min  string
		self       bool   // A is the edited catalog too
		want       string // in the minmax difference; "" for none
		unreadable bool
	}{
		{"folds to a value DuckDB cannot render", "1677-09-21 12:00:00", false, "min 1677-09-21 12:00:00, max 2200-01-01 00:00:00.000000001 from the statistics", false},
		{"nanoseconds", "1677-09-21 00:12:43.1452252", false, "min 1677-09-21 00:12:43.1452252,", false},
		{"same on both sides", "1677-09-21 12:00:00", true, "", false},
		{"before the type's range: does not cast", "1677-09-21 00:12:43", false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tamper(t, catalog, `UPDATE ducklake_table_column_stats SET min_value = '`+tc.min+`' WHERE `+col)
			a := catalog
			if tc.self {
				a = b
			}
			rep, err := Catalogs(context.Background(), a, b, Options{DataPath: data, Engines: readerDBs})
			if err != nil && !errors.Is(err, ErrNotEquivalent) {
				t.Fatal(err)
			}
			wantMinMax(t, rep, "ts_ns", tc.want, "min 2000-01-01 00:00:00.123456789, max 2200-01-01 00:00:00.000000001 by a scan", tc.unreadable)
		})
	}
}

func TestFoldExtremes(t *testing.T) {
	db := testduck.Open(t, "")
	ctx := context.Background()
	types := []string{"DECIMAL(4,1)", "DECIMAL(18,0)", "DECIMAL(38,38)"}
	for dt := range foldedTypes {
		types = append(types, dt)
	}
	slices.Sort(types)
	for _, dt := range types {
		lo, hi, ok := foldExtremes(dt)
		if !ok {
			t.Errorf("%s: no extremes", dt)
			continue
		}
		var ok2 bool
		if err := db.QueryRowContext(ctx, "SELECT CAST("+sqlString(lo)+" AS "+dt+") < CAST("+sqlString(hi)+" AS "+dt+")").Scan(&ok2); err != nil || !ok2 {
			t.Errorf("%s: %q < %q: %v, %v", dt, lo, hi, ok2, err)
		}
	}
	_, tsLo, tsHi, _, _ := formats.OneSidedExtremes("timestamp")
	for _, q := range []string{
		"SELECT epoch_ns(CAST('1677-09-22 00:00:00' AS TIMESTAMP_NS)) = -9223286400000000000 AND epoch_ns(CAST('2262-04-11 23:47:16.854775806' AS TIMESTAMP_NS)) = 9223372036854775806",
		"SELECT epoch_us(CAST('290309-12-22 (BC) 00:00:00+00' AS TIMESTAMPTZ)) = epoch_us(CAST(" + sqlString(tsLo) + " AS TIMESTAMP)) AND epoch_us(CAST('294247-01-10 04:00:54.775806+00' AS TIMESTAMPTZ)) = epoch_us(CAST(" + sqlString(tsHi) + " AS TIMESTAMP))",
		"SELECT TRY_CAST('-999.9' AS DECIMAL(4,1)) IS NOT NULL AND TRY_CAST('999.95' AS DECIMAL(4,1)) IS NULL AND TRY_CAST('-1000' AS DECIMAL(4,1)) IS NULL",
	} {
		var ok bool
		if err := db.QueryRowContext(ctx, q).Scan(&ok); err != nil || !ok {
			t.Errorf("%s: %v, %v", q, ok, err)
		}
	}
	if lo, hi, _ := foldExtremes("DECIMAL(4,1)"); lo != "-999.9" || hi != "999.9" {
		t.Errorf("DECIMAL(4,1): %q, %q", lo, hi)
	}
}

// wantMinMax checks a report's minmax differences: none when want is "",
// else one, of column, saying want and A's scan; and B reported
// unreadable for uncastable statistics exactly when unreadable.
func wantMinMax(t *testing.T, rep *Report, column, want, scan string, unreadable bool) {
	t.Helper()
	var got []string
	isUnreadable := false
	for _, d := range rep.Differences {
		if d.Kind == "minmax" {
			got = append(got, d.String())
		}
		isUnreadable = isUnreadable || (d.Kind == "unreadable" && d.A == "" && strings.Contains(d.Reason, "uncastable-column-stats"))
	}
	if isUnreadable != unreadable {
		t.Errorf("B unreadable: got %v, want %v", isUnreadable, unreadable)
	}
	if want == "" {
		if len(got) > 0 {
			t.Errorf("want no minmax difference, got:\n%s", strings.Join(got, "\n"))
		}
		return
	}
	if len(got) != 1 || !strings.Contains(got[0], "column "+column) || !strings.Contains(got[0], want) || !strings.Contains(got[0], scan) {
		t.Errorf("want one minmax difference of column %s with %q and A's scan, got:\n%s", column, want, strings.Join(got, "\n"))
	}
}

package convert

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestTimeTZDefaultSpellings: DuckDB reads a TIMETZ initial_default
// written with a space before its offset ('12:34:56 +02') or a compact
// offset ('12:34:56+0230') as 12:34:56+02 and 12:34:56+02:30 (probed with
// DuckDB 1.5.6: SELECT '12:34:56 +02'::TIMETZ). formats.ParseTimeTZ does
// not parse the first (the seconds "56 " are no number) and reads the
// second's offset as 230 hours. A downgrade to 0.4, whose readers drop
// the offset (timetz-default-offset-ignored), must be refused for both as
// it is for '12:34:56+02': the first was converted without a word (the
// literal taken as read alike, "failing alike, unparsed") and proved
// equivalent, while a 0.4 reader returns 12:34:56+00 where the source's
// returns 12:34:56+02.
func TestTimeTZDefaultSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lit, kept string }{
		{"12:34:56 +02", "12:34:56+02"},
		{"12:34:56+0230", "12:34:56+02:30"},
	} {
		if got, ok := formats.ParseTimeTZ(tc.lit); !ok || got.String() != tc.kept {
			t.Errorf("ParseTimeTZ(%q) = %q, %t; DuckDB reads %q", tc.lit, got, ok, tc.kept)
		}
	}
	ctx := context.Background()
	for _, lk := range readerLakes(t) {
		if lk.name != "q_default__all_types_column_default_stats" {
			continue
		}
		edited := editedCopy(t, lk.src, "UPDATE ducklake_column SET initial_default = '12:34:56 +02' WHERE column_name = 'n_time_tz' AND initial_default = '12:34:56+02'")
		if got := query(t, edited, "SELECT count(*) FROM c.ducklake_column WHERE initial_default = '12:34:56 +02'"); got[0][0] == "0" {
			t.Fatal("no initial_default edited: the test tests nothing")
		}
		out := filepath.Join(t.TempDir(), "out.duckdb")
		_, err := Catalog(ctx, edited, out, formats.V0_4, Options{DataPath: lk.data})
		var refused *RefusedError
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), `initial_default "12:34:56 +02"`) {
			t.Errorf("convert to 0.4: %v, want refused naming the default (a 0.4 reader reads it at +00)", err)
		}
		if err == nil {
			// The proof must not call the written catalog equivalent.
			if _, err := compare.Catalogs(ctx, edited, out, compare.Options{DataPath: lk.data}); !errors.Is(err, compare.ErrNotEquivalent) {
				t.Errorf("compare with its 0.4 conversion: %v, want not equivalent", err)
			}
		}
		// The proof alone: a 0.4 catalog and its 1.0 source that both spell
		// the default so (written at +00, which converts, then both edited)
		// read differently, +00 in 0.4 and +02 in 1.0. The proof's model
		// took the literal as unparsed and both sides as DuckDB 1.5.6 casts
		// it: equivalent.
		const atZero = "UPDATE ducklake_column SET initial_default = '12:34:56+00' WHERE column_name = 'n_time_tz' AND initial_default = '12:34:56+02'"
		const spaced = "UPDATE ducklake_column SET initial_default = '12:34:56 +02' WHERE column_name = 'n_time_tz' AND initial_default = '12:34:56+00'"
		plain := editedCopy(t, lk.src, atZero)
		out04 := filepath.Join(t.TempDir(), "plain-0.4.duckdb")
		if _, err := Catalog(ctx, plain, out04, formats.V0_4, Options{DataPath: lk.data}); err != nil {
			t.Fatalf("convert the default at +00 to 0.4: %v", err)
		}
		a, b := editedCopy(t, plain, spaced), editedCopy(t, out04, spaced)
		if got := query(t, b, "SELECT count(*) FROM c.ducklake_column WHERE initial_default = '12:34:56 +02'"); got[0][0] == "0" {
			t.Fatal("no initial_default of the 0.4 catalog edited: the test tests nothing")
		}
		if _, err := compare.Catalogs(ctx, a, b, compare.Options{DataPath: lk.data}); !errors.Is(err, compare.ErrNotEquivalent) {
			t.Errorf("compare 1.0 and 0.4 with the default '12:34:56 +02': %v, want not equivalent", err)
		}
	}
}

// TestParseTimeTZMatchesDuckDB holds formats.ParseTimeTZ to DuckDB's own
// cast from text (the one every reader's DefaultCastAs runs) over a grid
// of spellings: where it parses, DuckDB reads the literal as the value it
// writes back (same time, same offset); where it does not, DuckDB refuses
// the literal or reads it at +00 (as a timestamp), so every reader reads
// it alike whatever it does with offsets.
func TestParseTimeTZMatchesDuckDB(t *testing.T) {
	t.Parallel()
	db := testduck.Open(t, "")
	defer db.Close()
	var lits []string
	for _, clock := range []string{"12:34:56", "1:2:3", "12:34", "12:", "24:00:00", "24:00:00.1", "24:00:00.0000001", "12:34:56.5",
		" 07:08:09", "99:00:00", "12:3:4.000001", "12:34:56.", "2024-01-01 12:34:56", "noon", "12:34:5x"} {
		for _, sep := range []string{"", " ", "\t", "  "} {
			for _, off := range []string{"", "+02", "-02", "+0230", "+02:30", "+02:3", "+02:30:15", "+023015", "+2", "+15:59:59",
				"+16", "-15:59:59", "-16:00", "+02x", "Z", "+02:30:1", "+0099", "+15:99", " junk", "+02 junk", "-00:00:30"} {
				lits = append(lits, clock+sep+off)
			}
		}
	}
	checked := 0
	for _, lit := range lits {
		var same, alike bool
		want := lit
		got, ok := formats.ParseTimeTZ(lit)
		if ok {
			want = got.String()
		}
		err := db.QueryRow(`SELECT TRY_CAST(?::VARCHAR AS TIMETZ) IS NOT DISTINCT FROM TRY_CAST(?::VARCHAR AS TIMETZ)
			AND TRY_CAST(?::VARCHAR AS TIMETZ)::VARCHAR IS NOT DISTINCT FROM TRY_CAST(?::VARCHAR AS TIMETZ)::VARCHAR,
			coalesce(TRY_CAST(?::VARCHAR AS TIMETZ)::VARCHAR LIKE '%+00', true)`, lit, want, lit, want, lit).Scan(&same, &alike)
		if err != nil {
			t.Fatalf("%q: %v", lit, err)
		}
		switch {
		case ok && !same:
			t.Errorf("ParseTimeTZ(%q) = %q, which DuckDB reads otherwise than the literal", lit, got)
		case !ok && !alike:
			t.Errorf("ParseTimeTZ(%q) does not parse it; DuckDB reads it with an offset", lit)
		}
		checked++
	}
	if checked < 1000 {
		t.Fatalf("only %d literals checked", checked)
	}
}

package formats

import (
	"context"
	"errors"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestDefaultCastQueryTimeZones: the readers' Value::DefaultCastAs casts
// with the default cast functions only (an empty CastFunctionSet, no
// session): a TIMESTAMPTZ text goes through Timestamp::TryConvertTimestamp,
// which takes a numeric offset and the zone name UTC (any letter case) and
// fails on any other name ("Use the TIMESTAMPTZ type with the ICU
// extension loaded"; alike in v1.3-ossivalis, v1.4-andium, v1.5-variegata
// and main). This DuckDB loads ICU, whose VARCHAR-to-TIMESTAMPTZ cast a
// TRY_CAST binds: it took '... America/New_York' and 'GMT', so the proof
// called such defaults readable where every reader fails on them.
// DefaultCastQuery answers as DefaultCastAs does, whatever the session's
// TimeZone.
func TestDefaultCastQueryTimeZones(t *testing.T) {
	ctx := context.Background()
	db := testduck.Open(t, "")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cases := []struct {
		text, typ string
		casts     bool
	}{
		{"2024-01-01 00:00:00 America/New_York", "TIMESTAMPTZ", false},
		{"2024-01-01 00:00:00 GMT", "TIMESTAMPTZ", false},
		{"2024-01-01 00:00:00 Europe/Berlin", "TIMESTAMPTZ", false},
		{"2024-01-01 00:00:00+02", "TIMESTAMPTZ", true},
		{"2024-01-01 00:00:00-05:30", "TIMESTAMPTZ", true},
		{"2024-01-01 00:00:00 UTC", "TIMESTAMPTZ", true},
		{"2024-01-01 00:00:00 utc", "TIMESTAMPTZ", true},
		{"2024-01-01 00:00:00", "TIMESTAMPTZ", true},
		{"2024-01-01", "TIMESTAMPTZ", true},
		{"infinity", "TIMESTAMPTZ", true},
		{"not a time", "TIMESTAMPTZ", false},
		{"2024-01-01 00:00:00 America/New_York", "TIMESTAMP", false},
		{"2024-01-01 00:00:00+02", "TIMESTAMP", true},
		{"12:00:00+02", "TIMETZ", true},
		{"12:00:00 America/New_York", "TIMETZ", false},
		{"2024-01-01 00:00:00 +02", "TIMESTAMPTZ", false},
		{"2024-01-01 00:00:00.5 UTC  ", "TIMESTAMPTZ", true},
		{"2024-01-01T00:00:00Z", "TIMESTAMPTZ", true},
		{"0044-03-15 (BC) 12:00:00", "TIMESTAMPTZ", true},
		{"it's", "VARCHAR", true},
		{"abc", "INTEGER", false},
		{"abc", "JSON", true},
		{"{\"a\": 1", "JSON", true},
		{"[1, 2]", "JSON", true},
	}
	for _, tz := range []string{"UTC", "America/New_York", "Asia/Kathmandu"} {
		if _, err := conn.ExecContext(ctx, "SET TimeZone = '"+tz+"'"); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			var got bool
			if err := conn.QueryRowContext(ctx, DefaultCastQuery(c.text, c.typ)).Scan(&got); err != nil {
				t.Fatalf("TimeZone %s: %q AS %s: %v", tz, c.text, c.typ, err)
			}
			if got != c.casts {
				t.Errorf("TimeZone %s: %q AS %s: casts %v, want %v (DefaultCastAs)", tz, c.text, c.typ, got, c.casts)
			}
		}
	}
}

// TestDefaultCastError: only the cast's own failure on a type this DuckDB
// casts to is a refusal; an error of another kind (an interrupt, the
// machine) is an error, never a verdict the proof would keep, and a type
// this DuckDB cannot cast to is not judged.
func TestDefaultCastError(t *testing.T) {
	t.Parallel()
	own := errors.New("Invalid Input Error: Failed to parse geometry")
	other := errors.New("INTERRUPT Error: Interrupted!")
	isOwn := func(err error) bool { return err == own }
	castable := func() (bool, error) { return true, nil }
	unknown := func() (bool, error) { return false, errors.New("Catalog Error: Type with name X does not exist!") }
	for _, c := range []struct {
		name     string
		err      error
		castable func() (bool, error)
		ok       bool
		wantErr  bool
	}{
		{"own failure, castable type", own, castable, false, false},
		{"other error, castable type", other, castable, false, true},
		{"own failure, uncastable type", own, unknown, true, false},
		{"other error, uncastable type", other, unknown, true, false},
	} {
		ok, err := DefaultCastError(c.err, isOwn, c.castable)
		if ok != c.ok || (err != nil) != c.wantErr || (err != nil && !errors.Is(err, c.err)) {
			t.Errorf("%s: %v, %v; want %v, error %v", c.name, ok, err, c.ok, c.wantErr)
		}
	}
}

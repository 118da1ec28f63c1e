package formats

import (
	"context"
	"encoding/hex"
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
// casts to is a refusal, and a type both statements say this DuckDB does
// not know is not judged; an error of another kind (an interrupt, the
// machine), of the cast or of the statement asking whether the type
// casts at all, is an error, never a verdict the proof would keep: a
// machine error of the second was taken for a type this DuckDB cannot
// name, and the text for one that casts. (classify stands for
// internal/duckerr.DefaultCast; a second "unknown type" error stands for
// a cast naming a type the castable statement then names.)
func TestDefaultCastError(t *testing.T) {
	t.Parallel()
	own := errors.New("Invalid Input Error: Failed to parse geometry")
	other := errors.New("INTERRUPT Error: Interrupted!")
	unnamed := errors.New("Catalog Error: Type with name X does not exist!")
	binder := errors.New("Catalog Error: Table Function with name x does not exist!")
	classify := func(err error) CastErrorKind {
		switch err {
		case own:
			return CastErrorCast
		case unnamed, binder:
			return CastErrorType
		}
		return CastErrorOther
	}
	castable := func() error { return nil }
	unknown := func() error { return unnamed }
	machine := func() error { return other }
	for _, c := range []struct {
		name     string
		err      error
		castable func() error
		ok       bool
		wantErr  error
	}{
		{"own failure, castable type", own, castable, false, nil},
		{"other error, castable type", other, castable, false, other},
		{"own failure, unknown type", own, unknown, false, unnamed},
		{"type error, unknown type", unnamed, unknown, true, nil},
		{"other error, unknown type", other, unknown, false, other},
		{"unknown type error of the cast, castable type", binder, castable, false, binder},
		{"own failure, castable query fails with a machine error", own, machine, false, other},
		{"type error, castable query fails with a machine error", unnamed, machine, false, other},
	} {
		ok, err := DefaultCastError(c.err, "GEOMETRY", classify, c.castable)
		if ok != c.ok || (err != nil) != (c.wantErr != nil) || (err != nil && !errors.Is(err, c.wantErr)) {
			t.Errorf("%s: %v, %v; want %v, error %v", c.name, ok, err, c.ok, c.wantErr)
		}
	}
}

// A default holding a NUL byte (DuckDB's VARCHAR holds one; DuckDB reads
// a statement only up to its first) is judged as any other text: the
// judges' statements cut it short and failed (an error exit for a
// catalog every reader loads), and SQLText gives its value byte for
// byte.
func TestDefaultJudgesTakeNUL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testduck.Open(t, "")
	for _, text := range []string{"a\x00b", "\x00", "it's\x00\x00'", "no nul"} {
		var same bool
		if err := db.QueryRowContext(ctx, "SELECT encode("+SQLText(text)+") = from_hex('"+hex.EncodeToString([]byte(text))+"')").Scan(&same); err != nil || !same {
			t.Errorf("SQLText(%q) = %s: same value %v, %v", text, SQLText(text), same, err)
		}
	}
	for _, c := range []struct {
		text, typ string
		casts     bool
	}{
		{"a\x00b", "VARCHAR", true},
		{"1\x00", "INTEGER", false},
		{"\x00", "JSON", true},
	} {
		for _, v := range []*Version{nil, V1_0} {
			q := DefaultCastQuery(c.text, c.typ)
			if v != nil {
				q = v.DefaultCastQuery(c.text, c.typ)
			}
			var got bool
			if err := db.QueryRowContext(ctx, q).Scan(&got); err != nil || got != c.casts {
				t.Errorf("%v: %q AS %s: casts %v, %v; want %v", v, c.text, c.typ, got, err, c.casts)
			}
		}
	}
	for _, c := range []struct {
		text   string
		parses bool
	}{{"1\x00", true}, {"'a\x00'", false}} {
		var got bool
		if err := db.QueryRowContext(ctx, DefaultParsesQuery(c.text)).Scan(&got); err != nil || got != c.parses {
			t.Errorf("%q parses %v, %v; want %v", c.text, got, err, c.parses)
		}
	}
}

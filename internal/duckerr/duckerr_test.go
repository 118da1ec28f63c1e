package duckerr

import (
	"context"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestDefaultCast: the errors DuckDB 1.5.6 raises for a default's cast
// judge, told as formats.DefaultCastError reads them: the cast's own
// failure, a type this DuckDB does not know (misspelt, of an extension
// not loaded), and anything else (a DECIMAL out of range or a type that
// does not parse, which no column's type is; a closed connection, a
// cancelled context), which is never a verdict.
func TestDefaultCast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testduck.Open(t, "")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET autoload_known_extensions = false"); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		q    string
		want formats.CastErrorKind
	}{
		{"GEOMETRY text that is not WKT", ctx, formats.DefaultCastQuery("not wkt", "GEOMETRY"), formats.CastErrorCast},
		{"misspelt type", ctx, formats.CastableTypeQuery("INTEGR"), formats.CastErrorType},
		{"type of an extension not loaded", ctx, formats.CastableTypeQuery("INET"), formats.CastErrorType},
		// No column's type (formats.ScalarDuckType): errors, not "not judged".
		{"DECIMAL out of range", ctx, formats.CastableTypeQuery("DECIMAL(39,2)"), formats.CastErrorOther},
		{"type that does not parse", ctx, formats.CastableTypeQuery("X("), formats.CastErrorOther},
		{"cancelled context", cancelled, formats.CastableTypeQuery("INTEGER"), formats.CastErrorOther},
	} {
		var ok bool
		err := conn.QueryRowContext(c.ctx, c.q).Scan(&ok)
		if err == nil {
			t.Fatalf("%s: %s: no error", c.name, c.q)
		}
		if got := DefaultCast(err); got != c.want {
			t.Errorf("%s: %v: kind %d, want %d", c.name, err, got, c.want)
		}
	}
	closed, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	var ok bool
	err = closed.QueryRowContext(ctx, formats.CastableTypeQuery("INTEGER")).Scan(&ok)
	if got := DefaultCast(err); err == nil || got != formats.CastErrorOther {
		t.Errorf("closed connection: %v: kind %d, want %d", err, got, formats.CastErrorOther)
	}
}

// TestDefaultCastFailure: on a real DuckDB, a judge's failure told with
// the castable statement run on the same connection: the cast's own
// failure (a GEOMETRY text that is not WKT) is "does not cast", a type
// both statements say DuckDB does not know is "not judged", and a
// context ended before the castable statement runs is an error.
func TestDefaultCastFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := testduck.Open(t, "").Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET autoload_known_extensions = false"); err != nil {
		t.Fatal(err)
	}
	judge := func(ctx context.Context, text, duckType string) (bool, error) {
		var ok bool
		err := conn.QueryRowContext(context.Background(), formats.DefaultCastQuery(text, duckType)).Scan(&ok)
		if err == nil {
			t.Fatalf("%q AS %s: the judge ran", text, duckType)
		}
		return DefaultCastFailure(ctx, conn, err, duckType)
	}
	if ok, err := judge(ctx, "not wkt", "GEOMETRY"); ok || err != nil {
		t.Errorf("GEOMETRY 'not wkt': %v, %v; want does not cast", ok, err)
	}
	if ok, err := judge(ctx, "1.2.3.4", "INET"); !ok || err != nil {
		t.Errorf("INET (not loaded): %v, %v; want not judged", ok, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if ok, err := judge(cancelled, "not wkt", "GEOMETRY"); err == nil {
		t.Errorf("GEOMETRY 'not wkt', context cancelled: %v, no error; want an error", ok)
	}
}

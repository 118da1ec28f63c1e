package duckerr

import (
	"context"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

// TestDefaultCast: the errors DuckDB 1.5.6 raises for a default's cast
// judge, told as formats.DefaultCastError reads them: the cast's own
// failure, a type this DuckDB cannot name in a cast (misspelt, of an
// extension not loaded, a DECIMAL out of range, one that does not
// parse), and anything else (a closed connection, a cancelled context),
// which is never a verdict.
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

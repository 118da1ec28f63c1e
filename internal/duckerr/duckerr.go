// Package duckerr reads the types of DuckDB's errors (the driver's
// *duckdb.Error) where more than one package must read them alike:
// package formats, which states the rules, must not import the driver,
// and compare and convert, which ask them, must not import each other.
package duckerr

import (
	"context"
	"database/sql"
	"errors"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/formats"
)

// DefaultCast tells what err, of a default's cast judge
// (formats.DefaultCastQuery, formats.CastableTypeQuery), says, for
// formats.DefaultCastError: DuckDB's Conversion and Invalid Input errors
// are the cast's own failure; its Catalog error is what DuckDB 1.5.6
// raises for a type it does not know (one of an extension not loaded, a
// misspelt name). Anything else is formats.CastErrorOther: a Binder or
// Parser error (a DECIMAL width out of range, a type that does not
// parse: no column type formats.ScalarDuckType gives), the machine, an
// interrupt, DuckDB itself, an extension's failed download (Extension
// Autoloading Error), a closed connection or a cancelled context (no
// *duckdb.Error), and a message whose type the driver did not read
// (ErrorTypeInvalid): an error, since "not judged" counts the text as
// one that casts.
func DefaultCast(err error) formats.CastErrorKind {
	de, ok := errors.AsType[*duckdb.Error](err)
	if !ok {
		return formats.CastErrorOther
	}
	switch de.Type {
	case duckdb.ErrorTypeConversion, duckdb.ErrorTypeInvalidInput:
		return formats.CastErrorCast
	case duckdb.ErrorTypeCatalog:
		return formats.CastErrorType
	}
	return formats.CastErrorOther
}

// DefaultCastFailure tells what err, the failure of a default's cast
// judge of a text as duckType run on conn, means (formats.DefaultCastError
// with DefaultCast): false where the cast's own failure says the text
// does not cast, true where the type is one this DuckDB does not know
// (not judged), or an error. It runs formats.CastableTypeQuery on conn
// to tell them apart; a context ended meanwhile is an error, never a
// verdict. The proof and convert both ask it.
func DefaultCastFailure(ctx context.Context, conn *sql.Conn, err error, duckType string) (bool, error) {
	ok, err := formats.DefaultCastError(err, duckType, DefaultCast, func() error {
		return conn.QueryRowContext(ctx, formats.CastableTypeQuery(duckType)).Scan(new(bool))
	})
	if err == nil && ctx.Err() != nil {
		return false, ctx.Err()
	}
	return ok, err
}

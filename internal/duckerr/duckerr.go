// Package duckerr reads the types of DuckDB's errors (the driver's
// *duckdb.Error) where more than one package must read them alike:
// package formats, which states the rules, must not import the driver,
// and compare and convert, which ask them, must not import each other.
package duckerr

import (
	"errors"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/fdl-formats/fdl-formats/formats"
)

// DefaultCast tells what err, of a default's cast judge
// (formats.DefaultCastQuery, formats.CastableTypeQuery), says, for
// formats.DefaultCastError: DuckDB's Conversion and Invalid Input errors
// are the cast's own failure; its Catalog, Binder and Parser errors are
// what DuckDB 1.5.6 raises for a type it cannot name in a cast (a
// misspelt type and one of an extension not loaded: Catalog; a DECIMAL
// width or scale out of range: Binder; a type that does not parse:
// Parser). Anything else is formats.CastErrorOther: the machine, an
// interrupt, DuckDB itself, an extension's failed download (Extension
// Autoloading Error), a closed connection or a cancelled context (no
// *duckdb.Error), and a message whose type the driver did not read
// (ErrorTypeInvalid).
func DefaultCast(err error) formats.CastErrorKind {
	de, ok := errors.AsType[*duckdb.Error](err)
	if !ok {
		return formats.CastErrorOther
	}
	switch de.Type {
	case duckdb.ErrorTypeConversion, duckdb.ErrorTypeInvalidInput:
		return formats.CastErrorCast
	case duckdb.ErrorTypeCatalog, duckdb.ErrorTypeBinder, duckdb.ErrorTypeParser:
		return formats.CastErrorType
	}
	return formats.CastErrorOther
}

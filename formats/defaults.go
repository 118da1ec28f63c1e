package formats

import (
	"fmt"
	"strings"
)

// This file declares how every DuckLake release line's reader takes a
// column's defaults when it loads a snapshot's schema (TransformColumnType,
// src/storage/ducklake_catalog.cpp, in v1.3-ossivalis, v1.4-andium,
// v1.5-variegata and main), the rule compare's proof (uncastable-default,
// unparsable-default-expression) and convert's refusals both apply:
//
//   - a column or field without fields of its own has its initial_default
//     cast to its type with Value::DefaultCastAs (a struct, list or map
//     gets none);
//   - formats 0.1-0.3 (v1.3-ossivalis, v1.4-andium) cast its default_value
//     too (CastsDefaultValue);
//   - formats 0.4+ keep a literal default_value as text and parse an
//     expression one with Parser::ParseExpressionList
//     (DefaultParsesQuery).
//
// A text that does not cast, or an expression that is not one, fails the
// load: no table of the catalog reads.

// CastsDefaultValue tells whether v's readers cast a column's
// default_value, not only its initial_default, to the column's type as
// they load the schema (formats without expression defaults: 0.1-0.3).
func (v *Version) CastsDefaultValue() bool { return !v.Has(CapExpressionDefaults) }

// ScalarDuckType is the DuckDB type of a DuckLake column type without
// fields, as DuckLakeTypes::FromString reads it (ASCII letter case
// folded, not trimmed; a decimal only "decimal(W,S)"); false for a name
// the readers refuse, and for struct, list and map.
func ScalarDuckType(t string) (string, bool) {
	if w, s, ok := DecimalArgs(t); ok {
		return fmt.Sprintf("DECIMAL(%d,%d)", w, s), true
	}
	d, ok := scalarDuckTypes[ASCIILower(t)]
	return d, ok
}

// scalarDuckTypes maps DuckLake type names to DuckDB types.
var scalarDuckTypes = map[string]string{
	"boolean": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
	"int128": "HUGEINT", "uint8": "UTINYINT", "uint16": "USMALLINT", "uint32": "UINTEGER", "uint64": "UBIGINT",
	"uint128": "UHUGEINT", "float32": "FLOAT", "float64": "DOUBLE", "time": "TIME", "time_ns": "TIME_NS",
	"timetz": "TIMETZ", "date": "DATE", "timestamp": "TIMESTAMP", "timestamp_us": "TIMESTAMP",
	"timestamp_ms": "TIMESTAMP_MS", "timestamp_ns": "TIMESTAMP_NS", "timestamp_s": "TIMESTAMP_S",
	"timestamptz": "TIMESTAMPTZ", "interval": "INTERVAL", "varchar": "VARCHAR", "blob": "BLOB",
	"uuid": "UUID", "json": "JSON", "geometry": "GEOMETRY", "variant": "VARIANT",
}

// DefaultCastQuery is a statement giving one boolean: whether text casts
// to DuckDB type duckType as the readers' Value::DefaultCastAs casts it.
// DefaultCastAs uses the default cast functions only (an empty
// CastFunctionSet: no extension's casts, no session): a TRY_CAST from
// VARCHAR is the same non-strict cast except where an extension
// registers its own. ICU does for TIMESTAMPTZ: in a session that has it
// loaded (this DuckDB loads it), TRY_CAST takes a time zone name
// ('2024-01-01 00:00:00 America/New_York', 'GMT'), where the default
// cast (Timestamp::TryConvertTimestamp with use_offset, alike in every
// line from v1.3-ossivalis to main) takes a numeric offset ('+02') and the
// name UTC, in any letter case, only: it parses the text as ICU's cast
// does (Timestamp::TryConvertTimestampTZ), then fails on any other name,
// which follows the time after one space. So a TIMESTAMPTZ text must
// cast and must not end in such a name other than UTC; the answer does
// not depend on the session's TimeZone or on whether ICU is loaded. (The
// VARCHAR-to-TIMESTAMP cast cannot stand in: from DuckDB 2.0 it ignores
// a zone name.)
//
// JSON is the other: the json extension's cast validates the text, where
// the default cast reinterprets a VARCHAR as JSON (JSON is a VARCHAR by
// its type id: string_cast.cpp, ReinterpretCast), so every text casts.
func DefaultCastQuery(text, duckType string) string {
	lit := SQLText(text)
	if strings.EqualFold(duckType, "JSON") {
		duckType = "VARCHAR"
	}
	q := "SELECT TRY_CAST(" + lit + " AS " + duckType + ") IS NOT NULL"
	if strings.EqualFold(duckType, "TIMESTAMPTZ") {
		q += " AND lower(regexp_extract(" + lit + ", " + zoneNamePattern + ", 1)) IN ('', 'utc')"
	}
	return q
}

// DefaultCastQuery is DefaultCastQuery (the default cast of DuckDB 1.3 to
// 1.5, whose releases answer alike) for v's readers: where DuckDB 2.0
// (DuckLake main) reads v (formats 1.0 and 1.1), the text must also cast
// as 2.0's DefaultCastAs casts it (duckDB2Casts). 1.0's readers are 1.5.2+
// and 2.0, so a 1.0 default must load in both.
func (v *Version) DefaultCastQuery(text, duckType string) string {
	q := DefaultCastQuery(text, duckType)
	if v.Opens("2.0.0") {
		if c := duckDB2Casts(text, duckType); c != "" {
			q += " AND " + c
		}
	}
	return q
}

// CastableTypeQuery is a statement that runs where this DuckDB can cast
// VARCHAR to duckType at all: where it does and DefaultCastQuery fails
// with an error, the text's own cast throws (DuckDB 1.5's
// Geometry::FromString does on a text that is not WKT, also under
// TRY_CAST), and so does every reader's DefaultCastAs of it: the text
// does not cast. Where both fail naming the type as one this DuckDB does
// not know (CastErrorType), the text is not judged; any other failure of
// it is an error (DefaultCastError). Its answer means nothing: only
// whether it runs.
func CastableTypeQuery(duckType string) string {
	if strings.EqualFold(duckType, "JSON") {
		duckType = "VARCHAR"
	}
	return "SELECT TRY_CAST(NULL::VARCHAR AS " + duckType + ") IS NULL"
}

// CastErrorKind is what a DuckDB error of a default's cast judge says,
// as the caller's classifier of the driver's errors tells it
// (internal/duckerr.DefaultCast) for DefaultCastError.
type CastErrorKind int

const (
	// CastErrorOther: anything else (the machine, an interrupt, a closed
	// connection, a cancelled context, DuckDB itself): never a verdict.
	CastErrorOther CastErrorKind = iota
	// CastErrorCast: the cast's own failure (DuckDB's Conversion or
	// Invalid Input error: Geometry::FromString's on a text that is not
	// WKT).
	CastErrorCast
	// CastErrorType: the statement names a type this DuckDB does not
	// know (DuckDB's Catalog error: one of an extension not loaded).
	CastErrorType
)

// DefaultCastError tells what err, the error of running
// (*Version).DefaultCastQuery or DefaultCastQuery of a text as duckType,
// means; the proof and convert both ask it, with classify telling the
// kind of a DuckDB error (CastErrorKind) and castable running
// CastableTypeQuery(duckType) on the same DuckDB. Where err is the cast's
// own failure and castable runs, the text does not cast (false): the
// readers' DefaultCastAs throws too. Where err and castable's error both
// name a type this DuckDB does not know, the text is not judged (true).
// Any other error, or outcome (the cast's own failure where the type is
// unknown, a type unknown to one statement only), is returned, never a
// verdict, so that a one-off failure is kept neither as a refusal nor as
// a text that casts.
func DefaultCastError(err error, duckType string, classify func(error) CastErrorKind, castable func() error) (bool, error) {
	kind := classify(err)
	if kind == CastErrorOther {
		return false, err
	}
	cerr := castable()
	switch {
	case cerr == nil && kind == CastErrorCast:
		return false, nil
	case cerr != nil && kind == CastErrorType && classify(cerr) == CastErrorType:
		return true, nil
	case cerr != nil:
		return false, fmt.Errorf("does this DuckDB cast VARCHAR to %s at all: %w", duckType, cerr)
	}
	return false, err
}

// duckDB2Casts is the condition, beyond DefaultCastQuery's, under which
// DuckDB 2.0's default cast takes text as duckType ("" for none), read
// from DuckDB main (src/common/operator/cast_operators.cpp,
// src/common/types/timestamp.cpp) and held to the real 2.0.0
// (compare.TestDefaultCastsAsRealReleases):
//
//   - DATE (TryConvertDateCast): a text with more than white space after
//     the date (and its " (BC)") casts only where the whole text casts as
//     a TIMESTAMP, where 1.3-1.5 take anything not starting with a digit
//     after the date ('2024-01-01 x', '2024-01-01 12', '2024-01-01T'); the
//     condition asks the date alone, or a timestamp as 1.5 casts it
//     (2.0 takes more: a zone name after the time, which is refused);
//   - TIMESTAMP, _S, _MS, _NS and TIMESTAMPTZ (TryConvertTimestampTZ,
//     whose TryParseUTCOffset is strict in 2.0): an offset ending in a
//     colon ('+02:', '+02:00:') fails, where 1.3-1.5 take the colon;
//   - TIME and TIME_NS (Time::TryConvertTime): a text whose time part
//     does not parse (one not starting with digits and a colon) is read
//     as a timestamp, so fails where a TIMESTAMP's offset would;
//   - TIMETZ (Time::TryConvertTimeTZ): after the time (H:M:S[.frac]) and
//     white space, 2.0's strict TryParseUTCOffset fails an offset that
//     does not end cleanly: a non-digit or the end after the last colon
//     or after a one-digit minute or second ('+02:x', '+02:0x',
//     '+02:00:5z', '+020x'), where 1.3-1.5 ignore the rest; a text
//     whose time part does not parse is read as a timestamp, as TIME.
func duckDB2Casts(text, duckType string) string {
	lit := SQLText(text)
	// The timestamp reading of a text that is not a time first.
	timestamp := "(regexp_matches(" + lit + ", " + timeFirstPattern + ") OR NOT regexp_matches(" + lit + ", " + offsetColonPattern + "))"
	switch strings.ToUpper(duckType) {
	case "DATE":
		return "(regexp_matches(" + lit + ", " + dateAlonePattern + ") OR (TRY_CAST(" + lit + " AS TIMESTAMP) IS NOT NULL AND NOT regexp_matches(" + lit + ", " + offsetColonPattern + ")))"
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		return "NOT regexp_matches(" + lit + ", " + offsetColonPattern + ")"
	case "TIME", "TIME_NS":
		return timestamp
	case "TIMETZ", "TIME WITH TIME ZONE":
		return "(NOT regexp_matches(" + lit + ", " + timeTZOffsetPattern + ") AND " + timestamp + ")"
	}
	return ""
}

// dateAlonePattern matches a text that is a date and white space only
// (StringUtil::CharacterIsSpace): leading white space, a year, a
// separator ('-', '/', ' ' or a backslash), a month and a day of one or two
// digits each with that separator between, an optional " (BC)"; or one
// starting with a letter (infinity, epoch: Date::TryConvertDate casts
// those only with white space after).
const dateAlonePattern = `'^[ \t\n\v\f\r]*-?([^0-9-]|[0-9]+(-[0-9]{1,2}-[0-9]{1,2}|/[0-9]{1,2}/[0-9]{1,2}| [0-9]{1,2} [0-9]{1,2}|\\[0-9]{1,2}\\[0-9]{1,2})([ \t\n\v\f\r]\([bB][cC]\))?[ \t\n\v\f\r]*$)'`

// offsetColonPattern matches a text ending in a UTC offset whose last
// colon has no digits after it ('+02:', '-5:30:'), and no space either:
// 2.0 reads white space after the colon as a zone name's start where
// its first character is a space (the name empty: the text casts).
const offsetColonPattern = `'[+-][0-9]+(:[0-9]+)*:([\t\n\v\f\r][ \t\n\v\f\r]*)?$'`

// timeFirstPattern matches a text Time::TryConvertInternal reads as a
// time first (white space, digits, a colon); where that fails, so does
// the timestamp reading (a date takes no colon after its year).
const timeFirstPattern = `'^[ \t\n\v\f\r]*[0-9]+:'`

// timeTZOffsetPattern matches a TIMETZ text whose time (H:M:S[.frac]) is
// followed, after white space, by an offset that 2.0's strict
// TryParseUTCOffset fails though 1.3-1.5 take it (they need a sign and
// two hour digits too): a colon, or a first minute or second digit, then
// a non-digit or the end ('+02:', '+02:x', '+02:0x', '+020x',
// '+02:00:', '+02:00:5z').
const timeTZOffsetPattern = `'^[ \t\n\v\f\r]*[0-9]+:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?[ \t\n\v\f\r]*[+-][0-9]{2}(:([^0-9]|[0-9]([^0-9]|$)|$)|[0-9][^0-9]|:[0-9]{2}:([^0-9]|[0-9]([^0-9]|$)|$))'`

// zoneNamePattern finds the time zone name Timestamp::TryConvertTimestampTZ
// takes: after the time (ending in a digit or '.'), one space, then the
// name's characters (CharacterIsTimeZone: letters, digits, '_', '/', '+',
// '-', and from 2.0 ':'), then only white space. A name of ICU's starts
// with a letter; one starting with a sign (' +02', an offset after a
// space) is a name too, and not UTC.
const zoneNamePattern = `'[0-9.] ([A-Za-z+\-][A-Za-z0-9_/+\-:]*)\s*$'`

// DefaultParsesQuery is a statement giving one boolean: whether
// Parser::ParseExpressionList, which 0.4+ readers run on an expression
// default_value as they load the schema, returns one expression for
// text: "SELECT " + text parses as one SELECT node, without modifiers
// (ORDER BY, LIMIT, DISTINCT), WHERE, GROUP BY, HAVING, QUALIFY or
// SAMPLE, with one expression in its list (else "Expected a single
// expression"). Read through json_serialize_sql, whose parse is the same
// parser's.
func DefaultParsesQuery(text string) string {
	return `SELECT coalesce(NOT (json_extract_string(j, '$.error'))::BOOLEAN
		AND json_array_length(j, '$.statements') = 1
		AND json_extract_string(j, '$.statements[0].node.type') = 'SELECT_NODE'
		AND json_array_length(j, '$.statements[0].node.modifiers') = 0
		AND json_array_length(j, '$.statements[0].node.select_list') = 1
		AND json_array_length(j, '$.statements[0].node.group_expressions') = 0
		AND json_extract_string(j, '$.statements[0].node.where_clause') IS NULL
		AND json_extract_string(j, '$.statements[0].node.having') IS NULL
		AND json_extract_string(j, '$.statements[0].node.qualify') IS NULL
		AND json_extract_string(j, '$.statements[0].node.sample') IS NULL, false)
		FROM (SELECT json_serialize_sql(` + SQLText("SELECT "+text) + `) AS j)`
}

// DefaultParsesQuery is DefaultParsesQuery (the parser of DuckDB 1.5,
// which reads a text only up to its first NUL byte, as the judge's
// json_serialize_sql does) for v's readers: where DuckDB 2.0 reads v
// (formats 1.0 and 1.1), whose parser reads past a NUL (a PEG tokenizer
// over the whole text: '1', NUL, ')' parses in 1.5, not in 2.0), an
// expression holding a NUL is not judged one expression, since this
// DuckDB cannot run 2.0's parser: refused, the safe side.
func (v *Version) DefaultParsesQuery(text string) string {
	if v.Opens("2.0.0") && strings.ContainsRune(text, 0) {
		return "SELECT false"
	}
	return DefaultParsesQuery(text)
}

// SQLText is a SQL expression whose value is text, byte for byte: a
// quoted literal, with each NUL byte (which DuckDB's VARCHAR holds, and a
// catalog's default may) as chr(0) between literals, since DuckDB reads
// a statement only up to its first NUL: a default holding one cut the
// judge's statement short and failed it.
func SQLText(text string) string {
	parts := strings.Split(strings.ReplaceAll(text, "'", "''"), "\x00")
	if len(parts) == 1 {
		return "'" + parts[0] + "'"
	}
	return "('" + strings.Join(parts, "' || chr(0) || '") + "')"
}

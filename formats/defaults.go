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
	lit := "'" + strings.ReplaceAll(text, "'", "''") + "'"
	if strings.EqualFold(duckType, "JSON") {
		duckType = "VARCHAR"
	}
	q := "SELECT TRY_CAST(" + lit + " AS " + duckType + ") IS NOT NULL"
	if strings.EqualFold(duckType, "TIMESTAMPTZ") {
		q += " AND lower(regexp_extract(" + lit + ", " + zoneNamePattern + ", 1)) IN ('', 'utc')"
	}
	return q
}

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
		FROM (SELECT json_serialize_sql('` + strings.ReplaceAll("SELECT "+text, "'", "''") + `') AS j)`
}

// Package fdljson parses and validates the JSON files of a Frozen DuckLake
// (FDL) repository: fdl.json at the root, and version.json, expired.json,
// dataset.json and files.json in each version folder.
//
// Parsing is strict about what the specification requires and lenient about
// what it does not know: must-fields are checked, unknown fields are ignored
// (except in dataset.json, whose unknown keys the specification refuses).
// Every error is an [*Error] naming the file and the field, and matches
// [ErrInvalid].
//
// The package is pure: no I/O beyond what callers hand it, no cgo.
package fdljson

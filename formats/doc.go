// Package formats is the registry of DuckLake catalog formats: for each format,
// the exact shape of every metadata table (names, column order, types,
// constraints), the version string it stamps, the DuckDB release lines that open
// it read-only, and what it can express (capabilities, types, partition
// transforms, change tokens), with the behaviours of each release's reader
// that differ from the specification (reader.go, footer.go).
//
// It is data, and the rules that follow from it. The converter and the
// independent reader (package compare) both derive their behaviour from it
// instead of comparing version numbers. The few functions that read a
// catalog's rows (ReadObjects, ReadMetadata, FileColumnPairs,
// ReaderValueViolations) run their SQL on a connection the caller opened
// (Querier), so that both read those rows alike; the package itself opens no
// file and links no DuckDB (no cgo).
package formats

// Package formats is the registry of DuckLake catalog formats: for each format,
// the exact shape of every metadata table (names, column order, types,
// constraints), the version string it stamps, the DuckDB release lines that open
// it read-only, and what it can express (capabilities, types, partition
// transforms, change tokens).
//
// It is pure data: no I/O and no cgo. The converter and the independent reader
// both derive their behaviour from it instead of comparing version numbers.
package formats

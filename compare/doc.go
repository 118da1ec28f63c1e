// Package compare proves two DuckLake catalogs equivalent: the same schema,
// the same data and delete files, and the same rows at every snapshot
// (Catalogs), and reads one catalog whole as its readers would (Self). Rows
// are read by an independent DuckLake reader of our own (Open), which follows
// the read rules of each catalog's own format (ducklake-formats.md §5, in the
// project's shared docs) and the behaviours of the DuckLake releases that
// read it (formats.ReaderQuirk).
//
// It never imports the converter (package convert; TestIndependentOfConvert), so
// that a bug in one cannot hide in the other. What both use is the format
// registry (package formats) and small readers under internal/: the one rule
// for a file under the data path, deletion vectors, Parquet footers and
// read_parquet's file argument.
//
// Proofs and file digests are kept in a DigestStore (package digestcache) and
// found again while the catalogs' bytes are the same and their data folders
// only gain files (KeptProof, KeptSelf); see docs/compare.md.
package compare

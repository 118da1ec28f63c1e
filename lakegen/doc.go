// Package lakegen writes small but realistic Frozen DuckLake (FDL)
// repositories for tests, demos and benchmarks, without the ducklake
// extension: the catalog's metadata tables are created from the formats
// registry and filled with plain SQL, and data and delete files are written
// with DuckDB's COPY ... (FORMAT parquet, FIELD_IDS ...) so that every Parquet
// column carries its DuckLake column id, as the extension does.
//
// A Spec lists versions, each a list of snapshots, each a list of operations
// (create table, insert, delete, add/rename/drop column, partition, view,
// comment). The generator keeps its own record of every row it wrote (a
// "truth" table per DuckLake table with the snapshot each row was inserted
// and deleted in), derives the catalog rows from it the way DuckLake 1.0
// does, and returns what each table holds at each snapshot so that tests can
// compare a reader's output with it.
package lakegen

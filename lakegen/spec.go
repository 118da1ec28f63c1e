package lakegen

import (
	"context"
	"time"
)

// Spec describes a repository to generate.
type Spec struct {
	// Name is the lake's name: the catalog's data_path is BaseURL + Name + "/data/".
	Name string
	// Title goes to dataset.json.
	Title string
	// BaseURL is where the repository is published; default "https://fdl.example/".
	BaseURL string
	// Author is version.json's author.name; default "lakegen".
	Author string
	// Start is the time of snapshot 0; default now. Later snapshots follow
	// one second apart.
	Start time.Time
	// Versions are frozen in order; each holds the snapshots it adds.
	Versions []Version
	// Formats are the formats fdl.json declares; default DefaultFormats.
	Formats []Format
	// RecordRows keeps every table's rows at every snapshot in the Result
	// (as DuckDB's text of a row struct); leave it off for large lakes.
	RecordRows bool
}

// Format is one entry of fdl.json's formats: a DuckLake format, the DuckDB
// releases that read it and, optionally, the date (YYYY-MM-DD) after which
// it is no longer written for new versions.
type Format struct {
	DuckLake string `json:"ducklake"`
	DuckDB   string `json:"duckdb"`
	Until    string `json:"until,omitempty"`
}

// DefaultFormats is what the conformance repositories declare: 0.3 until
// 2026-06-30, then 0.4, 1.0 and 1.1.
func DefaultFormats() []Format {
	return []Format{
		{DuckLake: "0.3", DuckDB: ">= 1.4.0, < 1.5.0", Until: "2026-06-30"},
		{DuckLake: "0.4", DuckDB: ">= 1.5.0, < 1.5.2"},
		{DuckLake: "1.0", DuckDB: ">= 1.5.2"},
		{DuckLake: "1.1", DuckDB: ">= 2.0.0"},
	}
}

// Version is one FDL version: the snapshots it adds after its parent.
type Version struct {
	Message   string
	Snapshots []Snapshot
}

// Snapshot is one DuckLake commit: its operations are applied together.
type Snapshot []Op

// Op is one operation of a snapshot. The set of operations is closed.
type Op interface {
	apply(ctx context.Context, g *gen) error
}

// Column declares a table column. Type is a DuckDB type name (BOOLEAN,
// TINYINT … BIGINT, FLOAT, DOUBLE, DECIMAL(p,s), VARCHAR, BLOB, DATE, TIME,
// TIMESTAMP, TIMESTAMPTZ, UUID), or STRUCT with Fields, or LIST with one
// field (the element).
type Column struct {
	Name string
	Type string
	// Default is a literal default as DuckLake stores it ("7", "C"); empty
	// means none. On AddColumn it is also the initial_default of older rows.
	Default string
	NotNull bool
	Fields  []Column
}

// CreateTable creates a table in schema main.
type CreateTable struct {
	Table   string
	Columns []Column
}

// Insert appends the rows of a SELECT, whose columns are taken by position
// in the table's current column order. Files is how many data files an
// unpartitioned insert is split into (default 1); a partitioned table gets
// one file per partition value instead.
type Insert struct {
	Table  string
	Select string
	Files  int
}

// Delete removes the rows matching an SQL condition on the current column
// names. It writes a positional delete file per touched data file; a second
// delete on a data file writes a partial deletion file (with
// _ducklake_internal_snapshot_id) that replaces the previous one, as DuckLake
// 1.0 does. A data file whose rows are all deleted is ended instead.
type Delete struct {
	Table string
	Where string
}

// AddColumn adds a column at the end of a table.
type AddColumn struct {
	Table  string
	Column Column
}

// RenameColumn renames a top-level column.
type RenameColumn struct {
	Table, From, To string
}

// DropColumn drops a top-level column (not a partition key).
type DropColumn struct {
	Table, Column string
}

// PartitionBy sets identity partitioning on top-level columns.
type PartitionBy struct {
	Table   string
	Columns []string
}

// CreateView creates a view in schema main. SQL is stored as given; write
// it the way DuckDB prints a query (count_star(), parenthesised comparisons).
type CreateView struct {
	View, SQL string
}

// Comment sets COMMENT ON TABLE (Column empty) or COMMENT ON COLUMN.
type Comment struct {
	Table, Column, Text string
}

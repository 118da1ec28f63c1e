// Package convert rewrites a frozen DuckLake catalog into another DuckLake
// format, up or down, without touching the source.
//
// A conversion copies the source's metadata tables into an in-memory working
// database, walks the chain of adjacent format steps (declared once, as data,
// in steps.go), collects findings (what the target cannot express) before
// anything is written, and finally projects the working tables into a new
// DuckDB file whose tables have exactly the target format's shapes, taken
// from the formats registry. The file is written next to the destination
// under a temporary name and linked into place only when complete; an
// existing destination is never replaced.
package convert

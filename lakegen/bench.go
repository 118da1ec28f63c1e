package lakegen

import (
	"context"
	"fmt"
)

// HistoryOptions shape the History benchmark repository.
type HistoryOptions struct {
	// Versions is the number of FDL versions (default 20).
	Versions int
	// RowsPerVersion is how many rows each version appends (default 500,000).
	RowsPerVersion int
	// FilesPerVersion is how many data files each append writes (default 2).
	FilesPerVersion int
	// DeleteEvery: every DeleteEvery-th version also deletes the rows with
	// id % 997 = its sequence number (default 5; negative: never).
	DeleteEvery int
}

func (o *HistoryOptions) defaults() {
	if o.Versions <= 0 {
		o.Versions = 20
	}
	if o.RowsPerVersion <= 0 {
		o.RowsPerVersion = 500_000
	}
	if o.FilesPerVersion <= 0 {
		o.FilesPerVersion = 2
	}
	if o.DeleteEvery == 0 {
		o.DeleteEvery = 5
	}
}

// History writes the repository the proof benchmarks use: one table
// main.events (id BIGINT, grp INTEGER, amount DOUBLE, label VARCHAR) and
// opts.Versions versions, each appending opts.RowsPerVersion rows in
// opts.FilesPerVersion data files; every opts.DeleteEvery-th version v also
// deletes id % 997 = v, which touches every data file written so far (the
// second and later deletes of a file write partial deletion files). The
// defaults give 20 versions, 10 million rows in 40 data files and 26
// snapshots. fdl.json declares DefaultFormats.
func History(ctx context.Context, dir string, opts HistoryOptions) (*Result, error) {
	opts.defaults()
	spec := Spec{
		Name: "history",
		Title: fmt.Sprintf("History: %d versions of %d rows in %d files each", opts.Versions,
			opts.RowsPerVersion, opts.FilesPerVersion),
	}
	for v := 1; v <= opts.Versions; v++ {
		from, to := (v-1)*opts.RowsPerVersion, v*opts.RowsPerVersion
		var snaps []Snapshot
		if v == 1 {
			snaps = append(snaps, Snapshot{CreateTable{Table: "events", Columns: []Column{
				{Name: "id", Type: "BIGINT"}, {Name: "grp", Type: "INTEGER"},
				{Name: "amount", Type: "DOUBLE"}, {Name: "label", Type: "VARCHAR"},
			}}})
		}
		snaps = append(snaps, Snapshot{Insert{Table: "events", Files: opts.FilesPerVersion, Select: fmt.Sprintf(
			`SELECT i, (i %% 1000)::INTEGER, (i %% 100000) / 100.0, 'row-' || (i %% 5000) FROM range(%d, %d) t(i)`, from, to)}})
		msg := fmt.Sprintf("append rows %d to %d", from, to-1)
		if opts.DeleteEvery > 0 && v%opts.DeleteEvery == 0 {
			snaps = append(snaps, Snapshot{Delete{Table: "events", Where: fmt.Sprintf("id %% 997 = %d", v)}})
			msg += fmt.Sprintf(", delete id %% 997 = %d", v)
		}
		spec.Versions = append(spec.Versions, Version{Message: msg, Snapshots: snaps})
	}
	return Repository(ctx, dir, spec)
}

// WideOptions shape the Wide benchmark repository.
type WideOptions struct {
	// Tables is the number of tables (default 300).
	Tables int
	// Inserts is the number of single-row inserts per table (default 8).
	Inserts int
	// Alter: every Alter-th table also gets Inserts/2 ADD COLUMNs and
	// Inserts/2 single-row deletes (default 3; negative: none).
	Alter int
}

// Wide writes a one-version repository with many small tables and
// thousands of snapshots, the shape that stresses catalog conversion rather
// than data: every table is created, then gets opts.Inserts single-row
// inserts (one snapshot each); every opts.Alter-th table then alternates an
// ADD COLUMN and a single-row delete, opts.Inserts/2 times each. The
// defaults give 300 tables and about 3,500 snapshots.
func Wide(ctx context.Context, dir string, opts WideOptions) (*Result, error) {
	return Repository(ctx, dir, wideSpec(opts))
}

func wideSpec(opts WideOptions) Spec {
	if opts.Tables <= 0 {
		opts.Tables = 300
	}
	if opts.Inserts <= 0 {
		opts.Inserts = 8
	}
	if opts.Alter == 0 {
		opts.Alter = 3
	}
	var snaps []Snapshot
	for t := 0; t < opts.Tables; t++ {
		name := fmt.Sprintf("t%03d", t)
		snaps = append(snaps, Snapshot{CreateTable{Table: name, Columns: []Column{
			{Name: "id", Type: "BIGINT"}, {Name: "name", Type: "VARCHAR"}, {Name: "value", Type: "DOUBLE"},
		}}})
		for i := 0; i < opts.Inserts; i++ {
			snaps = append(snaps, Snapshot{Insert{Table: name, Select: fmt.Sprintf(
				`SELECT %[1]d::BIGINT, 'row %[1]d', %[1]d * 1.5`, i)}})
		}
		if opts.Alter > 0 && t%opts.Alter == 0 {
			for k := 0; k < opts.Inserts/2; k++ {
				snaps = append(snaps,
					Snapshot{AddColumn{Table: name, Column: Column{Name: fmt.Sprintf("extra%d", k), Type: "INTEGER", Default: fmt.Sprint(k)}}},
					Snapshot{Delete{Table: name, Where: fmt.Sprintf("id = %d", k)}})
			}
		}
	}
	return Spec{
		Name:     "wide",
		Title:    fmt.Sprintf("Wide: %d tables, %d snapshots", opts.Tables, len(snaps)),
		Versions: []Version{{Message: "many small tables", Snapshots: snaps}},
	}
}

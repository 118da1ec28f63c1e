package compare

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Bookkeeping is what a catalog's bookkeeping rows say of its snapshots
// and of its inlined rows: what the FDL specification asks of a frozen
// catalog ("The frozen catalog": "It holds bookkeeping rows up to
// ducklake.snapshot_id and none after"; "It holds no inlined rows. All
// data is in data files"), and of the catalogs published beside it.
type Bookkeeping struct {
	// Snapshots are the ids of ducklake_snapshot, ascending.
	Snapshots []int64
	// Later lists each bookkeeping column that names a snapshot after the
	// last of Snapshots (any snapshot, when there is none), with the
	// largest it names; in table and column order.
	Later []SnapshotRef
	// Inlined lists the inlined data and inlined delete tables that hold
	// rows, in name order: those named ducklake_inlined_data_* or
	// ducklake_inlined_delete_* in any letter case, and any other table
	// ducklake_inlined_data_tables registers (the readers read those).
	Inlined []TableRows
}

// SnapshotRef is a column of a bookkeeping table that names snapshots,
// with the largest snapshot id it holds.
type SnapshotRef struct {
	Table, Column string
	Max           int64
}

// TableRows is a table with its number of rows.
type TableRows struct {
	Table string
	Rows  int64
}

// snapshotColumns are the bookkeeping columns that name a snapshot
// (partial_max: the last snapshot of a merged or flushed file's rows, 0.4+).
var snapshotColumns = []string{"snapshot_id", "begin_snapshot", "end_snapshot", "partial_max"}

// Last is the catalog's last snapshot id; ok is false when it has none.
func (b *Bookkeeping) Last() (last int64, ok bool) {
	if len(b.Snapshots) == 0 {
		return 0, false
	}
	return b.Snapshots[len(b.Snapshots)-1], true
}

// Breaches says, one sentence each, where the catalog breaks the two rules
// (rows naming a snapshot after its last one; inlined rows), or nil.
func (b *Bookkeeping) Breaches() []string {
	var out []string
	last, ok := b.Last()
	for _, l := range b.Later {
		if ok {
			out = append(out, fmt.Sprintf("%s.%s names snapshot %d, after the catalog's last snapshot %d: a frozen catalog holds bookkeeping rows up to its snapshot and none after", l.Table, l.Column, l.Max, last))
		} else {
			out = append(out, fmt.Sprintf("%s.%s names snapshot %d, and ducklake_snapshot has no snapshot", l.Table, l.Column, l.Max))
		}
	}
	if len(b.Inlined) > 0 {
		var parts []string
		for _, t := range b.Inlined {
			parts = append(parts, fmt.Sprintf("%s: %d rows", t.Table, t.Rows))
		}
		out = append(out, "inlined rows in "+strings.Join(parts, ", ")+": a frozen catalog holds no inlined rows, all data is in data files (flush them with ducklake_flush_inlined_data before freezing)")
	}
	return out
}

// Bookkeeping reads the catalog's snapshots, the largest snapshot each
// bookkeeping column names, and the rows of its inlined tables. When
// ReadEveryTable has read the catalog, which reads these too (in the same
// pass over every table), no further query is run; otherwise they are read
// in a few queries (tables are read maxTablesPerRead at a time).
func (r *Reader) Bookkeeping(ctx context.Context) (*Bookkeeping, error) {
	b := &Bookkeeping{}
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		b.Snapshots = append(b.Snapshots, s.ID)
	}
	last, haveLast := b.Last()
	add := func(p bookkeepingPart, v sql.NullInt64) {
		switch {
		case !v.Valid:
		case p.column == "":
			if v.Int64 > 0 {
				b.Inlined = append(b.Inlined, TableRows{Table: p.table, Rows: v.Int64})
			}
		case !haveLast || v.Int64 > last:
			b.Later = append(b.Later, SnapshotRef{Table: p.table, Column: p.column, Max: v.Int64})
		}
	}
	parts := r.bookkeepingParts()
	if kept, ok := r.keptBookkeeping(parts); ok {
		for i, p := range parts {
			add(p, kept[i])
		}
	} else {
		sqls := make([]string, len(parts))
		for i, p := range parts {
			sqls[i] = fmt.Sprintf(`SELECT %s, %s, %s FROM cat.main.%s`, sqlString(p.table), sqlString(p.column), p.aggregate(), ident(p.table))
		}
		for len(sqls) > 0 {
			chunk := sqls[:min(len(sqls), maxTablesPerRead)]
			sqls = sqls[len(chunk):]
			err := r.eachRow(ctx, strings.Join(chunk, " UNION ALL "), func(rows *sql.Rows) error {
				var p bookkeepingPart
				var v sql.NullInt64
				if err := rows.Scan(&p.table, &p.column, &v); err != nil {
					return err
				}
				add(p, v)
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("read the bookkeeping of %s: %w", oneline.Name(r.path), err)
			}
		}
	}
	slices.SortFunc(b.Later, func(x, y SnapshotRef) int {
		return cmp.Or(strings.Compare(x.Table, y.Table), strings.Compare(x.Column, y.Column))
	})
	slices.SortFunc(b.Inlined, func(x, y TableRows) int { return strings.Compare(x.Table, y.Table) })
	return b, nil
}

// bookkeepingPart is one value Bookkeeping reads: the largest value of a
// table's snapshot column, or the rows of an inlined table (column "").
type bookkeepingPart struct {
	table, column string
}

// aggregate is the part's value in SQL: the column's largest value as a
// BIGINT, or count(*).
func (p bookkeepingPart) aggregate() string {
	if p.column == "" {
		return "count(*)"
	}
	return "max(" + ident(p.column) + ")::BIGINT"
}

// bookkeepingParts lists what Bookkeeping reads, in table order: one part
// per snapshot column of the metadata schema's tables (its largest value)
// and per inlined table (its row count, column "").
func (r *Reader) bookkeepingParts() []bookkeepingPart {
	var parts []bookkeepingPart
	for _, t := range sortedNames(r.layout) {
		for _, c := range r.layout[t] {
			if slices.Contains(snapshotColumns, c) && (t != "ducklake_snapshot" || c != "snapshot_id") {
				parts = append(parts, bookkeepingPart{t, c})
			}
		}
	}
	for _, t := range sortedNames(r.dynamic) {
		cols := r.dynamic[t]
		switch {
		case strings.HasPrefix(formats.ASCIILower(t), "ducklake_inlined_data_"):
			// The begin and end snapshot columns by name, as the reader
			// finds them (unprefixed up to 1.0, _ducklake_-prefixed in
			// 1.1, where a user column may be called begin_snapshot; in
			// ASCII letter case only, as DuckDB binds them); a
			// table without them is reported unreadable where its rows
			// are read.
			_, begin, end := r.inlinedSystemNames()
			for _, want := range []string{begin, end} {
				for _, c := range cols {
					if formats.NamesEqual(c, want) {
						parts = append(parts, bookkeepingPart{t, c})
					}
				}
			}
		default:
			for _, c := range cols {
				if slices.Contains(snapshotColumns, strings.TrimPrefix(c, "_ducklake_")) {
					parts = append(parts, bookkeepingPart{t, c})
				}
			}
		}
		parts = append(parts, bookkeepingPart{t, ""})
	}
	return parts
}

// keptBookkeeping answers parts from what ReadEveryTable read: the row
// count of every table and the largest value of its snapshot columns
// (tableExtras). ok is false when a part was not read there (a view,
// a table ReadEveryTable has not read yet), or when a value could not be
// cast to BIGINT: the parts' own query then says why.
func (r *Reader) keptBookkeeping(parts []bookkeepingPart) ([]sql.NullInt64, bool) {
	if r.bookkept == nil {
		return nil, false
	}
	out := make([]sql.NullInt64, len(parts))
	for i, p := range parts {
		v, ok := r.bookkept[p]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// everyTableParts are the snapshot columns of Bookkeeping's parts, by
// table: what ReadEveryTable may read beside each table's rows (the row
// count it reads anyway).
func everyTableParts(parts []bookkeepingPart) map[string][]string {
	out := map[string][]string{}
	for _, p := range parts {
		if p.column != "" {
			out[p.table] = append(out[p.table], p.column)
		}
	}
	return out
}

func sortedNames(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// BookkeepingError is a catalog whose bookkeeping breaks what the FDL
// specification asks of a frozen catalog (Bookkeeping.Breaches).
type BookkeepingError struct {
	// Catalog is the catalog's file.
	Catalog  string
	Breaches []string
}

func (e *BookkeepingError) Error() string {
	return e.Catalog + ": " + strings.Join(e.Breaches, "; ")
}

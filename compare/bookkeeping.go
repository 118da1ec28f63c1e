package compare

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
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

// snapshotColumns are the bookkeeping columns that name a snapshot.
var snapshotColumns = []string{"snapshot_id", "begin_snapshot", "end_snapshot"}

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
// bookkeeping column names, and the rows of its inlined tables, in a few
// queries (tables are read maxTablesPerRead at a time).
func (r *Reader) Bookkeeping(ctx context.Context) (*Bookkeeping, error) {
	b := &Bookkeeping{}
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		b.Snapshots = append(b.Snapshots, s.ID)
	}
	// One part per snapshot column (its largest value) and per inlined
	// table (its row count, column "").
	var parts []string
	add := func(table string, cols ...string) {
		for _, c := range cols {
			parts = append(parts, fmt.Sprintf(`SELECT %s, %s, max(%s)::BIGINT FROM cat.main.%s`, sqlString(table), sqlString(c), ident(c), ident(table)))
		}
	}
	for _, t := range sortedNames(r.layout) {
		for _, c := range r.layout[t] {
			if slices.Contains(snapshotColumns, c) && (t != "ducklake_snapshot" || c != "snapshot_id") {
				add(t, c)
			}
		}
	}
	for _, t := range sortedNames(r.dynamic) {
		cols := r.dynamic[t]
		switch {
		case strings.HasPrefix(strings.ToLower(t), "ducklake_inlined_data_"):
			// The begin and end snapshot columns by name, as the reader
			// finds them (unprefixed up to 1.0, _ducklake_-prefixed in
			// 1.1, where a user column may be called begin_snapshot); a
			// table without them is reported unreadable where its rows
			// are read.
			_, begin, end := r.inlinedSystemNames()
			for _, want := range []string{begin, end} {
				for _, c := range cols {
					if strings.EqualFold(c, want) {
						add(t, c)
					}
				}
			}
		default:
			for _, c := range cols {
				if slices.Contains(snapshotColumns, strings.TrimPrefix(c, "_ducklake_")) {
					add(t, c)
				}
			}
		}
		parts = append(parts, fmt.Sprintf(`SELECT %s, '', count(*) FROM cat.main.%s`, sqlString(t), ident(t)))
	}
	last, haveLast := b.Last()
	for len(parts) > 0 {
		chunk := parts[:min(len(parts), maxTablesPerRead)]
		parts = parts[len(chunk):]
		err := r.eachRow(ctx, strings.Join(chunk, " UNION ALL "), func(rows *sql.Rows) error {
			var table, col string
			var v sql.NullInt64
			if err := rows.Scan(&table, &col, &v); err != nil {
				return err
			}
			switch {
			case !v.Valid:
			case col == "":
				if v.Int64 > 0 {
					b.Inlined = append(b.Inlined, TableRows{Table: table, Rows: v.Int64})
				}
			case !haveLast || v.Int64 > last:
				b.Later = append(b.Later, SnapshotRef{Table: table, Column: col, Max: v.Int64})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read the bookkeeping of %s: %w", r.path, err)
		}
	}
	slices.SortFunc(b.Later, func(x, y SnapshotRef) int {
		return cmp.Or(strings.Compare(x.Table, y.Table), strings.Compare(x.Column, y.Column))
	})
	slices.SortFunc(b.Inlined, func(x, y TableRows) int { return strings.Compare(x.Table, y.Table) })
	return b, nil
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

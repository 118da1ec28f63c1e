package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// fileStatsKey is the statistics comparison's key of a file column
// statistics row (addStatsEntry).
func fileStatsKey(label string, fileID, columnID int64) string {
	id := func(n int64) sql.NullString { return sql.NullString{String: strconv.FormatInt(n, 10), Valid: true} }
	return statsEntryKey(label, []string{"data_file_id", "column_id"}, []sql.NullString{id(fileID), id(columnID)})
}

// fileColumnPairs reads formats.FileColumnPairs of the catalog (once per
// reader: a Source's reader serves several proofs).
func (r *Reader) fileColumnPairs(c *comparison, stats string) ([]formats.FileColumnPair, error) {
	if r.filePairsRead {
		return r.filePairs, nil
	}
	pairs, err := formats.FileColumnPairs(c.ctx, r.conn, "cat.", stats)
	if err != nil {
		return nil, fmt.Errorf("read data files and columns of %s: %w", oneline.Name(r.path), err)
	}
	r.filePairs, r.filePairsRead = pairs, true
	return pairs, nil
}

// fileColumnStats applies formats.QuirkFilesWithoutColumnStatsPruned to the
// statistics comparison of ducklake_file_column_stats (label; na and nb are
// the table's names in A and B). A row that one side holds and the other
// lacks, written exactly as formats.StatsReadAlike gives for a data file and
// a column visible together (what convert writes for readers with the quirk,
// and drops for readers without it), changes no reader's answer and is
// listed as not compared. And B must not be read with fewer rows than A: a
// pair that B lacks a row for, where B's readers have the quirk and A's
// keep the file (A's readers lack the quirk, or A has a row), is a `stats`
// difference naming the table, column, data file and the first snapshot at
// which both are visible. The other way (A's readers skip files B's keep,
// as a native 0.3 or 0.4 catalog converted to 1.0) is not a difference: B
// then reads more rows, as the specification does.
func (c *comparison) fileColumnStats(label, na, nb string, ea, eb entries) error {
	q := formats.QuirkFilesWithoutColumnStatsPruned
	if !c.a.readsWith(q) && !c.b.readsWith(q) {
		return nil // 1.0 and 1.1: every row is compared as it is
	}
	if sameKeys(ea, eb) {
		// No row is only in A or only in B: what is left is B's pairs
		// without a row, and A's pairs only where B has such a pair.
		return c.filesWithoutStatsInB(label, na, nb)
	}
	pa, err := c.a.fileColumnPairs(c, na)
	if err != nil {
		return markA(err)
	}
	pb, err := c.b.fileColumnPairs(c, nb)
	if err != nil {
		return markB(err)
	}
	ma := pairsByKey(pa)
	for _, side := range []struct {
		name         string
		pairs        []formats.FileColumnPair
		has, other   entries
		otherFormat  string
		otherQuirked bool
	}{
		{"A", pa, ea, eb, c.rep.B.Format, c.b.readsWith(q)},
		{"B", pb, eb, ea, c.rep.A.Format, c.a.readsWith(q)},
	} {
		n := 0
		for _, p := range side.pairs {
			k := fileStatsKey(label, p.DataFileID, p.ColumnID)
			if side.name == "B" {
				k = c.fileKeyB(label, p.DataFileID, p.ColumnID)
			}
			if _, ok := side.other[k]; ok || !p.HasReadAlikeRow() {
				continue
			}
			if _, ok := side.has[k]; ok {
				delete(side.has, k)
				n++
			}
		}
		if n > 0 {
			c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s: %d rows only in %s, each exactly the row written for readers that skip data files without statistics for a filtered column (%s); they change no answer of format %s readers",
				label, n, side.name, q.Info().Name, side.otherFormat))
		}
	}
	return c.filesSkippedByB(label, pb, func() (map[pairKey]formats.FileColumnPair, error) { return ma, nil })
}

// pairKey is a pair of a data file and a column.
type pairKey struct{ file, column int64 }

// pairsByKey maps pairs by data file and column.
func pairsByKey(ps []formats.FileColumnPair) map[pairKey]formats.FileColumnPair {
	m := make(map[pairKey]formats.FileColumnPair, len(ps))
	for _, p := range ps {
		m[pairKey{p.DataFileID, p.ColumnID}] = p
	}
	return m
}

// sameKeys reports whether two entries have the same keys.
func sameKeys(a, b entries) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// filesWithoutStatsInB is fileColumnStats where A and B have rows of the
// same keys (no row is only on one side, so none is dropped): B's pairs
// without a row (formats.PairsWithoutStats; all of B's pairs if the reader
// has read them already), and A's pairs only if B has such a pair.
func (c *comparison) filesWithoutStatsInB(label, na, nb string) error {
	if !c.b.readsWith(formats.QuirkFilesWithoutColumnStatsPruned) {
		return nil
	}
	pb := c.b.filePairs
	if !c.b.filePairsRead && c.b.mayLackFileStats(c, nb) {
		var err error
		if pb, err = formats.FileColumnPairsWhere(c.ctx, c.b.conn, "cat.", nb, formats.PairsWithoutStats); err != nil {
			// B's pairs are read first (A's only when B has one without
			// a row): the failure is both catalogs' when A's same read
			// fails too.
			return bThenA(fmt.Errorf("read data files and columns of %s: %w", oneline.Name(c.b.path), err), func() error {
				if c.a.filePairsRead {
					return nil // A's pairs, all of them, are read
				}
				if _, err := formats.FileColumnPairsWhere(c.ctx, c.a.conn, "cat.", na, formats.PairsWithoutStats); err != nil {
					return fmt.Errorf("read data files and columns of %s: %w", oneline.Name(c.a.path), err)
				}
				return nil
			})
		}
	}
	return c.filesSkippedByB(label, pb, func() (map[pairKey]formats.FileColumnPair, error) {
		pa, err := c.a.fileColumnPairs(c, na)
		if err != nil {
			return nil, markA(err)
		}
		return pairsByKey(pa), nil
	})
}

// mayLackFileStats reports whether some data file and top-level column of
// its table visible together may have no row in stats (this catalog's file
// column statistics table) of the same data_file_id, table_id and
// column_id: a superset of the pairs formats.PairsWithoutStats keeps, by
// one anti-join instead of that query's lists and aggregates (about 3 ms
// against 7 on the benchmark's history). Where it cannot tell (the query
// fails), true: the full query says why.
func (r *Reader) mayLackFileStats(c *comparison, stats string) bool {
	if r.empty("ducklake_data_file") {
		return false
	}
	var some bool
	err := r.conn.QueryRowContext(c.ctx, `SELECT EXISTS (SELECT 1 FROM cat.ducklake_data_file f JOIN cat.ducklake_column c ON c.table_id = f.table_id AND c.parent_column IS NULL
		AND (f.end_snapshot IS NULL OR c.begin_snapshot < f.end_snapshot) AND (c.end_snapshot IS NULL OR c.end_snapshot > f.begin_snapshot)
	WHERE NOT EXISTS (SELECT 1 FROM cat.`+ident(stats)+` s WHERE s.data_file_id = f.data_file_id AND s.table_id = f.table_id AND s.column_id = c.column_id))`).Scan(&some)
	return err != nil || some
}

// filesSkippedByB adds a `stats` difference for each pair of pb (B's pairs)
// without a row that B's readers skip and A's keep (fileColumnStats);
// pairsA gives A's pairs by key, called only when pb has a pair without a
// row.
func (c *comparison) filesSkippedByB(label string, pb []formats.FileColumnPair, pairsA func() (map[pairKey]formats.FileColumnPair, error)) error {
	q := formats.QuirkFilesWithoutColumnStatsPruned
	if !c.b.readsWith(q) {
		return nil
	}
	quirkA := c.a.readsWith(q)
	var names map[int64]string
	var ma map[pairKey]formats.FileColumnPair
	var err error
	for _, p := range pb {
		if p.Rows > 0 {
			continue
		}
		if ma == nil {
			if ma, err = pairsA(); err != nil {
				return err
			}
		}
		idA, tied := c.aIDOfB(p.DataFileID)
		a, inA := ma[pairKey{idA, p.ColumnID}]
		if !tied || !inA || (quirkA && a.Rows == 0) {
			continue // not A's file and column (other differences say so), or A's readers skip it too
		}
		if names == nil {
			if names, err = c.bTableNames(); err != nil {
				return err
			}
		}
		table := names[p.TableID]
		if table == "" {
			table = "table id " + strconv.FormatInt(p.TableID, 10)
		}
		read := "its rows read the column's initial default"
		if p.InFile {
			read = "the file was written with the column"
		}
		why := "format " + c.rep.A.Format + " readers keep it"
		if quirkA {
			why = "A has a statistics row for it, so format " + c.rep.A.Format + " readers keep it"
		}
		s := p.Snapshot
		av := statsRowText(a)
		if a.Rows == 0 {
			av = "no row (format " + c.rep.A.Format + " readers keep the file)"
		}
		c.add(Difference{Kind: "stats", Snapshot: &s, Table: table, Item: c.fileKeyB(label, p.DataFileID, p.ColumnID),
			A: av, B: "no row (format " + c.rep.B.Format + " readers skip the file)",
			Reason: fmt.Sprintf("format %s readers skip data file %s (data_file_id %d) under any filter on column %s (id %d) from snapshot %d on, so such a query returns fewer rows (%s): B has no %s row for them (%s); %s",
				c.rep.B.Format, oneline.Name(p.Path), p.DataFileID, oneline.Name(p.ColumnName), p.ColumnID, p.Snapshot, read, label, q.Info().Name, why)})
	}
	return nil
}

// statsRowText describes a pair's statistics row for a difference.
func statsRowText(p formats.FileColumnPair) string {
	if p.Rows == 0 {
		return "no row"
	}
	s := func(v *string) string {
		if v == nil {
			return "NULL"
		}
		return strconv.Quote(*v)
	}
	return fmt.Sprintf("value_count=%s null_count=%s min_value=%s max_value=%s", optInt(p.ValueCount), optInt(p.NullCount), s(p.MinValue), s(p.MaxValue))
}

// tableNames maps table ids to their newest schema-qualified names, from
// the schema and table rows the reader keeps (schemaRows): the newest row
// of each table, in the schema row visible at its begin_snapshot.
func (r *Reader) tableNames(ctx context.Context) (map[int64]string, error) {
	schemas, tables, err := r.schemaRows(ctx)
	if err != nil {
		return nil, err
	}
	newest := map[int64]catTableRow{}
	for _, t := range tables {
		if n, ok := newest[t.id.Int64]; t.id.Valid && (!ok || t.begin.Int64 > n.begin.Int64) {
			newest[t.id.Int64] = t
		}
	}
	out := make(map[int64]string, len(newest))
	for id, t := range newest {
		schema := "?"
		for _, s := range schemas {
			visible := s.begin.Int64 <= t.begin.Int64 && (!s.end.Valid || s.end.Int64 > t.begin.Int64)
			if s.id == t.schemaID && s.name.Valid && visible {
				schema = s.name.String
			}
		}
		out[id] = schema + "." + t.name.String
	}
	return out, nil
}

package compare

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// This file models what the real readers of formats 0.4 and newer answer
// to SELECT count(*) without reading a row: DuckLake on DuckDB 1.5.0 and
// later (v1.5-variegata from 78044b5e, 2026-01-28, "Add metadata-only
// COUNT(*) optimization via get_partition_stats", and main) gives the
// scan's partition statistics from the catalog at the catalog's latest
// snapshot (DuckLakeGetPartitionStats, src/storage/ducklake_scan.cpp; a
// query at an older snapshot scans): the sum of the visible data files'
// record_count, minus the delete_count of the visible delete files of
// visible data files, minus the number of rows of
// ducklake_inlined_delete_<table> (begin_snapshot <= the snapshot, of a
// visible data file of the table: counted, not de-duplicated), plus the
// visible inlined data rows (DuckLakeMetadataManager::GetNetDataFileRowCount
// and GetNetInlinedRowCount). From DuckLake 8c1e97ab (DuckDB 1.5.4's pin
// d318a545, 1.5.5 and 2.0) MIN/MAX are answered from the table statistics
// when that count equals the table statistics' record_count (minmax.go).
// DuckDB 1.3 and 1.4 (formats 0.1-0.3) scan: count(*) is the rows.

// answersCountFromMetadata reports whether v's real reader answers
// count(*) from the catalog: formats 0.4 and newer, those of DuckDB 1.5.0
// and later, which are the formats with inlined deletions.
func answersCountFromMetadata(v *formats.Version) bool {
	return v.Has(formats.CapInlinedDeletes)
}

// countAnswer is what v's real reader answers to SELECT count(*) FROM t at
// snap, the catalog's latest snapshot: from the catalog (fromMetadata), or
// the rows a scan returns (d.Rows). parts are the table's digest parts
// at snap (TableDigest), whose inlined ones give the inlined rows.
func (r *Reader) countAnswer(ctx context.Context, t Table, snap int64, d Digest, parts []PartDigest) (n int64, fromMetadata bool, err error) {
	if !answersCountFromMetadata(r.format) {
		return d.Rows, false, nil
	}
	files, err := r.files(ctx, t, snap)
	if err != nil {
		return 0, true, err
	}
	ids := make([]string, 0, len(files))
	for _, f := range files {
		n += f.RecordCount
		if f.Delete != nil {
			n -= f.Delete.DeleteCount
		}
		ids = append(ids, fmt.Sprint(f.ID))
	}
	if inl, ok := r.inlinedDeleteTable(t); ok && len(ids) > 0 {
		rows, err := r.int64s(ctx, fmt.Sprintf(`SELECT count(*) FROM cat.%s WHERE begin_snapshot <= %d AND file_id IN (%s)`, ident(inl), snap, strings.Join(ids, ", ")))
		if err != nil {
			return 0, true, fmt.Errorf("count the inlined deletions of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		if len(rows) == 1 {
			n -= rows[0]
		}
	}
	for _, p := range parts {
		if p.Kind == "inlined" {
			n += p.Digest.Rows
		}
	}
	return n, true, nil
}

// deleteCountIssue is a delete file whose delete_count is not the number
// of positions it deletes at the catalog's latest snapshot.
type deleteCountIssue struct {
	dataFile, deleteFile string
	recorded, holds      int64
}

// deleteCounts checks, for a format whose reader answers count(*) from
// delete_count, every delete file visible at snap (the catalog's latest
// snapshot) against the positions this reader read from it for its data
// file at snap: a Parquet file's positions (a partial deletion file's
// deleted by snap), a Puffin file's vector at snap. DuckLake writes
// delete_count as that number (the Parquet file's rows; a Puffin
// container's largest, last, vector).
func (r *Reader) deleteCounts(ctx context.Context, t Table, snap int64) ([]deleteCountIssue, error) {
	if !answersCountFromMetadata(r.format) {
		return nil, nil
	}
	files, err := r.files(ctx, t, snap)
	if err != nil {
		return nil, err
	}
	var out []deleteCountIssue
	for _, f := range files {
		if f.Delete == nil {
			continue
		}
		pos, err := r.deleteFilePositions(ctx, t, f, snap)
		if err != nil {
			return nil, err
		}
		if int64(len(pos)) != f.Delete.DeleteCount {
			out = append(out, deleteCountIssue{dataFile: r.relPath(f.Path), deleteFile: r.relPath(f.Delete.Path), recorded: f.Delete.DeleteCount, holds: int64(len(pos))})
		}
	}
	return out, nil
}

// counts compares what both readers answer to count(*) of a table at the
// snapshot that is the latest of both catalogs (the only one a real reader
// answers from the catalog), and checks each delete file's delete_count
// at its catalog's latest snapshot. A scanning reader's answer is the rows,
// whose digests are compared already: with neither side answering from the
// catalog there is nothing more to compare.
func (c *comparison) counts(s int64, x, y Table, da, db Digest, partsA, partsB []PartDigest) error {
	for _, side := range []struct {
		name string
		r    *Reader
		t    Table
		last int64
	}{{"A", c.a, x, c.lastA}, {"B", c.b, y, c.lastB}} {
		if s != side.last || (c.self && side.name == "B") {
			continue
		}
		issues, err := side.r.deleteCounts(c.ctx, side.t, s)
		if err != nil {
			return c.mark(side.r, err)
		}
		for _, is := range issues {
			d := Difference{Kind: "files", Snapshot: ptr(s), Table: x.FullName(), Item: "delete_count of " + is.deleteFile,
				Reason: fmt.Sprintf("%s: delete file %s of data file %s records delete_count %d but deletes %d positions at snapshot %d, its latest (format %s readers answer count(*) from delete_count)",
					c.sideLabel(side.name), oneline.Name(is.deleteFile), oneline.Name(is.dataFile), is.recorded, is.holds, s, side.r.format.Name)}
			val := fmt.Sprintf("delete_count %d, %d positions", is.recorded, is.holds)
			if side.name == "A" {
				d.A = val
			} else {
				d.B = val
			}
			c.add(d)
		}
	}
	if s != c.lastA || s != c.lastB {
		return nil
	}
	na, metaA, err := c.a.countAnswer(c.ctx, x, s, da, partsA)
	if err != nil {
		return markA(err)
	}
	if c.self {
		// One side: what its readers answer against the rows they read.
		if metaA && na != db.Rows {
			c.add(Difference{Kind: "count", Snapshot: ptr(s), Table: x.FullName(),
				A:      fmt.Sprintf("%d from the catalog, %d rows", na, db.Rows),
				Reason: fmt.Sprintf("SELECT count(*) answers %d from the catalog (format %s readers answer it from record_count, delete_count, inlined deletion rows and inlined rows at the latest snapshot) but the table holds %d rows", na, c.a.format.Name, db.Rows)})
		}
		return nil
	}
	nb, metaB, err := c.b.countAnswer(c.ctx, y, s, db, partsB)
	if err != nil {
		return markB(err)
	}
	if metaA || metaB {
		if err := c.minMax(s, x, y, na, nb); err != nil {
			return err
		}
	}
	if na == nb || (!metaA && !metaB) {
		return nil
	}
	how := func(meta bool, v *formats.Version) string {
		if meta {
			return "from the catalog (format " + v.Name + ")"
		}
		return "by a scan (format " + v.Name + ")"
	}
	c.add(Difference{Kind: "count", Snapshot: ptr(s), Table: x.FullName(),
		A: fmt.Sprintf("%d, %s", na, how(metaA, c.a.format)), B: fmt.Sprintf("%d, %s", nb, how(metaB, c.b.format)),
		Reason: "SELECT count(*) answers differ at the latest snapshot (DuckLake 0.4+ readers answer it from record_count, delete_count, inlined deletion rows and inlined rows)"})
	return nil
}

// latestSnapshot is the largest snapshot id of snaps (-1: none): a real
// reader's current snapshot.
func latestSnapshot(snaps []Snapshot) int64 {
	last := int64(math.MinInt64)
	for _, s := range snaps {
		last = max(last, s.ID)
	}
	if len(snaps) == 0 {
		return -1
	}
	return last
}

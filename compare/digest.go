package compare

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// Digest is an order-independent fingerprint of a multiset of rows: the row
// count and two 64-bit row hashes (rowHashes: DuckDB's vectorised hash() of
// the typed row, encoded so that no two different rows are alike by
// construction), each summed over the rows modulo 2^64. Sums do not cancel
// duplicates (a row twice adds its hash twice), and parts add up: the digest
// of a table is the sum of the digests of its files.
type Digest struct {
	Rows   int64
	Hi, Lo uint64
}

type digestJSON struct {
	Rows int64  `json:"rows"`
	Hash string `json:"hash"` // Hi and Lo as 32 hex digits (JSON numbers lose 64-bit precision)
}

// MarshalJSON writes {"rows": n, "hash": "<32 hex digits>"}.
func (d Digest) MarshalJSON() ([]byte, error) {
	return json.Marshal(digestJSON{Rows: d.Rows, Hash: fmt.Sprintf("%016x%016x", d.Hi, d.Lo)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Digest) UnmarshalJSON(b []byte) error {
	var j digestJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Hash) != 32 {
		return fmt.Errorf("digest hash %q: want 32 hex digits", j.Hash)
	}
	hi, err := strconv.ParseUint(j.Hash[:16], 16, 64)
	if err != nil {
		return fmt.Errorf("digest hash %q: %w", j.Hash, err)
	}
	lo, err := strconv.ParseUint(j.Hash[16:], 16, 64)
	if err != nil {
		return fmt.Errorf("digest hash %q: %w", j.Hash, err)
	}
	*d = Digest{Rows: j.Rows, Hi: hi, Lo: lo}
	return nil
}

// Add combines two digests (multiset union).
func (d Digest) Add(o Digest) Digest {
	return Digest{Rows: d.Rows + o.Rows, Hi: d.Hi + o.Hi, Lo: d.Lo + o.Lo}
}

func (d Digest) String() string { return fmt.Sprintf("%d rows %016x%016x", d.Rows, d.Hi, d.Lo) }

// rowText is the canonical text of a row, for the report of differing
// rows: the whole row as a DuckDB STRUCT cast to VARCHAR.
func rowText(alias string) string { return "CAST(" + alias + " AS VARCHAR)" }

// Sub removes a digest's rows (multiset difference of a sub-multiset).
func (d Digest) Sub(o Digest) Digest {
	return Digest{Rows: d.Rows - o.Rows, Hi: d.Hi - o.Hi, Lo: d.Lo - o.Lo}
}

// hashSQL is a row query's two row hashes, h1 and h2, for columns of the
// given names and DuckDB types, followed by the query's columns keep.
func hashSQL(q string, names, types []string, keep ...string) (string, error) {
	prefix, suffix, err := hashParts(names, types, keep...)
	if err != nil {
		return "", err
	}
	return prefix + q + suffix, nil
}

// hashParts is hashSQL's text before and after its row query q.
func hashParts(names, types []string, keep ...string) (prefix, suffix string, err error) {
	h1, h2, err := rowHashes(names, types)
	if err != nil {
		return "", "", err
	}
	extra := ""
	for _, k := range keep {
		extra += ", t." + ident(k)
	}
	return fmt.Sprintf("SELECT %s AS h1, %s AS h2%s FROM (", h1, h2, extra), ") t", nil
}

// digestSQL aggregates a row query whose columns have the given names and
// DuckDB types into a digest (digestColumns).
func digestSQL(q string, names, types []string) (string, error) {
	hq, err := hashSQL(q, names, types)
	if err != nil {
		return "", err
	}
	return "SELECT " + digestColumns + " FROM (" + hq + ")", nil
}

// digestColumns aggregates rows of h1 and h2 into a Digest's row count and
// two sums modulo 2^64 (DuckDB sums UBIGINT into a HUGEINT, reduced here in
// SQL so that no sum goes through text).
const digestColumns = "count(*), (COALESCE(sum(h1), 0) & 18446744073709551615::HUGEINT)::UBIGINT, (COALESCE(sum(h2), 0) & 18446744073709551615::HUGEINT)::UBIGINT"

// digestOf runs any row query and returns its digest; the column types are
// those DuckDB gives the query.
func digestOf(ctx context.Context, conn *sql.Conn, q string) (Digest, error) {
	names, types, err := parquetsql.Describe(ctx, conn, q)
	if err != nil {
		return Digest{}, err
	}
	return digestTyped(ctx, conn, q, names, types)
}

// digestTyped digests a row query with known column names and types.
func digestTyped(ctx context.Context, conn *sql.Conn, q string, names, types []string) (Digest, error) {
	dq, err := digestSQL(q, names, types)
	if err != nil {
		return Digest{}, err
	}
	return runDigest(ctx, conn, dq)
}

// runDigest runs a digestSQL query.
func runDigest(ctx context.Context, conn *sql.Conn, dq string) (Digest, error) {
	var d Digest
	if err := conn.QueryRowContext(ctx, dq).Scan(&d.Rows, &d.Hi, &d.Lo); err != nil {
		return Digest{}, err
	}
	return d, nil
}

// maxRowHashes caps the deleted rows whose hashes a file scan keeps one by
// one (Digests.rowCap); a file with more deletes has its deleted rows read
// per delete state.
const maxRowHashes = 200_000

// deletedScan reads one data file's deleted rows (the rows its kept row
// digests do not cover), one query each: several in one UNION ALL raised a
// backfill's peak RSS with the number of versions (docs/compare.md,
// "Memory"). Its rows are grouped by position (each) or all into group -1
// (one digest, when there are too many to keep).
type deletedScan struct {
	query string // hashSQL with positionColumn kept
	each  bool   // group by position
}

// run returns the digest of each position, or under -1 of all rows.
func (sc deletedScan) run(ctx context.Context, conn *sql.Conn) (map[int64]Digest, error) {
	g := "-1"
	if sc.each {
		g = positionColumn
	}
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT %s AS g, %s FROM (%s) GROUP BY g", g, digestColumns, sc.query))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]Digest{}
	for rows.Next() {
		var g int64
		var d Digest
		if err := rows.Scan(&g, &d.Rows, &d.Hi, &d.Lo); err != nil {
			return nil, err
		}
		out[g] = d
	}
	return out, rows.Err()
}

// PartDigest is the digest of one part (a data file or the inlined rows).
type PartDigest struct {
	Kind   string `json:"kind"`
	FileID int64  `json:"file_id,omitempty"`
	Path   string `json:"path"`
	Digest Digest `json:"digest"`
}

// TableDigest digests a table at a snapshot, part by part: one part per
// data file and one per inlined data table. A data file's digest is the
// digest of all its rows (its read plan without deletes, computed once
// however many snapshots, versions and formats share the plan) minus the
// digest of its deleted rows, which reads only the deleted positions' rows.
func (r *Reader) TableDigest(ctx context.Context, t Table, snap int64, opts ScanOptions) (Digest, []PartDigest, error) {
	tp, err := r.tablePlan(ctx, t, snap, opts)
	if err != nil {
		return Digest{}, nil, err
	}
	return r.planDigest(ctx, t, snap, opts, tp, nil)
}

// filePlan is a data file's read plan at a snapshot, by its plan keys: all
// its rows (all) and its deleted rows (gone, "" when nothing is deleted).
// Equal keys read equal rows: a key names the file's query (path, schema
// map, types, defaults, partition values, partial-file filter, row ids,
// deleted positions, row encoding) and the file's bytes (planKey).
type filePlan struct {
	f         DataFile
	all, gone string
	deleted   []int64 // deleted positions at the snapshot
	// same is the whole plan as one value (all and gone): two files with
	// equal ones contribute equal digests (samePlans).
	same string
}

// tablePlan is what a table's rows at a snapshot are read from: its
// columns and its data files' plans (inlined rows are planned when read).
type tablePlan struct {
	cols         []*Column
	names, types []string
	files        []filePlan
}

// tablePlan plans a table's data files at a snapshot.
func (r *Reader) tablePlan(ctx context.Context, t Table, snap int64, opts ScanOptions) (*tablePlan, error) {
	// The format's real reader may fail before reading any file (reader model).
	if err := r.statsFailure(ctx, t); err != nil {
		return nil, err
	}
	if err := r.refusal(ctx, t, snap); err != nil {
		return nil, err
	}
	cols, names, types, err := r.rowColumns(ctx, t, snap, opts)
	if err != nil {
		return nil, err
	}
	files, err := r.files(ctx, t, snap)
	if err != nil {
		return nil, err
	}
	tp := &tablePlan{cols: cols, names: names, types: types, files: make([]filePlan, len(files))}
	colsEpoch, err := r.epoch(ctx, snap, t.ID, columnsEpoch...)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		n := &tp.files[i]
		n.f = f
		state, memo := r.fileStateOf(ctx, t, f, snap)
		key := planState{fileState: state, columns: colsEpoch, opts: opts}
		if memo {
			if p, ok := r.plans.get(snap, key); ok {
				*n = *p
				n.f = f
				continue
			}
		}
		fail := func(err error) error {
			return fmt.Errorf("%s at snapshot %d, data file %s: %w", t.Shown(), snap, oneline.Name(f.Path), err)
		}
		if n.all, err = r.planKeyOf(ctx, t, f, cols, snap, opts, names, types, deletesIgnored, nil); err != nil {
			return nil, fail(err)
		}
		if n.deleted, err = r.deletedPositions(ctx, t, f, snap); err != nil {
			return nil, fail(err)
		}
		if err := r.structSkipped(ctx, t, f, cols, snap, n.deleted); err != nil {
			return nil, fail(err)
		}
		if len(n.deleted) > 0 {
			if n.gone, err = r.planKeyOf(ctx, t, f, cols, snap, opts, names, types, deletesOnly, n.deleted); err != nil {
				return nil, fail(err)
			}
		}
		n.same = n.all + "\x00" + n.gone
		if memo {
			// Kept by pointer: a map's value of more than 128 bytes is
			// stored apart, and each snapshot that found the plan in
			// the window's older map copied it there again.
			p := *n
			r.plans.put(snap, key, &p)
		}
	}
	return tp, nil
}

// planDigest digests a planned table at a snapshot, part by part, leaving
// out the data files skip marks (skip[i] for tp.files[i]; nil: none): the
// files both sides of a comparison read under the same plan, which add
// the same digest to both sides (comparison.samePlans). Inlined rows are
// always read.
func (r *Reader) planDigest(ctx context.Context, t Table, snap int64, opts ScanOptions, tp *tablePlan, skip []bool) (Digest, []PartDigest, error) {
	files := tp.files
	if skip != nil {
		files = nil
		for i, fp := range tp.files {
			if !skip[i] {
				files = append(files, fp)
			}
		}
	}
	parts, err := r.fileDigests(ctx, t, files, tp.cols, snap, opts, tp.names, tp.types)
	if err != nil {
		return Digest{}, nil, err
	}
	var total Digest
	out := make([]PartDigest, 0, len(parts))
	for _, p := range parts {
		out = append(out, p)
		total = total.Add(p.Digest)
	}
	inl, err := r.inlinedSQL(ctx, t, tp.cols, snap, opts)
	if err != nil {
		return Digest{}, nil, fmt.Errorf("%s at snapshot %d, inlined data: %w", t.Shown(), snap, err)
	}
	for _, p := range inl {
		// Inlined rows live in this catalog: never shared or cached.
		d, err := digestTyped(ctx, r.conn, p.SQL, tp.names, tp.types)
		if err != nil {
			return Digest{}, nil, fmt.Errorf("read %s of %s at snapshot %d in %s: %w", oneline.Name(p.Path), t.Shown(), snap, oneline.Name(r.path), err)
		}
		r.memo.count(&r.memo.stats.Computed)
		out = append(out, PartDigest{Kind: p.Kind, Path: p.Path, Digest: d})
		total = total.Add(d)
	}
	return total, out, nil
}

// rowColumns returns a table's columns at a snapshot and the names and
// DuckDB types of the rows a digest hashes (with the row id if asked).
// The names and types are made once per table, columns epoch and
// opts.RowIDs and kept with the columns (epochColumns): a comparison asks
// at every snapshot, several times. They are shared, and capped at their
// length so that an append by a caller copies them.
func (r *Reader) rowColumns(ctx context.Context, t Table, snap int64, opts ScanOptions) (cols []*Column, names, types []string, err error) {
	ec, err := r.epochColumnsOf(ctx, t.ID, snap)
	if err != nil {
		return nil, nil, nil, err
	}
	cols = ec.cols
	if len(cols) == 0 {
		return nil, nil, nil, fmt.Errorf("%s in %s at snapshot %d has no columns", t.Shown(), oneline.Name(r.path), snap)
	}
	withRowIDs := 0
	if opts.RowIDs {
		withRowIDs = 1
	}
	if k := ec.rows[withRowIDs]; k != nil {
		return cols, k.names, k.types, nil
	}
	names, types = make([]string, 0, len(cols)+1), make([]string, 0, len(cols)+1)
	for _, c := range cols {
		dt, err := c.DuckType()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", t.Shown(), err)
		}
		names, types = append(names, c.Name), append(types, dt)
	}
	if opts.RowIDs {
		names, types = append(names, RowIDColumn), append(types, "BIGINT")
	}
	names, types = slices.Clip(names), slices.Clip(types)
	ec.rows[withRowIDs] = &rowColumnsOf{names, types}
	return cols, names, types, nil
}

// rowColumnsOf is what Reader.rowColumns makes of an epoch's columns.
type rowColumnsOf struct{ names, types []string }

// fileDigests digests the data files of a table at a snapshot. A file's
// digest is the digest of its read plan without deletes (all its rows)
// minus the digest of its deleted rows. The scan that digests all rows also
// keeps the hashes of the rows deleted now, at any compared snapshot
// (prefetch) or at any snapshot of a run's newest version (hints) one by
// one, so that every delete state of the file is a sum of kept row hashes:
// untouched rows are hashed once per plan, not once per delete state.
// Digests the memo or cache hold are not read again.
func (r *Reader) fileDigests(ctx context.Context, t Table, needs []filePlan, cols []*Column, snap int64, opts ScanOptions, names, types []string) ([]PartDigest, error) {
	fail := func(f DataFile, err error) error {
		return fmt.Errorf("%s at snapshot %d, data file %s: %w", t.Shown(), snap, oneline.Name(f.Path), err)
	}
	// First every row of the files no digest covers, in one query per shape.
	q := newWholeQueue()
	for _, n := range needs {
		if _, ok := r.memo.lookup(n.all); ok {
			continue
		}
		if err := r.queueWhole(ctx, q, t, n.f, cols, snap, opts, names, types, n.all, n.deleted); err != nil {
			return nil, fail(n.f, err)
		}
	}
	reused, err := r.runQueue(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read data files of %s at snapshot %d in %s: %w", t.Shown(), snap, oneline.Name(r.path), err)
	}
	r.memo.countReused(reused) // read by another comparison meanwhile
	// Then the deleted rows of files whose kept rows do not cover them:
	// one by one, or as one digest when there are too many to keep; their
	// queries are built first, then run in one stretch of scanning.
	type goneScan struct {
		sc deletedScan
		i  int // in needs
	}
	var gones []goneScan
	queued := map[string]bool{}
	for i, n := range needs {
		f := n.f
		if n.gone == "" || queued[n.gone] {
			continue
		}
		if _, ok := r.memo.lookup(n.gone); ok || r.memo.covers(n.all, n.deleted) {
			continue
		}
		queued[n.gone] = true
		sc := deletedScan{each: len(n.deleted) <= r.memo.rowCap}
		var err error
		if sc.query, err = r.planSQL(ctx, t, f, cols, snap, opts, names, types, deletesOnly, true); err != nil {
			return nil, fail(f, err)
		}
		gones = append(gones, goneScan{sc, i})
	}
	if len(gones) > 0 {
		err := r.scanning(ctx, func() error {
			for _, g := range gones {
				if err := ctx.Err(); err != nil {
					return err
				}
				n := needs[g.i]
				f := n.f
				if err := r.readable(ctx, f.Path); err != nil {
					return err
				}
				got, err := g.sc.run(ctx, r.conn)
				r.memo.countReads(1, 1)
				if err != nil {
					return fmt.Errorf("read deleted rows of %s at snapshot %d in %s, data file %s: %w", t.Shown(), snap, oneline.Name(r.path), oneline.Name(f.Path), err)
				}
				if g.sc.each {
					r.memo.keepRows(n.all, n.deleted, got)
				} else {
					r.memo.put(n.gone, got[-1], r.stillNamed(f.Path))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]PartDigest, 0, len(needs))
	for _, n := range needs {
		f := n.f
		d := r.memo.peek(n.all)
		if n.gone != "" {
			gone, ok := r.memo.get(n.gone)
			if !ok {
				if gone, ok = r.memo.sumRows(n.all, n.deleted); !ok {
					return nil, fail(f, errors.New("deleted rows not digested"))
				}
				r.memo.putDerived(n.gone, gone, r.stillNamed(f.Path))
			}
			d = d.Sub(gone)
		}
		out = append(out, PartDigest{Kind: "file", FileID: f.ID, Path: f.Path, Digest: d})
	}
	return out, nil
}

// planSQL is the row-hash query of a data file's plan at a snapshot, with
// deletes applied as mode says and, if positions, the position column kept.
func (r *Reader) planSQL(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, mode deleteMode, positions bool) (string, error) {
	opts.deletes, opts.positions = mode, positions
	q, err := r.fileSQL(ctx, t, f, cols, snap, opts)
	if err != nil {
		return "", err
	}
	if positions {
		return hashSQL(q, names, types, positionColumn)
	}
	return hashSQL(q, names, types)
}

// planKeyOf is the plan key of a data file's rows at a snapshot (all rows,
// or the deleted ones): its row-hash query and the file's identity. A
// comparison asks for the all-rows key of every file at every snapshot
// (twice: prefetch, then the walk), and for the deleted-rows key of every
// file with deletes at every snapshot, so both are kept per reader by what
// the query depends on: the file's catalog row, the table's columns (their
// epoch), the row options, the snapshot only for partial files, and for
// deleted rows the deleted positions (their count and sha256). Building
// the deleted rows' query (its list of positions) at every snapshot was
// half of what a backfill allocated, and raised its peak RSS with the
// number of versions (docs/compare.md, "Memory"). deleted are the file's
// deleted positions at snap when the caller has them (nil: read here).
func (r *Reader) planKeyOf(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, mode deleteMode, deleted []int64) (string, error) {
	var kid allRowsKeyID
	var gid goneKeyID
	if mode == deletesIgnored || mode == deletesOnly {
		e, err := r.epoch(ctx, snap, t.ID, columnsEpoch...)
		if err != nil {
			return "", err
		}
		kid = allRowsKeyID{table: t.ID, columns: e, rowIDs: opts.RowIDs}
		if f.src != nil {
			kid.src, kid.row = f.src, f.row // its catalog row, without building it
		} else {
			kid.file = rowOf(f)
		}
		if f.PartialMax != nil || f.PartialInfo != nil {
			kid.snap = snap
		}
	}
	switch mode {
	case deletesIgnored:
		if k, ok := r.allRowsKeys[kid]; ok {
			return k, nil
		}
	case deletesOnly:
		if deleted == nil {
			var err error
			if deleted, err = r.deletedPositions(ctx, t, f, snap); err != nil {
				return "", err
			}
		}
		gid = goneKeyID{all: r.allRowsIndex(kid), n: len(deleted), sum: positionsSum(deleted)}
		if k, ok := r.goneKeys[gid]; ok {
			return k, nil
		}
	}
	// A file's identity is looked up on disk once per reader: each new
	// delete state of a file builds a key.
	ik := identityKey{path: f.Path, id: f.ID, size: f.SizeBytes, footer: optInt(f.FooterSize)}
	id, ok := r.identities[ik]
	if !ok {
		var err error
		if id, err = fileIdentity(f, r.listings); err != nil {
			return "", err
		}
		if r.identities == nil {
			r.identities = map[identityKey]string{}
		}
		r.identities[ik] = id
		r.nameCopy(f, id)
	}
	var k string
	if mode == deletesOnly && !r.mirrors(id) {
		var err error
		if k, err = r.goneKey(ctx, t, f, cols, snap, opts, names, types, kid, id); err != nil {
			return "", err
		}
	} else {
		var q string
		var err error
		if mode == deletesOnly {
			q, err = r.goneSQL(ctx, t, f, cols, snap, opts, names, types, kid)
		} else {
			q, err = r.planSQL(ctx, t, f, cols, snap, opts, names, types, mode, false)
		}
		if err != nil {
			return "", err
		}
		k = planKey(r.mirroredQuery(q, id), id)
	}
	r.keysBuilt++
	switch mode {
	case deletesIgnored:
		r.allRowsKeys[kid] = k
	case deletesOnly:
		r.goneKeys[gid] = k
	}
	return k, nil
}

// goneParts is a file plan's deleted-rows query (planSQL, deletesOnly)
// without its delete filter: the row hashes around the file's base query
// (hashParts) and its partial-file filters.
type goneParts struct {
	prefix, base, suffix string
	where                []string
}

// goneSQL is planSQL of a file's deleted rows (deletesOnly, no position
// column), the same text, built from the part that depends only on the
// file's plan (kid), kept per reader, and the delete filter: each new
// delete state of a file (every few snapshots) builds only the list of
// its positions, not the projection and row hashes again.
func (r *Reader) goneSQL(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, kid allRowsKeyID) (string, error) {
	h, err := r.gonePartsOf(ctx, t, f, cols, snap, opts, names, types, kid)
	if err != nil {
		return "", err
	}
	del, err := r.deleteFilter(ctx, t, f, snap, deletesOnly)
	if err != nil {
		return "", err
	}
	return h.prefix + withWhere(h.base, h.where, del) + h.suffix, nil
}

// gonePartsOf is the part of a file's deleted-rows query kept per file
// plan (kid), built on first use.
func (r *Reader) gonePartsOf(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, kid allRowsKeyID) (goneParts, error) {
	if h, ok := r.goneParts[kid]; ok {
		return h, nil
	}
	opts.deletes, opts.positions = deletesOnly, false
	base, where, err := r.fileBase(ctx, t, f, cols, snap, opts)
	if err != nil {
		return goneParts{}, err
	}
	prefix, suffix, err := hashParts(names, types)
	if err != nil {
		return goneParts{}, err
	}
	h := goneParts{prefix: prefix, base: base, suffix: suffix, where: where}
	r.goneParts[kid] = h
	return h, nil
}

// goneKey is planKey(goneSQL(...), id), the same key, hashed as it is
// written: goneSQL's text holds the file's deleted positions as a list
// (up to maxInlinePositions of them), and building it, then the key's
// input around it, copied the list three times over for every new delete
// state of every file. In a history that deletes from the same files
// again and again those lists grow with the versions, and their text was
// a sixth of what a 40-version backfill allocated, one more source of its
// peak's growth with versions (docs/compare.md, "Memory"). Only where
// mirroredQuery leaves the query as it is (r.mirrors).
func (r *Reader) goneKey(ctx context.Context, t Table, f DataFile, cols []*Column, snap int64, opts ScanOptions, names, types []string, kid allRowsKeyID, id string) (string, error) {
	parts, err := r.gonePartsOf(ctx, t, f, cols, snap, opts, names, types, kid)
	if err != nil {
		return "", err
	}
	deleted, err := r.deletedPositions(ctx, t, f, snap)
	if err != nil {
		return "", err
	}
	// The delete filter as deleteFilter writes it (deletesOnly), the
	// positions' list appended below.
	del, list := "false", false
	if len(deleted) > 0 {
		if len(deleted) <= r.maxInlinePositions {
			list = true
		} else {
			set, err := r.positionSet(ctx, deleted)
			if err != nil {
				return "", err
			}
			del = "file_row_number IN (" + set + ")"
		}
	}
	h := sha256.New()
	w := keyWriter{h: h, b: r.keyBuf[:0]}
	w.str("fdl-formats file digest v3\x00")
	w.str(duckdbBuild())
	w.str("\x00")
	w.str(id)
	w.str("\x00")
	w.str(parts.prefix)
	w.str(parts.base)
	w.str(" WHERE ")
	for _, c := range parts.where {
		w.str(c)
		w.str(" AND ")
	}
	if list {
		w.str("file_row_number IN (SELECT unnest([")
		for i, p := range deleted {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = strconv.AppendInt(w.b, p, 10)
			if len(w.b) > keyBufFlush {
				w.flush()
			}
		}
		w.str("]::BIGINT[]))")
	} else {
		w.str(del)
	}
	w.str(parts.suffix)
	w.flush()
	r.keyBuf = w.b
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

// mirrors tells whether mirroredQuery rewrites a query of the file whose
// identity is id.
func (r *Reader) mirrors(id string) bool {
	return strings.Contains(id, objectIdentity) && r.dataPath != ""
}

// keyBufFlush is when keyWriter hands its buffer to the hash.
const keyBufFlush = 4000

// keyWriter writes a plan key's input to its hash through a buffer kept
// by the reader (Reader.keyBuf).
type keyWriter struct {
	h hash.Hash
	b []byte
}

func (w *keyWriter) str(s string) {
	if len(w.b)+len(s) > keyBufFlush {
		w.flush()
		if len(s) > keyBufFlush {
			io.WriteString(w.h, s) //nolint:errcheck // a hash's writes do not fail
			return
		}
	}
	w.b = append(w.b, s...)
}

func (w *keyWriter) flush() {
	w.h.Write(w.b) //nolint:errcheck // a hash's writes do not fail
	w.b = w.b[:0]
}

// goneKeyID is what a data file's deleted-rows plan key depends on within
// one reader: what its all-rows key depends on (all, its allRowsIndex),
// and the deleted positions. It is kept under 128 bytes, so that a map
// holds it in its own slots: a reader keeps one per delete state of every
// file (in a history deleting from the same files again, as many as
// files x deletes), and the allRowsKeyID itself (160 bytes: 200 a key) made
// each entry an allocation of its own, a part of a proof's live Go heap
// that grew with the history (docs/compare.md, "Figure 3, one cell").
type goneKeyID struct {
	all int32
	n   int
	sum [sha256.Size]byte
}

// allRowsIndex numbers the allRowsKeyIDs a reader met (goneKeyID).
func (r *Reader) allRowsIndex(kid allRowsKeyID) int32 {
	i, ok := r.allRowsIDs[kid]
	if !ok {
		if r.allRowsIDs == nil {
			r.allRowsIDs = map[allRowsKeyID]int32{}
		}
		i = int32(len(r.allRowsIDs))
		r.allRowsIDs[kid] = i
	}
	return i
}

// positionsSum is the sha256 of sorted positions as 8-byte little-endian
// integers (a memo key: no text per value, unlike positionsHash).
func positionsSum(pos []int64) [sha256.Size]byte {
	h := sha256.New()
	var buf [4096]byte
	b := buf[:0]
	for _, p := range pos {
		b = binary.LittleEndian.AppendUint64(b, uint64(p))
		if len(b) == len(buf) {
			h.Write(b)
			b = buf[:0]
		}
	}
	h.Write(b)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// allRowsKeyID is what a data file's all-rows plan key depends on within
// one reader (see planKeyOf).
type allRowsKeyID struct {
	table, columns int64
	// The file's catalog row: where Files listed it (src, row), else its
	// values (file).
	src    *tableFiles
	row    int32
	file   fileCatalogRow
	rowIDs bool
	snap   int64 // partial files only
}

// fileCatalogRow is a data file's catalog row as a comparable value.
type fileCatalogRow struct {
	id, size                                        int64
	path, footer, rowIDStart, mapping, key, partial string
}

// rowOf is a data file's catalog row (what its plan is built from).
func rowOf(f DataFile) fileCatalogRow {
	r := fileCatalogRow{id: f.ID, size: f.SizeBytes, path: f.Path, footer: optInt(f.FooterSize), rowIDStart: optInt(f.RowIDStart), mapping: optInt(f.MappingID), partial: optInt(f.PartialMax)}
	if f.encryptionKey != nil {
		r.key = "key " + *f.encryptionKey
	}
	if f.PartialInfo != nil {
		r.partial += " info " + *f.PartialInfo
	}
	return r
}

// prefetch reads, before a comparison walks its snapshots, every row of
// every data file plan the snapshots read, in one query per plan shape
// (runWholes), keeping apart the rows any compared snapshot deletes. The
// walk then finds every digest in the memo. It only saves reads: what it
// cannot plan or read is planned and read again, with its error, by the
// walk.
func (r *Reader) prefetch(ctx context.Context, snaps []int64, opts ScanOptions) {
	q := newWholeQueue()
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s)
		if err != nil {
			return
		}
		for _, t := range tables {
			if r.statsFailure(ctx, t) != nil || r.refusal(ctx, t, s) != nil {
				continue
			}
			cols, names, types, err := r.rowColumns(ctx, t, s, opts)
			if err != nil {
				continue
			}
			files, err := r.files(ctx, t, s)
			if err != nil {
				continue
			}
			for _, f := range files {
				key, err := r.planKeyOf(ctx, t, f, cols, s, opts, names, types, deletesIgnored, nil)
				if err != nil || r.memo.holds(key) {
					continue
				}
				if deleted, err := r.deletedPositions(ctx, t, f, s); err == nil {
					_ = r.queueWhole(ctx, q, t, f, cols, s, opts, names, types, key, deleted)
				}
			}
		}
	}
	// The walk reads what failed again, and reports it; it also counts
	// the digests read by another comparison as reused, when it finds them.
	_, _ = r.runQueue(ctx, q)
}

// mergeSorted is the sorted union of two sorted position lists.
func mergeSorted(a, b []int64) []int64 {
	if len(b) == 0 {
		return a
	}
	out := make([]int64, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// identityKey is what fileIdentity reads of a data file's catalog row.
type identityKey struct {
	path     string
	id, size int64
	footer   string
}

// fileIdentity names a data file's bytes: its catalog record (id, size,
// footer size) and, for a local file, what it is on disk as readers open
// it (os.Stat follows a symbolic link, as DuckDB does): its size,
// modification time and, where the system has them, its inode change time,
// device and inode (fileid.Inode), so that a file rewritten in place is
// digested again, even at the same size with its modification time set
// back. A copy in a store's mirror (Listings.SetMirror) that the mirror
// names by its object (key, size, strong validator: Mirror.Identity) is
// named so instead, as a kept proof's key names it: the mirror holds each
// copy to its object before a proof reads it, and a copy of the mirror
// (a cache restored in CI) keeps the name.
func fileIdentity(f DataFile, l *Listings) (string, error) {
	id := copyHead(f)
	if strings.Contains(f.Path, "://") {
		return id, nil
	}
	c, err := copyIdentity(f.Path, l)
	if err != nil {
		return "", err
	}
	return id + c, nil
}

// objectIdentity marks a file's identity that names a store's object
// (fileIdentity of a copy in a mirror).
const objectIdentity = " object "

// mirroredQuery is a plan query as its key names it: for a copy a mirror
// names by its object (id), the reader's data path, where the mirror lies
// on this machine, is left out, as a kept proof's key leaves it out, so
// that a copy of the mirror at another path (a restored cache) finds the
// digests. The object (its key, size and validator) is in id.
func (r *Reader) mirroredQuery(q, id string) string {
	if !r.mirrors(id) {
		return q
	}
	return strings.ReplaceAll(q, r.dataPath, "\x00mirror\x00")
}

// planKey identifies a file digest: the digest query (the read plan: path,
// schema mapping, types, defaults, partition values, partial-file filter,
// deleted positions, and the row encoding) and the file's identity.
func planKey(digestQuery, identity string) string {
	h := sha256.New()
	fmt.Fprintf(h, "fdl-formats file digest v3\x00%s\x00%s\x00%s", duckdbBuild(), identity, digestQuery)
	return hex.EncodeToString(h.Sum(nil))
}

// duckdbBuild names the DuckDB this binary links (its Go modules and
// versions). A digest is DuckDB's hash() of the rows, which a DuckDB
// release may change; a cache shared by two builds must not compare the
// digests of one with those of the other (a false difference). It is a
// fact of the binary, computed once.
var duckdbBuild = sync.OnceValue(func() string {
	mods := []string{"duckdb " + bindings.LibraryVersion()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return mods[0]
	}
	for _, d := range bi.Deps { // empty in test binaries
		if strings.HasPrefix(d.Path, "github.com/duckdb/") {
			if d.Replace != nil {
				d = d.Replace
			}
			mods = append(mods, d.Path+"@"+d.Version)
		}
	}
	slices.Sort(mods)
	return strings.Join(mods, " ")
})

// DigestStore keeps file digests across comparisons and runs (see the
// digestcache package). Values are opaque bytes; Get misses on any error.
type DigestStore interface {
	Get(key string) ([]byte, bool)
	Put(key string, val []byte) error
}

// DigestStats counts how file digests were obtained.
type DigestStats struct {
	// Computed: digests read from the data (file plans and inlined tables).
	Computed int `json:"computed"`
	// Reused: plans seen before in this comparison (another snapshot, or
	// the other catalog with the same plan).
	Reused int `json:"reused"`
	// Cached: plans found in the digest cache (--cache).
	Cached int `json:"cached"`
	// Checked: plans read by a check scan only, without a digest: files
	// both sides read under the same plan (their digests cancel).
	Checked int `json:"checked"`
	// SamePlan: data files, summed over tables and snapshots, whose
	// digests were not needed because both sides read them under the same
	// plan.
	SamePlan int `json:"same_plan"`
	// Reads: data file scans run (all rows, or a file's deleted rows).
	Reads int `json:"reads"`
	// Queries: the DuckDB queries those scans ran in (files that share a
	// read plan's shape are read in one query).
	Queries int `json:"queries"`
}

// Digests holds file digests and kept row hashes for every comparison that
// shares it (Options.Digests): both sides of one comparison, or all the
// proofs of a backfill or check, which then read each file once however
// many versions and formats share it. It sits in front of an optional
// DigestStore and is safe for concurrent comparisons.
type Digests struct {
	mu   sync.Mutex
	mem  map[string]Digest
	rows map[string]*keptRows // plan key -> digests of kept rows by position
	// checked: all-rows plan keys read by a check scan (no digest), with
	// the rows they read (see sameplan.go).
	checked map[string]int64
	hints   map[string][]int64 // data file path -> positions some snapshot deletes
	// hintCap caps the hinted positions (maxHintedRows; tests lower it).
	hintCap int
	// rowCap caps the row digests kept one by one per data file scan
	// (maxRowHashes; tests lower it to reach the fallbacks past it).
	rowCap int
	store  DigestStore
	// minmax: data files' min/max texts by minMaxKey (minmaxfiles.go).
	minmax map[string][]*string
	// footers: a data file's footer quirk hits (footerQuirkDifferences)
	// by path and size, read once a run whatever the proofs naming it.
	footers map[string][]parquetfooter.Hit
	// schemas: data files' Parquet schemas by schemaRunKey (path and copy
	// identity), read once a run whatever the readers naming them
	// (runSchema); schemaNodes counts the nodes of the distinct trees
	// held, capped at schemaCap (maxRunSchemaNodes; tests lower it).
	schemas     map[string]*pnode
	schemaTrees map[string]*pnode // the distinct trees of schemas, by schemaSignature
	schemaNodes int
	schemaCap   int
	// flights are the all-rows plan keys a comparison is reading now
	// (claim, see inflight.go).
	flights map[string]*flight
	// claimedHook, when set (tests), runs after a comparison claimed the
	// keys of a queue, before it reads those it owns.
	claimedHook func(owned, waits int)
	// readHook, when set (tests), runs after a copy's Parquet schema or
	// footer was read, before what it tells is kept (keepFactAs).
	readHook func(path string)
}

// NewDigests returns an empty Digests in front of store (nil: memory only).
func NewDigests(store DigestStore) *Digests {
	return &Digests{mem: map[string]Digest{}, checked: map[string]int64{}, rows: map[string]*keptRows{}, hints: map[string][]int64{}, hintCap: maxHintedRows, rowCap: maxRowHashes, store: store, flights: map[string]*flight{}, minmax: map[string][]*string{}, footers: map[string][]parquetfooter.Hit{}, schemas: map[string]*pnode{}, schemaCap: maxRunSchemaNodes}
}

// footerHits returns the footer quirk hits kept for a data file (key: its
// path and size); ok is false when none were kept. A nil Digests keeps none.
func (d *Digests) footerHits(key string) (hits []parquetfooter.Hit, ok bool) {
	if d == nil {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	hits, ok = d.footers[key]
	return hits, ok
}

// keepFooterHits keeps a data file's footer quirk hits for the run.
func (d *Digests) keepFooterHits(key string, hits []parquetfooter.Hit) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.footers[key] = hits
}

// hint returns the positions Hint recorded for a data file.
func (d *Digests) hint(path string) []int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hints[path]
}

// digestMemo is one comparison's view of a Digests: it counts how that
// comparison's digests were obtained.
type digestMemo struct {
	*Digests
	ownMu sync.Mutex // guards stats and fromStore (mu is the shared Digests')
	stats DigestStats
	// fromStore: digests holds found in the store, not yet counted (lookup
	// counts them as cached), so that the store is read once per key.
	fromStore map[string]Digest
}

func newDigestMemo(shared *Digests) *digestMemo { return &digestMemo{Digests: shared} }

// keepRows records the row digests a scan kept by position; a kept
// position the scan did not return has no row (zero digest).
func (m *digestMemo) keepRows(key string, kept []int64, got map[int64]Digest) {
	if len(kept) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows[key] = m.rows[key].with(kept, got)
}

// covers reports whether every position has a kept row digest.
func (m *digestMemo) covers(key string, pos []int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.coversLocked(key, pos)
}

// sumRows adds up the kept row digests of positions.
func (m *digestMemo) sumRows(key string, pos []int64) (Digest, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	rows := m.rows[key]
	var d Digest
	for _, p := range pos {
		r, ok := rows.get(p)
		if !ok {
			return Digest{}, false
		}
		d = d.Add(r)
	}
	return d, true
}

// get returns a digest held in the memo, without counting.
func (m *digestMemo) get(key string) (Digest, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.mem[key]
	return d, ok
}

// putDerived records a digest summed from kept rows (not read, not
// counted), kept in the store when keep (as put).
func (m *digestMemo) putDerived(key string, d Digest, keep bool) {
	m.mu.Lock()
	m.mem[key] = d
	m.mu.Unlock()
	if keep {
		m.save(key, d)
	}
}

func (m *digestMemo) save(key string, d Digest) {
	if m.store == nil {
		return
	}
	if b, err := json.Marshal(d); err == nil {
		_ = m.store.Put(key, b) // a cache that cannot be written only costs time
	}
}

func (m *digestMemo) snapshot() DigestStats {
	m.ownMu.Lock()
	defer m.ownMu.Unlock()
	return m.stats
}

// countReads counts file scans and the queries they ran in.
func (m *digestMemo) countReads(files, queries int) {
	m.ownMu.Lock()
	m.stats.Reads += files
	m.stats.Queries += queries
	m.ownMu.Unlock()
}

// countReused counts n digests as reused.
func (m *digestMemo) countReused(n int) {
	m.ownMu.Lock()
	m.stats.Reused += n
	m.ownMu.Unlock()
}

func (m *digestMemo) count(n *int) {
	m.ownMu.Lock()
	*n++
	m.ownMu.Unlock()
}

// lookup finds a digest in the memo, then in the store. It counts a find
// once per call as reused or cached.
func (m *digestMemo) lookup(key string) (Digest, bool) {
	m.mu.Lock()
	d, ok := m.mem[key]
	m.mu.Unlock()
	if ok {
		m.count(&m.stats.Reused)
		return d, true
	}
	m.ownMu.Lock()
	d, ok = m.fromStore[key]
	delete(m.fromStore, key)
	m.ownMu.Unlock()
	if !ok {
		if d, ok = m.stored(key); !ok {
			return Digest{}, false
		}
	}
	m.mu.Lock()
	m.mem[key] = d
	m.mu.Unlock()
	m.count(&m.stats.Cached)
	return d, true
}

// stored reads a digest from the store.
func (m *digestMemo) stored(key string) (Digest, bool) {
	if m.store == nil {
		return Digest{}, false
	}
	var d Digest
	b, ok := m.store.Get(key)
	if !ok || json.Unmarshal(b, &d) != nil {
		return Digest{}, false
	}
	return d, true
}

// holds reports whether the memo or the store has a digest, without
// counting it (lookup counts it when the digest is used). A digest found
// in the store is kept for lookup: a comparison asks for every file's
// digest at every snapshot, and read the store twice per key each time
// (holds, then lookup) until the walk's lookup brought it into the memo.
func (m *digestMemo) holds(key string) bool {
	m.mu.Lock()
	_, ok := m.mem[key]
	m.mu.Unlock()
	if ok {
		return true
	}
	m.ownMu.Lock()
	_, ok = m.fromStore[key]
	m.ownMu.Unlock()
	if ok {
		return true
	}
	d, ok := m.stored(key)
	if ok {
		m.ownMu.Lock()
		if m.fromStore == nil {
			m.fromStore = map[string]Digest{}
		}
		m.fromStore[key] = d
		m.ownMu.Unlock()
	}
	return ok
}

// peek returns a digest lookup or put has brought into the memo.
func (m *digestMemo) peek(key string) Digest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mem[key]
}

// put records a computed digest in the memo and, when keep (the file read
// is still the copy its key names: stillNamed), in the store: a digest of
// a copy replaced while it was read is the run's alone.
func (m *digestMemo) put(key string, d Digest, keep bool) {
	m.mu.Lock()
	m.mem[key] = d
	m.mu.Unlock()
	m.count(&m.stats.Computed)
	if keep {
		m.save(key, d)
	}
}

// RowTexts returns the canonical texts of a table's rows at a snapshot with
// their multiplicities. A table with a TIMESTAMP_NS value DuckDB cannot
// render (before 1677-09-22, top-level or nested) is read again with each
// TIMESTAMP_NS as text (timestampNSAsText), which is DuckDB's text wherever
// DuckDB renders one: the texts are the same either way.
func (r *Reader) RowTexts(ctx context.Context, t Table, snap int64, opts ScanOptions) (map[string]int64, error) {
	texts, err := r.rowTexts(ctx, t, snap, opts, false)
	if isTimestampNSRenderError(err) {
		return r.rowTexts(ctx, t, snap, opts, true)
	}
	return texts, err
}

// rowTexts is RowTexts; nsText renders every TIMESTAMP_NS value, top-level
// or nested, as text (timestampNSAsText: made from epoch_ns where DuckDB
// cannot render it), for tables whose rows DuckDB cannot render
// (isTimestampNSRenderError).
func (r *Reader) rowTexts(ctx context.Context, t Table, snap int64, opts ScanOptions, nsText bool) (map[string]int64, error) {
	q, err := r.Query(ctx, t, snap, opts)
	if err != nil {
		return nil, err
	}
	// The table's query names its files deep inside: all are made
	// readable (a row difference is being reported; rare).
	if err := r.readableAll(ctx); err != nil {
		return nil, err
	}
	var texts map[string]int64
	err = r.scanning(ctx, func() (err error) {
		if nsText {
			if q, err = timestampNSAsText(ctx, r.conn, q); err != nil {
				return err
			}
		}
		texts, err = rowCounts(ctx, r.conn, q)
		return err
	})
	return texts, err
}

func rowCounts(ctx context.Context, conn *sql.Conn, q string) (map[string]int64, error) {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT %s AS txt, count(*) FROM (%s) t GROUP BY txt", rowText("t"), q))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[s] = n
	}
	return out, rows.Err()
}

// isTimestampNSRenderError is DuckDB's error for a TIMESTAMP_NS value it
// reads but cannot render as text (before timestampNSRenderable).
func isTimestampNSRenderError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Date out of range in timestamp_ns conversion")
}

// timestampNSAsText wraps query q so that each TIMESTAMP_NS value of its
// columns, top-level or nested in a STRUCT, LIST, fixed-size ARRAY or MAP
// at any depth, is a VARCHAR: DuckDB's text of the value, or for a value
// DuckDB cannot render, the same text made from epoch_ns
// (timestampNSRowText). Everything around such a value keeps its type, so
// a row renders as DuckDB renders it where it can (timestampNSNested). q
// unchanged when it has no such column.
func timestampNSAsText(ctx context.Context, conn *sql.Conn, q string) (string, error) {
	rows, err := conn.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE "+q+")")
	if err != nil {
		return "", fmt.Errorf("describe the rows: %w", err)
	}
	defer rows.Close()
	var repl []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", fmt.Errorf("describe the rows: %w", err)
		}
		if u := strings.ToUpper(typ); !strings.Contains(u, "TIMESTAMP_NS") && !strings.Contains(u, "VARIANT") {
			continue
		}
		t, err := parseType(typ)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", name, err)
		}
		e, ok, err := timestampNSNested(ident(name), t, 0)
		if err != nil {
			return "", fmt.Errorf("column %s of type %s: %w", name, typ, err)
		}
		if ok {
			repl = append(repl, e+" AS "+ident(name))
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("describe the rows: %w", err)
	}
	if len(repl) == 0 {
		return q, nil
	}
	return "SELECT * REPLACE (" + strings.Join(repl, ", ") + ") FROM (" + q + ")", nil
}

// timestampNSNested is SQL for value e of type t with each TIMESTAMP_NS in
// it as text (timestampNSRowText), and whether t holds a TIMESTAMP_NS at
// all (else e is returned as is). A STRUCT stays a STRUCT of the same
// fields, a LIST a LIST, a fixed-size ARRAY an ARRAY of the same size and
// a MAP a MAP with its entries in order, NULL where e is NULL: DuckDB
// renders a VARCHAR inside them as it renders a TIMESTAMP_NS of the same
// text (quoted by the same rule in a STRUCT, LIST or MAP, e.g. where it
// holds a ':', never in an ARRAY), so the row's text is DuckDB's wherever
// DuckDB can render it. depth names lambda variables (each lambda's body
// refers to its own variable only).
func timestampNSNested(e string, t *dtype, depth int) (string, bool, error) {
	if !t.holdsTimestampNS() {
		return e, false, nil
	}
	v := fmt.Sprintf("ns%d", depth)
	switch t.base {
	case "TIMESTAMP_NS":
		return timestampNSRowText(e), true, nil
	case "VARIANT":
		// Kept a VARIANT, as DuckDB renders it where it can; where it
		// cannot, the VARIANT of the text the digest hashes it by.
		return "CASE WHEN " + e + " IS NULL OR try(CAST(" + e + " AS VARCHAR)) IS NOT NULL THEN " + e + " ELSE CAST(" + variantUnrenderable(e) + " AS VARIANT) END", true, nil
	case "STRUCT":
		fields := make([]string, len(t.fields))
		for i, f := range t.fields {
			if f.name == "" {
				return "", false, fmt.Errorf("a STRUCT field without a name")
			}
			x, _, err := timestampNSNested("struct_extract("+e+", "+sqlString(f.name)+")", f.typ, depth)
			if err != nil {
				return "", false, err
			}
			fields[i] = sqlString(f.name) + ": " + x
		}
		return "CASE WHEN " + e + " IS NULL THEN NULL ELSE {" + strings.Join(fields, ", ") + "} END", true, nil
	case "LIST":
		x, _, err := timestampNSNested(v, t.elem, depth+1)
		if err != nil {
			return "", false, err
		}
		l := "list_transform(" + e + ", lambda " + v + ": " + x + ")"
		if t.size == "" {
			return l, true, nil
		}
		// list_transform makes an ARRAY a LIST, which DuckDB renders
		// with quotes an ARRAY's text lacks: cast back.
		typ, err := t.timestampNSTextType()
		if err != nil {
			return "", false, err
		}
		return "CAST(" + l + " AS " + typ + ")", true, nil
	case "MAP":
		k, _, err := timestampNSNested("struct_extract("+v+", 'key')", t.key, depth+1)
		if err != nil {
			return "", false, err
		}
		x, _, err := timestampNSNested("struct_extract("+v+", 'value')", t.val, depth+1)
		if err != nil {
			return "", false, err
		}
		return "CASE WHEN " + e + " IS NULL THEN NULL ELSE map_from_entries(list_transform(map_entries(" + e + "), lambda " + v + ": {'key': " + k + ", 'value': " + x + "})) END", true, nil
	}
	return "", false, fmt.Errorf("TIMESTAMP_NS inside %s", t.base)
}

// holdsTimestampNS reports whether t is TIMESTAMP_NS or VARIANT (which may
// hold one), or a STRUCT, LIST, ARRAY or MAP holding one at any depth.
func (t *dtype) holdsTimestampNS() bool {
	switch t.base {
	case "TIMESTAMP_NS", "VARIANT":
		return true
	case "STRUCT":
		for _, f := range t.fields {
			if f.typ.holdsTimestampNS() {
				return true
			}
		}
	case "LIST":
		return t.elem.holdsTimestampNS()
	case "MAP":
		return t.key.holdsTimestampNS() || t.val.holdsTimestampNS()
	}
	return false
}

// timestampNSTextType spells type t with each TIMESTAMP_NS in it VARCHAR:
// the type of timestampNSNested's SQL.
func (t *dtype) timestampNSTextType() (string, error) {
	switch t.base {
	case "TIMESTAMP_NS":
		return "VARCHAR", nil
	case "STRUCT":
		fields := make([]string, len(t.fields))
		for i, f := range t.fields {
			ft, err := f.typ.timestampNSTextType()
			if err != nil {
				return "", err
			}
			fields[i] = ident(f.name) + " " + ft
		}
		return "STRUCT(" + strings.Join(fields, ", ") + ")", nil
	case "LIST":
		et, err := t.elem.timestampNSTextType()
		if err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(t.size); t.size != "" && (err != nil || n <= 0) {
			return "", fmt.Errorf("an ARRAY of size %q", t.size)
		}
		return et + "[" + t.size + "]", nil
	case "MAP":
		kt, err := t.key.timestampNSTextType()
		if err != nil {
			return "", err
		}
		vt, err := t.val.timestampNSTextType()
		if err != nil {
			return "", err
		}
		return "MAP(" + kt + ", " + vt + ")", nil
	}
	return t.base + t.args, nil
}

// timestampNSRowText is SQL for TIMESTAMP_NS column c as DuckDB's text,
// written from epoch_ns when DuckDB cannot render it: such a value is
// negative, its whole seconds (floored) render as a TIMESTAMP and its
// nanoseconds as a fraction without trailing zeros (timestampNSText's
// text). No step overflows an int64.
func timestampNSRowText(c string) string {
	ns := "epoch_ns(" + c + ")"
	rem := "(" + ns + " % 1000000000)"
	frac := "(CASE WHEN " + rem + " < 0 THEN " + rem + " + 1000000000 ELSE " + rem + " END)"
	secs := "(" + ns + " // 1000000000 - CASE WHEN " + rem + " < 0 THEN 1 ELSE 0 END)"
	return fmt.Sprintf("CASE WHEN %[1]s IS NULL THEN NULL WHEN %[1]s >= %[2]s OR %[1]s = '-infinity' THEN %[1]s::VARCHAR "+
		"ELSE strftime(make_timestamp(%[3]s * 1000000), '%%Y-%%m-%%d %%H:%%M:%%S') || CASE WHEN %[4]s = 0 THEN '' ELSE '.' || rtrim(lpad(%[4]s::VARCHAR, 9, '0'), '0') END END",
		c, timestampNSRenderable, secs, frac)
}

// RowDiff is the rows one side has more often than the other.
type RowDiff struct {
	OnlyA []string `json:"only_a,omitempty"`
	OnlyB []string `json:"only_b,omitempty"`
}

// diffRows lists up to limit rows (sorted, repeated per extra occurrence)
// present more often on each side.
func diffRows(a, b map[string]int64, limit int) RowDiff {
	var d RowDiff
	extra := func(x, y map[string]int64) []string {
		var keys []string
		for k, n := range x {
			if n > y[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			for i := y[k]; i < x[k] && len(out) < limit; i++ {
				out = append(out, k)
			}
		}
		return out
	}
	d.OnlyA, d.OnlyB = extra(a, b), extra(b, a)
	return d
}

func (d RowDiff) String() string {
	var b strings.Builder
	for _, s := range d.OnlyA {
		b.WriteString("  only in A: " + s + "\n")
	}
	for _, s := range d.OnlyB {
		b.WriteString("  only in B: " + s + "\n")
	}
	return b.String()
}

// HintFromReader records, for every data file of the catalog r reads, the
// positions that any of its delete files deletes at any snapshot. Given the
// newest version of a repository (whose history holds every older one's),
// the first scan of each data file then keeps the hashes of every row a
// version ever deletes, and every delete state of every version is a sum of
// kept hashes: no proof reads a file again for its deleted rows. Hints only
// save reads; a file they miss is read again. The caller holds r open (and
// closes it), such as the reader that listed the catalog's files to fetch
// them: the catalog is then opened once for both.
func (d *Digests) HintFromReader(ctx context.Context, r *Reader) error {
	catalog := r.path
	snaps, err := r.Snapshots(ctx)
	if err != nil || len(snaps) == 0 {
		return err
	}
	tables, err := r.Tables(ctx, snaps[len(snaps)-1].ID)
	if err != nil {
		return err
	}
	hints := map[string][]int64{}
	for _, t := range tables {
		all, err := r.allTableFiles(ctx, t)
		if err != nil {
			return err
		}
		files := map[int64]DataFile{}
		for _, f := range all.data {
			files[f.file.ID] = f.file
		}
		for _, del := range all.dels {
			f, ok := files[del.dataID]
			if !ok {
				continue
			}
			path := f.Path
			var pos []int64
			switch del.file.Format {
			case "parquet":
				pos, err = r.parquetDeletes(ctx, &del.file, math.MaxInt64) // sorted, shared
			case "puffin":
				if err = r.readable(ctx, del.file.Path); err == nil {
					pos, err = puffinDeletes(del.file.Path, math.MaxInt64, r.vectorBound(ctx, f)) // a bitmap's: sorted, unique
				}
			default:
				continue
			}
			if err != nil {
				return fmt.Errorf("hints from %s: delete file %s: %w", oneline.Name(catalog), oneline.Name(del.file.Path), err)
			}
			hints[path] = mergeSorted(hints[path], pos)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	total := 0
	for _, pos := range d.hints {
		total += len(pos)
	}
	for _, path := range slices.Sorted(maps.Keys(hints)) {
		pos := hints[path]
		if len(pos) > d.rowCap || total+len(pos) > d.hintCap {
			continue // read again for its deleted rows instead
		}
		total += len(pos)
		d.hints[path] = mergeSorted(d.hints[path], pos)
	}
	return nil
}

// maxHintedRows caps the row hashes a run keeps because of hints (32 bytes
// each: the hinted position, and the kept row, keptRows): past it, files
// are read again for their deleted rows.
const maxHintedRows = 2_000_000

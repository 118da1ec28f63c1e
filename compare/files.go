package compare

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/duckfile"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// DataFile is a data file visible at a snapshot, with its delete file.
type DataFile struct {
	ID            int64   `json:"id"`
	Path          string  `json:"path"` // resolved (data path override applied)
	Stored        string  `json:"stored_path"`
	Relative      bool    `json:"relative"`
	RecordCount   int64   `json:"record_count"`
	SizeBytes     int64   `json:"file_size_bytes"`
	FooterSize    *int64  `json:"footer_size,omitempty"`
	RowIDStart    *int64  `json:"row_id_start,omitempty"`
	BeginSnapshot int64   `json:"begin_snapshot"`
	PartialMax    *int64  `json:"partial_max,omitempty"`
	PartialInfo   *string `json:"partial_file_info,omitempty"`
	MappingID     *int64  `json:"mapping_id,omitempty"`
	encryptionKey *string
	Delete        *DeleteFile `json:"delete,omitempty"`
	// relNull: path_is_relative is NULL, which every real reader fails on
	// (refused.go); the file is located as relative all the same.
	relNull bool
	// src, row, delRow: where Files found it (its table's rows, its row,
	// 1 + its delete file's row, 0 for none): its state (fileStateOf).
	src         *tableFiles
	row, delRow int32
}

// DeleteFile is a delete file visible at a snapshot.
type DeleteFile struct {
	ID            int64  `json:"id"`
	Path          string `json:"path"`
	Format        string `json:"format"` // parquet or puffin, as the format's reader opens it (deleteFormat)
	DeleteCount   int64  `json:"delete_count"`
	SizeBytes     int64  `json:"file_size_bytes"`
	FooterSize    *int64 `json:"footer_size,omitempty"`
	BeginSnapshot int64  `json:"begin_snapshot"`
	PartialMax    *int64 `json:"partial_max,omitempty"`
	encryptionKey *string
	relNull       bool // as DataFile.relNull
}

func (r *Reader) resolve(dir, path string, relative bool) string {
	if relative {
		return dir + path
	}
	return path
}

// Files lists the data files of a table visible at a snapshot, each with
// the delete file visible at that snapshot (at most one, §5.3). What it
// returns is the caller's, down to what its pointers point to: the reader
// keeps and shares its own.
func (r *Reader) Files(ctx context.Context, t Table, snap int64) ([]DataFile, error) {
	files, err := r.files(ctx, t, snap)
	out := slices.Clone(files)
	for i := range out {
		f := &out[i]
		f.FooterSize, f.RowIDStart, f.PartialMax, f.MappingID = ptrCopy(f.FooterSize), ptrCopy(f.RowIDStart), ptrCopy(f.PartialMax), ptrCopy(f.MappingID)
		f.PartialInfo, f.encryptionKey = ptrCopy(f.PartialInfo), ptrCopy(f.encryptionKey)
		if d := f.Delete; d != nil {
			c := *d
			c.FooterSize, c.PartialMax, c.encryptionKey = ptrCopy(d.FooterSize), ptrCopy(d.PartialMax), ptrCopy(d.encryptionKey)
			f.Delete = &c
		}
		f.src = nil // not the reader's row any more (fileStateOf)
	}
	return out, err
}

// ptrCopy is a pointer to a copy of *p (nil for nil).
func ptrCopy[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// files is Files, shared: callers only read it.
func (r *Reader) files(ctx context.Context, t Table, snap int64) ([]DataFile, error) {
	all, err := r.allTableFiles(ctx, t)
	if err != nil {
		return nil, err
	}
	// A comparison asks for a table's files at a snapshot several times
	// (refusal, plans, descriptions) before the next: the last answer per
	// table is kept. Callers only read it.
	if last, ok := r.filesAt[all]; ok && last.snap == snap {
		return last.files, nil
	}
	files, err := r.filesOf(all, t, snap)
	if err != nil {
		return nil, err
	}
	if r.filesAt == nil {
		r.filesAt = map[*tableFiles]filesAtSnap{}
	}
	r.filesAt[all] = filesAtSnap{snap: snap, files: files}
	return files, nil
}

// filesAtSnap is a table's files at a snapshot (Files).
type filesAtSnap struct {
	snap  int64
	files []DataFile
}

// filesOf is Files' answer, read from the table's file rows.
func (r *Reader) filesOf(all *tableFiles, t Table, snap int64) ([]DataFile, error) {
	// Sized exactly, nothing grown: a comparison lists every table's
	// files at every snapshot several times, a fifth of what a backfill
	// allocated (docs/compare.md, "Memory").
	nFiles, nDels := 0, 0
	for _, row := range all.data {
		if visibleAt(row.file.BeginSnapshot, row.end, snap) {
			nFiles++
		}
	}
	for _, row := range all.dels {
		if visibleAt(row.file.BeginSnapshot, row.end, snap) {
			nDels++
		}
	}
	if nFiles == 0 {
		return nil, nil
	}
	files := make([]DataFile, 0, nFiles)
	index := make(map[int64]int, nFiles)
	for k, row := range all.data {
		if visibleAt(row.file.BeginSnapshot, row.end, snap) {
			index[row.file.ID] = len(files)
			files = append(files, row.file)
			files[len(files)-1].src, files[len(files)-1].row = all, int32(k)
		}
	}
	dels := make([]DeleteFile, 0, nDels) // the copies files point to
	for k, row := range all.dels {
		if !visibleAt(row.file.BeginSnapshot, row.end, snap) {
			continue
		}
		i, ok := index[row.dataID]
		if !ok {
			continue // delete file of a data file not visible at snap
		}
		if files[i].Delete != nil {
			return nil, &TwoDeleteFilesError{Catalog: r.path, Table: t.FullName(), Snapshot: snap, DataFile: files[i].Path, First: files[i].Delete.ID, Second: row.file.ID}
		}
		dels = append(dels, row.file)
		files[i].Delete, files[i].delRow = &dels[len(dels)-1], int32(k)+1
	}
	return files, nil
}

// tableFiles is every data and delete file row of a table, whatever its
// snapshots: read once per reader, filtered per snapshot in Go.
type tableFiles struct {
	data []fileRow[DataFile]
	dels []fileRow[DeleteFile]
	// ends: the indexes of data's rows with an end_snapshot, by it (nil
	// until endOrder computes it).
	ends *[]int32
}

// fileRow is a file with its data file id (delete files) and end
// snapshot; relative: the delete file's path_is_relative (true where
// NULL), until its Path is resolved (scanDeleteFile).
type fileRow[F any] struct {
	file     F
	dataID   int64
	end      *int64
	relative bool
}

// visibleAt reports whether a row with these snapshots is visible at snap (visible).
func visibleAt(begin int64, end *int64, snap int64) bool {
	return begin <= snap && (end == nil || snap < *end)
}

// allTableFiles reads every data and delete file row of a table (once per
// reader and table folder).
func (r *Reader) allTableFiles(ctx context.Context, t Table) (*tableFiles, error) {
	key := tableFilesKey{t.ID, t.dir}
	if all, ok := r.meta.tableFiles[key]; ok {
		return all, nil
	}
	all := &tableFiles{}
	if rows, ok := r.allFileRows(ctx).take(t.ID); ok {
		all.data, all.dels = rows.data, rows.dels
		for i := range all.data {
			f := &all.data[i].file
			f.Path = r.resolve(t.dir, f.Stored, f.Relative)
		}
		for i := range all.dels {
			row := &all.dels[i]
			row.file.Path = r.resolve(t.dir, row.file.Path, row.relative)
		}
	} else {
		rows, err := r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM cat.ducklake_data_file d WHERE d.table_id = %d ORDER BY d.data_file_id`, r.dataFileSelect(), t.ID))
		if err != nil {
			return nil, fmt.Errorf("list data files of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		for rows.Next() {
			var row fileRow[DataFile]
			if err := r.scanDataFile(rows, &row); err != nil {
				rows.Close()
				return nil, fmt.Errorf("list data files of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
			}
			row.file.Path = r.resolve(t.dir, row.file.Stored, row.file.Relative)
			all.data = append(all.data, row)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("list data files of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		rows, err = r.conn.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM cat.ducklake_delete_file x WHERE x.table_id = %d ORDER BY x.delete_file_id`, r.deleteFileSelect(), t.ID))
		if err != nil {
			return nil, fmt.Errorf("list delete files of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		defer rows.Close()
		for rows.Next() {
			var row fileRow[DeleteFile]
			if err := r.scanDeleteFile(rows, &row); err != nil {
				return nil, fmt.Errorf("list delete files of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
			}
			row.file.Path = r.resolve(t.dir, row.file.Path, row.relative)
			all.dels = append(all.dels, row)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("list delete files of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
	}
	r.meta.tableFiles[key] = all
	for _, row := range all.data {
		r.meta.tableOf[row.file.Path] = all
	}
	for _, row := range all.dels {
		r.meta.tableOf[row.file.Path] = all
	}
	return all, nil
}

// dataFileSelect is what allTableFiles selects of ducklake_data_file d,
// in the order scanDataFile scans it.
func (r *Reader) dataFileSelect() string {
	const dt = "ducklake_data_file"
	return fmt.Sprintf(`d.data_file_id, d.path, d.path_is_relative, d.record_count, d.file_size_bytes,
		d.footer_size, d.row_id_start, d.begin_snapshot, d.end_snapshot, %s, %s, %s, %s`,
		r.col(dt, "d", "partial_max"), r.col(dt, "d", "partial_file_info"), r.col(dt, "d", "mapping_id"),
		r.col(dt, "d", "encryption_key"))
}

// scanDataFile scans dataFileSelect's values into row (the file's Path
// not resolved), then any more into more.
func (r *Reader) scanDataFile(rows *sql.Rows, row *fileRow[DataFile], more ...any) error {
	f := &row.file
	var rel sql.NullBool
	var footer, rowStart, end, pmax, mapping sql.NullInt64
	var pinfo, key sql.NullString
	if err := rows.Scan(append([]any{&f.ID, &f.Stored, &rel, &f.RecordCount, &f.SizeBytes, &footer, &rowStart, &f.BeginSnapshot, &end, &pmax, &pinfo, &mapping, &key}, more...)...); err != nil {
		return err
	}
	f.Relative, f.relNull = !rel.Valid || rel.Bool, !rel.Valid
	f.FooterSize, f.RowIDStart, f.PartialMax, f.MappingID = nullInt(footer), nullInt(rowStart), nullInt(pmax), nullInt(mapping)
	f.PartialInfo, f.encryptionKey = nullString(pinfo), nullString(key)
	row.end = nullInt(end)
	return nil
}

// deleteFileSelect is what allTableFiles selects of ducklake_delete_file
// x, in the order scanDeleteFile scans it.
func (r *Reader) deleteFileSelect() string {
	const del = "ducklake_delete_file"
	return fmt.Sprintf(`x.delete_file_id, x.data_file_id, x.path, x.path_is_relative, %s, x.delete_count,
		x.file_size_bytes, x.footer_size, x.begin_snapshot, x.end_snapshot, %s, %s`,
		r.col(del, "x", "format"), r.col(del, "x", "partial_max"), r.col(del, "x", "encryption_key"))
}

// scanDeleteFile scans deleteFileSelect's values into row (the file's
// Path is its stored path, not resolved: row.relative says how to), then
// any more into more.
func (r *Reader) scanDeleteFile(rows *sql.Rows, row *fileRow[DeleteFile], more ...any) error {
	d := &row.file
	var rel sql.NullBool
	var format, key sql.NullString
	var footer, end, pmax sql.NullInt64
	if err := rows.Scan(append([]any{&d.ID, &row.dataID, &d.Path, &rel, &format, &d.DeleteCount, &d.SizeBytes, &footer, &d.BeginSnapshot, &end, &pmax, &key}, more...)...); err != nil {
		return err
	}
	row.relative, d.relNull = !rel.Valid || rel.Bool, !rel.Valid
	d.Format = r.deleteFormat(format)
	d.FooterSize, d.PartialMax, d.encryptionKey = nullInt(footer), nullInt(pmax), nullString(key)
	row.end = nullInt(end)
	return nil
}

// fileRows are every data and delete file row of the catalog by
// table_id, each table's in allTableFiles' order, their paths not
// resolved (allFileRows); nil when they were not read so.
type fileRows struct {
	tables map[int64]*tableFiles
	taken  map[int64]bool
	// tied are the tables with two data or two delete file rows of one
	// id (a catalog without its primary keys): DuckDB's sort is not
	// stable, so the whole table's order of such rows may differ from
	// the order of the table's own query, whose last row of an id wins.
	tied map[int64]bool
}

// take gives a table's rows (none when it has none) and forgets them
// (allTableFiles keeps what it builds of them); false when the rows
// were not read at once, or were taken already (a table read in another
// folder), for allTableFiles' own queries.
func (all *fileRows) take(table int64) (*tableFiles, bool) {
	if all == nil || all.taken[table] {
		return nil, false
	}
	if all.tied[table] {
		delete(all.tables, table) // read by the table's own query
		return nil, false
	}
	rows := all.tables[table]
	if rows == nil {
		rows = &tableFiles{}
	}
	delete(all.tables, table)
	all.taken[table] = true
	return rows, true
}

// allFileRows reads every row of ducklake_data_file and
// ducklake_delete_file once per reader (two statements, where
// allTableFiles ran two per table). Nil where they are not read so: a
// table_id that is not a BIGINT (compared in SQL as its own type), or a
// statement or a row's scan failed (a value of a table the reader may
// never read); allTableFiles then reads each table, and fails, as before.
func (r *Reader) allFileRows(ctx context.Context) *fileRows {
	return r.meta.fileRows.get(ctx, r, [][2]string{{"ducklake_data_file", "table_id"}, {"ducklake_delete_file", "table_id"}}, func() (*fileRows, error) {
		all := &fileRows{tables: map[int64]*tableFiles{}, taken: map[int64]bool{}, tied: map[int64]bool{}}
		of := func(table int64) *tableFiles {
			t := all.tables[table]
			if t == nil {
				t = &tableFiles{}
				all.tables[table] = t
			}
			return t
		}
		err := r.eachRow(ctx, `SELECT `+r.dataFileSelect()+`, d.table_id FROM cat.ducklake_data_file d
		WHERE d.table_id IS NOT NULL ORDER BY d.table_id, d.data_file_id`, func(rows *sql.Rows) error {
			var row fileRow[DataFile]
			var table int64
			if err := r.scanDataFile(rows, &row, &table); err != nil {
				return err
			}
			t := of(table)
			t.data = append(t.data, row)
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = r.eachRow(ctx, `SELECT `+r.deleteFileSelect()+`, x.table_id FROM cat.ducklake_delete_file x
		WHERE x.table_id IS NOT NULL ORDER BY x.table_id, x.delete_file_id`, func(rows *sql.Rows) error {
			var row fileRow[DeleteFile]
			var table int64
			if err := r.scanDeleteFile(rows, &row, &table); err != nil {
				return err
			}
			t := of(table)
			t.dels = append(t.dels, row)
			return nil
		})
		for id, t := range all.tables {
			if tiedIDs(t.data, func(r fileRow[DataFile]) int64 { return r.file.ID }) || tiedIDs(t.dels, func(r fileRow[DeleteFile]) int64 { return r.file.ID }) {
				all.tied[id] = true
			}
		}
		return all, err
	})
}

// tiedIDs reports whether two adjacent rows (sorted by id) have one id.
func tiedIDs[T any](rows []T, id func(T) int64) bool {
	for i := 1; i < len(rows); i++ {
		if id(rows[i]) == id(rows[i-1]) {
			return true
		}
	}
	return false
}

// deleteFormat is how the real reader of r's format opens a delete file
// whose format column holds v (formats.Version.DeleteFileFormat, the rule
// the converter's checks read by too): a value 1.0+ readers do not know is
// kept as stored, and reading the file fails (deleteFilePositions).
func (r *Reader) deleteFormat(v sql.NullString) string {
	return r.format.DeleteFileFormat(v)
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	n := v.Int64
	return &n
}

// checkExists reports a missing file as ErrIncomparable.
func checkExists(path string) error {
	if strings.Contains(path, "://") {
		return nil // remote: let DuckDB report
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	return nil
}

// exists is checkExists once per reader and file: a file found once is
// not looked up again at every snapshot (DiskCheck checks each file's
// size and footer once per run the same way). A missing file is looked up
// at every call, and reported every time.
func (r *Reader) exists(path string) error {
	if r.existing[path] {
		return nil
	}
	if err := checkExists(path); err != nil {
		return err
	}
	r.existing[path] = true
	return nil
}

// keyParam returns the read_parquet parameter that decrypts a file ("" when
// the file is not encrypted). The catalog stores the key base64-encoded;
// DuckDB takes the raw key bytes as footer_key_value.
func (r *Reader) keyParam(_ context.Context, key *string) (string, error) {
	if key == nil || *key == "" {
		return "", nil
	}
	return ", encryption_config = {footer_key_value: from_base64(" + sqlString(*key) + ")}", nil
}

// DeletedPositions returns the sorted 0-based physical positions of a data
// file deleted at a snapshot, whichever kind of delete carries them: its
// delete file (Parquet, partial Parquet, Puffin) and inlined file deletions.
func (r *Reader) DeletedPositions(ctx context.Context, t Table, f DataFile, snap int64) ([]int64, error) {
	pos, err := r.deletedPositions(ctx, t, f, snap)
	return slices.Clone(pos), err
}

// deletedPositions is DeletedPositions without a copy: the slice may be
// the one the reader keeps for this snapshot, so callers only read it (its
// capacity is its length: an append copies). A comparison asks for every
// file's positions several times per snapshot (plans, digests, entries),
// and a copy each time was a tenth of what a backfill allocated.
func (r *Reader) deletedPositions(ctx context.Context, t Table, f DataFile, snap int64) ([]int64, error) {
	pos, err := r.deleteFilePositions(ctx, t, f, snap)
	if err != nil {
		return nil, err
	}
	// Readers read a file's inlined deletions as a set (a row given twice
	// deletes once) and merge them with the delete file's positions: what
	// count(*) counts instead is compared apart (counts.go).
	if inl, ok := r.inlinedDeleteTable(t); ok {
		// A NULL row_id fails the reader's whole file list
		// (inlinedDeletionRefusal), not this file's positions.
		q := fmt.Sprintf(`SELECT row_id FROM cat.%s WHERE file_id = %d AND begin_snapshot <= %d AND row_id IS NOT NULL`, ident(inl), f.ID, snap)
		more, err := r.int64s(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("read inlined deletions of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		if len(more) > 0 {
			// The real readers with QuirkPartialDeletesWholeWithInlined
			// drop a partial deletion file's per-row snapshots when they
			// merge the inlined deletions in (DuckDB 1.5.0-1.5.1, format
			// 0.4).
			whole, ok, err := r.partialWhole(ctx, f)
			if err != nil {
				return nil, fmt.Errorf("read delete file of %s (data file %d) in %s: %w", t.Shown(), f.ID, oneline.Name(r.path), err)
			}
			if ok {
				pos = whole
			}
			pos = append(pos, more...)
			slices.Sort(pos)
			pos = slices.Compact(pos)
		}
	}
	return pos, nil
}

// inlinedDeleteTable names table t's inlined deletion table, when the
// catalog has one holding rows that its format's reader reads: found as
// DuckDB binds the reader's unquoted name, in any letter case. Formats
// before 0.4 have none: their DuckLake (DuckDB 1.3/1.4) never reads such a
// table, so neither does this reader.
func (r *Reader) inlinedDeleteTable(t Table) (string, bool) {
	if inl, ok := r.inlinedDelTables[t.ID]; ok {
		return inl, inl != ""
	}
	inl, ok := r.dynamicName(fmt.Sprintf("ducklake_inlined_delete_%d", t.ID))
	ok = ok && r.format.Has(formats.CapInlinedDeletes) && !r.empty(inl)
	if r.rowCounts != nil {
		// Asked for every file at every snapshot; empty is final once
		// every table's rows are counted.
		if r.inlinedDelTables == nil {
			r.inlinedDelTables = map[int64]string{}
		}
		if !ok {
			r.inlinedDelTables[t.ID] = ""
		} else {
			r.inlinedDelTables[t.ID] = inl
		}
	}
	return inl, ok
}

// deleteFilePositions is the part of deletedPositions its delete file
// gives (none without one), shared as deletedPositions' is.
func (r *Reader) deleteFilePositions(ctx context.Context, t Table, f DataFile, snap int64) ([]int64, error) {
	var pos []int64
	if d := f.Delete; d != nil {
		if err := r.exists(d.Path); err != nil {
			return nil, fmt.Errorf("delete file %s of %s (data file %d): %w", oneline.Name(d.Path), t.Shown(), f.ID, err)
		}
		if snap != r.deletesSnap {
			// Keep one snapshot's positions only: memory stays bounded.
			r.deletes, r.deletesSnap = map[string][]int64{}, snap
		}
		cached, ok := r.deletes[d.Path]
		if !ok {
			var err error
			// Kept sorted: the callers of every file at this snapshot
			// (files, plans, digests) get them without sorting again.
			switch d.Format {
			case "parquet":
				cached, err = r.parquetDeletes(ctx, d, snap) // sorted, shared
			case "puffin":
				cached, err = r.puffinDeletes(ctx, d, f, snap) // a bitmap's: sorted, unique
			default:
				// Only a 1.0+ reader keeps another value (deleteFormat).
				err = &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Unknown delete file format: %s (format %s readers read the format column with DeleteFileFormatFromString, which knows only parquet and puffin)", d.Format, r.format.Name)}
			}
			if err != nil {
				return nil, fmt.Errorf("read delete file %s of %s in %s: %w", oneline.Name(d.Path), t.Shown(), oneline.Name(r.path), err)
			}
			r.deletes[d.Path] = cached
		}
		pos = slices.Clip(cached)
	}
	return pos, nil
}

// parquetDeletes reads a positional delete file; a third column named
// _ducklake_internal_snapshot_id makes it a partial deletion file (§5.6).
// A file is read once per comparison, or once per run with Options.Deletes:
// its positions (and their snapshots) are kept and filtered per snapshot. The first one of a table read brings the others
// its lifetime overlaps (prefetchDeletes).
//
// The positions are sorted and without duplicates, and callers only read
// them: unless a partial deletion file deletes some after snap, they are
// the kept content itself, shared with the comparison and the run. A copy
// per call (every file at every snapshot a comparison walks) was the
// largest part of a backfill's live Go heap at its peak, and grew with the
// versions (docs/compare.md, "Memory").
func (r *Reader) parquetDeletes(ctx context.Context, d *DeleteFile, snap int64) ([]int64, error) {
	raw, partial, err := r.parquetDeleteContent(ctx, d)
	if err != nil {
		return nil, err
	}
	if !partial {
		return slices.Clip(raw.pos), nil
	}
	// A partial deletion file: the positions deleted at snap or before.
	// As snap grows they only gain positions, so their count names them.
	// The cuts' window moves with snap whether or not this one is cut: a
	// walk past the file's last deletion cuts nothing, and must not keep
	// its earlier snapshots' cuts.
	r.turnCuts(snap)
	in := raw.deletedBy(snap)
	n := 0
	for i := range raw.pos {
		if in(i) {
			n++
		}
	}
	if n == len(raw.pos) {
		return slices.Clip(raw.pos), nil
	}
	if c, ok := r.partialCuts.get(snap, d.Path); ok && c.n == n && sameSlice(c.from, raw.pos) {
		return c.pos, nil
	}
	out := make([]int64, 0, n)
	for i, p := range raw.pos {
		if in(i) {
			out = append(out, p)
		}
	}
	r.keepCut(snap, d.Path, partialCut{from: raw.pos, n: n, pos: out})
	return out, nil
}

// keepCut keeps a cut made at snapshot snap. The cuts are kept for the
// snapshot a walk is at and the one before (cutWindow): a cut kept for
// every partial deletion file the walk ever met held the positions of
// delete files the walk had left behind, a part of a proof's live Go heap
// that grew with the history (docs/compare.md, "Figure 3, one cell").
// They also keep their files' positions alive (from) after the run's
// delete-file cache may have dropped them: bounded like that cache.
func (r *Reader) keepCut(snap int64, path string, c partialCut) {
	size := len(c.from) + c.n
	r.turnCuts(snap)
	if r.cutPositions += size; r.cutPositions > r.cutCap {
		r.partialCuts.reset()
		r.cutPositions = size
	}
	r.partialCuts.put(snap, path, c)
}

// parquetDeleteContent returns a Parquet delete file's kept content
// (read once, see parquetDeletes) after the checks its format's reader
// makes, and whether that reader reads it as a partial deletion file (its
// per-row snapshots count). Formats before 0.4 have no partial deletion
// files: their DuckLake (DuckDB 1.3/1.4) reads only the positions of a
// 3-column delete file and deletes every one of them, whatever snapshot it
// names.
func (r *Reader) parquetDeleteContent(ctx context.Context, d *DeleteFile) (_ rawDeletes, partial bool, _ error) {
	key := keyOf(d.encryptionKey)
	raw, before, ok := r.rawDeletes.get(d.Path, key)
	if !ok && key == "" { // the batches read plain files only
		r.prefetchDeletes(ctx, d.Path, before)
		raw, ok = r.rawDeletes.kept(d.Path, key)
	}
	if !ok {
		var err error
		if raw, err = r.readParquetDeletes(ctx, d); err != nil {
			return rawDeletes{}, false, err
		}
		r.rawDeletes.put(d.Path, key, before, raw)
	}
	if raw.cols != 2 && r.twoColumnDeletes {
		return rawDeletes{}, false, &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Invalid schema contained in the delete file %s - expected file_name/position (format %s readers read two columns only, %s; it has %d)", oneline.Name(d.Path), r.format.Name, formats.QuirkDeleteFilesTwoColumns.Info().Name, raw.cols)}
	}
	if err := r.deleteHiveColumns(d, raw.cols); err != nil {
		return rawDeletes{}, false, err
	}
	if !raw.partial() || !r.format.Has(formats.CapPartialDeleteFiles) {
		return raw, false, nil
	}
	if raw.nullSnap {
		return rawDeletes{}, false, &DeleteFileError{Path: d.Path, Detail: "Invalid delete data - snapshot_id cannot be NULL"}
	}
	return raw, true, nil
}

// partialWhole applies formats.QuirkPartialDeletesWholeWithInlined: when
// f's delete file is a partial deletion file for r's format, it returns
// every position the file holds (ok), which the readers with the quirk
// delete at a snapshot where f also has inlined deletions, whatever
// snapshot deleted each. The caller has found those inlined deletions.
func (r *Reader) partialWhole(ctx context.Context, f DataFile) (_ []int64, ok bool, _ error) {
	d := f.Delete
	if d == nil || d.Format != "parquet" || !r.readsWith(formats.QuirkPartialDeletesWholeWithInlined) {
		return nil, false, nil
	}
	raw, partial, err := r.parquetDeleteContent(ctx, d)
	if err != nil || !partial {
		return nil, false, err
	}
	return slices.Clip(raw.pos), true, nil
}

// partialCut is what parquetDeletes last cut from a partial deletion
// file's kept positions (from): the n of them deleted by some snapshot
// (pos). A reader keeps one per file cut at the snapshot it walks and the
// one before (cutWindow): the snapshots a comparison walks in order mostly
// cut the same ones.
type partialCut struct {
	from []int64
	n    int
	pos  []int64
}

// turnCuts moves the cuts' window to snapshot snap (the cuts of the
// snapshot before last dropped), and counts what it still keeps.
func (r *Reader) turnCuts(snap int64) {
	if !r.partialCuts.turn(snap) {
		return
	}
	// What is left is the snapshot before's cuts.
	r.cutPositions = 0
	for _, k := range r.partialCuts.cur {
		r.cutPositions += len(k.from) + k.n
	}
	r.partialCuts.at(snap)
}

// cutWindow is a stateWindow of cuts by delete file path.
type cutWindow struct {
	stateWindow[string, partialCut]
}

// turn reports whether snap moves the window to another snapshot (the
// cuts of the snapshot before last are dropped by the next get or put).
func (w *cutWindow) turn(snap int64) bool {
	return w.cur != nil && snap != w.snap
}

// reset drops every cut.
func (w *cutWindow) reset() {
	clear(w.cur)
	clear(w.prev)
}

// sameSlice reports whether a and b are the same slice (same elements in
// memory, same length).
func sameSlice(a, b []int64) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// maxRawDeletes caps the delete positions kept across snapshots.
const maxRawDeletes = 4_000_000

// rawDeletes is a Parquet delete file's content: positions, strictly
// increasing as every real reader requires (readParquetDeletes) and, for a
// partial deletion file, the snapshot that deleted each (rank or snaps). Once
// read it is never written again: comparisons share it, and a run keeps it
// for its later proofs (Deletes).
//
// A partial deletion file names few distinct snapshots (at, sorted; one
// per delete that reached the data file) and repeats them on every row,
// and in a history that deletes from a file again and again each new
// delete file repeats the rows of the one before: what a run keeps grows
// with the square of the versions. So a row's snapshot is kept as its
// index in at (rank, one byte) when there are at most 256 of them, else
// as the snapshot itself (snaps): 9 bytes a deleted row instead of 16
// (docs/compare.md, "Memory").
type rawDeletes struct {
	pos []int64
	// snaps: each row's snapshot, when rank cannot hold it (else nil).
	snaps []int64
	// at: a partial deletion file's distinct snapshots, sorted (withAt):
	// computed once when the file is read and shared like the rest, not
	// per reader (a sorted copy of every row's snapshot per reader and
	// file was the largest part of a proof's live Go heap in a long
	// history of deletes).
	at []int64
	// rank: each row's snapshot as its index in at (withAt), when at has
	// at most 256 values (else nil, and snaps holds them).
	rank []uint8
	// cols is the file's number of columns (2 or 3).
	cols int
	// nullSnap: a partial deletion file with a NULL snapshot, which the
	// readers that read snapshots (0.4+) refuse and older ones ignore.
	nullSnap bool
}

// deleteFiles keeps the Parquet delete files read, by path and the key
// that decrypts them, so that each is read once per comparison (both
// catalogs name the same files on disk), in front of the run's Deletes
// when there is one. The key is part of what is read, as it is of a data
// file's plan (rowOf): a catalog that records another key for the same
// file (or none, or one where the other has none) is read with its own,
// which fails where the readers' scan fails.
type deleteFiles struct {
	mu    sync.Mutex
	files map[deleteKey]rawDeletes
	count int      // positions held
	run   *Deletes // Options.Deletes (nil: none)
	stats DeleteFileStats
	stat  func(string) (os.FileInfo, error) // os.Stat (tests count the calls)
}

// deleteKey is a delete file's path and the encryption key it is read
// with ("" if none).
type deleteKey struct{ path, key string }

func newDeleteFiles() *deleteFiles {
	return &deleteFiles{files: map[deleteKey]rawDeletes{}, stat: os.Stat}
}

// useRun puts the run's Deletes (nil: none) behind c and returns c's
// counts so far.
func (c *deleteFiles) useRun(run *Deletes) DeleteFileStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run = run
	return c.stats
}

func (c *deleteFiles) counts() DeleteFileStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// deleteStamp is a delete file's identity before it is read (ok false:
// there is no run to share it with, or no identity), for put.
type deleteStamp struct {
	id deleteID
	ok bool
}

// get returns the content kept for the delete file at path: this
// comparison's, else the run's for the file as it is on disk now (key: the
// file's encryption key, "" if none). On a miss, before is the identity
// the file had (one stat), for put after the file is read.
func (c *deleteFiles) get(path, key string) (_ rawDeletes, before deleteStamp, _ bool) {
	c.mu.Lock()
	raw, ok := c.files[deleteKey{path, key}]
	run := c.run
	c.mu.Unlock()
	if ok || run == nil {
		return raw, deleteStamp{}, ok
	}
	id, ok := deleteIDOf(c.stat, path, key)
	if !ok {
		return rawDeletes{}, deleteStamp{}, false
	}
	before = deleteStamp{id, true}
	if raw, ok = run.get(id); !ok {
		return rawDeletes{}, before, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep(path, key, raw)
	c.stats.Shared++
	return raw, before, true
}

// kept returns this comparison's content of the delete file at path read
// with key, without asking the run.
func (c *deleteFiles) kept(path, key string) (rawDeletes, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	raw, ok := c.files[deleteKey{path, key}]
	return raw, ok
}

// put keeps what was just read from the delete file at path with key, and
// gives it to the run when the file's identity is still before (from get).
func (c *deleteFiles) put(path, key string, before deleteStamp, raw rawDeletes) {
	c.mu.Lock()
	c.keep(path, key, raw)
	c.stats.Read++
	run := c.run
	c.mu.Unlock()
	if run == nil || !before.ok {
		return
	}
	if after, ok := deleteIDOf(c.stat, path, before.id.key); ok && after == before.id {
		run.put(before.id, raw)
	}
}

// keyOf is a catalog's encryption key, "" when there is none.
func keyOf(key *string) string {
	if key == nil {
		return ""
	}
	return *key
}

// keep holds raw for path read with key; c.mu is held.
func (c *deleteFiles) keep(path, key string, raw rawDeletes) {
	if c.count += len(raw.pos); c.count > maxRawDeletes {
		c.files, c.count = map[deleteKey]rawDeletes{}, len(raw.pos) // bound memory
	}
	c.files[deleteKey{path, key}] = raw
}

// TwoDeleteFilesError is a data file with two delete files visible at one
// snapshot. DuckLake readers list the data file once per visible delete
// file (GetFilesForTable's LEFT JOIN, v1.3-ossivalis to main) and read it
// that many times, each time with one delete file: its rows come back
// twice. This reader does not model that; the comparison reports it as a
// difference when one catalog has it (kind "files") and as could not
// compare when both do.
type TwoDeleteFilesError struct {
	Catalog, Table, DataFile string
	Snapshot, First, Second  int64
}

func (e *TwoDeleteFilesError) Error() string {
	return fmt.Sprintf("%s in %s at snapshot %d: data file %s has two visible delete files (ids %d, %d); DuckLake readers read it once per delete file", oneline.Name(e.Table), oneline.Name(e.Catalog), e.Snapshot, oneline.Name(e.DataFile), e.First, e.Second)
}

// DeleteFileError is a delete file the readers of the catalog's format
// refuse: a Puffin file their format cannot read (Reader.puffinDeletes),
// a 3-column file for DuckDB 1.3, a delete file whose Hive folders give it
// too many columns (Reader.deleteHiveColumns), or a Parquet delete file that every
// DuckLake reader refuses (DuckLakeDeleteFilter::ScanDeleteFile, src/storage/
// ducklake_delete_filter.cpp, the same checks in v1.3-ossivalis,
// v1.4-andium, v1.5-variegata and main): columns other than file_path
// VARCHAR, pos BIGINT and at most one more, a NULL position, or positions
// not strictly increasing in file order (unsorted or repeated). A reader of
// a catalog naming it fails the scan with Detail, the real reader's
// message. The comparison reports it as a difference (kind "unreadable")
// when only one catalog's reader fails, and as could not compare
// (ErrIncomparable) when both do: the input itself is unreadable.
type DeleteFileError struct {
	Path   string
	Detail string
}

func (e *DeleteFileError) Error() string {
	return fmt.Sprintf("DuckLake readers refuse delete file %s: %s", oneline.Name(e.Path), e.Detail)
}

// AsDeleteFileError returns the DeleteFileError in err's chain, if any.
func AsDeleteFileError(err error) (*DeleteFileError, bool) {
	var d *DeleteFileError
	ok := errors.As(err, &d)
	return d, ok
}

// deleteFileSchema checks a Parquet delete file's columns as every DuckLake
// reader does: file_path VARCHAR, pos BIGINT, and at most a third column of
// any type (a partial deletion file's snapshots, or Iceberg's row).
func deleteFileSchema(path string, types []string) error {
	if (len(types) == 2 || len(types) == 3) && types[0] == "VARCHAR" && types[1] == "BIGINT" {
		return nil
	}
	return &DeleteFileError{Path: path, Detail: fmt.Sprintf("Invalid schema contained in the delete file %s - expected file_name/position/[snapshot_id or row] (its columns: %s)", oneline.Name(path), strings.Join(types, ", "))}
}

// deleteHiveColumns applies formats.QuirkDeleteFilesHiveColumns: readers
// with it scan a delete file with Hive partition detection on, so each
// key=value folder of its path below the data path adds a column (a key
// naming one of the delete file's columns would put the folder's value in
// it: refused too), and they refuse a file of other than two columns
// (DuckDB 1.3) or two or three. A catalog B, written in a format only
// whose first releases read so (1.0: DuckDB 1.5.2; EarlyQuirks), is held
// to them too: what this tool writes must be read by every release of its
// format.
func (r *Reader) deleteHiveColumns(d *DeleteFile, cols int) error {
	q := formats.QuirkDeleteFilesHiveColumns
	if !r.readsWith(q) && (r.asSource || !r.format.EarlyReadsWith(q)) {
		return nil
	}
	rel := r.relPath(d.Path)
	keys := formats.DeleteFileHiveKeys(rel)
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		// DuckDB matches a Hive key with a file's column as it binds
		// names, in ASCII letter case only (StringUtil::CIEquals): a
		// folder "poſ=1" adds a column of its own.
		if formats.NamesEqual(k, "file_path") || formats.NamesEqual(k, "pos") || formats.NamesEqual(k, "_ducklake_internal_snapshot_id") {
			return &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("delete file %s lies in folder %s=...: format %s readers scan it with Hive partition detection on and read that column from the folder name (%s)", oneline.Name(rel), k, r.format.Name, q.Info().Name)}
		}
	}
	n := cols + len(keys)
	if n == 2 || (n == 3 && !r.twoColumnDeletes) {
		return nil
	}
	return &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("Invalid schema contained in the delete file %s - expected file_name/position/[snapshot_id or row] (format %s readers scan it with Hive partition detection on: its %d columns and the folders %s make %d; %s)",
		oneline.Name(d.Path), r.format.Name, cols, strings.Join(keys, "=..., ")+"=...", n, q.Info().Name)}
}

// unsortedDelete is the real reader's error for position p read after last.
func unsortedDelete(path string, p, last int64) error {
	return &DeleteFileError{Path: path, Detail: fmt.Sprintf("Invalid delete data - row ids must be sorted and strictly increasing - but found %d after %d", p, last)}
}

// readParquetDeletes reads a delete file in one query, in file order: its
// second column holds the positions; a third BIGINT named
// _ducklake_internal_snapshot_id makes it a partial deletion file. What
// every real reader refuses (deleteFileSchema, NULL or unsorted positions)
// is a *DeleteFileError; a NULL snapshot is refused only by readers that
// read the snapshots (rawDeletes.nullSnap).
func (r *Reader) readParquetDeletes(ctx context.Context, d *DeleteFile) (rawDeletes, error) {
	if err := r.readable(ctx, d.Path); err != nil {
		return rawDeletes{}, err
	}
	kp, err := r.keyParam(ctx, d.encryptionKey)
	if err != nil {
		return rawDeletes{}, err
	}
	// DuckDB keeps a plain scan in file order (preserve_insertion_order,
	// on by default): the order the real reader checks.
	rows, err := r.conn.QueryContext(ctx, fmt.Sprintf("SELECT * FROM read_parquet(%s, hive_partitioning = false%s)", parquetsql.Path(d.Path), kp))
	if err != nil {
		return rawDeletes{}, r.notParquet(d, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return rawDeletes{}, err
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		return rawDeletes{}, err
	}
	types := make([]string, len(cts))
	for i, ct := range cts {
		types[i] = strings.ToUpper(ct.DatabaseTypeName())
	}
	if err := deleteFileSchema(d.Path, types); err != nil {
		return rawDeletes{}, err
	}
	partial := formats.IsPartialDeleteFile(cols, types)
	var p, s sql.NullInt64
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	dest[1] = &p
	raw := rawDeletes{cols: len(cols)}
	if partial {
		dest[2], raw.snaps = &s, []int64{}
	}
	last := int64(-1)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return rawDeletes{}, err
		}
		if !p.Valid {
			return rawDeletes{}, &DeleteFileError{Path: d.Path, Detail: "Invalid delete data - delete data cannot have NULL values"}
		}
		if p.Int64 <= last {
			return rawDeletes{}, unsortedDelete(d.Path, p.Int64, last)
		}
		last = p.Int64
		raw.pos = append(raw.pos, p.Int64)
		if partial {
			raw.nullSnap = raw.nullSnap || !s.Valid
			raw.snaps = append(raw.snaps, s.Int64)
		}
	}
	if err := rows.Err(); err != nil {
		return rawDeletes{}, r.notParquet(d, err)
	}
	raw.pos, raw.snaps = slices.Clip(raw.pos), slices.Clip(raw.snaps)
	return raw.withAt(), nil
}

// withAt returns raw, just read with every row's snapshot in snaps, as
// it is kept (see rawDeletes): at, the distinct sorted snapshots of a
// partial deletion file's rows (nil for any other), in a slice of their
// own (not the sorted copy of every row's snapshot they were compacted
// from, which would keep 8 bytes per row alive), and each row's snapshot
// as its index in at when at is short enough.
func (raw rawDeletes) withAt() rawDeletes {
	if raw.snaps == nil {
		return raw
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(raw.snaps)))
	raw.at = append(make([]int64, 0, len(sorted)), sorted...)
	if len(raw.at) > 256 {
		return raw
	}
	raw.rank = make([]uint8, len(raw.snaps))
	for i, s := range raw.snaps {
		k, _ := slices.BinarySearch(raw.at, s)
		raw.rank[i] = uint8(k)
	}
	raw.snaps = nil
	return raw
}

// partial reports whether raw is a partial deletion file's content (its
// rows name snapshots).
func (raw rawDeletes) partial() bool { return raw.snaps != nil || raw.rank != nil }

// deletedBy returns whether row i of a partial deletion file was deleted
// at snap or before.
func (raw rawDeletes) deletedBy(snap int64) func(i int) bool {
	if raw.rank == nil {
		return func(i int) bool { return raw.snaps[i] <= snap }
	}
	// The snapshots in at that are <= snap: ranks below k.
	k, found := slices.BinarySearch(raw.at, snap)
	if found {
		k++
	}
	return func(i int) bool { return int(raw.rank[i]) < k }
}

// notParquet turns DuckDB's failure to open a delete file that is not
// Parquet at all into the DeleteFileError of the real reader, which opens
// it the same way: every reader before 1.0 opens every delete file as
// Parquet (a Puffin deletion vector too), and 1.0+ readers one whose
// format column says parquet or is NULL. Other errors are returned as
// they are. DuckDB's words are read without the quoted path
// (duckfile.WithoutPath): a folder may be named with the phrase.
func (r *Reader) notParquet(d *DeleteFile, err error) error {
	if !strings.Contains(duckfile.WithoutPath(err.Error(), d.Path), "No magic bytes found at end of file") {
		return err
	}
	why := "format " + r.format.Name + " readers open it as Parquet: their format column says parquet or is NULL"
	if !r.format.Has(formats.CapPuffinDeletes) {
		why = "format " + r.format.Name + " readers have no Puffin reader: they open every delete file as Parquet, whatever its format column says"
	}
	return &DeleteFileError{Path: d.Path, Detail: fmt.Sprintf("No magic bytes found at end of file '%s' (%s)", oneline.Name(d.Path), why)}
}

func (r *Reader) int64s(ctx context.Context, q string) ([]int64, error) {
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (r *Reader) strings(ctx context.Context, q string) ([]string, error) {
	rows, err := r.conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v.String)
	}
	return out, rows.Err()
}

// partialMaxInfo reads the N of a 'partial_max:N' partial_file_info
// (rest is what follows the prefix); like a split list's numbers, an N
// past int64 is named.
func partialMaxInfo(info, rest string) (int64, error) {
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		if u, uerr := strconv.ParseUint(rest, 10, 64); uerr == nil && u > math.MaxInt64 {
			return 0, fmt.Errorf("partial_file_info %q: %s is past int64's maximum", info, rest)
		}
		return 0, fmt.Errorf("bad partial_file_info %q", info)
	}
	return n, nil
}

// splitLimit applies a split list 's1:n1|s2:n2|...' at a snapshot: the
// number of leading physical rows visible (§5.5). ok=false when the value
// is not a split list.
func splitLimit(info string, snap int64) (limit int64, ok bool, err error) {
	splits, err := splitList(info)
	if err != nil {
		return 0, false, err
	}
	for _, s := range splits {
		if s.snap <= snap && s.rows > limit {
			limit = s.rows
		}
	}
	return limit, true, nil
}

// splitList parses a split list 's1:n1|s2:n2|...' (§5.5), in its order.
func splitList(info string) ([]feedSplit, error) {
	var out []feedSplit
	for _, part := range strings.Split(info, "|") {
		s, n, found := strings.Cut(part, ":")
		if !found {
			return nil, fmt.Errorf("bad partial_file_info %q", info)
		}
		si, err1 := strconv.ParseInt(s, 10, 64)
		ni, err2 := strconv.ParseInt(n, 10, 64)
		if err1 != nil || err2 != nil {
			// The reader parses to 2^64-1 (std::stoull, partialInfoParses);
			// no catalog holds a snapshot id or row count past int64
			// (BIGINT), so such a value is named, not modelled.
			for _, v := range []string{s, n} {
				if u, err := strconv.ParseUint(v, 10, 64); err == nil && u > math.MaxInt64 {
					return nil, fmt.Errorf("partial_file_info %q: %s is past int64's maximum", info, v)
				}
			}
			return nil, fmt.Errorf("bad partial_file_info %q", info)
		}
		out = append(out, feedSplit{si, ni})
	}
	return out, nil
}

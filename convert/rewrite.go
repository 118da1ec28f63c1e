package convert

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/google/uuid"

	"github.com/fdl-formats/fdl-formats/internal/durable"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
	"github.com/fdl-formats/fdl-formats/internal/scratch"
)

// Partial deletion files (0.4+) carry, per deleted position, the snapshot
// that deleted it. Format 0.3 readers ignore that column, so a 0.3 catalog
// gets what a 0.3 writer would have written instead: one cumulative
// 2-column delete file per snapshot, each visible until the next one. The
// new files are named after their content's origin, so that every run
// writes the same names, written in the run's scratch folder and linked
// beside the original only when the conversion is accepted (see
// publishRewritten).

// Field ids DuckDB's DuckLake writer puts on delete-file columns.

// rewriteNamespace makes the names of rewritten delete files deterministic
// (UUIDv5 of the original file's path and the snapshot).
var rewriteNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://fdl-formats/rewrite-deletes"))

// pendingFile is a data-directory file a conversion will publish: tmp in
// the run's scratch folder, linked to final; id is its delete_file_id in the
// working catalog and key its encryption key.
type pendingFile struct {
	id              int64
	tmp, final, key string
	// snapshots: the file is a partial deletion file (a third column,
	// _ducklake_internal_snapshot_id).
	snapshots bool
}

// rewritePartialDeletes replaces every partial deletion file of the working
// copy by a chain of cumulative 2-column delete files.
func rewritePartialDeletes(r *run) error { return rewritePartialDeletesWhere(r, "true") }

// rewritePartialDeletesWhere replaces the partial deletion files matching a
// condition on d (ducklake_delete_file) by chains of cumulative 2-column
// delete files.
func rewritePartialDeletesWhere(r *run, cond string) error {
	if r.opts.DataPath == "" {
		return fmt.Errorf("rewriting deletes needs the local data folder (Options.DataPath, --data DIR)")
	}
	partial, err := r.partialDeleteFiles()
	if err != nil {
		return err
	}
	parts, err := deleteFiles(r, partial.sql()+` AND (`+cond+`)`)
	if err != nil {
		return fmt.Errorf("read partial deletion files: %w", err)
	}
	nextID, err := r.w.count(r.ctx, `SELECT greatest((SELECT max(next_file_id) FROM ducklake_snapshot),
		(SELECT coalesce(max(data_file_id), -1) + 1 FROM ducklake_data_file), (SELECT coalesce(max(delete_file_id), -1) + 1 FROM ducklake_delete_file))`)
	if err != nil {
		return err
	}
	for _, p := range parts {
		if !p.local {
			return cannotRewrite{fmt.Sprintf("delete file %d (%s) is not under the data path", p.id, oneline.Name(p.path))}
		}
		relDir := p.relDir
		local := filepath.Join(r.opts.DataPath, filepath.FromSlash(relDir+p.path))
		keyName := "" // the base64 key the catalog records for the file
		if p.key.Valid {
			keyName = p.key.String
			// DuckDB encrypts Parquet securely only with httpfs's OpenSSL.
			if err := r.w.exec(r.ctx, "LOAD httpfs"); err != nil {
				return cannotRewrite{fmt.Sprintf("delete file %d (%s) is encrypted and writing encrypted Parquet needs DuckDB's httpfs extension, which this DuckDB cannot load", p.id, oneline.Name(p.path))}
			}
		}
		if err := r.presentOrMissing(local); err != nil {
			return fmt.Errorf("partial deletion file %d (%s) of table %d: %w", p.id, oneline.Name(p.path), p.table, err)
		}
		src := readParquetSQL(local, keyName)
		snaps, err := r.w.strings(r.ctx, fmt.Sprintf(`SELECT DISTINCT "_ducklake_internal_snapshot_id"::VARCHAR FROM %s ORDER BY "_ducklake_internal_snapshot_id"`, src))
		if err != nil {
			return cannotRewrite{fmt.Sprintf("partial deletion file %s cannot be read: %v", oneline.Name(local), oneline.First(err.Error()))}
		}
		if len(snaps) == 0 || slices.Contains(snaps, "") {
			return cannotRewrite{fmt.Sprintf("partial deletion file %s has no rows or NULL snapshots", oneline.Name(local))}
		}
		dir := filepath.Dir(local)
		relPrefix := ""
		if i := strings.LastIndexByte(p.path, '/'); i >= 0 {
			relPrefix = p.path[:i+1]
		}
		for i, s := range snaps {
			begin := s
			if i == 0 {
				begin = fmt.Sprint(p.begin)
			}
			end := "NULL"
			if i+1 < len(snaps) {
				end = snaps[i+1]
			} else if p.end.Valid {
				end = fmt.Sprint(p.end.Int64)
			}
			id := uuid.NewSHA1(rewriteNamespace, []byte(relDir+p.path+"|"+s))
			name := fmt.Sprintf("ducklake-%s-delete.parquet", id)
			rows := fmt.Sprintf(`SELECT DISTINCT file_path::VARCHAR AS file_path, pos::BIGINT AS pos FROM %s WHERE "_ducklake_internal_snapshot_id" <= %s`, src, s)
			size, footer, count, err := r.writeDeleteFile(nextID, filepath.Join(dir, name), rows, keyName)
			if err != nil {
				return fmt.Errorf("rewrite %s at snapshot %s: %w", oneline.Name(local), s, err)
			}
			q := `INSERT INTO ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id, path, path_is_relative, format, delete_count, file_size_bytes, footer_size, encryption_key, partial_max)
				VALUES (?, ?, ` + begin + `, ` + end + `, ?, ?, true, 'parquet', ?, ?, ?, ?, NULL)`
			var key any
			if p.key.Valid {
				key = p.key.String
			}
			if err := r.w.exec(r.ctx, q, nextID, p.table, p.dataFile, relPrefix+name, count, size, footer, key); err != nil {
				return err
			}
			nextID++
		}
		if err := r.w.exec(r.ctx, `DELETE FROM ducklake_delete_file WHERE delete_file_id = ?`, p.id); err != nil {
			return err
		}
	}
	// Keep next_file_id ahead of the new ids, in the last snapshot only.
	return r.w.exec(r.ctx, `UPDATE ducklake_snapshot SET next_file_id = greatest(next_file_id, ?) WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`, nextID)
}

// partialDeletes are the working copy's partial deletion files, by
// delete_file_id, each with the last snapshot its rows name.
type partialDeletes map[int64]int64

// sql is a condition on d (ducklake_delete_file) selecting them.
func (p partialDeletes) sql() string {
	return "d.delete_file_id IN (" + p.values("delete_file_id") + ")"
}

// values is a query listing them as (delete_file_id, last_snapshot) rows,
// or only the column named.
func (p partialDeletes) values(col string) string {
	if len(p) == 0 {
		return "SELECT " + col + " FROM (SELECT NULL::BIGINT AS delete_file_id, NULL::BIGINT AS last_snapshot WHERE false)"
	}
	rows := make([]string, 0, len(p))
	for id, last := range p {
		rows = append(rows, fmt.Sprintf("(%d, %d)", id, last))
	}
	slices.Sort(rows)
	return "SELECT " + col + " FROM (VALUES " + strings.Join(rows, ", ") + ") v(delete_file_id, last_snapshot)"
}

// partialDeleteItems names the partial deletion files (the 0.4 -> 0.3
// check partial-delete-files).
func partialDeleteItems(r *run) ([]string, error) {
	partial, err := r.partialDeleteFiles()
	if err != nil || len(partial) == 0 {
		return nil, err
	}
	return r.w.strings(r.ctx, `SELECT 'delete_file_id ' || d.delete_file_id || ' ' || d.path || ' (snapshots ' || d.begin_snapshot || '..' || p.last_snapshot || ')'
		FROM ducklake_delete_file d JOIN (`+partial.values("*")+`) p USING (delete_file_id) ORDER BY d.delete_file_id`)
}

// partialDeleteFiles finds the partial deletion files of the working copy
// (0.4+ layout) by their content, as the real readers do
// (formats.IsPartialDeleteFile): DuckLake's ducklake_flush_inlined_data
// writes them with partial_max NULL, so partial_max only says where the
// file cannot be read (no data folder, a file outside it, or a file that
// does not open: the proof reports that one). The last snapshot is the
// largest the file's rows name (partial_max where they are not read). Read
// once per run.
func (r *run) partialDeleteFiles() (partialDeletes, error) {
	if r.partials != nil {
		return r.partials, nil
	}
	out := partialDeletes{}
	has, err := r.w.hasColumn(r.ctx, "ducklake_delete_file", "partial_max")
	if err != nil {
		return nil, err
	}
	byCatalog := map[int64]int64{}
	if has {
		rows, err := r.w.conn.QueryContext(r.ctx, `SELECT delete_file_id, partial_max FROM ducklake_delete_file WHERE partial_max IS NOT NULL AND `+r.deleteFormatIs("format", formats.DeleteFormatParquet))
		if err != nil {
			return nil, fmt.Errorf("read partial_max of delete files: %w", err)
		}
		for rows.Next() {
			var id, pm int64
			if err := rows.Scan(&id, &pm); err != nil {
				rows.Close()
				return nil, err
			}
			byCatalog[id] = pm
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	files, err := deleteFiles(r, r.deleteFormatIs("d.format", formats.DeleteFormatParquet))
	if err != nil {
		return nil, fmt.Errorf("read delete files: %w", err)
	}
	for _, f := range files {
		pm, catalogSays := byCatalog[f.id]
		if r.opts.DataPath == "" || !f.local {
			if catalogSays {
				out[f.id] = pm
			}
			continue
		}
		last, partial, err := r.partialDeleteContentOf(filepath.Join(r.opts.DataPath, filepath.FromSlash(f.relDir+f.path)), f.key.String)
		switch {
		case errors.As(err, new(unreadableDeleteFile)):
			// Absent from the store (the proof reports it) or
			// unreadable to DuckDB: the catalog's word.
			if catalogSays {
				out[f.id] = pm
			}
		case err != nil:
			// Fetching or reading it from the store failed (a bucket's
			// Options.Footers, the gate, the context): the run fails, as
			// the download of every delete file before the check did.
			return nil, fmt.Errorf("partial deletion check of delete file %d (%s) of table %d: %w", f.id, oneline.Name(f.path), f.table, err)
		case partial:
			out[f.id] = last.Int64
			if !last.Valid { // no rows, or NULL snapshots: the catalog's word
				out[f.id] = max(pm, f.begin)
			}
		}
	}
	r.partials = out
	return out, nil
}

// partialDeleteContentOf is partialDeleteContent of the delete file at
// local (decrypted with key), kept for the next conversion of the pass, or
// of Engines, that reads the same file (r.footers): each output of a pass
// to 0.3 or older walks the 0.4 -> 0.3 step, which reads every delete
// file's columns.
//
// Its columns are read from its footer where the data folder lacks it
// (schemaPath: a remote repository's cache fetches no delete file whole
// for that); its rows, of a partial deletion file only, from the whole
// file, made present.
func (r *run) partialDeleteContentOf(local, key string) (last sql.NullInt64, partial bool, err error) {
	st, statErr := os.Stat(local)
	if statErr == nil && r.ready(local) {
		if c, ok := r.footers.deleteContent(local, key, st); ok {
			return c.last, c.partial, nil
		}
	}
	schema, err := r.schemaPath(local, key)
	if err != nil {
		return last, false, err
	}
	if schema == "" {
		return last, false, unreadableDeleteFile{fmt.Errorf("delete file %s: %w", oneline.Name(local), fs.ErrNotExist)}
	}
	var fetchErr error
	last, partial, err = r.partialDeleteContent(readParquetSQL(schema, key), func() (string, error) {
		if err := r.present(local); err != nil {
			fetchErr = err
			return "", err
		}
		return readParquetSQL(local, key), nil
	})
	switch {
	case fetchErr != nil:
		return last, false, fetchErr
	case err != nil && r.ctx.Err() != nil:
		return last, false, fmt.Errorf("delete file %s: %w", oneline.Name(local), r.ctx.Err())
	case err != nil:
		return last, false, unreadableDeleteFile{fmt.Errorf("delete file %s: %w", oneline.Name(local), err)}
	}
	if st, statErr = os.Stat(local); statErr == nil {
		r.footers.keepDeleteContent(local, key, st, deleteContent{last: last, partial: partial})
	}
	return last, partial, err
}

// unreadableDeleteFile is partialDeleteContentOf's error for a delete
// file the store lacks or DuckDB cannot read, where a check takes the
// catalog's word (the proof reports the file); its other errors, of
// fetching or reading the file from the store, fail the run.
type unreadableDeleteFile struct{ err error }

func (e unreadableDeleteFile) Error() string { return e.err.Error() }
func (e unreadableDeleteFile) Unwrap() error { return e.err }

// partialDeleteContent reads a delete file's columns (from schemaSrc) and,
// when it is a partial deletion file, the last snapshot its rows name
// (from rows' source).
func (r *run) partialDeleteContent(schemaSrc string, rows func() (string, error)) (last sql.NullInt64, partial bool, err error) {
	names, types, err := parquetsql.Describe(r.ctx, r.w.conn, "SELECT * FROM "+schemaSrc)
	if err != nil || !formats.IsPartialDeleteFile(names, types) {
		return last, false, err
	}
	src, err := rows()
	if err != nil {
		return last, false, err
	}
	if err := r.dataThreads(); err != nil {
		return last, false, err
	}
	err = r.w.conn.QueryRowContext(r.ctx, fmt.Sprintf("SELECT max(%s) FROM %s", quote(formats.PartialDeleteSnapshotColumn), src)).Scan(&last)
	return last, err == nil, err
}

// cannotRewrite is returned by a rewrite that cannot express the items
// here; the finding stays a refusal with this reason.
type cannotRewrite struct{ reason string }

func (e cannotRewrite) Error() string { return e.reason }

// deleteFile is a delete-file row with where it lies under the data path.
type deleteFile struct {
	id, dataFile, table, begin int64
	end                        sql.NullInt64
	path                       string
	key                        sql.NullString
	// relDir is the table's directory relative to data_path; local says the
	// file is relative and its table directory lies under data_path.
	relDir string
	local  bool
	// stored is where the catalog itself puts the file: its table
	// directory (from the catalog's data_path) and path, or its absolute
	// path ("" when unknown).
	stored string
}

// deleteFiles lists the delete files matching a condition on d.
func deleteFiles(r *run, where string) ([]deleteFile, error) {
	rows, err := r.w.conn.QueryContext(r.ctx, `SELECT d.delete_file_id, d.data_file_id, d.table_id, d.begin_snapshot, d.end_snapshot, d.path, d.encryption_key,
			coalesce(substr(td.dir, length(td.data_path) + 1), ''), coalesce(d.path_is_relative AND starts_with(td.dir, td.data_path), false),
			coalesce(CASE WHEN d.path_is_relative THEN td.dir || d.path ELSE d.path END, '')
		FROM ducklake_delete_file d LEFT JOIN (`+sqlTableDirs+`) td USING (table_id)
		WHERE `+where+` ORDER BY d.delete_file_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []deleteFile
	for rows.Next() {
		var f deleteFile
		if err := rows.Scan(&f.id, &f.dataFile, &f.table, &f.begin, &f.end, &f.path, &f.key, &f.relDir, &f.local, &f.stored); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// deleteFormatIs is the condition that the working copy's readers open
// the delete file whose format column is col as format
// (formats.DeleteFormatParquet or DeleteFormatPuffin), by the rule the
// proof reads it by (formats.Version.DeleteFileFormat): readers before 1.0
// open every delete file as Parquet, 1.0+ readers by the column, in ASCII
// letter case, NULL as Parquet; a value they do not know matches neither
// (every read of the file fails: the proof reports it).
func (r *run) deleteFormatIs(col, format string) string {
	return r.format.DeleteFileFormatSQL(col) + " = " + literal(format)
}

// readParquetSQL reads a Parquet file, decrypting it with the catalog's
// base64 encryption key when there is one.
func readParquetSQL(path, key string) string {
	if key == "" {
		return fmt.Sprintf("read_parquet(%s, hive_partitioning = false)", parquetsql.Path(path))
	}
	return fmt.Sprintf("read_parquet(%s, hive_partitioning = false, encryption_config = {footer_key_value: from_base64(%s)})", parquetsql.Path(path), literal(key))
}

// deleteColumns names a delete file's columns: file_path, pos and, for a
// partial deletion file (snapshots), its snapshot column.
func deleteColumns(snapshots bool) []string {
	if snapshots {
		return []string{"file_path", "pos", formats.PartialDeleteSnapshotColumn}
	}
	return []string{"file_path", "pos"}
}

// deleteColumnsSQL selects a delete file's columns with their types.
func deleteColumnsSQL(snapshots bool) string {
	s := "file_path::VARCHAR AS file_path, pos::BIGINT AS pos"
	if snapshots {
		s += fmt.Sprintf(", %[1]s::BIGINT AS %[1]s", quote(formats.PartialDeleteSnapshotColumn))
	}
	return s
}

// encryptionOption encrypts a written Parquet file with the same key.
func encryptionOption(key string) string {
	if key == "" {
		return ""
	}
	return fmt.Sprintf(", ENCRYPTION_CONFIG {footer_key_value: from_base64(%s)}", literal(key))
}

// writeDeleteFile makes final a 2-column Parquet delete file holding the
// (file_path, pos) rows of query, encrypted with key when set, and returns
// its size, footer length and row count; id is the delete_file_id the
// working catalog records it under. A dry run writes nothing and returns
// only the count. A file already there (names are deterministic) is reused
// when it holds exactly these rows; a new one is written into the run's
// scratch folder, where readers never look, and published with the catalog
// (publishRewritten).
func (r *run) writeDeleteFile(id int64, final, query, key string) (size, footer, count int64, err error) {
	return r.writeDeleteFileOf(id, final, query, key, false)
}

// writeDeleteFileOf is writeDeleteFile, of a partial deletion file where
// snapshots is set: query's rows then have a third column,
// _ducklake_internal_snapshot_id, written with the field id DuckLake gives
// it (LAST_UPDATED_SEQUENCE_NUMBER_ID).
func (r *run) writeDeleteFileOf(id int64, final, query, key string, snapshots bool) (size, footer, count int64, err error) {
	if count, err = r.w.count(r.ctx, "SELECT count(*) FROM ("+query+")"); err != nil || r.dryRun {
		return 0, 0, count, err
	}
	if _, statErr := os.Stat(final); statErr == nil {
		if err := r.sameDeleteRows(query, final, key, snapshots); err != nil {
			return 0, 0, 0, err
		}
		size, footer, err = parquetSizes(final)
		return size, footer, count, err
	}
	dir, err := r.scratchDir()
	if err != nil {
		return 0, 0, 0, err
	}
	tmp := filepath.Join(dir, fmt.Sprintf("%d-%s", len(r.pending), filepath.Base(final)))
	fieldIDs := fmt.Sprintf("file_path: %d, pos: %d", formats.DeleteFilePathFieldID, formats.DeletePosFieldID)
	if snapshots {
		fieldIDs += fmt.Sprintf(", %s: %d", formats.PartialDeleteSnapshotColumn, formats.PartialDeleteSnapshotFieldID)
	}
	copyTo := fmt.Sprintf(`COPY (%s ORDER BY pos) TO %s (FORMAT parquet, FIELD_IDS {%s}%s)`,
		query, literal(tmp), fieldIDs, encryptionOption(key))
	if err := r.w.exec(r.ctx, copyTo); err != nil {
		return 0, 0, 0, err
	}
	r.pending = append(r.pending, pendingFile{id: id, tmp: tmp, final: final, key: key, snapshots: snapshots})
	size, footer, err = parquetSizes(tmp)
	return size, footer, count, err
}

// sameDeleteRows fails with ErrExists unless the delete file at path holds
// exactly the rows of query (with snapshots, their stored snapshots too,
// and no file of other columns is taken).
func (r *run) sameDeleteRows(query, path, key string, snapshots bool) error {
	if err := r.readable(path); err != nil {
		return err
	}
	cols, err := r.w.strings(r.ctx, "SELECT column_name FROM (DESCRIBE SELECT * FROM "+readParquetSQL(path, key)+")")
	if err != nil {
		return fmt.Errorf("read existing %s: %w", oneline.Name(path), err)
	}
	if !slices.Equal(cols, deleteColumns(snapshots)) {
		return fmt.Errorf("%s: %w with other columns (%s)", oneline.Name(path), ErrExists, strings.Join(cols, ", "))
	}
	got := fmt.Sprintf(`SELECT %s FROM %s`, deleteColumnsSQL(snapshots), readParquetSQL(path, key))
	diff, err := r.w.count(r.ctx, fmt.Sprintf(`SELECT count(*) FROM ((%s EXCEPT ALL %s) UNION ALL (%s EXCEPT ALL %s))`, query, got, got, query))
	if err != nil {
		return fmt.Errorf("read existing %s: %w", oneline.Name(path), err)
	}
	if diff != 0 {
		return fmt.Errorf("%s: %w with other positions", oneline.Name(path), ErrExists)
	}
	return nil
}

// scratchDir is the run's private folder for rewritten files before they
// are published: a "convert-<owner>-*" folder in Options.TempDir, or in
// ".fdl-tmp" beside the data folder. It must be on the data folder's file
// system (files are published with link(2)); a run killed before its
// cleanup leaves it there, outside the data folder, for the next backfill
// to remove (internal/scratch).
func (r *run) scratchDir() (string, error) {
	if r.scratch != "" {
		return r.scratch, nil
	}
	dir, err := scratch.MkdirTemp(r.opts.tempDir(), ScratchPrefix)
	if err != nil {
		return "", fmt.Errorf("create scratch folder for rewritten delete files: %w", err)
	}
	r.scratch = dir
	return dir, nil
}

// removeScratch removes the run's scratch folder, and the temp folder
// holding it when nothing else is left there.
func (r *run) removeScratch() {
	if r.scratch == "" {
		return
	}
	os.RemoveAll(r.scratch)
	_ = os.Remove(filepath.Dir(r.scratch)) // only if empty
}

// parquetSizes returns a Parquet file's size and footer length (the
// little-endian length before the trailing magic).
func parquetSizes(path string) (size, footer int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	if len(b) < 12 || !(bytes.HasSuffix(b, []byte("PAR1")) || bytes.HasSuffix(b, []byte("PARE"))) {
		return 0, 0, fmt.Errorf("%s: not a Parquet file", oneline.Name(path))
	}
	return int64(len(b)), int64(binary.LittleEndian.Uint32(b[len(b)-8:])), nil
}

// publishRewritten links the rewritten delete files into place, after the
// catalog that names them was written under its temporary name (so that a
// catalog that cannot be written publishes nothing) and before it is linked
// into place. A file another job or run published first (names are
// deterministic) is already there, not a failure, when its content is the
// same: the same bytes, or the same rows (another DuckDB build may encode
// them differently; the working catalog then records that file's size and
// footer, and recorded says the catalog must be written again). Different
// rows under the same name fail with ErrExists. What fails after a file is
// linked (other rows under a later name, linking the catalog: another
// writer published it first) leaves the files linked, unreferenced, for the
// next run to reuse: removing them could take a file from a concurrent run
// that found it there and refers to it. Each file and its folder are synced
// before the catalog naming them is linked: a catalog that survives a crash
// never names a file that did not.
func (r *run) publishRewritten() (recorded bool, retErr error) {
	if err := faults.At(r.ctx, "convert/publish", r.scratch); err != nil {
		return false, err
	}
	linked := map[string]bool{} // folders of the files linked
	defer func() {
		for dir := range linked {
			if err := durable.SyncDir(dir); err != nil && retErr == nil {
				retErr = fmt.Errorf("publish into %s: sync folder: %w", dir, err)
			}
		}
	}()
	for _, p := range r.pending {
		if err := faults.AtPoint(r.ctx, faults.Point{Name: "convert/link", Path: p.final, From: p.tmp}); err != nil {
			return recorded, err
		}
		if err := durable.SyncFile(p.tmp); err != nil {
			return recorded, fmt.Errorf("publish %s: %w", oneline.Name(p.final), err)
		}
		err := os.Link(p.tmp, p.final)
		if err == nil {
			linked[filepath.Dir(p.final)] = true
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return recorded, fmt.Errorf("publish %s: %w", oneline.Name(p.final), err)
		}
		same, err := sameBytes(p.tmp, p.final)
		if err != nil {
			return recorded, fmt.Errorf("publish %s: compare with the file already there: %w", oneline.Name(p.final), err)
		}
		if same {
			r.log.Debug("rewritten delete file already there", "path", p.final, "same", "bytes")
			continue
		}
		rows := fmt.Sprintf(`SELECT %s FROM %s`, deleteColumnsSQL(p.snapshots), readParquetSQL(p.tmp, p.key))
		if err := r.sameDeleteRows(rows, p.final, p.key, p.snapshots); err != nil {
			return recorded, fmt.Errorf("publish: %w", err)
		}
		size, footer, err := parquetSizes(p.final)
		if err != nil {
			return recorded, err
		}
		if err := r.w.exec(r.ctx, `UPDATE ducklake_delete_file SET file_size_bytes = ?, footer_size = ? WHERE delete_file_id = ?`, size, footer, p.id); err != nil {
			return recorded, fmt.Errorf("publish %s: record the size of the file already there: %w", oneline.Name(p.final), err)
		}
		recorded = true
		r.log.Debug("rewritten delete file already there", "path", p.final, "same", "rows")
	}
	return recorded, nil
}

// sameBytes reports whether two files have the same content.
func sameBytes(a, b string) (bool, error) {
	fa, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	fb, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(fa, fb), nil
}

package convert

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/deletionvector"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Bare Puffin deletion vectors (1.0, option write_deletion_vectors) are read
// by no older format: 0.4 opens every delete file as Parquet. Rewritten, each
// becomes the 2-column Parquet delete file an older writer would have
// written, with the same id and visibility; only its path, format, size and
// footer change.

// dvMagic opens an Iceberg deletion-vector-v1 blob, after its length.
var dvMagic = []byte{0xD1, 0xD3, 0x39, 0x64}

// rewriteDeletionVectors replaces every bare Puffin deletion vector of the
// working copy by a Parquet delete file.
func rewriteDeletionVectors(r *run) error {
	if r.opts.DataPath == "" {
		return cannotRewrite{"rewriting deletion vectors needs the local data folder (--data DIR)"}
	}
	files, err := deleteFiles(r, r.deleteFormatIs("d.format", formats.DeleteFormatPuffin))
	if err != nil {
		return fmt.Errorf("read deletion vectors: %w", err)
	}
	for _, f := range files {
		if !f.local {
			return cannotRewrite{fmt.Sprintf("delete file %d (%s) is not under the data path", f.id, oneline.Name(f.path))}
		}
		local := filepath.Join(r.opts.DataPath, filepath.FromSlash(f.relDir+f.path))
		if err := r.readable(local); err != nil {
			return err
		}
		positions, err := readDeletionVector(local, r.vectorBound(f.dataFile))
		if err != nil {
			return cannotRewrite{fmt.Sprintf("delete file %d: %v", f.id, err)}
		}
		dataPath, key, err := r.dataFileOf(f.dataFile)
		if err != nil {
			return err
		}
		if key != "" {
			return cannotRewrite{fmt.Sprintf("delete file %d belongs to an encrypted data file; its Parquet replacement would need encrypting", f.id)}
		}
		name := strings.TrimSuffix(filepath.Base(f.path), ".puffin") + ".parquet"
		relPath := strings.TrimSuffix(f.path, ".puffin") + ".parquet"
		final := filepath.Join(filepath.Dir(local), name)
		values := make([]string, len(positions))
		for i, p := range positions {
			values[i] = fmt.Sprint(p)
		}
		rows := fmt.Sprintf(`SELECT %s::VARCHAR AS file_path, unnest([%s]::BIGINT[]) AS pos`, literal(dataPath), strings.Join(values, ","))
		size, footer, count, err := r.writeDeleteFile(f.id, final, rows, "")
		if err != nil {
			return fmt.Errorf("rewrite %s: %w", oneline.Name(local), err)
		}
		if err := r.w.exec(r.ctx, `UPDATE ducklake_delete_file SET path = ?, format = 'parquet', delete_count = ?, file_size_bytes = ?, footer_size = ?
			WHERE delete_file_id = ?`, relPath, count, size, footer, f.id); err != nil {
			return err
		}
	}
	return nil
}

// dataFileOf returns a data file's published path (data_path, table
// directory and file path) and its encryption key.
func (r *run) dataFileOf(id int64) (path, key string, err error) {
	rows, err := r.w.fields(r.ctx, fmt.Sprintf(`SELECT CASE WHEN f.path_is_relative THEN td.dir || f.path ELSE f.path END, coalesce(f.encryption_key, '')
		FROM ducklake_data_file f LEFT JOIN (%s) td USING (table_id) WHERE f.data_file_id = %d`, sqlTableDirs, id))
	if err != nil {
		return "", "", err
	}
	if len(rows) != 1 {
		return "", "", cannotRewrite{fmt.Sprintf("data file %d of a deletion vector is not in the catalog", id)}
	}
	path, key = rows[0][0], rows[0][1]
	return path, key, nil
}

// vectorBound holds a deletion vector of data file id to the file's rows
// before its positions are listed (deletionvector.Check): past
// deletionvector.SmallCount positions, to its record_count and, since that
// may be tampered too, to the Parquet row count of its local copy. A
// genuine vector holds at most its file's rows; a few bytes of run
// containers claim 2^32 positions, which listed ran out of memory. Only a
// vector past SmallCount costs a query.
func (r *run) vectorBound(id int64) func(uint64) error {
	return func(n uint64) error {
		if n <= deletionvector.SmallCount {
			return nil
		}
		dirs, err := r.tableDirs()
		if err != nil {
			return err
		}
		var records int64
		var key sql.NullString
		var where string
		err = r.w.conn.QueryRowContext(r.ctx, `SELECT coalesce(x.record_count, 0), x.encryption_key, `+sqlLocalPath+`
			FROM ducklake_data_file x LEFT JOIN (`+dirs+`) td USING (table_id) WHERE x.data_file_id = ?`, id).Scan(&records, &key, &where)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("data file %d of a deletion vector: %w", id, err)
		}
		if err := deletionvector.Check(n, records, "record_count"); err != nil {
			return fmt.Errorf("data file %d: %w", id, err)
		}
		if local := r.localFile(where); local != "" {
			var rows int64
			if err := r.readable(local); err != nil {
				return err
			}
			if r.w.conn.QueryRowContext(r.ctx, "SELECT count(*) FROM "+readParquetSQL(local, key.String)).Scan(&rows) == nil {
				if err := deletionvector.Check(n, rows, "Parquet row count"); err != nil {
					return fmt.Errorf("data file %d (%s): %w", id, oneline.Name(local), err)
				}
			}
		}
		return nil
	}
}

// readDeletionVector decodes a bare deletion-vector-v1 blob: a big-endian
// length of magic+bitmap, the magic, a portable 64-bit Roaring bitmap and a
// big-endian CRC-32 of magic+bitmap. A Puffin container is refused earlier.
// Its counts are not trusted (deletionvector.ReadBitmap); bound, when set,
// is asked about the number of positions before they are listed.
func readDeletionVector(path string, bound func(uint64) error) (_ []int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 {
		return nil, fmt.Errorf("%s: too short for a deletion vector", oneline.Name(path))
	}
	n := int(binary.BigEndian.Uint32(b))
	if n < 4 || 4+n+4 != len(b) {
		return nil, fmt.Errorf("%s: not a bare deletion vector (length %d, file %d bytes)", oneline.Name(path), n, len(b))
	}
	body := b[4 : 4+n]
	if !bytes.Equal(body[:4], dvMagic) {
		return nil, fmt.Errorf("%s: bad deletion-vector magic %x", oneline.Name(path), body[:4])
	}
	if crc := binary.BigEndian.Uint32(b[4+n:]); crc != crc32.ChecksumIEEE(body) {
		return nil, fmt.Errorf("%s: deletion-vector checksum mismatch", oneline.Name(path))
	}
	bm, err := deletionvector.ReadBitmap(body[4:])
	if err != nil {
		return nil, fmt.Errorf("%s: read bitmap: %w", oneline.Name(path), err)
	}
	if !bm.IsEmpty() && bm.Maximum() > math.MaxInt64 {
		return nil, fmt.Errorf("%s: deletion vector holds position %d, past int64's maximum", oneline.Name(path), bm.Maximum())
	}
	card := bm.GetCardinality()
	if bound != nil {
		if err := bound(card); err != nil {
			return nil, fmt.Errorf("%s: %w", oneline.Name(path), err)
		}
	}
	// A container Validate lets through (after an empty bucket) may
	// still panic the iterator: an error, as in compare.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: deletion vector bitmap is corrupt (%v)", oneline.Name(path), p)
		}
	}()
	out := make([]int64, 0, card)
	it := bm.Iterator()
	for it.HasNext() {
		out = append(out, int64(it.Next()))
	}
	return out, nil
}

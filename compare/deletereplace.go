package compare

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// A version that deletes again from a data file replaces its delete file:
// DuckLake 1.0 writes one new file holding every deletion of the data file
// and replaces the catalog row, one for one, keeping its begin_snapshot
// (the first deletion's) with a new delete_file_id, path, delete_count,
// file_size_bytes, footer_size and partial_max. Restricted to an earlier
// catalog's snapshots, such a catalog is not that catalog row for row, yet
// its readers may read at those snapshots exactly what they read there:
// the same positions deleted. A self-read carries an earlier one across
// such a replacement when that is proved: every other column of the row
// equal (restrictedEqual), and at every snapshot from the row's
// begin_snapshot through the earlier catalog's last, the positions the
// format's readers delete with the new file equal to those they delete
// with the replaced one, both read as the walk reads them (the reader
// model's refusals and quirks applied: deletedPositions). Anything else
// walks whole. A proof carries the same way, each side against its
// earlier catalog: it compares what each side deletes at a snapshot
// (describeFile), not which file. docs/repository.md, "Carrying an earlier
// self-read", "Replaced delete files"; docs/compare.md, "Carrying an
// earlier proof".

// deleteFileTable is the catalog table of delete files.
const deleteFileTable = "ducklake_delete_file"

// replaceable are the columns of a delete file row that a replacement
// changes; every other column must be equal.
var replaceable = []string{"delete_file_id", "path", "delete_count", "file_size_bytes", "footer_size", "partial_max"}

// replacement is a delete file row of the earlier catalog (old) that the
// later one replaced with another (newID) of the same data file, table
// and begin_snapshot, every column but the replaceable ones equal.
type replacement struct {
	tableID, dataFileID, begin int64
	oldID, newID               int64
	// The replaced row's values, as the reader reads a delete file row
	// (allTableFiles).
	oldPath    string
	relative   bool // path_is_relative (NULL: relative)
	oldCount   int64
	oldSize    int64
	oldFooter  *int64
	oldPartial *int64
}

// replacements finds, between the earlier catalog (attached as carry,
// ducklake_delete_file columns earlier) and cat (columns later), the delete
// file rows of carry that cat has not and replaced one for one by a row
// carry has not, seen at its snapshots (begin_snapshot through the last,
// through), with every column but the replaceable ones equal (an
// end_snapshot after through read as none). A row with more than one
// candidate is no replacement (the restriction then fails on it).
func replacements(ctx context.Context, conn *sql.Conn, earlier, later []column, through int64) ([]replacement, error) {
	if len(earlier) == 0 || !slices.Equal(earlier, later) {
		return nil, nil // restrictionQuery says why
	}
	has := map[string]bool{}
	for _, c := range later {
		has[c.name] = true
	}
	for _, need := range []string{"delete_file_id", "data_file_id", "table_id", "begin_snapshot", "path", "delete_count", "file_size_bytes"} {
		if !has[need] {
			return nil, nil
		}
	}
	on := []string{}
	for _, c := range later {
		if slices.Contains(replaceable, c.name) {
			continue
		}
		l, r := "e."+ident(c.name), "n."+ident(c.name)
		if c.name == "end_snapshot" {
			l = fmt.Sprintf("(CASE WHEN %s > %d THEN NULL ELSE %s END)", l, through, l)
			r = fmt.Sprintf("(CASE WHEN %s > %d THEN NULL ELSE %s END)", r, through, r)
		}
		on = append(on, l+" IS NOT DISTINCT FROM "+r)
	}
	opt := func(name string) string {
		if has[name] {
			return "e." + ident(name)
		}
		return "NULL::BIGINT"
	}
	rel := "NULL::BOOLEAN"
	if has["path_is_relative"] {
		rel = "e.path_is_relative"
	}
	q := fmt.Sprintf(`SELECT e.table_id, e.data_file_id, e.begin_snapshot, e.delete_file_id, n.delete_file_id, e.path, %s, e.delete_count, e.file_size_bytes, %s, %s
		FROM carry.%[4]s e JOIN cat.%[4]s n ON %[5]s
		WHERE NOT EXISTS (SELECT 1 FROM cat.%[4]s x WHERE x.delete_file_id = e.delete_file_id)
		AND NOT EXISTS (SELECT 1 FROM carry.%[4]s x WHERE x.delete_file_id = n.delete_file_id)
		AND n.begin_snapshot <= %[6]d AND e.delete_file_id IS NOT NULL AND n.delete_file_id IS NOT NULL AND e.path IS NOT NULL`,
		rel, opt("footer_size"), opt("partial_max"), deleteFileTable, strings.Join(on, " AND "), through)
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []replacement
	olds, news := map[int64]int{}, map[int64]int{}
	for rows.Next() {
		var p replacement
		var r sql.NullBool
		var footer, partial sql.NullInt64
		if err := rows.Scan(&p.tableID, &p.dataFileID, &p.begin, &p.oldID, &p.newID, &p.oldPath, &r, &p.oldCount, &p.oldSize, &footer, &partial); err != nil {
			return nil, err
		}
		p.relative, p.oldFooter, p.oldPartial = !r.Valid || r.Bool, nullInt(footer), nullInt(partial)
		all = append(all, p)
		olds[p.oldID]++
		news[p.newID]++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(p replacement) bool { return olds[p.oldID] != 1 || news[p.newID] != 1 }), nil
}

// sameDeletes says why the replacements pairs of the reader's catalog
// (restrictedEqual against an earlier catalog whose last snapshot is
// through) may not count as the rows they replaced ("" when they may): at
// every snapshot from a pair's begin_snapshot through through where its
// data file and new delete file are visible, the positions the reader
// deletes from the data file (deletedPositions: the delete file as the
// format's readers read it at that snapshot, with the data file's inlined
// deletions) must be those it deletes with the replaced file in its place,
// both read without a refusal.
func (r *Reader) sameDeletes(ctx context.Context, through int64, pairs []replacement) (string, error) {
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		return "", err
	}
	first := through
	byTable := map[int64]map[int64]*replacement{} // table id, data file id
	for i := range pairs {
		p := &pairs[i]
		if byTable[p.tableID] == nil {
			byTable[p.tableID] = map[int64]*replacement{}
		}
		byTable[p.tableID][p.dataFileID] = p
		first = min(first, p.begin)
	}
	// What a pair's files delete changes only where a partial file's
	// snapshots or the data file's inlined deletions begin (as fileStateOf
	// names a file's state): compared again only then.
	last := map[*replacement]deleteState{}
	for _, s := range snaps {
		if s.ID < first || s.ID > through {
			continue
		}
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			return fmt.Sprintf("replaced delete files: the tables at snapshot %d: %v", s.ID, err), ctx.Err()
		}
		for _, t := range tables {
			ps := byTable[t.ID]
			if ps == nil {
				continue
			}
			files, err := r.files(ctx, t, s.ID)
			if err != nil {
				return fmt.Sprintf("replaced delete files: the files of %s at snapshot %d: %v", t.Shown(), s.ID, err), ctx.Err()
			}
			for _, f := range files {
				p := ps[f.ID]
				if p == nil || f.Delete == nil || f.Delete.ID != p.newID || s.ID < p.begin {
					continue
				}
				st, known := r.replacedState(ctx, t, f, s.ID, p)
				if was, ok := last[p]; known && ok && was == st {
					continue
				}
				if why, err := r.sameDeletesAt(ctx, t, f, s.ID, p); why != "" || err != nil {
					return why, err
				}
				if known {
					last[p] = st
				} else {
					delete(last, p)
				}
			}
		}
	}
	return "", ctx.Err()
}

// deleteState names what a replacement's two files and the data file's
// inlined deletions delete at a snapshot: the number of each partial
// file's distinct snapshots at or before it, and of the inlined deletions
// begun by it.
type deleteState struct{ now, was, inlined int }

// replacedState is p's deleteState at snap (f: its data file listed at
// snap); known is false where it cannot be told (a Puffin file, which is
// read at each snapshot; a file not read yet or refused), and then the
// files are compared.
func (r *Reader) replacedState(ctx context.Context, t Table, f DataFile, snap int64, p *replacement) (_ deleteState, known bool) {
	if f.Delete.Format != "parquet" {
		return deleteState{}, false
	}
	cut := func(d *DeleteFile) (int, bool) {
		at, ok := r.deleteSnaps(ctx, d)
		return sort.Search(len(at), func(i int) bool { return at[i] > snap }), ok
	}
	var st deleteState
	var ok bool
	if st.now, ok = cut(f.Delete); !ok {
		return deleteState{}, false
	}
	old := r.replacedFile(t, f.Delete, p)
	if st.was, ok = cut(&old); !ok {
		return deleteState{}, false
	}
	if st.inlined, ok = r.inlinedCut(ctx, t, f.ID, snap); !ok {
		return deleteState{}, false
	}
	return st, true
}

// replacedFile is the delete file p replaced, as the reader lists one
// (allTableFiles), in place of now.
func (r *Reader) replacedFile(t Table, now *DeleteFile, p *replacement) DeleteFile {
	old := *now
	old.ID, old.Path, old.DeleteCount, old.SizeBytes = p.oldID, r.resolve(t.dir, p.oldPath, p.relative), p.oldCount, p.oldSize
	old.FooterSize, old.PartialMax = p.oldFooter, p.oldPartial
	return old
}

// sameDeletesAt compares, at snapshot snap, the positions deleted from
// data file f (listed at snap, with p's new delete file) with those
// deleted with p's replaced file in its place.
func (r *Reader) sameDeletesAt(ctx context.Context, t Table, f DataFile, snap int64, p *replacement) (string, error) {
	old := r.replacedFile(t, f.Delete, p)
	newPath := r.relPath(f.Delete.Path)
	now, err := r.deletedPositions(ctx, t, f, snap)
	if err != nil {
		return fmt.Sprintf("delete file %s of data file %s (replacing %s) at snapshot %d: %v", oneline.Name(newPath), oneline.Name(r.relPath(f.Path)), oneline.Name(r.relPath(old.Path)), snap, err), ctx.Err()
	}
	f.Delete, f.src = &old, nil
	was, err := r.deletedPositions(ctx, t, f, snap)
	if err != nil {
		return fmt.Sprintf("delete file %s of data file %s, replaced by %s, at snapshot %d: %v", oneline.Name(r.relPath(old.Path)), oneline.Name(r.relPath(f.Path)), oneline.Name(newPath), snap, err), ctx.Err()
	}
	if !slices.Equal(now, was) {
		return fmt.Sprintf("delete file %s of data file %s deletes %d positions at snapshot %d, the file it replaces (%s) %d or others", oneline.Name(newPath), oneline.Name(r.relPath(f.Path)), len(now), snap, oneline.Name(r.relPath(old.Path)), len(was)), nil
	}
	return "", nil
}

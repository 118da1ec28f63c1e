package compare

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// fileTies ties the statistics rows keyed by data_file_id
// (ducklake_file_column_stats, ducklake_file_variant_stats) to the data
// file each side's id names, as files are compared: by path (relative to
// the data path where under it). Readers apply a row to the data file of
// the same data_file_id in its own catalog (ConvertFilterPushdownToSQL:
// data_file_id IN (SELECT data_file_id FROM the statistics ...)), so B's
// row for id X must read alike to A's row for the file at the path of B's
// file X, whatever A's id of it. B's id X is read as A's id Y when the
// paths B's rows of X name are exactly those A's rows of Y name, and as X
// first where A's rows of X name exactly those paths (one path under ids X
// and Y on both sides: X reads as X and Y as Y; before, both were rows of
// a file A names otherwise, and a catalog compared with its own copy was
// a `stats` difference); as X when
// neither catalog has a data file X (a row no reader applies to a file);
// otherwise as a key no A row has, so that the row is a `stats` difference
// (before, rows were compared by bare id: B with data_file_id 12 renamed
// 13, or ids 0 and 1 swapped, was equivalent while its readers prune the
// files by the other file's statistics). The other per-file rows are read
// through each side's own file already: partition values, name mappings,
// delete files (by their data_file_id) and inlined deletions are part of
// the file's description (fileEntries).
type fileTies struct {
	// same: every B id reads as itself (always so for a conversion:
	// convert copies the data file rows with their ids).
	same bool
	to   map[int64]int64  // B id -> A id of the same file
	off  map[int64]string // B id -> why no A id (a B file A names otherwise, or an A file B has no file for)
}

// fileTiesOf reads both sides' data files (StoredFiles) once per
// comparison, A's first. A side's files that cannot be listed stop the
// comparison, marked with that side (B's alone: B cannot be read where A
// can): rows compared by bare id would prove a B equivalent whose ids
// name other files than A's (ids 10 and 11 swapped: each file pruned by
// the other's statistics). Before, the rows were then compared by bare id.
func (c *comparison) fileTiesOf() (*fileTies, error) {
	if c.ties != nil {
		return c.ties, nil
	}
	paths := func(r *Reader) (map[int64][]string, error) {
		files, err := r.StoredFiles(c.ctx)
		if err != nil {
			return nil, fmt.Errorf("tie the file statistics rows of %s to its data files: %w", oneline.Name(r.path), err)
		}
		out := map[int64][]string{}
		for _, f := range files {
			if !f.Delete {
				out[f.ID] = append(out[f.ID], r.relPath(f.Path))
			}
		}
		for id, ps := range out {
			slices.Sort(ps)
			out[id] = slices.Compact(ps)
		}
		return out, nil
	}
	pa, err := paths(c.a)
	if err != nil {
		return nil, markA(err)
	}
	pb, err := paths(c.b)
	if err != nil {
		return nil, markB(err)
	}
	byPath := map[string][]int64{} // A's ids by path
	for id, ps := range pa {
		for _, p := range ps {
			byPath[p] = append(byPath[p], id)
		}
	}
	t := &fileTies{same: true, to: map[int64]int64{}, off: map[int64]string{}}
	for id, ps := range pb {
		if slices.Equal(pa[id], ps) {
			// A's id X names the same paths: each side's readers read them
			// as file X with X's rows, also where both name them under
			// other ids too (A compared with a copy or with its
			// conversion, which keeps the ids).
			t.to[id] = id
			continue
		}
		var ys []int64
		for _, p := range ps {
			ys = append(ys, byPath[p]...)
		}
		slices.Sort(ys)
		ys = slices.Compact(ys)
		if len(ys) == 1 && slices.Equal(pa[ys[0]], ps) {
			t.to[id] = ys[0]
			t.same = t.same && ys[0] == id
			continue
		}
		t.off[id] = "B's data file " + strings.Join(ps, ", ") + ", which A names otherwise"
		t.same = false
	}
	for id, ps := range pa {
		if _, ok := pb[id]; !ok {
			t.off[id] = "no data file in B (A's data file " + strings.Join(ps, ", ") + ")"
			t.same = false
		}
	}
	c.ties = t
	return t, nil
}

// idKey is the key text of B's id X as A's rows are keyed (the value of
// data_file_id in statsEntryKey), and whether X reads as an A id.
func (t *fileTies) idKey(id int64) string {
	if t.same {
		return strconv.Quote(strconv.FormatInt(id, 10))
	}
	if y, ok := t.to[id]; ok {
		return strconv.Quote(strconv.FormatInt(y, 10))
	}
	if why, ok := t.off[id]; ok {
		return strconv.Quote(strconv.FormatInt(id, 10)) + " (" + why + ")"
	}
	return strconv.Quote(strconv.FormatInt(id, 10)) // a file neither side has
}

// fileKeyB is fileStatsKey of B's data file id and a column, keyed as A's
// rows of the same file are (fileTies).
func (c *comparison) fileKeyB(label string, fileID, columnID int64) string {
	k := fileStatsKey(label, fileID, columnID)
	if c.ties == nil || c.ties.same {
		return k
	}
	return c.ties.rekey(label, k)
}

// aIDOfB is A's id of B's data file id (fileTies), false when none.
func (c *comparison) aIDOfB(id int64) (int64, bool) {
	t := c.ties
	if t == nil || t.same {
		return id, true
	}
	if y, ok := t.to[id]; ok {
		return y, true
	}
	if _, ok := t.off[id]; ok {
		return 0, false
	}
	return id, true
}

// rekey rewrites the data_file_id of an entry key of B (label
// data_file_id="X" ...) as idKey gives it; a key of another shape is kept.
func (t *fileTies) rekey(label, k string) string {
	prefix := label + ` data_file_id="`
	rest, ok := strings.CutPrefix(k, prefix)
	if !ok {
		return k
	}
	end := strings.IndexByte(rest, '"')
	if end < 0 {
		return k
	}
	id, err := strconv.ParseInt(rest[:end], 10, 64)
	if err != nil {
		return k
	}
	return label + " data_file_id=" + t.idKey(id) + rest[end+1:]
}

// tieFileStats rekeys B's entries of a statistics table keyed by
// data_file_id (keys[0]) as A's rows of the same file are (fileTies). Two
// B rows read as one key (B names one file under two ids) are joined, in
// text order, as addStatsEntry joins rows of one key.
func (c *comparison) tieFileStats(label string, keys []string, eb entries) (entries, error) {
	if len(keys) == 0 || keys[0] != "data_file_id" || len(eb) == 0 {
		return eb, nil
	}
	t, err := c.fileTiesOf()
	if err != nil {
		return nil, err
	}
	if t.same {
		return eb, nil
	}
	out := make(entries, len(eb))
	for _, k := range slices.Sorted(maps.Keys(eb)) {
		nk := t.rekey(label, k)
		if prev, ok := out[nk]; ok {
			parts := append(strings.Split(prev, " | "), strings.Split(eb[k], " | ")...)
			slices.Sort(parts)
			out[nk] = strings.Join(parts, " | ")
			continue
		}
		out[nk] = eb[k]
	}
	return out, nil
}

package formats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The model of QuirkStructNullsAfterSkippedVector, shared by the proof
// (package compare, which reports such a file and delete state) and the
// converter (which refuses it): where a data file's deleted positions
// leave a skipped vector before a read one (SkippedVectorReads, from the
// footer's row groups), which of its columns can take the skipped rows'
// NULLs (StructSkipColumns, from the footer's schema), and whether the
// rows there can (StructSkipSQL, from the file's rows).

// ParquetVectorSize is how many rows DuckDB's Parquet reader scans at once,
// counted from the start of each row group.
const ParquetVectorSize = 2048

// SkippedVectorRead is a stretch of a data file that
// QuirkStructNullsAfterSkippedVector can misread: the positions
// [SkipStart, ReadStart) are vectors of one row group all of whose rows
// are deleted (skipped), and [ReadStart, ReadEnd) is the next vector of
// that row group, which is read with the skipped rows' levels.
type SkippedVectorRead struct {
	SkipStart, ReadStart, ReadEnd int64
}

// SkippedVectorReads finds the stretches QuirkStructNullsAfterSkippedVector
// can misread in a data file whose row groups hold rowGroups rows each (in
// file order, from the footer) and whose deleted positions are deleted
// (ascending, without repeats; what the reader filters at the snapshot
// read). A vector with a row kept is read, not skipped; skips before the
// end of a row group are dropped with it. rowGroups nil means the footer
// was not read (an encrypted file): then any run of ParquetVectorSize
// deleted positions followed by a kept position is taken, with the vector
// after it, whatever the row groups' alignment (a wholly deleted vector
// that is not a row group's last holds ParquetVectorSize positions).
func SkippedVectorReads(rowGroups []int64, deleted []int64, records int64) []SkippedVectorRead {
	if len(deleted) == 0 {
		return nil
	}
	var out []SkippedVectorRead
	if rowGroups == nil {
		for i := 0; i < len(deleted); {
			j := i
			for j+1 < len(deleted) && deleted[j+1] == deleted[j]+1 {
				j++
			}
			start, end := deleted[i], deleted[j]+1
			if end-start >= ParquetVectorSize && end < records {
				out = append(out, SkippedVectorRead{SkipStart: start, ReadStart: end, ReadEnd: end + min(ParquetVectorSize, records-end)})
			}
			i = j + 1
		}
		return out
	}
	// deletedIn counts the deleted positions in [lo, hi) from index k on,
	// and returns the index past them.
	k := 0
	deletedIn := func(lo, hi int64) (int64, int) {
		for k < len(deleted) && deleted[k] < lo {
			k++
		}
		n := 0
		for k+n < len(deleted) && deleted[k+n] < hi {
			n++
		}
		return int64(n), k + n
	}
	var start int64
	for _, rows := range rowGroups {
		end := addSaturated(start, rows)
		skipFrom := int64(-1)
		for lo := start; lo < end; {
			hi := lo + min(ParquetVectorSize, end-lo)
			n, next := deletedIn(lo, hi)
			k = next
			if n == hi-lo {
				if skipFrom < 0 {
					skipFrom = lo
				}
				lo = hi
				continue
			}
			if skipFrom >= 0 {
				out = append(out, SkippedVectorRead{SkipStart: skipFrom, ReadStart: lo, ReadEnd: hi})
				skipFrom = -1
			}
			// Up to the vector that holds the next deleted position, every
			// vector has a row kept and none is skipped: go there at once.
			// Stepping through them took as many steps as the row group
			// has vectors, which a corrupt footer sets as high as it likes
			// (2^62 rows: a hang).
			switch {
			case k >= len(deleted) || deleted[k] >= end:
				lo = end
			case deleted[k] >= hi:
				// The difference fits in a uint64 however far apart the two are.
				lo = start + int64(uint64(deleted[k]-start)/ParquetVectorSize*ParquetVectorSize)
			default:
				lo = hi
			}
		}
		start = end
	}
	return out
}

// addSaturated is a + b, held at int64's bounds rather than wrapped round.
func addSaturated(a, b int64) int64 {
	switch s := a + b; {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	default:
		return s
	}
}

// ParquetSchemaRow is one row of DuckDB's parquet_schema of a file, which
// lists the schema depth first, the root first.
type ParquetSchemaRow struct {
	Name string
	// Children is num_children (0 for a leaf).
	Children int64
	// Repetition is repetition_type (REQUIRED, OPTIONAL, REPEATED).
	Repetition string
	// Annotation holds converted_type and logical_type, any case.
	Annotation string
}

// StructSkipColumn is a top-level column of a data file that
// QuirkStructNullsAfterSkippedVector can misread: a STRUCT with a leaf
// reached through structs only (a struct's validity is taken from the
// levels its leaves leave in the buffer; list and map leaves always
// write theirs).
type StructSkipColumn struct {
	// Column is the file's top-level column name.
	Column string
	// Structs are the paths of the structs reached from the column through
	// structs only (the column first, as []string{}), each a list of
	// field names below it.
	Structs [][]string
}

// StructSkipColumns lists a file's top-level columns that
// QuirkStructNullsAfterSkippedVector can misread, from its parquet_schema
// rows. A group annotated LIST or MAP, or repeated, is a list or map; any
// other group a struct.
func StructSkipColumns(rows []ParquetSchemaRow) ([]StructSkipColumn, error) {
	i := 0
	type node struct {
		name     string
		group    bool
		repeated bool
		listMap  bool
		children []*node
	}
	var build func() (*node, error)
	build = func() (*node, error) {
		if i >= len(rows) {
			return nil, fmt.Errorf("truncated parquet schema")
		}
		r := rows[i]
		i++
		a := strings.ToUpper(r.Annotation)
		n := &node{name: r.Name, group: r.Children > 0, repeated: strings.EqualFold(r.Repetition, "REPEATED"),
			listMap: strings.Contains(a, "LIST") || strings.Contains(a, "MAP")}
		for c := int64(0); c < r.Children; c++ {
			ch, err := build()
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, ch)
		}
		return n, nil
	}
	root, err := build()
	if err != nil {
		return nil, err
	}
	if i != len(rows) {
		return nil, fmt.Errorf("parquet schema has %d nodes past its root's tree", len(rows)-i)
	}
	isStruct := func(n *node) bool { return n.group && !n.repeated && !n.listMap }
	// structs collects the structs below n (a struct) through structs only
	// that hold a leaf reached the same way; it reports whether n does.
	var structs func(n *node, path []string, out *[][]string) bool
	structs = func(n *node, path []string, out *[][]string) bool {
		at := len(*out)
		*out = append(*out, path)
		has := false
		for _, c := range n.children {
			switch {
			case !c.group && !c.repeated:
				has = true
			case isStruct(c):
				p := append(append([]string(nil), path...), c.name)
				if structs(c, p, out) {
					has = true
				}
			}
		}
		if !has {
			*out = append((*out)[:at], (*out)[at+1:]...)
		}
		return has
	}
	var out []StructSkipColumn
	for _, c := range root.children {
		if !isStruct(c) {
			continue
		}
		var paths [][]string
		if structs(c, []string{}, &paths) {
			out = append(out, StructSkipColumn{Column: c.name, Structs: paths})
		}
	}
	return out, nil
}

// StructSkipSQL is the query that tells, for each stretch (windows) and
// column (cols) of a data file, whether QuirkStructNullsAfterSkippedVector
// misreads it: from is read_parquet of the file with file_row_number =
// true. It returns one row per stretch with rows there: the stretch's index
// and one BOOLEAN per column, true when a skipped row has a NULL struct
// (the column or a struct of StructSkipColumn.Structs) and a row of the
// vector read (kept or deleted: which of them the misread reaches depends
// on the data pages) has a non-NULL column. A NULL struct read NULL, or a
// struct whose skipped rows are all non-NULL, reads alike.
func StructSkipSQL(from string, cols []StructSkipColumn, windows []SkippedVectorRead) string {
	var w strings.Builder
	for i, x := range windows {
		if i > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(&w, "(%d, %d, %d, %d)", i, x.SkipStart, x.ReadStart, x.ReadEnd)
	}
	sel := []string{"file_row_number AS pos"}
	agg := []string{"w.i"}
	for j, c := range cols {
		var nulls []string
		for _, p := range c.Structs {
			e := quoteIdent(c.Column)
			for _, f := range p {
				e = "struct_extract(" + e + ", " + quoteString(f) + ")"
			}
			nulls = append(nulls, e+" IS NULL")
		}
		sel = append(sel, "("+strings.Join(nulls, " OR ")+") AS n"+strconv.Itoa(j), quoteIdent(c.Column)+" IS NOT NULL AS v"+strconv.Itoa(j))
		agg = append(agg, fmt.Sprintf("coalesce(bool_or(p.pos < w.r AND p.n%[1]d) AND bool_or(p.pos >= w.r AND p.v%[1]d), false)", j))
	}
	return "WITH w(i, s, r, e) AS (VALUES " + w.String() + "), p AS (SELECT " + strings.Join(sel, ", ") + " FROM " + from +
		") SELECT " + strings.Join(agg, ", ") + " FROM w JOIN p ON p.pos >= w.s AND p.pos < w.e GROUP BY w.i ORDER BY w.i"
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

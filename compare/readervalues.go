package compare

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// readerValues reports, as kind "unreadable", each declared rule
// (formats.ReaderValueRules: ids and counts read as unsigned numbers, the
// partition transform's spelling, column_order ties) that B's metadata
// breaks where A's does not: B's readers fail, or read another id, order
// or transform, where A's read. The first breaking row of B is named. A
// rule A breaks too is the readers' problem on both sides, not the
// conversion's. One query of B, and one of A when B breaks a rule.
func (c *comparison) readerValues() error {
	if c.self {
		return nil
	}
	read := func(r *Reader) ([]formats.ValueViolation, error) {
		err := faults.At(c.ctx, "compare/reader-values", r.path)
		var v []formats.ValueViolation
		if err == nil {
			v, err = formats.ReaderValueViolations(c.ctx, r.conn, "cat", "main", r.has)
		}
		if err != nil {
			return nil, fmt.Errorf("read the metadata values of %s: %w", oneline.Name(r.path), err)
		}
		return v, nil
	}
	vb, err := read(c.b)
	if err != nil {
		// B is read first here: both catalogs' failure when A's read of
		// the same values fails too.
		return bThenA(err, func() error {
			_, err := read(c.a)
			return err
		})
	}
	if len(vb) == 0 {
		// A's values matter only to excuse B's violations: a query saved
		// per cell in the common case.
		return nil
	}
	va, err := read(c.a)
	if err != nil {
		return markA(err)
	}
	aBreaks := map[formats.ValueRule]bool{}
	for _, v := range va {
		aBreaks[v.Rule] = true
	}
	for _, v := range vb {
		if aBreaks[v.Rule] {
			continue
		}
		why := v.Rule.Why()
		what := fmt.Sprintf("%s.%s of row %d", v.Rule.Table, v.Rule.Column, v.RowID)
		c.add(Difference{Kind: "unreadable", Item: v.Rule.Table + "." + v.Rule.Column, A: "every value readable",
			Reason: fmt.Sprintf("catalog B (%s): %s is a value DuckLake's readers cannot read: %s", oneline.Name(c.b.path), what, why),
			B:      v.Row})
	}
	return nil
}

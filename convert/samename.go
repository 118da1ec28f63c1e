package convert

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// nameClashes refuses a source holding, visible at one snapshot, two
// views, or two macros of one kind, of one schema named alike in ASCII
// letter case with different definitions (formats.NameClashes, the rule
// compare's proof applies): the readers list them without ORDER BY and
// keep the last of a name, so which one they read is not determined by
// the catalog, and no conversion can be proved to read as its source.
// Identical definitions are carried.
func (r *run) nameClashes(source *formats.Version, src *sourceRows) error {
	objs, snaps := src.objects, src.snaps
	if len(objs) < 2 {
		return nil // no two to share a name
	}
	schemas := schemaNames(src.load.Schemas)
	points := formats.ObjectChangePoints(objs)
	type span struct {
		from, to int64
		what     string
		table    string
	}
	var spans []span
	epoch, whats, tables := -1, []string(nil), []string(nil)
	for _, s := range snaps {
		if e := sort.Search(len(points), func(i int) bool { return points[i] > s }); e != epoch {
			epoch, whats, tables = e, nil, nil
			for _, c := range formats.NameClashes(objs, s) {
				if c.Identical {
					continue
				}
				names := make([]string, len(c.Names))
				for i, n := range c.Names {
					names[i] = fmt.Sprintf("%s (id %d)", n, c.IDs[i])
				}
				whats = append(whats, fmt.Sprintf("schema %s: %ss %s", cmp.Or(schemas[c.SchemaID], fmt.Sprint("id ", c.SchemaID)), c.Kind, strings.Join(names, ", ")))
				tables = append(tables, "ducklake_"+strings.TrimPrefix(strings.TrimPrefix(c.Kind, "scalar "), "table "))
			}
		}
		for i, what := range whats {
			if j := slices.IndexFunc(spans, func(x span) bool { return x.what == what && x.to == s-1 }); j >= 0 {
				spans[j].to = s
				continue
			}
			spans = append(spans, span{s, s, what, tables[i]})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	var items []string
	for _, x := range spans {
		at := fmt.Sprintf("snapshot %d", x.from)
		if x.to != x.from {
			at = fmt.Sprintf("snapshots %d-%d", x.from, x.to)
		}
		items = append(items, at+": "+x.what+" differ")
	}
	r.add(Finding{Severity: Refuse, Code: "objects-of-one-name", Step: source.Name, Table: spans[0].table, Detail: summarize(items),
		Reason: "DuckLake's readers list views and macros without ORDER BY and keep the last of a name: which of these they read is not determined by the catalog; keep one, or give them one definition"})
	return nil
}

// schemaNames is the schemas' names by id, a later schema row (by
// begin_snapshot, NULL last) naming its id over an earlier one.
func schemaNames(rows []formats.LoadSchema) map[int64]string {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b formats.LoadSchema) int {
		switch {
		case a.Begin.Valid != b.Begin.Valid:
			if a.Begin.Valid {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Begin.Int64, b.Begin.Int64)
	})
	out := map[int64]string{}
	for _, x := range rows {
		if x.ID.Valid {
			out[x.ID.Int64] = x.Name.String
		}
	}
	return out
}

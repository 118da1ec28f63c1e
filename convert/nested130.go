package convert

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// nestedDefaultsCheck refuses, between a format read by DuckDB 1.3.0 (0.1)
// and one that is not, the data files DuckDB 1.3.0's column mapper reads
// otherwise (formats.QuirkNestedDefaultsDropped: a struct field the file
// lacks below a list element or a map key or value fails the read;
// formats.QuirkStructWithoutFileFieldsNotNull: a top-level struct the file
// has, none of whose fields it has, reads as a non-NULL struct of
// defaults). What the file has is taken from the catalog: a data file
// without a name mapping holds the fields that exist when it is written
// (its begin_snapshot), found by field id, so a field whose column_id first
// appears later is missing from it. Each is checked at every snapshot at
// which the file is visible and the table's columns change.
func (r *run) nestedDefaultsCheck(step string, source, target *formats.Version) error {
	for _, q := range []formats.ReaderQuirk{formats.QuirkNestedDefaultsDropped, formats.QuirkStructWithoutFileFieldsNotNull, formats.QuirkRemapListsUnreserved} {
		if formats.ReadAlike(source, target, q) {
			continue
		}
		items, err := r.nestedDefaultFiles(q)
		if err != nil {
			return fmt.Errorf("%s: %w", q.Info().Name, err)
		}
		r.refuseQuirk(step, q, source, target, "ducklake_data_file", items)
	}
	return nil
}

// nestedColumn is one ducklake_column row of the working copy.
type nestedColumn struct {
	table, id, parent int64 // parent -1: top level
	name, typ         string
	begin, end        int64 // end math.MaxInt64: current
}

// nestedDefaultFiles lists the data files without a name mapping that the
// quirk q (QuirkNestedDefaultsDropped, QuirkStructWithoutFileFieldsNotNull
// or QuirkRemapListsUnreserved)
// reads otherwise, each with its table, the field and the first snapshot.
func (r *run) nestedDefaultFiles(q formats.ReaderQuirk) ([]string, error) {
	colRows, err := r.w.fields(r.ctx, `SELECT table_id, column_id, coalesce(parent_column, -1), column_name, lower(trim(column_type)), begin_snapshot, coalesce(end_snapshot, 9223372036854775807)
		FROM ducklake_column WHERE column_id IS NOT NULL AND begin_snapshot IS NOT NULL ORDER BY table_id, column_order, column_id, begin_snapshot`)
	if err != nil {
		return nil, err
	}
	cols := map[int64][]nestedColumn{} // by table
	first := map[[2]int64]int64{}      // (table, column_id) -> first begin_snapshot
	nested := map[int64]bool{}         // tables with a nested column
	for _, row := range colRows {
		f := row
		var c nestedColumn
		var bad bool
		for i, p := range []*int64{&c.table, &c.id, &c.parent} {
			v, err := strconv.ParseInt(f[i], 10, 64)
			bad = bad || err != nil
			*p = v
		}
		c.name, c.typ = f[3], f[4]
		b, err1 := strconv.ParseInt(f[5], 10, 64)
		e, err2 := strconv.ParseInt(f[6], 10, 64)
		if bad || err1 != nil || err2 != nil {
			continue // the proof reports what its readers fail on
		}
		c.begin, c.end = b, e
		cols[c.table] = append(cols[c.table], c)
		k := [2]int64{c.table, c.id}
		if v, ok := first[k]; !ok || b < v {
			first[k] = b
		}
		if c.parent >= 0 {
			nested[c.table] = true
		}
	}
	if len(nested) == 0 {
		return nil, nil
	}
	mapped := "true"
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "mapping_id"); err != nil {
		return nil, err
	} else if ok {
		mapped = "f.mapping_id IS NULL"
	}
	fileRows, err := r.w.fields(r.ctx, `SELECT f.table_id, f.data_file_id, f.path, f.begin_snapshot, coalesce(f.end_snapshot, 9223372036854775807), coalesce(t.table_name, '?')
		FROM ducklake_data_file f LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		WHERE `+mapped+` AND f.begin_snapshot IS NOT NULL ORDER BY f.data_file_id`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range fileRows {
		f := row
		table, err1 := strconv.ParseInt(f[0], 10, 64)
		begin, err2 := strconv.ParseInt(f[3], 10, 64)
		end, err3 := strconv.ParseInt(f[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || !nested[table] {
			continue
		}
		inFile := func(c nestedColumn) bool { return first[[2]int64{c.table, c.id}] <= begin }
		// The snapshots at which the table's columns change while the file is visible.
		snaps := []int64{begin}
		for _, c := range cols[table] {
			if c.begin > begin && c.begin < end {
				snaps = append(snaps, c.begin)
			}
			if c.end > begin && c.end < end {
				snaps = append(snaps, c.end)
			}
		}
		slices.Sort(snaps)
		for _, s := range slices.Compact(snaps) {
			if q == formats.QuirkRemapListsUnreserved {
				if field := remappedNestedField(cols[table], s, begin, inFile); field != "" {
					out = append(out, fmt.Sprintf("table %s %s: data_file_id %s %s (written at snapshot %d) has %s, a nested list element or map key or value DuckDB 1.3.0 remaps, at snapshot %d", f[0], f[5], f[1], f[2], begin, field, s))
					break
				}
				continue
			}
			if field := nestedReadDiffers(q, cols[table], s, inFile); field != "" {
				out = append(out, fmt.Sprintf("table %s %s: data_file_id %s %s (written at snapshot %d) lacks %s at snapshot %d", f[0], f[5], f[1], f[2], begin, field, s))
				break
			}
		}
	}
	return out, nil
}

// nestedReadDiffers finds, among the columns alive at snapshot s, the field
// the quirk q reads otherwise in a file that holds the fields inFile says:
// for QuirkNestedDefaultsDropped a struct field missing below a list
// element or a map key or value, for QuirkStructWithoutFileFieldsNotNull a
// top-level struct the file holds none of whose fields it holds. It returns
// the field's path ("" when none).
func nestedReadDiffers(q formats.ReaderQuirk, all []nestedColumn, s int64, inFile func(nestedColumn) bool) string {
	kids := map[int64][]nestedColumn{}
	for _, c := range all {
		if c.begin <= s && s < c.end {
			kids[c.parent] = append(kids[c.parent], c)
		}
	}
	// missingBelow: a field under c (c itself in the file) missing from the
	// file, at any depth below a list element or map key or value.
	var missingBelow func(c nestedColumn, path string, inList bool) string
	missingBelow = func(c nestedColumn, path string, inList bool) string {
		list := c.typ == "list" || c.typ == "map"
		for _, k := range kids[c.id] {
			p := path + "." + k.name
			if !inFile(k) {
				if inList && !list {
					return p
				}
				continue
			}
			if m := missingBelow(k, p, inList || list); m != "" {
				return m
			}
		}
		return ""
	}
	// mapsAny: c (in the file) maps one of its fields: a leaf does, a
	// struct where one of its fields in the file does, a list or map where
	// its element, key or value does.
	var mapsAny func(c nestedColumn) bool
	mapsAny = func(c nestedColumn) bool {
		if len(kids[c.id]) == 0 {
			return true
		}
		for _, k := range kids[c.id] {
			if inFile(k) && mapsAny(k) {
				return true
			}
		}
		return false
	}
	for _, c := range kids[-1] {
		if !inFile(c) || len(kids[c.id]) == 0 {
			continue
		}
		switch q {
		case formats.QuirkNestedDefaultsDropped:
			if m := missingBelow(c, c.name, false); m != "" {
				return m
			}
		case formats.QuirkStructWithoutFileFieldsNotNull:
			if c.typ == "struct" && !mapsAny(c) {
				return c.name + " (none of its fields " + fieldNames(kids[c.id]) + ")"
			}
		}
	}
	return ""
}

func fieldNames(cs []nestedColumn) string {
	n := make([]string, len(cs))
	for i, c := range cs {
		n[i] = c.name
	}
	return strings.Join(n, ", ")
}

// remappedNestedField applies formats.QuirkRemapListsUnreserved at
// snapshot s to a data file written at snapshot begin: among the top-level
// columns alive at s that the file holds, one DuckDB 1.3.0's mapper reads
// through remap_struct (IsTriviallyMappable fails: it holds a MAP, or a
// field's name, type, or children's field ids and order at s differ from
// those at begin) and that holds a list element or map key or value that
// is nested. It returns that element's path ("" when none).
func remappedNestedField(all []nestedColumn, s, begin int64, inFile func(nestedColumn) bool) string {
	at := func(snap int64) map[int64][]nestedColumn {
		kids := map[int64][]nestedColumn{}
		for _, c := range all {
			if c.begin <= snap && snap < c.end {
				kids[c.parent] = append(kids[c.parent], c)
			}
		}
		return kids
	}
	now, then := at(s), at(begin)
	byID := map[int64]nestedColumn{}
	for _, cs := range then {
		for _, c := range cs {
			byID[c.id] = c
		}
	}
	var trivial func(c nestedColumn) bool
	trivial = func(c nestedColumn) bool {
		f, ok := byID[c.id]
		if !ok || c.typ == "map" || c.typ != f.typ {
			return false
		}
		kn, kf := now[c.id], then[c.id]
		if len(kn) != len(kf) {
			return false
		}
		for i := range kn {
			if kn[i].id != kf[i].id || (c.typ == "struct" && kn[i].name != kf[i].name) || !trivial(kn[i]) {
				return false
			}
		}
		return true
	}
	nestedType := func(t string) bool { return t == "struct" || t == "list" || t == "map" }
	var element func(c nestedColumn, path string) string
	element = func(c nestedColumn, path string) string {
		for _, k := range now[c.id] {
			if !inFile(k) {
				continue
			}
			p := path + "." + k.name
			if (c.typ == "list" || c.typ == "map") && nestedType(k.typ) {
				return p
			}
			if m := element(k, p); m != "" {
				return m
			}
		}
		return ""
	}
	for _, c := range now[-1] {
		if !inFile(c) || len(now[c.id]) == 0 || trivial(c) {
			continue
		}
		if p := element(c, c.name); p != "" {
			return p
		}
	}
	return ""
}

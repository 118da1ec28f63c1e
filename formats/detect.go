package formats

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// Layout is what a catalog really holds: each static metadata table with its
// columns in order. Dynamic tables (inlined data and inlined deletes) are left
// out; IsDynamicTable tells them apart.
type Layout map[string][]string

// IsDynamicTable reports whether a table name is one of DuckLake's per-table
// dynamic tables (ducklake_inlined_data_<tid>_<sv>, ducklake_inlined_delete_<tid>).
func IsDynamicTable(name string) bool {
	return (strings.HasPrefix(name, "ducklake_inlined_data_") && name != "ducklake_inlined_data_tables") ||
		strings.HasPrefix(name, "ducklake_inlined_delete_")
}

// Detect names the format of a catalog from its version row and the tables
// and columns that are really there. A release stamp must come with exactly
// that release's layout. A development stamp (written on several layouts)
// is accepted when every table and column belongs to the development layout
// or to the older layouts it grew from.
func Detect(stamp string, layout Layout) (*Version, error) {
	var v *Version
	for _, cand := range All {
		if cand.Stamp == stamp {
			v = cand
		}
	}
	if v == nil {
		return nil, unknownStamp(stamp)
	}
	if !v.Dev {
		if diffs := v.LayoutDiff(layout); len(diffs) > 0 {
			return nil, fmt.Errorf("%w: version row says %q but %s", ErrInconsistentLayout, stamp, strings.Join(diffs, "; "))
		}
		return v, nil
	}
	known := map[string][]string{}
	for _, t := range v.Tables {
		known[t.Name] = append(known[t.Name], t.ColumnNames()...)
	}
	for _, name := range v.Older {
		older, _ := Lookup(name)
		for _, t := range older.Tables {
			known[t.Name] = append(known[t.Name], t.ColumnNames()...)
		}
	}
	var diffs []string
	for _, name := range sortedKeys(layout) {
		cols, ok := known[name]
		if !ok {
			if strings.HasPrefix(name, "ducklake_") {
				diffs = append(diffs, fmt.Sprintf("unexpected table %s", name))
			}
			continue
		}
		for _, c := range layout[name] {
			if !slices.Contains(cols, c) {
				diffs = append(diffs, fmt.Sprintf("unexpected column %s.%s", name, c))
			}
		}
	}
	for _, name := range v.Older {
		older, _ := Lookup(name)
		for _, t := range older.Tables {
			if _, ok := layout[t.Name]; !ok && !renamedLater(t.Name, layout) {
				diffs = append(diffs, fmt.Sprintf("missing table %s", t.Name))
			}
		}
	}
	if len(diffs) > 0 {
		return nil, fmt.Errorf("%w: development stamp %q on an unknown layout: %s", ErrInconsistentLayout, stamp, strings.Join(diffs, "; "))
	}
	return v, nil
}

// TypeDiffs lists the columns of a catalog's metadata tables whose DuckDB
// type (types: duckdb_columns()'s data_type by table and column name, of
// the catalog's metadata schema, with TypedWithCollations' collations) is not the one DuckLake's writers give them
// in this format: for a development layout, in it or in a layout it grew
// from (Older). Empty means every static table's column has its type;
// the columns of dynamic tables (inlined data and deletes) and others the
// format does not declare (which Detect already refuses) are listed only
// where TypedWithCollations found a collation or a generated column.
//
// Detect reads names only, and a column of another type holds the same
// texts: a ducklake_snapshot.snapshot_time VARCHAR holding the
// TIMESTAMPTZ's own text reads alike in a proof, while DuckLake's 0.1-0.3
// readers (DuckDB 1.3, 1.4) resolve AT (TIMESTAMP => '...') by comparing
// the column with the value's text (snapshot_time <= '<text>',
// MAX_BY(snapshot_id, snapshot_time)), so as text, not as instants; a
// ducklake_file_column_stats.data_file_id VARCHAR fails the file pruning
// query of every release (it is matched with the data files' BIGINT ids,
// a comparison DuckDB does not bind), so every filtered read. A type may
// carry a collation (TypedWithCollations: "VARCHAR COLLATE NOCASE"),
// which the registry's types never have. No DuckLake release
// writes another type (TestShapesMatchRealCatalogs holds the registry to
// the catalogs DuckLake wrote), so any other type is refused rather than
// judged column by column.
func (v *Version) TypeDiffs(types map[[2]string]string) []string {
	return v.typeDiffs(types, false)
}

// FrozenTypes are the types a frozen catalog may hold in place of a
// metadata column's declared type, by that type: a working catalog in
// another database (PostgreSQL, MySQL, SQLite) copied into a DuckDB file
// through a scanner that types its times without a zone leaves
// snapshot_time a TIMESTAMP of the same UTC instants. The proof and
// convert read such a catalog as its source, its times as those instants
// (StandInReads: convert writes them as the declared type, proofs and
// history compare instants, sameInstant); a catalog under proof (B) is held to the
// declared types all the same (Reader.StrictTypeDiffs): DuckLake's readers
// resolve AT (TIMESTAMP => ...) against a TIMESTAMP column in the
// session's wall time, against a TIMESTAMPTZ one as an instant.
//
// Each stand-in carries the SQL that reads it as the declared type's
// values (StandInReads), so a stand-in cannot be declared without its read.
var FrozenTypes = map[string][]StandIn{
	// A TIMESTAMP of UTC wall times: timezone('UTC', ...) reads it as those
	// instants whatever the session's TimeZone, where a cast to
	// TIMESTAMPTZ would read it in the session's zone.
	"TIMESTAMP WITH TIME ZONE": {{Type: "TIMESTAMP", Read: "timezone('UTC', %s)"}},
}

// StandIn is a type a frozen catalog may hold in place of a declared one
// (FrozenTypes), with Read, the SQL (%s: the quoted column) that reads it
// as the declared type's values.
type StandIn struct {
	Type string
	Read string
}

// standInFor finds typ among declared's stand-ins.
func standInFor(declared, typ string) (StandIn, bool) {
	i := slices.IndexFunc(FrozenTypes[declared], func(s StandIn) bool { return s.Type == typ })
	if i < 0 {
		return StandIn{}, false
	}
	return FrozenTypes[declared][i], true
}

// FrozenTypeDiffs is TypeDiffs of a frozen catalog: a column of one of its
// declared type's FrozenTypes is not listed.
func (v *Version) FrozenTypeDiffs(types map[[2]string]string) []string {
	return v.typeDiffs(types, true)
}

// StandInReads lists the columns of a frozen catalog that hold one of
// their declared type's FrozenTypes (types as TypeDiffs takes them), each
// with the SQL expression that reads it as the declared type's values,
// the same in every session: a TIMESTAMP snapshot_time holds its instants'
// UTC wall times, which timezone('UTC', ...) reads as those instants
// whatever the session's TimeZone, where a cast to TIMESTAMPTZ would read
// them in the session's zone (DuckDB's default: the machine's local one).
// Convert writes the declared type so (copySQL), and the proof compares
// snapshot times so (Reader.readSnapshots): as instants.
func (v *Version) StandInReads(types map[[2]string]string) map[[2]string]string {
	out := map[[2]string]string{}
	for k, want := range v.declaredTypes() {
		typ, ok := types[k]
		if !ok || slices.Contains(want, typ) {
			continue
		}
		for _, w := range want {
			if in, ok := standInFor(w, typ); ok {
				out[k] = fmt.Sprintf(in.Read, quoteIdent(k[1]))
				break
			}
		}
	}
	return out
}

// declaredTypes lists the types DuckLake's writers give each column of
// the format's static tables: for a development layout, in it or in a
// layout it grew from (Older).
func (v *Version) declaredTypes() map[[2]string][]string {
	declared := map[[2]string][]string{}
	add := func(tables []Table) {
		for _, t := range tables {
			for _, c := range t.Columns {
				k := [2]string{t.Name, c.Name}
				if !slices.Contains(declared[k], c.Type) {
					declared[k] = append(declared[k], c.Type)
				}
			}
		}
	}
	add(v.Tables)
	if v.Dev {
		for _, name := range v.Older {
			if older, err := Lookup(name); err == nil {
				add(older.Tables)
			}
		}
	}
	return declared
}

func (v *Version) typeDiffs(types map[[2]string]string, standIns bool) []string {
	declared := v.declaredTypes()
	keys := make([][2]string, 0, len(types))
	for k := range types {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	var diffs []string
	for _, k := range keys {
		want, ok := declared[k]
		if !ok {
			// A column of a dynamic table (inlined rows, of the user's
			// types) is not declared; a collation or a generated column
			// is no DuckLake writer's there either.
			if t := types[k]; t == "GENERATED" || strings.HasSuffix(t, " GENERATED") || strings.Contains(t, " COLLATE ") {
				diffs = append(diffs, fmt.Sprintf("%s.%s is %s, which no DuckLake writer gives a column", k[0], k[1], t))
			}
			continue
		}
		if slices.Contains(want, types[k]) || standIns && slices.ContainsFunc(want, func(w string) bool { _, ok := standInFor(w, types[k]); return ok }) {
			continue
		}
		diffs = append(diffs, fmt.Sprintf("%s.%s is %s, format %s has %s", k[0], k[1], types[k], v.Name, strings.Join(want, " or ")))
	}
	return diffs
}

// renamedLater covers the stats table that 0.3 renamed.
func renamedLater(name string, layout Layout) bool {
	if name == fileStatsTableBefore03 {
		_, ok := layout[fileStatsTable]
		return ok
	}
	return false
}

// LayoutDiff lists how a real layout differs from this format's tables
// (missing or extra tables, columns out of place). Empty means identical.
func (v *Version) LayoutDiff(layout Layout) []string {
	var diffs []string
	for _, t := range v.Tables {
		got, ok := layout[t.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("table %s is missing", t.Name))
			continue
		}
		if want := t.ColumnNames(); !slices.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%s has columns (%s), format %s has (%s)", t.Name, strings.Join(got, ", "), v.Name, strings.Join(want, ", ")))
		}
	}
	for _, name := range sortedKeys(layout) {
		if _, ok := v.Table(name); !ok && strings.HasPrefix(name, "ducklake_") {
			diffs = append(diffs, fmt.Sprintf("table %s is not part of format %s", name, v.Name))
		}
	}
	return diffs
}

func unknownStamp(stamp string) error {
	newest := All.Releases()[len(All.Releases())-1]
	sv, err := goversion.NewVersion(strings.TrimPrefix(stamp, "dev-"))
	nv, _ := goversion.NewVersion(newest.Name)
	if err == nil && sv.GreaterThan(nv) {
		return fmt.Errorf("%w: version row says %q, newest known is %s; upgrade fdl-formats", ErrTooNew, stamp, newest.Name)
	}
	return fmt.Errorf("%w %q (known: %s)", ErrUnknownVersion, stamp, strings.Join(All.Names(), ", "))
}

func sortedKeys(m Layout) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

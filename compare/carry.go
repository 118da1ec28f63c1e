package compare

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// A version of a lake holds every snapshot of the versions before it, so
// proving each version from its first snapshot walks the same history
// again at every version (a whole backfill grows with the cube of the
// versions). A proof may instead carry what the proof of an earlier pair
// established: where catalog A, restricted to the snapshots of an earlier
// catalog A0, is row for row A0, and B restricted to B0's snapshots is B0,
// and A0 and B0 were proved equivalent (a proof kept in the digest cache,
// under the same rules and data folders as now), A and B read the same at
// every snapshot the three share, and only the later ones are walked.
// Everything a proof checks of a catalog as a whole (snapshots, schema
// versions, statistics, bookkeeping, storage, the latest snapshot's
// counts) is still checked, every time. docs/compare.md, "Carrying an
// earlier proof".

// Carry names an earlier pair of catalogs of the same lake (another
// version's frozen catalog and its conversion, or its published catalog):
// Options.Carry.
type Carry struct {
	A, B string
}

// restriction says how a catalog table's rows may differ between an
// earlier catalog and a later one of the same lake, restricted to the
// earlier one's snapshots (through: its last). Every row of the earlier
// catalog must be in the later one, with an end_snapshot after through
// read as none (a row ended later was open then); a row only in the later
// catalog must be one no reader at those snapshots sees: it begins after
// through (begin_snapshot, or snapshot_id for the snapshot tables), or it
// belongs to a row the earlier catalog did not have (owners). A table with
// none of these columns must be equal.
var (
	// owners: a column that names the row a row belongs to, and the table
	// holding those rows (which itself begins at a snapshot, or is new by
	// the same rule), in the order they are tried.
	owners = []struct{ column, table string }{
		{"data_file_id", "ducklake_data_file"},
		{"delete_file_id", "ducklake_delete_file"},
		{"partition_id", "ducklake_partition_info"},
		{"mapping_id", "ducklake_column_mapping"},
		{"macro_id", "ducklake_macro"},
		{"sort_id", "ducklake_sort_info"},
	}
	// wholeCatalog: tables every proof compares whole, at no snapshot
	// (the statistics: stats), left out of the restriction.
	wholeCatalog = []string{"ducklake_table_stats", "ducklake_table_column_stats"}
	// lookups: what a reader reads of a catalog whatever the snapshot it
	// reads (rows of every snapshot, storage order), which the restriction
	// does not pin: each must answer the same in both catalogs. The query
	// reads catalog %[1]s (carry, then cat) and may name the earlier one
	// as carry; needs lists the tables and columns it reads.
	lookups = []struct {
		name, query string
		cols        []column
		needs       [][2]string
	}{
		{
			// tableFirstSnapshot: a table's first ducklake_table row.
			name:  "the first ducklake_table row of each table",
			query: "SELECT table_id, first(begin_snapshot ORDER BY rowid) AS b FROM %[1]s.ducklake_table WHERE table_id IN (SELECT table_id FROM carry.ducklake_table) GROUP BY table_id",
			cols:  []column{{"table_id", "BIGINT"}, {"b", "BIGINT"}},
			needs: [][2]string{{"ducklake_table", "begin_snapshot"}},
		},
		{
			// schemaVersionRow: the schema version row of each inlined
			// data table's registration (none found is an answer too).
			name: "the ducklake_schema_versions rows of the inlined data tables",
			query: `SELECT r.table_id, r.schema_version, (SELECT count(*) FROM %[1]s.ducklake_schema_versions v WHERE v.table_id = r.table_id AND v.schema_version = r.schema_version) AS n,
				(SELECT first(v.begin_snapshot ORDER BY v.rowid) FROM %[1]s.ducklake_schema_versions v WHERE v.table_id = r.table_id AND v.schema_version = r.schema_version) AS b
				FROM carry.ducklake_inlined_data_tables r`,
			cols:  []column{{"table_id", "BIGINT"}, {"schema_version", "BIGINT"}, {"n", "BIGINT"}, {"b", "BIGINT"}},
			needs: [][2]string{{"ducklake_schema_versions", "table_id"}, {"ducklake_inlined_data_tables", "schema_version"}},
		},
		{
			// readMacroRows: the order a macro implementation's
			// parameters are stored in, which readers bind arguments by
			// (the restriction compares rows as a multiset).
			name:  "the storage order of the macros' parameters",
			query: "SELECT p.macro_id, p.impl_id, list(p ORDER BY p.rowid)::VARCHAR AS o FROM %[1]s.ducklake_macro_parameters p WHERE p.macro_id IN (SELECT macro_id FROM carry.ducklake_macro) GROUP BY p.macro_id, p.impl_id",
			cols:  []column{{"macro_id", "BIGINT"}, {"impl_id", "BIGINT"}, {"o", "VARCHAR"}},
			needs: [][2]string{{"ducklake_macro_parameters", "column_id"}, {"ducklake_macro", "macro_id"}},
		},
		{
			// checkEncryptedNested: nested fields named otherwise at any
			// snapshot.
			name:  "the nested columns ever renamed",
			query: "SELECT table_id, column_id FROM %[1]s.ducklake_column WHERE parent_column IS NOT NULL GROUP BY ALL HAVING count(DISTINCT column_name) > 1",
			cols:  []column{{"table_id", "BIGINT"}, {"column_id", "BIGINT"}},
			needs: [][2]string{{"ducklake_column", "parent_column"}},
		},
	}
)

// minCarryWork is the least walk a proof carries an earlier one over, in
// table and data file visits (snapshots x (tables + data files)): checking
// the restriction costs about 40 ms of DuckDB statements a side, the walk
// about 10 us a visit (docs/compare.md, "Carrying an earlier proof").
// 3,000 and 1,000 were measured on a long history's whole backfill: no
// gain (the same docs).
const minCarryWork = 10_000

// walkWork estimates the visits a walk of snaps makes on A (every data
// file and table row, at every snapshot); ok is false when A's row counts
// are not known.
func (c *comparison) walkWork(snaps []int64) (n int64, ok bool) {
	if c.a.rowCounts == nil {
		return 0, false
	}
	return int64(len(snaps)) * (c.a.rowCounts["ducklake_data_file"] + c.a.rowCounts["ducklake_table"]), true
}

// carried returns the snapshots of common the walk may leave out, carried
// from the kept proof of the earlier pair from (one of opts.Carry), and why
// none are (for the report) when it returns none.
func (c *comparison) carried(common []int64) (_ map[int64]bool, from Carry, why string) {
	if len(c.opts.Carry) == 0 || c.opts.everyDigest {
		return nil, Carry{}, ""
	}
	switch {
	case c.opts.DigestCache == nil:
		return nil, Carry{}, "no cache: earlier proofs are kept in the cache"
	case c.opts.DataPath == "":
		return nil, Carry{}, "an earlier proof is found by its data folders: give them"
	}
	least := c.opts.CarryMinWork
	if least == 0 {
		least = minCarryWork
	}
	if n, ok := c.walkWork(common); ok && n < least {
		return nil, Carry{}, fmt.Sprintf("the walk is short (about %d table and file visits): carrying costs more", n)
	}
	var kept *Report
	var cr Carry
	var sumA, sumB string
	for _, cr = range c.opts.Carry {
		// Hashed once: the sums find the kept proof and key the readers'
		// answers (restrictedTo).
		var errA, errB error
		sumA, errA = fileSHA256(cr.A)
		sumB, errB = fileSHA256(cr.B)
		if errA != nil || errB != nil {
			continue
		}
		name := keptName(cr.A, cr.B, sumA, sumB, c.opts)
		if rep, ok := findKept(c.opts, name); ok {
			kept = rep
			break
		}
	}
	switch {
	case kept == nil:
		return nil, Carry{}, fmt.Sprintf("no proof of an earlier pair (%s and %s, ...) is kept for the data folders as they are", c.opts.Carry[0].A, c.opts.Carry[0].B)
	case kept.A.Format != c.a.format.Name || kept.B.Format != c.b.format.Name:
		return nil, Carry{}, fmt.Sprintf("the earlier pair's formats (%s, %s) are not these", kept.A.Format, kept.B.Format)
	case !slices.Equal(kept.Readers, c.rep.Readers):
		return nil, Carry{}, "the earlier proof was made with other readers"
	}
	for _, r := range []*Reader{c.a, c.b} {
		// A failure to load the statistics fails every snapshot's read:
		// such a catalog is walked whole.
		if err := r.statsFailure(c.ctx, Table{}); err != nil {
			return nil, Carry{}, "a reader of " + r.path + " fails on its statistics"
		}
	}
	if c.ctx.Err() != nil {
		return nil, Carry{}, "" // the walk returns the cancellation
	}
	// A delete file replaced on a side counts as the one it replaces
	// where it deletes the same positions at every earlier snapshot: a
	// proof compares what each side deletes there (describeFile), not
	// which file.
	throughA, whyA, err := c.a.restrictedTo(c.ctx, cr.A, sumA, true)
	if err != nil || whyA != "" {
		return nil, Carry{}, fmt.Sprintf("A restricted to %s: %s", cr.A, orErr(whyA, err))
	}
	throughB, whyB, err := c.b.restrictedTo(c.ctx, cr.B, sumB, true)
	if err != nil || whyB != "" {
		return nil, Carry{}, fmt.Sprintf("B restricted to %s: %s", cr.B, orErr(whyB, err))
	}
	proved := map[int64]bool{}
	for _, s := range kept.Snapshots {
		proved[s] = true
	}
	out := map[int64]bool{}
	for _, s := range common {
		// The latest snapshots are always walked: what is checked there
		// only (count(*), delete_count) depends on the whole catalog.
		if proved[s] && s <= min(throughA, throughB) && s != c.lastA && s != c.lastB {
			out[s] = true
		}
	}
	if len(out) == 0 {
		return nil, Carry{}, "no snapshot to carry"
	}
	// What the earlier walk left out of the comparison (expression
	// defaults) is left out of this one's too.
	for _, n := range kept.NotCompared {
		if !slices.Contains(c.rep.NotCompared, n) {
			c.rep.NotCompared = append(c.rep.NotCompared, n)
		}
	}
	return out, cr, ""
}

func orErr(why string, err error) string {
	if err != nil {
		return err.Error()
	}
	return why
}

// restriction is an answer of restrictedEqual.
type restriction struct {
	through int64
	why     string
}

// restrictedTo is restrictedEqual for the reader's catalog, once per
// earlier catalog's bytes (sum: their sha256) and replaced. With replaced,
// a delete file row the later catalog replaced one for one (replacement)
// counts as the earlier one where the format's readers delete the same
// positions with both files at every snapshot through the earlier
// catalog's last (sameDeletes).
func (r *Reader) restrictedTo(ctx context.Context, earlier, sum string, replaced bool) (through int64, why string, err error) {
	key := sum
	if replaced {
		key += " replaced"
	}
	if got, ok := r.restricted[key]; ok {
		return got.through, got.why, nil
	}
	through, why, pairs, err := restrictedEqual(ctx, r.conn, earlier, r.catalogView(true), replaced)
	if err != nil {
		return 0, "", err
	}
	if why == "" && len(pairs) > 0 {
		if why, err = r.sameDeletes(ctx, through, pairs); err != nil {
			return 0, "", err
		}
	}
	if r.restricted == nil {
		r.restricted = map[string]restriction{}
	}
	r.restricted[key] = restriction{through, why}
	return through, why, nil
}

// catView is what a Reader knows of its catalog (attached as cat) that
// restrictedEqual needs: every table's columns, the tables its readers read
// as inlined (isInlinedName, registeredTables), and, with emptyKnown, the
// tables known to hold no row.
type catView struct {
	cols    map[string][]column
	inlined func(table string) bool
	empty   func(table string) bool
}

// catalogView is the reader's catView (emptyKnown false: no table is taken
// for empty).
func (r *Reader) catalogView(emptyKnown bool) catView {
	cols := map[string][]column{}
	for _, tables := range []map[string][]string{r.layout, r.dynamic} {
		for t, names := range tables {
			cs := make([]column, len(names))
			for i, n := range names {
				cs[i] = column{n, r.columnTypes[[2]string{t, n}]}
			}
			cols[t] = cs
		}
	}
	v := catView{cols: cols, inlined: func(t string) bool { _, ok := r.dynamic[t]; return ok }, empty: func(string) bool { return false }}
	if emptyKnown {
		// For a table of the catalog, empty is "counted, no row".
		v.empty = r.empty
	}
	return v
}

// restrictedEqual attaches the earlier catalog at path on conn (whose
// catalog is attached as cat) and says whether cat restricted to its
// snapshots is that catalog, row for row (restriction): through is the
// earlier catalog's last snapshot, why is "" when it is, else the first
// table that is not and how. Each table's rows are compared as a multiset
// by their digest (the proof's row hashes, rowHashes): the earlier
// catalog's rows against the later one's rows less those hidden at the
// earlier snapshots. With replaced, the delete file rows the later catalog
// replaced one for one (replacements) are left out of both, and returned
// as pairs for the caller to prove (Reader.sameDeletes).
func restrictedEqual(ctx context.Context, conn *sql.Conn, path string, cat catView, replaced bool) (through int64, why string, pairs []replacement, err error) {
	through, why, pairs, err = restrictedEqualOn(ctx, conn, path, cat, replaced)
	if why != "" {
		pairs = nil
	}
	return through, why, pairs, err
}

// restrictedEqualOn is restrictedEqual, its pairs returned whatever its
// answer.
func restrictedEqualOn(ctx context.Context, conn *sql.Conn, path string, cat catView, replaced bool) (through int64, why string, pairs []replacement, err error) {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS carry (READ_ONLY)", sqlString(path))); err != nil {
		return 0, "", nil, fmt.Errorf("attach %s: %w", oneline.Name(path), err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH carry") //nolint:errcheck // a failed detach leaves an attached read-only file, released with the connection
	cols := map[string]map[string][]column{"cat": cat.cols}
	if cols["carry"], err = tableColumns(ctx, conn, "carry"); err != nil {
		return 0, "", nil, fmt.Errorf("read the tables of %s: %w", oneline.Name(path), err)
	}
	inlined, empty := cat.inlined, cat.empty
	if err := conn.QueryRowContext(ctx, "SELECT max(snapshot_id) FROM carry.ducklake_snapshot").Scan(&through); err != nil {
		return 0, "", nil, fmt.Errorf("read the last snapshot of %s: %w", oneline.Name(path), err)
	}
	for t := range cols["carry"] {
		if _, ok := cols["cat"][t]; !ok && !slices.Contains(wholeCatalog, t) {
			return through, "table " + t + " is gone", nil, nil
		}
	}
	for t := range cols["cat"] {
		if _, ok := cols["carry"][t]; !ok && inlined(t) {
			// A reader of the earlier snapshots may read it by its name
			// (an inlined data table registered there, an inlined
			// deletion table), whatever its rows.
			return through, "inlined table " + t + " is new", nil, nil
		}
	}
	if replaced {
		if pairs, err = replacements(ctx, conn, cols["carry"][deleteFileTable], cols["cat"][deleteFileTable], through); err != nil {
			return 0, "", nil, fmt.Errorf("compare the delete files of %s: %w", oneline.Name(path), err)
		}
	}
	var parts []string
	for _, t := range slices.Sorted(maps.Keys(cols["cat"])) {
		if slices.Contains(wholeCatalog, t) {
			continue
		}
		if old, inOld := cols["carry"][t]; empty(t) && inOld && slices.Equal(old, cols["cat"][t]) {
			// No row in cat: the earlier catalog must have none either
			// (most of a catalog's tables; their digests cost planning).
			// Its columns still count (readers fail on an inlined table
			// without a system column): other columns take the full check.
			parts = append(parts, fmt.Sprintf("SELECT %s, (SELECT count(*) FROM carry.%s), 0::UBIGINT, 0::UBIGINT, 0, 0::UBIGINT, 0::UBIGINT", sqlString(t), ident(t)))
			continue
		}
		var skip []replacement
		if t == deleteFileTable {
			skip = pairs
		}
		q, why, err := restrictionQuery(t, cols["carry"], cols["cat"][t], through, inlined(t), skip)
		if err != nil || why != "" {
			return through, why, nil, err
		}
		parts = append(parts, q)
	}
	for _, l := range lookups {
		q, err := lookupQuery(l.name, l.query, l.cols, l.needs, cols)
		if err != nil {
			return 0, "", nil, err
		}
		if q != "" {
			parts = append(parts, q)
		}
	}
	rows, err := conn.QueryContext(ctx, strings.Join(parts, " UNION ALL "))
	if err != nil {
		return 0, "", nil, fmt.Errorf("compare with %s: %w", oneline.Name(path), err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var earlier, later Digest
		if err := rows.Scan(&t, &earlier.Rows, &earlier.Hi, &earlier.Lo, &later.Rows, &later.Hi, &later.Lo); err != nil {
			return 0, "", nil, fmt.Errorf("compare with %s: %w", oneline.Name(path), err)
		}
		if earlier != later {
			return through, fmt.Sprintf("%s: the rows visible at its snapshots differ (earlier %s, now %s)", t, earlier, later), nil, nil
		}
	}
	return through, "", pairs, rows.Err()
}

// column is a table column's name and DuckDB type.
type column struct{ name, typ string }

// restrictionQuery is one row (table, digest of the earlier catalog's
// rows, digest of cat's rows not hidden at its snapshots) for table t of
// cat, with its columns cols; why says why t cannot be compared so. The
// delete files of skip (replacements of ducklake_delete_file) are left out
// of both.
func restrictionQuery(t string, earlier map[string][]column, cols []column, through int64, inlined bool, skip []replacement) (q, why string, err error) {
	old, inOld := earlier[t]
	if inOld && !slices.Equal(old, cols) {
		return "", fmt.Sprintf("table %s has other columns than in the earlier catalog", t), nil
	}
	has := map[string]bool{}
	for _, c := range cols {
		has[c.name] = true
	}
	// Which rows of cat no reader of the earlier snapshots sees, and
	// whether end_snapshot is the snapshot a row ended at.
	hidden, ends := "false", has["end_snapshot"]
	switch {
	case inlined || t == "ducklake_inlined_data_tables":
		// Inlined tables: their system columns are named by the format
		// (a user column may be named begin_snapshot), and readers read
		// every registration whatever its schema version: equal, or walk
		// whole (a frozen catalog holds no inlined rows anyway).
		ends = false
	case has["begin_snapshot"]:
		hidden = fmt.Sprintf("begin_snapshot > %d", through)
	case has["snapshot_id"]:
		hidden = fmt.Sprintf("snapshot_id > %d", through)
	default:
		for _, o := range owners {
			if !has[o.column] {
				continue
			}
			// Its owner is new: neither the earlier catalog's owner table
			// nor this table there has it.
			hidden = o.column + " IS NOT NULL"
			for _, in := range []string{o.table, t} {
				if slices.ContainsFunc(earlier[in], func(c column) bool { return c.name == o.column }) {
					hidden += fmt.Sprintf(" AND NOT EXISTS (SELECT 1 FROM carry.%s e WHERE e.%s = n.%s)", ident(in), ident(o.column), ident(o.column))
				}
			}
			break
		}
	}
	names, types, sel := make([]string, len(cols)), make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i], sel[i] = c.name, c.typ, ident(c.name)
		if c.name == "end_snapshot" && ends {
			// Ended after the earlier catalog's last snapshot: open then.
			sel[i] = fmt.Sprintf("CASE WHEN end_snapshot > %d THEN NULL ELSE end_snapshot END AS end_snapshot", through)
		}
	}
	list := strings.Join(sel, ", ")
	earlierRows := "SELECT " + list + " FROM carry." + ident(t)
	if !inOld {
		// A table the earlier catalog has not: none of its rows.
		earlierRows = "SELECT " + list + " FROM cat." + ident(t) + " WHERE false"
	}
	laterRows := fmt.Sprintf("SELECT %s FROM cat.%s n WHERE NOT coalesce(%s, false)", list, ident(t), hidden)
	if len(skip) > 0 && inOld {
		olds, news := make([]string, len(skip)), make([]string, len(skip))
		for i, p := range skip {
			olds[i], news[i] = fmt.Sprint(p.oldID), fmt.Sprint(p.newID)
		}
		earlierRows += " WHERE delete_file_id NOT IN (" + strings.Join(olds, ", ") + ")"
		laterRows += " AND n.delete_file_id NOT IN (" + strings.Join(news, ", ") + ")"
	}
	dq := make([]string, 2)
	for i, rq := range []string{earlierRows, laterRows} {
		if dq[i], err = digestSQL(rq, names, types); err != nil {
			return "", "", fmt.Errorf("table %s: %w", t, err)
		}
	}
	return fmt.Sprintf("SELECT %s, e.*, l.* FROM (%s) e, (%s) l", sqlString(t), dq[0], dq[1]), "", nil
}

// lookupQuery is one row (name, digest of the lookup's answer in the
// earlier catalog, in cat) of a lookup; "" when a catalog lacks what it
// reads (then neither reader reads it).
func lookupQuery(name, query string, cols []column, needs [][2]string, tables map[string]map[string][]column) (string, error) {
	for _, n := range needs {
		for _, db := range []string{"carry", "cat"} {
			if !slices.ContainsFunc(tables[db][n[0]], func(c column) bool { return c.name == n[1] }) {
				return "", nil
			}
		}
	}
	names, types := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i] = c.name, c.typ
	}
	dq := make([]string, 2)
	for i, db := range []string{"carry", "cat"} {
		var err error
		if dq[i], err = digestSQL(fmt.Sprintf(query, db), names, types); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
	}
	return fmt.Sprintf("SELECT %s, e.*, l.* FROM (%s) e, (%s) l", sqlString(name), dq[0], dq[1]), nil
}

// tableColumns lists the columns of every table and view of database db's
// main schema, in order (as Reader.init reads its own catalog's).
func tableColumns(ctx context.Context, conn *sql.Conn, db string) (map[string][]column, error) {
	rows, err := conn.QueryContext(ctx, `SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' ORDER BY table_name, column_index`, db)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]column{}
	for rows.Next() {
		var t string
		var c column
		if err := rows.Scan(&t, &c.name, &c.typ); err != nil {
			return nil, err
		}
		out[t] = append(out[t], c)
	}
	return out, rows.Err()
}

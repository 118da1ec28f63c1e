package compare

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// This file applies the model of a format's real reader (formats.ReaderQuirk,
// declared beside each format) to what the reader returns: rows a real
// reader of that format returns differently, and tables it cannot read.

// UnreadableError says that the real reader of the catalog's format fails
// on a table (a modelled quirk). It does not wrap ErrIncomparable: the
// comparison goes on and reports the table as a difference of kind
// "unreadable".
type UnreadableError struct {
	Format string
	Quirk  formats.QuirkInfo
	Table  string
	Detail string
}

func (e *UnreadableError) Error() string {
	msg := fmt.Sprintf("format %s readers cannot read %s (%s): %s", e.Format, e.Table, e.Quirk.Name, e.Detail)
	if e.Quirk.Error != "" {
		msg += "; they fail with " + strconv.Quote(e.Quirk.Error+"...")
	}
	return msg
}

// AsUnreadable returns the UnreadableError in err's chain, if any.
func AsUnreadable(err error) (*UnreadableError, bool) {
	var u *UnreadableError
	ok := errors.As(err, &u)
	return u, ok
}

func (r *Reader) unreadable(q formats.ReaderQuirk, t Table, format string, args ...any) error {
	return &UnreadableError{Format: r.format.Name, Quirk: q.Info(), Table: t.FullName(), Detail: fmt.Sprintf(format, args...)}
}

// statsFailure applies QuirkTableStatsNeedColumnStats: the reader loads the
// statistics of every table at once, and a table_stats row without column
// stats fails that load, whichever table is read. Checked once per reader.
func (r *Reader) statsFailure(ctx context.Context, t Table) error {
	if !r.format.ReadsWith(formats.QuirkTableStatsNeedColumnStats) {
		return nil
	}
	ids, err := r.tablesWithoutColumnStats(ctx)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return nil
	}
	return r.unreadable(formats.QuirkTableStatsNeedColumnStats, t, "ducklake_table_stats has rows without column statistics for table id(s) %s", int64Text(ids))
}

// tablesWithoutColumnStats lists the tables with a ducklake_table_stats row
// (record_count and file_size_bytes set) but no ducklake_table_column_stats
// row: what QuirkTableStatsNeedColumnStats readers fail on. Read once per
// reader (the statistics comparison asks too, and a Source's reader serves
// several proofs).
func (r *Reader) tablesWithoutColumnStats(ctx context.Context) ([]int64, error) {
	if r.statsChecked {
		return r.statsBadTables, nil
	}
	var ids []int64
	if _, ok := r.layout["ducklake_table_column_stats"]; ok && !r.empty("ducklake_table_stats") {
		var err error
		ids, err = r.int64s(ctx, `SELECT s.table_id FROM cat.ducklake_table_stats s WHERE `+formats.TableStatsWithoutColumnStatsSQL("cat.")+` ORDER BY 1`)
		if err != nil {
			return nil, fmt.Errorf("read table statistics of %s: %w", oneline.Name(r.path), err)
		}
	}
	r.statsChecked, r.statsBadTables = true, ids
	return ids, nil
}

// tableStatsKey is the statistics comparison's key of a table's
// ducklake_table_stats row (addStatsEntry).
func tableStatsKey(label string, id int64) string {
	return label + " table_id=" + strconv.Quote(strconv.FormatInt(id, 10))
}

// dropUnreadableTableStats removes from the statistics comparison the
// ducklake_table_stats rows of tables without column statistics that a
// catalog lacks because its format's readers, or its first releases
// (formats.Version.EarlyQuirks: 1.0, DuckDB 1.5.2 and 1.5.3), fail on them
// (QuirkTableStatsNeedColumnStats: convert --allow-lossy table-stats for
// 0.1-0.4, always for 1.0); they change no answer of the other readers and
// are reported as not compared.
func (c *comparison) dropUnreadableTableStats(label string, ea, eb entries) error {
	q := formats.QuirkTableStatsNeedColumnStats
	for _, side := range []struct {
		has, lacks                *Reader
		hasE, lacksE              entries
		hasName, lacksName, label string
	}{{c.a, c.b, ea, eb, "A", "B", label}, {c.b, c.a, eb, ea, "B", "A", label}} {
		early := !side.lacks.format.ReadsWith(q) && side.lacks.format.EarlyReadsWith(q)
		if (!side.lacks.format.ReadsWith(q) && !early) || side.has.format.ReadsWith(q) {
			continue
		}
		ids, err := side.has.tablesWithoutColumnStats(c.ctx)
		if err != nil {
			return c.mark(side.has, err)
		}
		who := "whose format's readers fail on it"
		if early {
			who = "whose format's first releases fail on it and whose readers' answers do not depend on it"
		}
		for _, id := range ids {
			k := tableStatsKey(label, id)
			if _, ok := side.lacksE[k]; ok {
				continue
			}
			if _, ok := side.hasE[k]; ok {
				delete(side.hasE, k)
				c.rep.NotCompared = append(c.rep.NotCompared, fmt.Sprintf("%s of table %d: absent from %s, %s (%s)",
					label, id, side.lacksName, who, q.Info().Name))
			}
		}
	}
	return nil
}

// earlyTableStats holds B to formats.Version.EarlyQuirks for
// QuirkTableStatsNeedColumnStats: a ducklake_table_stats row of a table
// without column statistics in a B whose format's first releases fail on it
// (1.0: DuckDB 1.5.2 and 1.5.3 fail to read any table of the catalog) is a
// `stats` difference naming the table, unless A, in a format whose readers
// are the same, holds it too. One-sided, as fileColumnStats: a native 1.0
// A with such rows (its writer's, DuckDB 1.5.4+'s, which read it) proves
// equal to its 1.1 conversion; what this tool writes as 1.0 never has one
// (convert drops them). The rows are then left out of the plain comparison.
func (c *comparison) earlyTableStats(label string, ea, eb entries) error {
	q := formats.QuirkTableStatsNeedColumnStats
	if c.b.format.ReadsWith(q) || !c.b.format.EarlyReadsWith(q) {
		return nil
	}
	// B's are read first (A's only when A is in B's format): a failure
	// of B's read is both catalogs' when A's same read fails too.
	ids, err := c.b.tablesWithoutColumnStats(c.ctx)
	if err != nil || len(ids) == 0 {
		return bThenA(err, func() error {
			_, err := c.a.tablesWithoutColumnStats(c.ctx)
			return err
		})
	}
	var alsoA []int64
	if c.a.format.Name == c.b.format.Name {
		if alsoA, err = c.a.tablesWithoutColumnStats(c.ctx); err != nil {
			return markA(err)
		}
	}
	names, err := c.bTableNames()
	if err != nil {
		return err
	}
	for _, id := range ids {
		k := tableStatsKey(label, id)
		if slices.Contains(alsoA, id) {
			continue
		}
		table := names[id]
		if table == "" {
			table = "table id " + strconv.FormatInt(id, 10)
		}
		av, ok := ea[k]
		why := "A has none"
		switch {
		case !ok:
			av = "no row"
		case c.a.format.Name != c.b.format.Name:
			why = "A is format " + c.rep.A.Format + ", whose readers read it"
		default:
			why = "A has column statistics for the table"
		}
		c.add(Difference{Kind: "stats", Table: table, Item: k, A: av, B: eb[k] + " (no ducklake_table_column_stats row)",
			Reason: fmt.Sprintf("catalog B (format %s) holds a %s row for %s (table id %d) without any ducklake_table_column_stats row: %s, format %s readers, fail to read any table of B (%s), and convert to %s drops such rows; %s",
				c.rep.B.Format, label, oneline.Name(table), id, c.b.format.EarlyReleases(q), c.rep.B.Format, q.Info().Name, c.rep.B.Format, why)})
		delete(ea, k)
		delete(eb, k)
	}
	return nil
}

// TablesWithFailingStats names the tables (schema.table, table id) whose
// ducklake_table_stats row has no ducklake_table_column_stats row, where
// some release of the catalog's format fails to read any table of a
// catalog holding one (formats.QuirkTableStatsNeedColumnStats, in the
// format's quirks or its first releases'); nil where none does. check
// warns of them in a frozen catalog, which this tool did not write.
func (r *Reader) TablesWithFailingStats(ctx context.Context) ([]string, error) {
	q := formats.QuirkTableStatsNeedColumnStats
	if r.format == nil || (!r.format.ReadsWith(q) && !r.format.EarlyReadsWith(q)) {
		return nil, nil
	}
	ids, err := r.tablesWithoutColumnStats(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	names, err := r.tableNames(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tableLabel(names, id)
	}
	return out, nil
}

// tableLabel names a table for check's warnings by its tableNames entry:
// "schema.table (table id N)", or "table id N" where it has no name.
func tableLabel(names map[int64]string, id int64) string {
	if n := names[id]; n != "" {
		return fmt.Sprintf("%s (table id %d)", n, id)
	}
	return fmt.Sprintf("table id %d", id)
}

func int64Text(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ", ")
}

// hiveValue takes a partition column's value from the Hive folder
// name=value of a data file path (§5.4, is_partition), found as DuckDB
// finds it (formats.HivePartitionValue: a folder, not the file name, not
// one with two '='; the first of a key): URL-decoded, and NULL where
// DuckDB's Hive reading takes it so (formats.HiveValueNull:
// __HIVE_DEFAULT_PARTITION__, "NULL" in any case, an empty non-VARCHAR
// value), except for readers with QuirkHiveValuesRaw, which cast the raw
// text (and fail where it does not cast). A path without such a folder
// fails every reader (refusedHiveKeyMissing).
func (r *Reader) hiveValue(ctx context.Context, t Table, path, name string, c *Column) (string, error) {
	dt, err := c.DuckType()
	if err != nil {
		return "", err
	}
	v, ok := formats.HivePartitionValue(path, name)
	if !ok {
		return "", r.refused(refusedHiveKeyMissing, t, "Column %q should have been read from hive partitions - but it was not found in filename %q (partition column %s)", name, path, c.Name)
	}
	if !r.readsWith(formats.QuirkHiveValuesRaw) {
		if formats.HiveValueNull(v, dt == "VARCHAR") {
			return "CAST(NULL AS " + dt + ")", nil
		}
		return "CAST(url_decode(" + sqlString(v) + ") AS " + dt + ")", nil
	}
	e := "CAST(" + sqlString(v) + " AS " + dt + ")"
	var casts bool
	if err := r.conn.QueryRowContext(ctx, "SELECT TRY_CAST("+sqlString(v)+" AS "+dt+") IS NOT NULL").Scan(&casts); err != nil {
		return "", fmt.Errorf("partition column %s: cast %q to %s: %w", c.Name, v, dt, err)
	}
	if !casts {
		return "", r.unreadable(formats.QuirkHiveValuesRaw, t, "partition column %s (%s) of %s: the path value %q does not cast", c.Name, dt, path, v)
	}
	return e, nil
}

// timetzDefault is the TIMETZ initial default as the reader returns it:
// the literal's wall-clock time and offset (DuckDB keeps the offset in the
// value: '12:34:56+02' is not '10:34:56+00'), or, with
// QuirkTimeTZDefaultOffset, the wall-clock time at +00 (offset dropped),
// in one written form. A literal that does not parse is returned
// unchanged (its cast fails in the read, as the reader's does).
func timetzDefault(lit string, dropOffset bool) string {
	t, ok := formats.ParseTimeTZ(lit)
	if !ok {
		return lit
	}
	if dropOffset {
		t = t.DropOffset()
	}
	return t.String()
}

// readDefault is a column's initial default as the catalog's reader
// returns it, as text (nil: none). A column with fields has none, whatever
// its initial_default says: every reader takes one only for a column
// without fields (TransformColumnType, src/storage/ducklake_catalog.cpp, in
// v1.3-ossivalis, v1.4-andium, v1.5-variegata and main), so a struct, list
// or map missing from a file reads NULL (its fields' defaults apply only
// where the file has it).
func (c *Column) readDefault() *string {
	if len(c.Children) > 0 {
		return nil
	}
	if c.InitialDefault == nil || !formats.TypeIs(c.Type, "timetz") {
		return c.InitialDefault
	}
	v := timetzDefault(*c.InitialDefault, c.quirks&formats.QuirkTimeTZDefaultOffset != 0)
	return &v
}

package compare

import (
	"fmt"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// quirkReadings tells how the catalog's readers read the behaviour q: with
// it, without it, or both where the releases of its format differ (0.4's
// DuckDB 1.5.0 and 1.5.1). A proof's source is read by the newest release
// of its format only (formats.Version.ReadsAsSourceWith).
func (r *Reader) quirkReadings(q formats.ReaderQuirk) (with, without bool) {
	if r.asSource {
		w := r.format.ReadsAsSourceWith(q)
		return w, !w
	}
	a, b := r.format.ReadsWith(q), r.format.ReadsAsSourceWith(q)
	return a || b, !a || !b
}

// hiveTZReading says how a catalog's readers cast a Hive value without a
// UTC offset (formats.QuirkHiveTimeZoneValuesUTC).
func hiveTZReading(format string, with, without bool) string {
	switch {
	case with && without:
		return fmt.Sprintf("format %s readers read it both as UTC (DuckDB 1.5.0) and in the session's TimeZone (DuckDB 1.5.1)", format)
	case with:
		return fmt.Sprintf("format %s readers read it as UTC whatever the session's TimeZone", format)
	}
	return fmt.Sprintf("format %s readers read it in the session's TimeZone (DuckDB's default: the machine's local zone)", format)
}

// hiveTimeZoneValues applies formats.QuirkHiveTimeZoneValuesUTC: the proof
// reads in TimeZone UTC, where both casts of a TIMESTAMPTZ or TIMETZ Hive
// value without a UTC offset give the same value, but in any other session
// a reader that casts in the session's zone returns another instant (or
// offset) than one that reads it as UTC. Where the two catalogs' readers do
// not all read such values one way, each data file visible in either
// catalog with such a value of a top-level partition column (of a type the
// column has while the file is visible) is a `rows` difference naming the
// table, the file, the column and the value, at the first snapshot at which
// the file and that type of the column are visible.
func (c *comparison) hiveTimeZoneValues() error {
	q := formats.QuirkHiveTimeZoneValuesUTC
	wa, woa := c.a.quirkReadings(q)
	wb, wob := c.b.quirkReadings(q)
	if !((wa || wb) && (woa || wob)) {
		return nil // every reader of both reads them one way
	}
	why := hiveTZReading(c.rep.A.Format, wa, woa) + "; " + hiveTZReading(c.rep.B.Format, wb, wob)
	seen := map[string]bool{}
	for _, side := range []struct {
		name string
		r    *Reader
	}{{"A", c.a}, {"B", c.b}} {
		vals, err := side.r.hiveTimeZoneValues(c)
		if err != nil && side.name == "B" {
			// A's values were read, its table names perhaps not (only
			// for a value): B's failure is both catalogs' when A's
			// names cannot be read either.
			return bThenA(err, func() error {
				_, err := c.a.tableNames(c.ctx)
				return err
			})
		}
		if err != nil {
			return c.mark(side.r, err)
		}
		for _, v := range vals {
			k := v.table + "\x00" + v.file + "\x00" + v.column + "\x00" + v.value
			if seen[k] {
				continue
			}
			seen[k] = true
			c.add(Difference{Kind: "rows", Snapshot: ptr(v.first), Table: v.table, Item: v.file,
				Reason: fmt.Sprintf("data file %s takes partition column %s (%s) from the Hive value %s, which has no UTC offset: %s (%s)",
					oneline.Name(v.file), oneline.Name(v.column), v.typ, oneline.Name(v.value), why, q.Info().Name)})
		}
	}
	return nil
}

// hiveTZValue is one Hive partition value without a UTC offset of a
// TIMESTAMPTZ or TIMETZ column (hiveTimeZoneValues).
type hiveTZValue struct {
	table, file, column, typ, value string
	first                           int64
}

// hiveTimeZoneValues lists the catalog's data files that take a TIMESTAMPTZ
// or TIMETZ top-level column from a Hive path value without a UTC offset
// (formats.HiveValueHasOffset; values the decoding readers read as NULL
// are left to the hive-values-cast-raw model), with the first snapshot at
// which the file and that type of the column are visible together.
func (r *Reader) hiveTimeZoneValues(c *comparison) ([]hiveTZValue, error) {
	if !r.has("ducklake_name_mapping", "is_partition") || !r.has("ducklake_data_file", "mapping_id") || r.empty("ducklake_name_mapping") {
		return nil, nil // no name mapping: the join below has no row
	}
	rows, err := r.conn.QueryContext(c.ctx, `SELECT f.table_id, f.path, n.source_name, c.column_name, lower(trim(c.column_type)), min(greatest(f.begin_snapshot, c.begin_snapshot))
		FROM cat.ducklake_data_file f JOIN cat.ducklake_name_mapping n ON n.mapping_id = f.mapping_id AND n.is_partition AND n.parent_column IS NULL
		JOIN cat.ducklake_column c ON c.table_id = f.table_id AND c.column_id = n.target_field_id AND c.parent_column IS NULL
			AND c.begin_snapshot < coalesce(f.end_snapshot, 9223372036854775807) AND f.begin_snapshot < coalesce(c.end_snapshot, 9223372036854775807)
		WHERE lower(trim(c.column_type)) IN `+formats.HiveTimeZoneTypesSQL+`
		GROUP BY ALL ORDER BY 6, 2, 4`)
	if err != nil {
		return nil, fmt.Errorf("read Hive partition values of %s: %w", oneline.Name(r.path), err)
	}
	defer rows.Close()
	type row struct {
		table                   int64
		path, source, name, typ string
		first                   int64
	}
	var found []row
	for rows.Next() {
		var x row
		if err := rows.Scan(&x.table, &x.path, &x.source, &x.name, &x.typ, &x.first); err != nil {
			return nil, fmt.Errorf("read Hive partition values of %s: %w", oneline.Name(r.path), err)
		}
		found = append(found, x)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read Hive partition values of %s: %w", oneline.Name(r.path), err)
	}
	var names map[int64]string
	var out []hiveTZValue
	for _, x := range found {
		for _, seg := range formats.HiveTimeZoneValues(x.path, x.source) {
			if names == nil {
				if names, err = r.tableNames(c.ctx); err != nil {
					return nil, err
				}
			}
			table := names[x.table]
			if table == "" {
				table = fmt.Sprintf("table id %d", x.table)
			}
			out = append(out, hiveTZValue{table: table, file: r.relPath(x.path), column: x.name, typ: x.typ, value: seg, first: x.first})
		}
	}
	return out, nil
}

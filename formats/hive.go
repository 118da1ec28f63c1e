package formats

import (
	"net/url"
	"regexp"
	"strings"
)

// HiveDefaultPartition is the Hive path value writers give a NULL
// partition value.
const HiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// HiveValueNull tells whether a Hive partition value taken from a path
// (name=value) reads as NULL where DuckDB reads it with
// HivePartitioning::GetValue (DuckLake from DuckDB 1.5.1; its readers
// without QuirkHiveValuesRaw): the default partition, "NULL" in any letter
// case, and an empty value of a column that is not a VARCHAR (checked with
// DuckDB 1.5.6's hive_partitioning reads, which take the same function).
func HiveValueNull(v string, varchar bool) bool {
	return v == HiveDefaultPartition || strings.EqualFold(v, "NULL") || (v == "" && !varchar)
}

// HivePartitionValue is the value of the Hive partition key in a data
// file's path as DuckDB's HivePartitioning::Parse finds it (hiveFolders),
// which every DuckLake reader takes a name mapping's is_partition column
// from (MapColumns in src/storage/ducklake_multi_file_reader.cpp,
// v1.4-andium, v1.5-variegata and main: Parse(file.path), then a find by
// source_name, case-sensitive): of two folders of the key the first wins
// (Parse inserts into a std::map). ok is false where the path has no
// folder of the key (the file name is none): every reader then fails
// ("should have been read from hive partitions - but it was not found in
// filename").
func HivePartitionValue(path, key string) (value string, ok bool) {
	hiveFolders(path, func(k, v string) bool {
		if k == key {
			value, ok = v, true
		}
		return !ok
	})
	return value, ok
}

// hiveFolders calls yield with each folder key=value of path, in order,
// as DuckDB's HivePartitioning::Parse (src/common/hive_partitioning.cpp,
// the same function from DuckDB 1.3.0 to main) finds them, until yield
// returns false: a folder is a text ended by a separator, '/' or '\\', so
// the file name never is one; its key is the text before its '=', not
// empty; a folder with a second '=' (after a first that is not its first
// character), or with a '?' or a newline, is none.
func hiveFolders(path string, yield func(key, value string) bool) {
	start, eq, candidate := 0, -1, true
	for c := 0; c < len(path); c++ {
		switch path[c] {
		case '?', '\n':
			candidate = false
		}
		switch path[c] {
		case '/', '\\':
			if candidate && eq > start && !yield(path[start:eq], path[eq+1:c]) {
				return
			}
			start, eq, candidate = c+1, -1, true
		case '=':
			if eq > start {
				candidate = false
			}
			eq = c
		}
	}
}

// HiveValueReadRawAlike tells whether a reader that casts the raw path text
// (QuirkHiveValuesRaw) reads the value v of a column as one that decodes it
// does: nothing to URL-decode, and not a value the decoding reader reads
// as NULL. Without the column's type (varchar unknown), an empty value is
// taken to differ.
func HiveValueReadRawAlike(v string, varchar bool) bool {
	d, err := url.PathUnescape(v)
	return err == nil && d == v && !HiveValueNull(v, varchar)
}

// hiveTimeZoneTypes are the DuckLake column types (as stored in
// ducklake_column.column_type, lower-cased and trimmed) whose Hive
// partition values DuckDB casts in the session's TimeZone when ICU's casts
// are used (QuirkHiveTimeZoneValuesUTC): TIMESTAMPTZ and TIMETZ.
var hiveTimeZoneTypes = []string{"timestamptz", "timetz", "timestamp with time zone", "time with time zone"}

// HiveTimeZoneTypesSQL is hiveTimeZoneTypes as a SQL list, for
// lower(trim(column_type)) IN (...).
var HiveTimeZoneTypesSQL = "('" + strings.Join(hiveTimeZoneTypes, "', '") + "')"

// HiveTimeZoneValues lists the folders key=value of a data file's path
// (as ducklake_data_file.path records it; the folders DuckDB's Hive parse
// takes, hiveFolders: not the file name, not a folder with two '=') for
// the Hive partition key key whose value a TIMESTAMPTZ or TIMETZ column
// reads differently by the session's TimeZone: no explicit UTC offset, and
// not a value the decoding readers read as NULL (left to
// QuirkHiveValuesRaw). Every such folder is listed, not only the first
// (the readers take the first of the whole path, whose folders above the
// catalog's are not known here).
func HiveTimeZoneValues(path, key string) []string {
	var out []string
	hiveFolders(path, func(k, v string) bool {
		if k == key && !HiveValueNull(v, false) && !HiveValueHasOffset(v) {
			out = append(out, k+"="+v)
		}
		return true
	})
	return out
}

// hiveOffset matches the end of a time with an explicit UTC offset, as
// DuckDB's parser takes one after the time (Z, +hh, +hh:mm, +hhmm, and
// with seconds): 10:30:00+02, 10:30Z, 10:30:00.5-0530.
var hiveOffset = regexp.MustCompile(`(?i)\d:\d\d(:\d\d(\.\d*)?)?\s*(z|[+-]\d\d?(:?\d\d(:?\d\d)?)?)$`)

// HiveValueHasOffset tells whether a TIMESTAMPTZ or TIMETZ Hive partition
// value (its path text; URL-decoded first where it decodes) reads the same
// whatever the session's TimeZone: it carries an explicit UTC offset after
// its time, or is infinity/-infinity. A value without (a date alone, a
// time alone, a zone name) reads as UTC in DuckDB's core cast and in the
// session's zone in ICU's (QuirkHiveTimeZoneValuesUTC); values the
// decoding readers read as NULL (HiveValueNull) are not asked about here.
func HiveValueHasOffset(v string) bool {
	if d, err := url.PathUnescape(v); err == nil {
		v = d
	}
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "infinity", "-infinity", "+infinity":
		return true
	}
	return hiveOffset.MatchString(v)
}

package formats

import (
	"net/url"
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

// HiveValueReadRawAlike tells whether a reader that casts the raw path text
// (QuirkHiveValuesRaw) reads the value v of a column as one that decodes it
// does: nothing to URL-decode, and not a value the decoding reader reads
// as NULL. Without the column's type (varchar unknown), an empty value is
// taken to differ.
func HiveValueReadRawAlike(v string, varchar bool) bool {
	d, err := url.PathUnescape(v)
	return err == nil && d == v && !HiveValueNull(v, varchar)
}

package formats

import (
	"errors"
	"slices"
	"strings"
	"testing"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/internal/testduck"
)

func TestAllValid(t *testing.T) {
	if err := All.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestTableCounts(t *testing.T) {
	// ducklake-formats.md §2.1
	for _, tc := range []struct {
		name string
		want int
	}{{"0.1", 19}, {"0.2", 21}, {"0.3", 22}, {"0.4", 28}, {"1.0", 28}, {"1.1", 29}, {"1.1-dev1", 29}} {
		v, err := Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(v.Tables); got != tc.want {
			t.Errorf("format %s has %d tables, want %d", tc.name, got, tc.want)
		}
	}
}

func TestShapes(t *testing.T) {
	// Spot checks against the extension's creation scripts (ducklake-formats.md §2.2-2.4).
	for _, tc := range []struct {
		format, table, columns string
	}{
		{"0.3", "ducklake_data_file", "data_file_id table_id begin_snapshot end_snapshot file_order path path_is_relative file_format record_count file_size_bytes footer_size row_id_start partition_id encryption_key partial_file_info mapping_id"},
		{"1.0", "ducklake_data_file", "data_file_id table_id begin_snapshot end_snapshot file_order path path_is_relative file_format record_count file_size_bytes footer_size row_id_start partition_id encryption_key mapping_id partial_max"},
		{"1.1", "ducklake_delete_file", "delete_file_id table_id begin_snapshot end_snapshot data_file_id path path_is_relative format delete_count file_size_bytes footer_size encryption_key partial_max row_group_count"},
		{"0.4-dev1", "ducklake_data_file", "data_file_id table_id begin_snapshot end_snapshot file_order path path_is_relative file_format record_count file_size_bytes footer_size row_id_start partition_id encryption_key partial_file_info mapping_id partial_max"},
		{"0.1", "ducklake_metadata", "key value"},
		{"0.2", "ducklake_file_column_statistics", "data_file_id table_id column_id column_size_bytes value_count null_count min_value max_value contains_nan"},
		{"1.0", "ducklake_column", "column_id begin_snapshot end_snapshot table_id column_order column_name column_type initial_default default_value nulls_allowed parent_column default_value_type default_value_dialect"},
		{"0.3", "ducklake_schema_versions", "begin_snapshot schema_version"},
		{"1.0", "ducklake_schema_versions", "begin_snapshot schema_version table_id"},
	} {
		v, _ := Lookup(tc.format)
		tab, ok := v.Table(tc.table)
		if !ok {
			t.Errorf("format %s has no %s", tc.format, tc.table)
			continue
		}
		if got := strings.Join(tab.ColumnNames(), " "); got != tc.columns {
			t.Errorf("format %s %s:\n got  %s\n want %s", tc.format, tc.table, got, tc.columns)
		}
	}
}

func layoutOf(v *Version) Layout {
	l := Layout{}
	for _, t := range v.Tables {
		l[t.Name] = t.ColumnNames()
	}
	return l
}

func TestDetect(t *testing.T) {
	for _, v := range All.Releases() {
		got, err := Detect(v.Stamp, layoutOf(v))
		if err != nil || got != v {
			t.Errorf("Detect(%q, own layout) = %v, %v", v.Stamp, got, err)
		}
	}
	// 0.3-dev1 on the v1.3 branch: 0.2 plus commit info.
	l := layoutOf(V0_2)
	l["ducklake_snapshot_changes"] = append(l["ducklake_snapshot_changes"], "author", "commit_message", "commit_extra_info")
	if got, err := Detect("0.3-dev1", l); err != nil || got != V0_3Dev1 {
		t.Errorf("Detect(0.3-dev1 on 0.2 layout) = %v, %v", got, err)
	}
	// 1.1-dev1 stamped on the 1.0 layout (earliest builds).
	if got, err := Detect("1.1-dev1", layoutOf(V1_0)); err != nil || got != V1_1Dev1 {
		t.Errorf("Detect(1.1-dev1 on 1.0 layout) = %v, %v", got, err)
	}
	// A release stamp on the wrong layout.
	if _, err := Detect("1.0", layoutOf(V0_3)); !errors.Is(err, ErrInconsistentLayout) {
		t.Errorf("Detect(1.0 on 0.3 layout) error = %v, want ErrInconsistentLayout", err)
	}
	if _, err := Detect("1.7", layoutOf(V1_1)); !errors.Is(err, ErrTooNew) {
		t.Errorf("Detect(1.7) error = %v, want ErrTooNew", err)
	}
	if _, err := Detect("1", layoutOf(V1_1)); !errors.Is(err, ErrUnknownVersion) {
		t.Errorf("Detect(1) error = %v, want ErrUnknownVersion", err)
	}
}

func TestCapabilities(t *testing.T) {
	if V0_3.Has(CapMacros) || !V0_4.Has(CapMacros) {
		t.Error("macros arrive in 0.4")
	}
	if !V1_0.SupportsTransform("bucket(16)") || V0_4.SupportsTransform("bucket(16)") {
		t.Error("bucket(N) arrives in 1.0")
	}
	if V0_4.SupportsType("variant") != true || V0_3.SupportsType("variant") {
		t.Error("variant arrives in 0.4")
	}
	for _, tc := range []struct {
		typ  string
		want bool
	}{
		{"decimal(18,3)", true}, {"decimal(18, 3)", true}, {"INT64", true}, {"Struct", true},
		// DuckLake's parser: decimal( is case-sensitive, nothing is trimmed.
		{"DECIMAL(18,3)", false}, {" int64 ", false}, {"int64 ", false}, {"decimal", false},
		{"decimal(18)", false}, {"decimal(39,2)", false}, {"decimal(4,5)", false}, {"decimal(x,1)", false},
		// StringUtil::CIEquals folds ASCII letters only: U+017F (long s)
		// and U+212A (Kelvin sign) are not "s" and "k" to DuckDB.
		{"timeſtamp", false}, {"ſtruct", false}, {"TIMESTAMP", true},
	} {
		if got := V0_3.SupportsType(tc.typ); got != tc.want {
			t.Errorf("V0_3.SupportsType(%q) = %t, want %t", tc.typ, got, tc.want)
		}
	}
}

func TestReaderOf(t *testing.T) {
	for _, tc := range []struct{ duckdb, want string }{
		{"1.3.0", "0.1"}, {"1.3.2", "0.2"}, {"1.4.3", "0.3"}, {"1.5.1", "0.4"}, {"1.5.2", "1.0"}, {"1.5.6", "1.0"}, {"2.0.0", "1.1"},
	} {
		v, err := ReaderOf(tc.duckdb)
		if err != nil || v.Name != tc.want {
			t.Errorf("ReaderOf(%s) = %v, %v, want %s", tc.duckdb, v, err, tc.want)
		}
	}
}

// TestInlinedSchemaSourceOf: the lookup the converter and the proof both
// take for an inlined table read at another schema version: a catalog
// written as 0.3 as DuckDB 1.4.0 reads it (snapshot 0), a 0.3 source as
// DuckDB 1.4.5 does (the table's first snapshot).
func TestInlinedSchemaSourceOf(t *testing.T) {
	for _, tc := range []struct {
		v              *Version
		withRow, noRow InlinedSchemaSource
	}{
		{V0_1, InlinedSchemaFromSnapshotZero, InlinedSchemaFromSnapshotZero},
		{V0_2, InlinedSchemaFromSnapshotZero, InlinedSchemaFromSnapshotZero},
		{V0_3, InlinedSchemaFromSnapshotZero, InlinedSchemaFromSnapshotZero},
		{V0_4, InlinedSchemaFromFirstSnapshot, InlinedSchemaFromFirstSnapshot},
		{V1_0, InlinedSchemaFromVersionRow, InlinedSchemaFromFirstSnapshot},
		{V1_1, InlinedSchemaFromVersionRow, InlinedSchemaFromFirstSnapshot},
	} {
		if got := tc.v.InlinedSchemaSourceOf(true); got != tc.withRow {
			t.Errorf("%s with a ducklake_schema_versions row: %d, want %d", tc.v.Name, got, tc.withRow)
		}
		if got := tc.v.InlinedSchemaSourceOf(false); got != tc.noRow {
			t.Errorf("%s without a ducklake_schema_versions row: %d, want %d", tc.v.Name, got, tc.noRow)
		}
		// Read as a source, by the newest release: 0.3 as DuckDB 1.4.5.
		want := tc.withRow
		if tc.v == V0_3 {
			want = InlinedSchemaFromFirstSnapshot
		}
		if got := tc.v.SourceInlinedSchemaSourceOf(true); got != want {
			t.Errorf("%s read as a source: %d, want %d", tc.v.Name, got, want)
		}
	}
}

// TestParseTimeTZ: TIMETZ literals as DuckDB parses initial defaults, in one
// written form, with the offset kept (part of the value) or dropped (what
// readers with QuirkTimeTZDefaultOffset return).
func TestParseTimeTZ(t *testing.T) {
	for _, tc := range []struct {
		lit, kept, dropped string
	}{
		{"12:34:56+02", "12:34:56+02", "12:34:56+00"},
		{" 12:34:56+02:00 ", "12:34:56+02", "12:34:56+00"},
		{"01:00:00.5+02:30", "01:00:00.5+02:30", "01:00:00.5+00"},
		{"23:00:00-02", "23:00:00-02", "23:00:00+00"},
		{"23:00:00-00:00:30", "23:00:00-00:00:30", "23:00:00+00"},
		{"10:00:00", "10:00:00+00", "10:00:00+00"},
		{"24:00:00+02", "24:00:00+02", "24:00:00+00"}, // DuckDB's TIME includes the end of the day
		// Spellings DuckDB reads that this parser once refused or misread
		// (convert took them for read alike, a 0.4 reader drops +02).
		{"12:34:56 +02", "12:34:56+02", "12:34:56+00"},
		{"12:34:56+0230", "12:34:56+02:30", "12:34:56+00"},
		{"12:34:56-02:30:15", "12:34:56-02:30:15", "12:34:56+00"},
		{"12:34:56+02 junk", "12:34:56+02", "12:34:56+00"}, // text after the offset is ignored
		{"12:34:56+123", "12:34:56+12", "12:34:56+00"},
		{"12:00", "12:00:00+00", "12:00:00+00"},
		{"1:2:3+01", "01:02:03+01", "01:02:03+00"},
		{"12:34:56.1234567+01", "12:34:56.1234567+01", "12:34:56.1234567+00"},
	} {
		got, ok := ParseTimeTZ(tc.lit)
		if !ok || got.String() != tc.kept || got.DropOffset().String() != tc.dropped {
			t.Errorf("ParseTimeTZ(%q) = %q (dropped %q), %t; want %q, %q", tc.lit, got, got.DropOffset(), ok, tc.kept, tc.dropped)
		}
	}
	for _, bad := range []string{"noon", "24:00:01", "24:00:00.5", "25:00:00", "12:60:00", "12:00:00+x", "12:00:00.5x", "-1:00:00",
		"12:34:56+2", "12:34:56+16", "12:34:56 junk", "12:34+02", "12:34:56Z", "2024-01-01 12:34:56+02", "1234567890:00:00"} {
		if got, ok := ParseTimeTZ(bad); ok {
			t.Errorf("ParseTimeTZ(%q) = %q, want no parse", bad, got)
		}
	}
}

// TestHiveValues: which Hive path values DuckDB's Hive reading (DuckLake
// from 1.5.1) takes as NULL, and which a reader casting the raw text reads
// alike. "NULL" in any case and an empty non-VARCHAR value were read as
// text by the model and converted to 0.4 as if 1.5.0 read them alike.
func TestHiveValues(t *testing.T) {
	for _, tc := range []struct {
		v              string
		varchar        bool
		null, rawAlike bool
	}{
		{"2024-01-15", false, false, true},
		{"a+b", true, false, true}, // url_decode keeps a plus
		{"a%20b", true, false, false},
		{HiveDefaultPartition, true, true, false},
		{"NULL", true, true, false},
		{"null", false, true, false},
		{"Nul", true, false, true},
		{"", true, false, true},
		{"", false, true, false},
	} {
		if got := HiveValueNull(tc.v, tc.varchar); got != tc.null {
			t.Errorf("HiveValueNull(%q, varchar %t) = %t, want %t", tc.v, tc.varchar, got, tc.null)
		}
		if got := HiveValueReadRawAlike(tc.v, tc.varchar); got != tc.rawAlike {
			t.Errorf("HiveValueReadRawAlike(%q, varchar %t) = %t, want %t", tc.v, tc.varchar, got, tc.rawAlike)
		}
	}
}

// TestHivePartitionValue: a partition column's value is found in the path
// as DuckDB's HivePartitioning::Parse finds it (DuckDB 1.3.0 to main): a
// folder, never the file name; not a folder with two '=', '?' or a
// newline; '\\' separates as '/' does; the first folder of a key wins.
// The reader took the first segment key=..., whatever it was, and so read
// "x=y" where every DuckLake reader reads 1, and "10.parquet" where every
// one fails.
func TestHivePartitionValue(t *testing.T) {
	for _, tc := range []struct {
		path, key, value string
		ok               bool
	}{
		{"/d/t/k=1/f.parquet", "k", "1", true},
		{"/d/t/k=x=y/k=1/f.parquet", "k", "1", true},
		{"/d/t/k=1/k=2/f.parquet", "k", "1", true},
		{"/d/t/k=1/k=2.parquet", "k", "1", true},
		{"/d/t/j=1/k=2.parquet", "k", "", false},
		{"/d/t/k=1?x/f.parquet", "k", "", false},
		{"/d/t/k=1?x/k=3/f.parquet", "k", "3", true},
		{`C:\d\k=1\f.parquet`, "k", "1", true},
		{"/d/t/k=1\\x/f.parquet", "k", "1", true},
		{"/d/t/=a=b/f.parquet", "=a", "b", true},
		{"/d/t/K=1/f.parquet", "k", "", false},
		{"/d/t/k=/f.parquet", "k", "", true},
		{"k=1/f.parquet", "k", "1", true},
	} {
		v, ok := HivePartitionValue(tc.path, tc.key)
		if v != tc.value || ok != tc.ok {
			t.Errorf("HivePartitionValue(%q, %q) = %q, %t, want %q, %t", tc.path, tc.key, v, ok, tc.value, tc.ok)
		}
	}
	// The time zone check takes the same folders: not k=x=y (which no
	// reader reads; it was listed as a value without an offset), not the
	// file name.
	for path, want := range map[string][]string{
		"t/k=x=y/k=2024-01-15 10:00:00+02/f.parquet":      nil,
		"t/k=2024-01-15/f.parquet":                        {"k=2024-01-15"},
		"t/k=2024-01-15 10:00:00+02/k=2024-01-16.parquet": nil,
		`t\k=2024-01-15\f.parquet`:                        {"k=2024-01-15"},
	} {
		if got := HiveTimeZoneValues(path, "k"); !slices.Equal(got, want) {
			t.Errorf("HiveTimeZoneValues(%q, k) = %q, want %q", path, got, want)
		}
	}
}

// TestOpenedOutside: a DuckDB range declared for a format must lie within
// the DuckDB releases that open it.
func TestOpenedOutside(t *testing.T) {
	for _, tc := range []struct {
		format, declared, want string // want: a DuckDB outside, "" if none
	}{
		{"1.0", ">= 1.5.2", ""},
		{"1.0", ">= 1.5.2, < 2.0.0", ""},
		{"1.0", ">= 2.0.0", ""},
		{"1.1", ">= 2.0.0", ""},
		{"0.4", "= 1.5.1", ""},
		{"0.3", "~> 1.4.0", ""},
		{"1.1", ">= 1.5.2", "1.5.2"},
		{"1.0", ">= 1.5.0", "1.5.0"},
		{"0.4", ">= 1.3.0, < 1.5.2", "1.3.0"},
		{"0.4", ">= 1.5.0", "1.5.2"},
		{"0.4", "~> 1.5", "1.5.2"},
		{"0.3", "< 1.5.0", "1.3.999"},
		{"0.2", "!= 1.4.0", "1.3.0"},
		// Bounds at int64's maximum (an fdl.json typo): their next patch,
		// minor or major overflows; it panicked.
		{"1.0", ">= 1.5.9223372036854775807", ""},
		{"1.0", ">= 9223372036854775807", ""},
		{"0.3", "< 1.9223372036854775807", "1.3.999"},
	} {
		v, err := Lookup(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		c, err := goversion.NewConstraint(tc.declared)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if o := v.OpenedOutside(c); o != nil {
			got = o.String()
		}
		if got != tc.want {
			t.Errorf("format %s, DuckDB %s: outside %q, want %q", tc.format, tc.declared, got, tc.want)
		}
	}
}

// TestEarlyFixesDeclared: each first-release quirk of a format names the
// release that fixed it (what check's warnings of a frozen catalog decide
// by), inside the format's range; a missing or stray one is refused.
func TestEarlyFixesDeclared(t *testing.T) {
	if got := V1_0.EarlyFixedIn(QuirkTimeNSFilesUnreadable); got == nil || got.String() != "1.5.6" {
		t.Errorf("1.0's time-ns-files-unreadable fixed in %v, want DuckDB 1.5.6", got)
	}
	if got := V1_0.EarlyFixedIn(QuirkTableStatsNeedColumnStats); got == nil || got.String() != "1.5.4" {
		t.Errorf("1.0's table-stats-need-column-stats fixed in %v, want DuckDB 1.5.4", got)
	}
	if got := V0_2.EarlyFixedIn(QuirkRowIDStartRequired); got == nil || got.String() != "1.3.2" {
		t.Errorf("0.2's row-id-start-required fixed in %v, want DuckDB 1.3.2", got)
	}
	// The releases named in messages: the range's lower bound and the
	// fix, not the range's upper bound too ("DuckDB >= 1.3.1, < 1.4.0
	// before 1.3.2").
	for _, tc := range []struct {
		v    *Version
		q    ReaderQuirk
		want string
	}{
		{V0_2, QuirkRowIDStartRequired, "DuckDB >= 1.3.1 before 1.3.2"},
		{V1_0, QuirkTableStatsNeedColumnStats, "DuckDB >= 1.5.2 before 1.5.4"},
		{V1_0, QuirkValueCountZeroPruned, ""},
	} {
		if got := tc.v.EarlyReleases(tc.q); got != tc.want {
			t.Errorf("%s: EarlyReleases(%s) = %q, want %q", tc.v.Name, tc.q.Info().Name, got, tc.want)
		}
	}
	if got, want := V0_2.ReadersWith(QuirkRowIDStartRequired), "format 0.2's readers DuckDB >= 1.3.1 before 1.3.2"; got != want {
		t.Errorf("0.2's readers with row-id-start-required: %q, want %q", got, want)
	}
	if got, want := V0_1.ReadersWith(QuirkRowIDStartRequired), "format 0.1's readers"; got != want {
		t.Errorf("0.1's readers with row-id-start-required: %q, want %q", got, want)
	}
	if got := V0_1.EarlyFixedIn(QuirkRowIDStartRequired); got != nil || !V0_1.ReadsWith(QuirkRowIDStartRequired) {
		t.Errorf("0.1 (DuckDB 1.3.0 only) reads with row-id-start-required, not as a first-release quirk (fixed in %v)", got)
	}
	if got := V1_0.EarlyFixedIn(QuirkValueCountZeroPruned); got != nil {
		t.Errorf("1.0's files-with-value-count-zero-pruned (not a first-release quirk) fixed in %v", got)
	}
	for _, tc := range []struct {
		name  string
		fixes map[ReaderQuirk]string
	}{
		{"missing", map[ReaderQuirk]string{QuirkTableStatsNeedColumnStats: "1.5.4", QuirkDeleteFilesHiveColumns: "1.5.3"}},
		{"outside the range", map[ReaderQuirk]string{QuirkTableStatsNeedColumnStats: "1.5.4", QuirkDeleteFilesHiveColumns: "1.5.3", QuirkTimeNSFilesUnreadable: "1.4.0"}},
		{"stray", map[ReaderQuirk]string{QuirkTableStatsNeedColumnStats: "1.5.4", QuirkDeleteFilesHiveColumns: "1.5.3", QuirkTimeNSFilesUnreadable: "1.5.6", QuirkValueCountZeroPruned: "1.5.3"}},
	} {
		v := *V1_0
		v.EarlyFixes = tc.fixes
		if err := v.validateEarlyFixes(); err == nil {
			t.Errorf("%s: EarlyFixes %v accepted", tc.name, tc.fixes)
		}
	}
	if err := V1_0.validateEarlyFixes(); err != nil {
		t.Error(err)
	}
}

func typesOf(tables []Table) map[[2]string]string {
	m := map[[2]string]string{}
	for _, t := range tables {
		for _, c := range t.Columns {
			m[[2]string{t.Name, c.Name}] = c.Type
		}
	}
	return m
}

// TestTypeDiffs: a catalog's metadata columns must have the types their
// format declares (TestShapesMatchRealCatalogs holds those to the catalogs
// DuckLake wrote); a development layout may have those of the layouts it
// grew from; dynamic tables and undeclared columns are not looked at.
func TestTypeDiffs(t *testing.T) {
	for _, v := range All {
		if d := v.TypeDiffs(typesOf(v.Tables)); len(d) > 0 {
			t.Errorf("%s, its own types: %q", v.Name, d)
		}
		for _, tab := range v.Tables {
			for _, c := range tab.Columns {
				types := typesOf(v.Tables)
				other := "VARCHAR"
				if c.Type == other {
					other = "BIGINT"
				}
				types[[2]string{tab.Name, c.Name}] = other
				want := tab.Name + "." + c.Name + " is " + other + ", format " + v.Name + " has " + c.Type
				if d := v.TypeDiffs(types); v.Dev && len(d) == 0 {
					continue // the type of an older layout (checked below)
				} else if len(d) != 1 || !strings.HasPrefix(d[0], want) {
					t.Errorf("%s with %s.%s %s: %q, want one %q", v.Name, tab.Name, c.Name, other, d, want)
				}
			}
		}
	}
	types := typesOf(V1_0.Tables)
	types[[2]string{"ducklake_inlined_data_1_1", "row_id"}] = "VARCHAR"
	types[[2]string{"ducklake_snapshot", "no_such_column"}] = "VARCHAR"
	if d := V1_0.TypeDiffs(types); len(d) > 0 {
		t.Errorf("1.0 with a dynamic table and an undeclared column: %q, want none (not looked at)", d)
	}
	// A dynamic table's column collated or generated is listed.
	types[[2]string{"ducklake_inlined_data_1_1", "j"}] = "VARCHAR GENERATED"
	types[[2]string{"ducklake_inlined_data_1_1", "k"}] = "VARCHAR COLLATE NOCASE"
	if d := V1_0.TypeDiffs(types); len(d) != 2 || !strings.Contains(d[0], "ducklake_inlined_data_1_1.j is VARCHAR GENERATED, which no DuckLake writer") {
		t.Errorf("1.0 with a dynamic table's columns generated and collated: %q, want both listed", d)
	}
	for _, v := range All {
		for _, name := range v.Older {
			older, _ := Lookup(name)
			if d := v.TypeDiffs(typesOf(older.Tables)); len(d) > 0 {
				t.Errorf("%s on the layout of %s: %q", v.Name, name, d)
			}
		}
	}
}

// TestFrozenTypeDiffs: a frozen catalog may hold a declared type's stand-in
// (FrozenTypes: a TIMESTAMP snapshot_time), nothing else; TypeDiffs holds
// every catalog to the declared types.
func TestFrozenTypeDiffs(t *testing.T) {
	for _, tc := range []struct {
		typ          string
		frozen, held bool // listed by FrozenTypeDiffs, by TypeDiffs
	}{
		{"TIMESTAMP WITH TIME ZONE", false, false},
		{"TIMESTAMP", false, true},
		{"VARCHAR", true, true},
		{"TIMESTAMP_NS", true, true},
	} {
		types := typesOf(V1_0.Tables)
		types[[2]string{"ducklake_snapshot", "snapshot_time"}] = tc.typ
		if got := len(V1_0.FrozenTypeDiffs(types)) > 0; got != tc.frozen {
			t.Errorf("FrozenTypeDiffs with snapshot_time %s: listed %v, want %v", tc.typ, got, tc.frozen)
		}
		if got := len(V1_0.TypeDiffs(types)) > 0; got != tc.held {
			t.Errorf("TypeDiffs with snapshot_time %s: listed %v, want %v", tc.typ, got, tc.held)
		}
	}
}

// TestStandInReads: a frozen catalog's stand-in (a TIMESTAMP snapshot_time)
// is read as its declared type's values, the same instants in every
// session: the TIMESTAMP's UTC wall time, where a cast to TIMESTAMPTZ reads
// it in the session's TimeZone (in New York five hours later). A column of
// its declared type, or of another type, is read as it is.
func TestStandInReads(t *testing.T) {
	key := [2]string{"ducklake_snapshot", "snapshot_time"}
	var expr string
	for _, v := range All {
		for _, tc := range []struct {
			typ  string
			read bool
		}{{"TIMESTAMP WITH TIME ZONE", false}, {"TIMESTAMP", true}, {"VARCHAR", false}} {
			types := typesOf(v.Tables)
			types[key] = tc.typ
			reads := v.StandInReads(types)
			if got := len(reads) == 1 && reads[key] != ""; got != tc.read || (!tc.read && len(reads) > 0) {
				t.Errorf("%s: StandInReads with snapshot_time %s = %v, want a read of it: %v", v.Name, tc.typ, reads, tc.read)
			}
			if tc.read {
				expr = reads[key]
			}
		}
	}
	db := testduck.Open(t, "")
	const wall, instant = "TIMESTAMP '2026-11-30 01:03:08.376673'", "TIMESTAMPTZ '2026-11-30 01:03:08.376673+00'"
	for _, zone := range []string{"UTC", "America/New_York", "Asia/Kolkata"} {
		var read, cast, want int64
		err := db.QueryRow(`SET TimeZone = '`+zone+`'; SELECT epoch_us(`+expr+`), epoch_us(snapshot_time::TIMESTAMPTZ), epoch_us(`+instant+`) FROM (SELECT `+wall+` AS snapshot_time)`).Scan(&read, &cast, &want)
		if err != nil {
			t.Fatal(err)
		}
		if read != want {
			t.Errorf("TimeZone %s: %s reads %d, want the instant %d", zone, expr, read, want)
		}
		if zone != "UTC" && cast == want {
			t.Errorf("TimeZone %s: the cast reads the instant too (the premise does not hold)", zone)
		}
	}
}

package formats

import (
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	goversion "github.com/hashicorp/go-version"
)

// The fuzz targets below feed the registry's parsers of text a catalog or
// a repository supplies (column types, TIMETZ defaults, Hive path values,
// view SQL, a version row and layout, ducklake_metadata rows, a data
// file's footer) arbitrary input: none may panic or hang, and each keeps
// the invariant named. Their seeds run with the ordinary tests; `go test
// ./formats -run '^$' -fuzz '^FuzzParseTimeTZ$' -fuzztime 10m` runs one for
// longer.

// within fails the test when f runs longer than a second: a loop bounded
// by input values rather than input size (a hang) shows as a failure, not
// as a fuzzer that stops reporting.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("still running after 1s")
	}
}

func FuzzParseTimeTZ(f *testing.F) {
	for _, s := range []string{"12:34:56+02", " 12:34:56+02:00 ", "01:00:00.5+02:30", "23:00:00-00:00:30", "10:00:00",
		"24:00:00+02", "12:34:56 +02", "12:34:56+0230", "12:34:56+02 junk", "12:00", "1:2:3+01", "12:34:56.1234567+01",
		"24:00:00.5", "12:34:56+16", "1234567890:00:00", "999999999:59:59.999999-15:59:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		tz, ok := ParseTimeTZ(lit)
		if !ok {
			if tz != (TimeTZ{}) {
				t.Fatalf("ParseTimeTZ(%q) = %+v with ok false", lit, tz)
			}
			return
		}
		if tz.Seconds < 0 || tz.Seconds > 86400 || tz.Offset < -maxTimeTZOffset || tz.Offset > maxTimeTZOffset {
			t.Fatalf("ParseTimeTZ(%q) = %+v: out of range", lit, tz)
		}
		s := tz.String()
		again, ok := ParseTimeTZ(s)
		if !ok || again != tz {
			t.Fatalf("ParseTimeTZ(%q) = %+v, written %q, read back %+v, %t", lit, tz, s, again, ok)
		}
		if d := tz.DropOffset(); d.Offset != 0 || d.Seconds != tz.Seconds {
			t.Fatalf("DropOffset(%+v) = %+v", tz, d)
		}
	})
}

// FuzzTypeNames: a column type, partition transform, change token, format
// name or DuckDB version as a catalog or fdl.json spells it.
func FuzzTypeNames(f *testing.F) {
	for _, s := range []string{"decimal(18,3)", "decimal( 9,+2)", "decimal(38,38)", "decimal(39,0)", "decimal(4,5)", "DECIMAL(18,3)",
		"decimal(18x,3y)", "decimal(,)", "decimal(1,2,3)", "int64", " int64 ", "VARCHAR", "struct", "bucket(4)", "bucket(-1)",
		"year", "identity", "1.0", "0.4-dev1", "1.5.2", "1.5.9223372036854775807", "true", "No"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if w, sc, ok := DecimalArgs(s); ok {
			if w < 1 || w > 38 || sc < 0 || sc > w {
				t.Fatalf("DecimalArgs(%q) = %d, %d", s, w, sc)
			}
			if w2, sc2, ok := DecimalArgs(fmt.Sprintf("decimal(%d,%d)", w, sc)); !ok || w2 != w || sc2 != sc {
				t.Fatalf("DecimalArgs(%q) = %d, %d; its canonical form reads %d, %d, %t", s, w, sc, w2, sc2, ok)
			}
		}
		for _, v := range All {
			v.SupportsType(s)
			v.SupportsTransform(s)
			v.SupportsChangeToken(s)
			v.Opens(s)
		}
		if v, err := Lookup(s); err == nil && v.Name != s {
			t.Fatalf("Lookup(%q) = %s", s, v.Name)
		} else if err != nil && !errors.Is(err, ErrUnknownVersion) {
			t.Fatalf("Lookup(%q): %v", s, err)
		}
		if v, err := ReaderOf(s); err == nil && !v.Opens(s) {
			t.Fatalf("ReaderOf(%q) = %s, which does not open it", s, v.Name)
		}
		if c, err := goversion.NewConstraint(s); err == nil {
			for _, v := range All {
				within(t, func() {
					if out := v.OpenedOutside(c); out != nil && (!c.Check(out) || v.Opens(out.String())) {
						t.Errorf("format %s: OpenedOutside(%q) = %s", v.Name, s, out)
					}
					v.AdmitsNone(c)
				})
			}
		}
		if b, ok := BooleanStatsValue(s); b && !ok {
			t.Fatalf("BooleanStatsValue(%q) = true, not ok", s)
		}
		OneSidedStatsTypeSQL(s)
		FooterQuirkNamed(s)
		if IsDynamicTable(s) && !strings.HasPrefix(s, "ducklake_inlined_") {
			t.Fatalf("IsDynamicTable(%q)", s)
		}
	})
}

// FuzzHiveValues: a data or delete file's path as the catalog records it,
// and a partition key.
func FuzzHiveValues(f *testing.F) {
	for _, s := range [][2]string{{"year=2024/month=1/ducklake-x-delete.parquet", "year"}, {"a=1?x/b=2/x.parquet", "b"},
		{"ts=2024-01-01%2010%3A00%3A00%2B02/f.parquet", "ts"}, {"t=10:30Z/f.parquet", "t"}, {"k=/x.parquet", "k"},
		{"k=__HIVE_DEFAULT_PARTITION__/x", "k"}, {"k=NuLl/x", "k"}, {"k=%zz/x", "k"}, {"a=b=c/x.parquet", "a"}, {`k=v\x=y\f`, "x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, key string) {
		segs := strings.Split(path, "/")
		for _, seg := range HiveTimeZoneValues(path, key) {
			if !strings.Contains(path, seg+"/") && !strings.Contains(path, seg+`\`) || !strings.HasPrefix(seg, key+"=") {
				t.Fatalf("HiveTimeZoneValues(%q, %q) gave %q", path, key, seg)
			}
		}
		keys := DeleteFileHiveKeys(path)
		if v, ok := HivePartitionValue(path, key); ok != slices.Contains(keys, key) || (ok && !strings.Contains(path, key+"="+v)) {
			t.Fatalf("HivePartitionValue(%q, %q) = %q, %t; keys %q", path, key, v, ok, keys)
		}
		for i, k := range keys {
			if k == "" || !strings.Contains(path, k+"=") || slices.Contains(keys[:i], k) {
				t.Fatalf("DeleteFileHiveKeys(%q) = %q", path, keys)
			}
		}
		for _, v := range append(segs, key, path) {
			for _, varchar := range []bool{false, true} {
				if HiveValueReadRawAlike(v, varchar) && HiveValueNull(v, varchar) {
					t.Fatalf("%q: read raw alike and NULL", v)
				}
			}
			HiveValueHasOffset(v)
		}
	})
}

func FuzzViewSQL(f *testing.F) {
	for _, s := range []string{"SELECT i, j FROM {DUCKLAKE_CATALOG}.main.base", "SELECT 'it''s {DUCKLAKE_CATALOG}.x' AS s",
		`SELECT E'\' {DUCKLAKE_CATALOG}.x' AS s`, `SELECT """{DUCKLAKE_CATALOG}.x" FROM t`, "SELECT $q$ {DUCKLAKE_CATALOG}.x $q$ AS s",
		"SELECT 1 -- {DUCKLAKE_CATALOG}.x\n", "SELECT 1 /* /* {DUCKLAKE_CATALOG}.x */ */", "SELECT $1 FROM {DUCKLAKE_CATALOG}.t",
		"E'\\", "/*/*{DUCKLAKE_CATALOG}.", "$$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		within(t, func() {
			if ViewSQLHasCatalogPlaceholder(s) && !strings.Contains(s, ViewCatalogPlaceholder) {
				t.Errorf("%q: placeholder found where there is none", s)
			}
		})
	})
}

// layoutFrom reads a layout from lines "table:col,col".
func layoutFrom(s string) Layout {
	l := Layout{}
	for _, line := range strings.Split(s, "\n") {
		name, cols, _ := strings.Cut(line, ":")
		if cols == "" {
			l[name] = nil
			continue
		}
		l[name] = strings.Split(cols, ",")
	}
	return l
}

func layoutText(v *Version) string {
	var lines []string
	for _, t := range v.Tables {
		lines = append(lines, t.Name+":"+strings.Join(t.ColumnNames(), ","))
	}
	return strings.Join(lines, "\n")
}

// FuzzDetect: a catalog's version row and its tables and columns.
func FuzzDetect(f *testing.F) {
	for _, v := range All {
		f.Add(v.Stamp, layoutText(v))
	}
	f.Add("1.1-dev1", layoutText(V1_0))
	f.Add("0.3-dev1", layoutText(V0_2)+"\nducklake_extra:x")
	f.Add("9.9", "")
	f.Add("dev-99999999999999999999", "x:")
	f.Fuzz(func(t *testing.T, stamp, layout string) {
		l := layoutFrom(layout)
		v, err := Detect(stamp, l)
		if err == nil {
			if v.Stamp != stamp {
				t.Fatalf("Detect(%q) = %s", stamp, v.Name)
			}
			if !v.Dev && len(v.LayoutDiff(l)) > 0 {
				t.Fatalf("Detect(%q) accepted a layout its release does not have: %v", stamp, v.LayoutDiff(l))
			}
		} else if !errors.Is(err, ErrUnknownVersion) && !errors.Is(err, ErrTooNew) && !errors.Is(err, ErrInconsistentLayout) {
			t.Fatalf("Detect(%q): %v", stamp, err)
		}
	})
}

// metadataRows reads rows from lines "key\tvalue\tscope\tscope_id", \N for NULL.
func metadataRows(s string) []MetadataRow {
	str := func(x string) sql.NullString { return sql.NullString{String: x, Valid: x != `\N`} }
	var rows []MetadataRow
	for _, line := range strings.Split(s, "\n") {
		f := strings.SplitN(line, "\t", 4)
		for len(f) < 4 {
			f = append(f, `\N`)
		}
		r := MetadataRow{Key: f[0], Value: str(f[1]), Scope: str(f[2])}
		if f[3] != `\N` {
			var n int64
			_, err := fmt.Sscan(f[3], &n)
			r.ScopeID = sql.NullInt64{Int64: n, Valid: err == nil}
		}
		rows = append(rows, r)
	}
	return rows
}

// FuzzCheckMetadata: ducklake_metadata rows of a catalog.
func FuzzCheckMetadata(f *testing.F) {
	for _, s := range []string{
		"version\t1.0\t\\N\t\\N\ndata_path\t/lake/data/\t\\N\t\\N\nencrypted\tfalse\t\\N\t\\N",
		"data_path\t/lake/data//\ndata_path\t/lake/data//",
		"data_path\t/lake/data\ndata_path\t/lake/data/",
		"data_path\t\\N",
		"encrypted\ttrue\nencrypted\tfalse",
		"version\t0.4\nversion\t1.0",
		"target_file_size\t1\ttable\t3\nx\ty\tschema\t\\N",
		"x\ty\tcatalog\t1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := CheckMetadata("c.duckdb", metadataRows(s))
		if err != nil {
			if !errors.Is(err, ErrMetadataRows) || !strings.HasPrefix(err.Error(), "catalog c.duckdb: ") {
				t.Fatalf("CheckMetadata: %v does not name the catalog", err)
			}
			return
		}
		m.Value("version")
		for _, v := range All {
			if _, err := m.DataPath(v); err != nil && errors.Is(err, ErrMetadataRows) && !strings.HasPrefix(err.Error(), "catalog c.duckdb: ") {
				t.Fatalf("DataPath: %v does not name the catalog", err)
			}
		}
	})
}

// int64s reads b as a list of varints.
func int64s(b []byte) []int64 {
	var out []int64
	for len(b) > 0 {
		x, n := binary.Varint(b)
		if n <= 0 {
			break
		}
		out = append(out, x)
		b = b[n:]
	}
	return out
}

func varints(xs ...int64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.AppendVarint(b, x)
	}
	return b
}

// FuzzSkippedVectorReads: a data file's row groups as its footer gives
// them (any values: the file may be corrupt) and the deleted positions,
// ascending without repeats as the callers sort them (any values: delete
// files are the repository's).
func FuzzSkippedVectorReads(f *testing.F) {
	f.Add(varints(122880), varints(59392, 53248), int64(122880), false)
	f.Add(varints(3000, 5000), varints(3000, 2048), int64(8000), false)
	f.Add([]byte(nil), varints(1000, 2048), int64(10000), true)
	f.Add(varints(1<<62), varints(0, 2048), int64(1<<62), false)
	f.Add(varints(-5, 1<<63-1, 1<<63-1), varints(-10, 3000), int64(-1), false)
	f.Fuzz(func(t *testing.T, groups, runs []byte, records int64, noFooter bool) {
		// runs: pairs (gap, length) of deleted positions.
		var deleted []int64
		rs := int64s(runs)
		pos := int64(0) // the first gap may be negative: positions below 0
		for i := 0; i+1 < len(rs) && len(deleted) < 1<<16; i += 2 {
			gap, n := rs[i], min(max(rs[i+1], 1), 1<<14)
			if gap < 0 && i > 0 {
				gap = -gap
			}
			if gap < -1<<62 || pos > 1<<62-gap {
				break
			}
			pos += gap
			for j := int64(0); j < n && len(deleted) < 1<<16; j++ {
				deleted = append(deleted, pos)
				pos++
			}
		}
		var rg []int64
		if !noFooter {
			rg = int64s(groups)
			if rg == nil {
				rg = []int64{}
			}
		}
		within(t, func() {
			w := SkippedVectorReads(rg, deleted, records)
			if rg != nil && smallGroups(rg) {
				if want := skippedVectorReadsStepwise(rg, deleted); !slices.Equal(w, want) {
					t.Errorf("SkippedVectorReads(%v, %d deleted) = %v, stepping through every vector %v", rg, len(deleted), w, want)
					return
				}
			}
			// Without a footer a read vector may hold the next run's
			// start: stretches overlap, but each starts past the read of
			// the one before.
			for i, x := range w {
				if !(x.SkipStart < x.ReadStart && x.ReadStart < x.ReadEnd) || (i > 0 && w[i-1].ReadStart >= x.SkipStart) || (rg != nil && i > 0 && w[i-1].ReadEnd > x.SkipStart) {
					t.Errorf("SkippedVectorReads(%v, %d deleted, %d) = %v", rg, len(deleted), records, w)
					return
				}
			}
		})
	})
}

// FuzzStructSkipColumns: a data file's parquet_schema rows, read from
// lines "name,children,repetition,annotation".
func FuzzStructSkipColumns(f *testing.F) {
	for _, s := range []string{
		"duckdb_schema,2,REQUIRED,\nid,0,OPTIONAL,INT_64\ncol,2,OPTIONAL,\na,0,OPTIONAL,UTF8\nb,0,OPTIONAL,",
		"duckdb_schema,2,REQUIRED,\nid,0,OPTIONAL,INT_64\ncol,2,OPTIONAL,\na,1,OPTIONAL,\nx,0,OPTIONAL,UTF8\nb,0,OPTIONAL,",
		"duckdb_schema,1,REQUIRED,\ncol,1,OPTIONAL,MAP\nkey_value,2,REPEATED,\nkey,0,REQUIRED,INT_32\nvalue,2,OPTIONAL,\na,0,OPTIONAL,UTF8\nb,0,OPTIONAL,",
		"duckdb_schema,9223372036854775807,REQUIRED,",
		"duckdb_schema,-1,REQUIRED,\nextra,0,,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var rows []ParquetSchemaRow
		for _, line := range strings.Split(s, "\n") {
			p := strings.SplitN(line, ",", 4)
			for len(p) < 4 {
				p = append(p, "")
			}
			var n int64
			fmt.Sscan(p[1], &n)
			rows = append(rows, ParquetSchemaRow{Name: p[0], Children: n, Repetition: p[2], Annotation: p[3]})
		}
		within(t, func() {
			cols, err := StructSkipColumns(rows)
			if err != nil {
				return
			}
			for _, c := range cols {
				if len(c.Structs) == 0 || len(c.Structs[0]) != 0 {
					t.Errorf("StructSkipColumns: column %q has structs %v, want the column first", c.Column, c.Structs)
				}
			}
			StructSkipSQL("t", cols, []SkippedVectorRead{{0, 2048, 4096}})
		})
	})
}

// smallGroups tells whether row groups are few and small enough to step
// through every vector of.
func smallGroups(rg []int64) bool {
	var total int64
	for _, n := range rg {
		if n < -1<<24 || n > 1<<24 {
			return false
		}
		total += max(n, 0)
	}
	return total <= 1<<24
}

// skippedVectorReadsStepwise is SkippedVectorReads over a footer as it was
// before it went from one deleted position's vector to the next: one step
// per vector of each row group.
func skippedVectorReadsStepwise(rowGroups []int64, deleted []int64) []SkippedVectorRead {
	if len(deleted) == 0 {
		return nil
	}
	var out []SkippedVectorRead
	k := 0
	deletedIn := func(lo, hi int64) (int64, int) {
		for k < len(deleted) && deleted[k] < lo {
			k++
		}
		n := 0
		for k+n < len(deleted) && deleted[k+n] < hi {
			n++
		}
		return int64(n), k + n
	}
	var start int64
	for _, rows := range rowGroups {
		end := start + rows
		skipFrom := int64(-1)
		for lo := start; lo < end; lo += ParquetVectorSize {
			hi := min(lo+ParquetVectorSize, end)
			n, next := deletedIn(lo, hi)
			k = next
			if n == hi-lo {
				if skipFrom < 0 {
					skipFrom = lo
				}
				continue
			}
			if skipFrom >= 0 {
				out = append(out, SkippedVectorRead{SkipStart: skipFrom, ReadStart: lo, ReadEnd: hi})
				skipFrom = -1
			}
		}
		start = end
	}
	return out
}

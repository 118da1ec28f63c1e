package formats

import (
	"fmt"
	"strings"

	goversion "github.com/hashicorp/go-version"
)

// FooterQuirk is a bug of some DuckDB releases' own Parquet reader (DuckDB
// core, not the ducklake extension) that a property of a data file's
// Parquet footer triggers: those releases fail every read of the file (or
// of a column of it), skip its row groups under a filter, or return other
// values, where the other releases that read the format read its rows. They are per release, not per format: a
// format is affected when its readers (its DuckDB range, narrowed by what
// a repository's fdl.json declares for it) admit one of the releases. The
// catalog rows are alike for every reader, so nothing in a catalog can be
// rewritten around them: convert refuses a target whose readers include an
// affected release and that would read such a file, and the proof reports
// such a file of a catalog B in such a format (compare). The newest
// release of every format reads them right, so a format's source reading
// (Version.SourceQuirks) never has one, but for
// decimal-byte-array-empty-value, which every release before DuckDB 1.5.5
// has (0.1-0.4 have no release with the fix): a source of those formats is
// misread by its own readers as well, and a conversion answers for its
// target's readers only.
type FooterQuirk struct {
	// Name is the stable name used in reports, refusals and docs.
	Name string
	// Releases are the DuckDB releases that have the bug, oldest first.
	Releases []string
	// FixedIn is the first release of the line without it; Fixed names
	// the commit that fixed it.
	FixedIn, Fixed string
	// Trigger is the footer property that triggers it.
	Trigger string
	// Behaviour is what the affected releases do.
	Behaviour string
	// Source names the DuckDB file and function.
	Source string
	// Error is the start of the affected releases' error message ("" when
	// they return other rows).
	Error string
	// Evidence says what shows it.
	Evidence string
	// ColumnTypes are the catalog column types (ducklake_column's
	// column_type in lower case, at any depth: a nested column's children
	// are rows of their own; a name with parameters, DECIMAL(20,2), by
	// its name) only whose data files can trigger it; nil: any data file.
	// A catalog that never had such a column need not have its footers
	// read for it.
	ColumnTypes []string
}

// The footer quirks' names (FooterQuirks).
const (
	FooterStringStatsInvalidUTF8  = "string-stats-invalid-utf8"
	FooterStringStatsMissingBound = "string-stats-without-min-max-empty"
	FooterJSONDeltaLength         = "json-delta-length-page-validated-whole"
	FooterGeoCRSNull              = "geoparquet-crs-null"
	FooterVariantDecimal2         = "variant-shredded-decimal2"
	FooterVariantBlobBase64       = "variant-shredded-blob-as-base64"
	FooterDecimalWideInInt        = "decimal-wide-in-int32-int64"
	FooterDecimalByteArray        = "decimal-byte-array-empty-value"
	FooterDeltaByteArray          = "delta-byte-array-not-string"
)

// FooterQuirks documents every FooterQuirk.
var FooterQuirks = []FooterQuirk{
	{Name: FooterStringStatsInvalidUTF8, FixedIn: "1.4.4", Releases: []string{"1.3.0", "1.3.1", "1.3.2", "1.4.0", "1.4.1", "1.4.2", "1.4.3"},
		Fixed:     "1d8313a3eca (2026-01-06, \"Ignore invalid UTF8 in string stats, instead of throwing an error\"), first in DuckDB 1.4.4",
		Trigger:   "a VARCHAR (or JSON) column chunk whose statistics min or max (min_value, else the deprecated min; max_value, else max) is not valid UTF-8, as a writer that cuts a bound at a byte limit inside a multi-byte character leaves it",
		Behaviour: "every read of the data file fails, SELECT * too: the reader checks the bounds when it builds the row groups' statistics",
		Source:    "DuckDB extension/parquet/parquet_statistics.cpp ParquetStatisticsUtils::TransformColumnStatistics (VARCHAR) calls StringColumnReader::VerifyString on each bound in v1.3.0-v1.4.3",
		Error:     "Invalid Input Error: Invalid string encoding found in Parquet file: value",
		Evidence:  "a Parquet file of (id, s VARCHAR) whose footer max 'éclair' is patched to '\\xC3(clair' fails with this error on DuckDB 1.3.0, 1.3.2 and 1.4.3 and reads as 1.5.6 reads it on 1.5.0, 1.5.1 and 2.0.0 (TestRealReleasesFooterQuirks in formats, with the real releases of internal/realduckdb)"},
	{Name: FooterStringStatsMissingBound, FixedIn: "1.4.1", Releases: []string{"1.4.0"},
		Fixed:     "5e8c290fcf9 (\"always start from StringStats::CreateUnknown in Parquet\"), first in DuckDB 1.4.1",
		Trigger:   "a VARCHAR (or JSON) column chunk with a statistics struct (a null count, say) but without a min or a max, and not only NULLs (a chunk of NULLs, which every writer leaves without bounds, holds no value a filter on the column could match), as DuckDB's own writer leaves it for a value longer than 256 bytes without an ASCII byte in its first 256 (repeat('日本語', 100))",
		Behaviour: "the row group's statistics of the column start from an empty range and take only the bounds present, so under a filter pushed down on the column the row group is skipped and its rows are missing",
		Source:    "DuckDB v1.4.0 extension/parquet/parquet_statistics.cpp TransformColumnStatistics (VARCHAR): StringStats::CreateEmpty, then SetMin/SetMax of the bounds present",
		Evidence:  "modelled from the source (DuckDB 1.4.0 is not run here); a Parquet file with repeat('日本語', 100), which DuckDB's writer leaves without bounds, reads whole and under WHERE s = repeat('日本語', 100) on DuckDB 1.3.0, 1.3.2, 1.4.3, 1.5.0, 1.5.1 and 2.0.0 as on 1.5.6 (TestRealReleasesFooterQuirks)"},
	{Name: FooterJSONDeltaLength, FixedIn: "1.4.2", Releases: []string{"1.4.1"},
		Fixed:     "05fb1249cab (2025-10-28, \"fix #19366\"), first in DuckDB 1.4.2",
		Trigger:   "a JSON column chunk (logical type JSON) encoded with DELTA_LENGTH_BYTE_ARRAY, as DuckDB's writer with PARQUET_VERSION V2 (DuckLake's parquet_version 2) leaves it",
		Behaviour: "the reader validates a whole page's values as one JSON document, so a page of two or more values fails every read of the data file",
		Source:    "DuckDB v1.4.1 extension/parquet/decoder/delta_length_byte_array_decoder.cpp DeltaLengthByteArrayDecoder::ReadInternal calls StringColumnReader::VerifyString over the page buffer, which validates JSON since 6261aa73d0b (first in 1.4.1)",
		Error:     "Invalid Input Error: Invalid JSON found in Parquet file",
		Evidence:  "modelled from the source (DuckDB 1.4.1 is not run here); a JSON column of 3000 values written with PARQUET_VERSION V2 (DELTA_LENGTH_BYTE_ARRAY) reads on DuckDB 1.3.0, 1.3.2, 1.4.3, 1.5.0, 1.5.1 and 2.0.0 as on 1.5.6 (TestRealReleasesFooterQuirks)"},
	{Name: FooterGeoCRSNull, FixedIn: "1.5.1", Releases: []string{"1.5.0"},
		Fixed:     "6766456eef6 (2026-03-12, \"Read geoparquet file with null CRS. Fix #21332\"), first in DuckDB 1.5.1",
		Trigger:   "a \"geo\" key-value metadata entry (GeoParquet) one of whose columns has \"crs\": null, as GeoParquet 1.x writers leave an unknown CRS",
		Behaviour: "the reader parses the file's GeoParquet metadata when it opens the file and refuses the null CRS, so every read of the data file fails",
		Source:    "DuckDB v1.5.0 extension/parquet/parquet_geometry.cpp GeoParquetFileMetadata::TryRead: a present \"crs\" that is not an object throws",
		Error:     "Invalid Input Error: Geoparquet column",
		Evidence:  "a Parquet file with \"geo\" metadata whose column has \"crs\": null fails with this error on DuckDB 1.5.0 and reads as 1.5.6 reads it on 1.3.0, 1.3.2, 1.4.3, 1.5.1 and 2.0.0 (TestRealReleasesFooterQuirks); by hand, lakes/14_geometry with a data file rewritten so fails on 1.5.0 and reads on 1.5.1"},
	{Name: FooterVariantDecimal2, ColumnTypes: []string{"variant"}, FixedIn: "1.5.2", Releases: []string{"1.5.0", "1.5.1"},
		Fixed:     "ebd4a5fedf8 (2026-04-03, \"add support for Parquet VARIANTs shredded on DECIMAL2\"), first in DuckDB 1.5.2",
		Trigger:   "a VARIANT column (a Parquet variant group: metadata, value, typed_value) shredded, at any depth, on a DECIMAL of at most 4 digits (a typed_value column DuckDB reads as DECIMAL(p,s) with p <= 4, held in 16 bits), as DuckDB's writer (1.5.6, DuckLake's writer of 1.0 and 1.1) shreds a VARIANT column whose values in a row group are such decimals (1.2::DECIMAL(4,2)::VARIANT)",
		Behaviour: "every read of the column fails (a read of the file's other columns alone reads): the reader's conversion of shredded values has no case for a 16-bit DECIMAL; the model takes the whole file, whose VARIANT column may no longer be the table's, as unread (on the safe side)",
		Source:    "DuckDB v1.5.1 extension/parquet/reader/variant/variant_shredded_conversion.cpp VariantShreddedConversion::ConvertShreddedLeaf (DECIMAL): cases for INT32, INT64 and INT128 only, from v1.4.0 on",
		Error:     "Not implemented Error: Decimal with PhysicalType (INT16) not implemented for shredded Variant",
		Evidence:  "a Parquet file DuckDB 1.5.6 writes of (id, v VARIANT) with DECIMAL(4,2) values fails with this error on DuckDB 1.5.0 and 1.5.1 and reads as 1.5.6 reads it on 2.0.0 (TestRealReleasesFooterQuirks); the same file with DECIMAL(9,2) values (shredded on a 32-bit DECIMAL) reads alike on 1.5.0, 1.5.1 and 1.5.6; DuckDB 1.4.x fails alike (1.4.3 run here; the same code from v1.4.0 to v1.4.5), but has no VARIANT type and format 0.3 no VARIANT column (a file whose VARIANT column its table no longer has is read without the column), so 1.4.x is not listed"},
	{Name: FooterVariantBlobBase64, ColumnTypes: []string{"variant"}, FixedIn: "1.5.4", Releases: []string{"1.5.0", "1.5.1", "1.5.2", "1.5.3"},
		Fixed:     "29cb674de6b (2026-06-10, \"Issue 23122: preserve BLOB type when reading VARIANT from parquet\", #23195), first in DuckDB 1.5.4",
		Trigger:   "a VARIANT column shredded, at any depth, on BLOB (a typed_value column of BYTE_ARRAY without a logical type, which DuckDB reads as BLOB), as DuckDB's writer (1.5.6, DuckLake's writer of 1.0 and 1.1) shreds a VARIANT column whose values in a row group are BLOBs, or objects with a BLOB field ({a: '\\x01'::BLOB}::VARIANT)",
		Behaviour: "return each such BLOB as a VARCHAR holding its base64 text (another value, variant_typeof 'VARCHAR'), without an error; BLOBs the writer left unshredded (among other types in a row group: in the variant's value column) are read so too, which the footer does not show (not modelled: docs/compare.md, \"Known limits\")",
		Source:    "DuckDB v1.5.3 extension/parquet/reader/variant/variant_shredded_conversion.cpp ConvertShreddedValue<string_t>::ConvertBlob, and variant_binary_decoder.cpp VariantBinaryDecoder::PrimitiveTypeDecode (BINARY) for unshredded values: Blob::ToBase64 into a VARCHAR, from v1.5.0 on",
		Evidence:  "a Parquet file DuckDB 1.5.6 writes of (id, v VARIANT) with BLOB values, and one with objects holding a BLOB field, read with other values (BLOBs as base64 VARCHARs) on DuckDB 1.5.0 and 1.5.1 and as 1.5.6 reads them on 2.0.0 (TestRealReleasesFooterQuirks); 1.5.2 and 1.5.3, which are not run here, are modelled from their source (the same conversion)"},
	{Name: FooterDecimalWideInInt, ColumnTypes: []string{"decimal"}, FixedIn: "1.3.2", Releases: []string{"1.3.0", "1.3.1"},
		Fixed:     "64998bd3070 (2025-07-01, #18104), first in DuckDB 1.3.2",
		Trigger:   "a DECIMAL column of 19 to 38 digits stored as INT32 or INT64 (converted type DECIMAL, precision > 18), which the Parquet specification does not allow and DuckDB's writer never writes (it stores such decimals as FIXED_LEN_BYTE_ARRAY), but another writer may, in a file added with ducklake_add_data_files",
		Behaviour: "every read of the column fails (a read of the file's other columns alone reads): the reader has no decoder for a 128-bit DECIMAL read from 32- or 64-bit storage; the model takes the whole file as unread (on the safe side)",
		Source:    "DuckDB v1.3.0 extension/parquet/column_reader.cpp CreateDecimalReader: cases for INT16, INT32 and INT64 DuckDB types only",
		Error:     "Not implemented Error: Unimplemented internal type for CreateDecimalReader",
		Evidence:  "a Parquet file of DuckDB's own writer whose DECIMAL(18,2) column (INT64) is patched to precision 20 fails with this error on DuckDB 1.3.0 (a read of its other column alone reads), and reads as 1.5.6 reads it on 1.3.2, 1.4.3, 1.5.0, 1.5.1 and 2.0.0 (TestRealReleasesFooterQuirks); 1.3.1 is modelled from its source (the fix is first in 1.3.2)"},
	{Name: FooterDecimalByteArray, ColumnTypes: []string{"decimal"}, FixedIn: "1.5.5",
		Releases:  []string{"1.3.0", "1.3.1", "1.3.2", "1.4.0", "1.4.1", "1.4.2", "1.4.3", "1.4.4", "1.4.5", "1.5.0", "1.5.1", "1.5.2", "1.5.3", "1.5.4"},
		Fixed:     "eb2c01799dd (2026-07-02, \"fix out-of-bounds read on empty byte array decimals\", #23567), first in DuckDB 1.5.5 (not in v1.3-ossivalis nor v1.4-andium)",
		Trigger:   "a DECIMAL column stored as BYTE_ARRAY (converted type DECIMAL), which DuckDB's writer never writes (it stores decimals as INT32, INT64 or FIXED_LEN_BYTE_ARRAY) but another writer may, in a file added with ducklake_add_data_files: such a column may hold a zero-length value, a zero, which the footer does not show, so every such column is taken (on the safe side); or as FIXED_LEN_BYTE_ARRAY of length 0 (every value zero-length)",
		Behaviour: "read a zero-length value by the sign bit of the byte after it (the next value's first byte or length, or a byte past the page): where that bit is set the zero comes back as minus one unit of the last place (-0.01 for a scale of 2), without an error, where DuckDB 1.5.5 and later read 0",
		Source:    "DuckDB extension/parquet/include/parquet_decimal_utils.hpp ParquetDecimalUtils::ReadDecimalValue (and the DOUBLE one of decimal_column_reader.cpp) reads *pointer for the sign before looking at the size, from v1.3.0 to v1.5.4",
		Evidence:  "a Parquet file of DuckDB's own writer whose BLOB column of 0.00, 1.00, 2.00, 3.00, 4.00 as two's complement bytes (0.00 zero-length, 1.00 in 128 bytes: footertest.ByteArrayDecimalSQL) is typed DECIMAL(4,2) reads -0.01 for the zero on DuckDB 1.3.0, 1.3.2, 1.4.3, 1.5.0 and 1.5.1, and 0.00 on 1.5.6 and 2.0.0, and one whose DECIMAL(20,2) column (FIXED_LEN_BYTE_ARRAY of 16) is patched to length 0 reads -0.01 in every row on 1.3.2-1.5.1, fails (\"Out of buffer\") on 1.3.0 and reads 0.00 on 1.5.6 and 2.0.0 (TestRealReleasesFooterQuirks); DuckDB's own test file for the fix (24 rows, the last zero-length, followed in its page by 0x80) reads -0.01 on the same releases (by hand); 1.3.1, 1.4.0-1.4.2, 1.4.4, 1.4.5 and 1.5.2-1.5.4 are modelled from their source (the same function)"},
	{Name: FooterDeltaByteArray, FixedIn: "1.5.0", Releases: []string{"1.3.0", "1.3.1", "1.3.2", "1.4.0", "1.4.1", "1.4.2", "1.4.3", "1.4.4", "1.4.5"},
		Fixed:     "9281313e285 (2025-12-19, \"Support DELTA_BYTE_ARRAY encoding on FIXED_LEN_BYTE_ARRAY fields\"), first in DuckDB 1.5.0 (not in v1.3-ossivalis nor v1.4-andium)",
		Trigger:   "a column chunk whose encodings list DELTA_BYTE_ARRAY and whose column DuckDB reads as another type than VARCHAR or BLOB (a UUID or a DECIMAL stored as FIXED_LEN_BYTE_ARRAY, as parquet-mr's and other writers' V2 pages encode them; DuckDB's own writer never writes DELTA_BYTE_ARRAY), in a file added with ducklake_add_data_files",
		Behaviour: "every read of the column fails (a read of the file's other columns alone reads): the decoder takes only columns DuckDB holds as strings; the model takes the whole file as unread (on the safe side)",
		Source:    "DuckDB extension/parquet/decoder/delta_byte_array_decoder.cpp DeltaByteArrayDecoder::InitializePage throws unless the column's DuckDB type is held as a VARCHAR, from v1.3.0 to v1.4.5",
		Error:     "Invalid Error: Delta Byte Array encoding is only supported for string/blob data",
		Evidence:  "DuckDB's own test file for the fix (uuid_v2.parquet of 9281313e285: 100,000 UUIDs as FIXED_LEN_BYTE_ARRAY in pages encoded DELTA_BYTE_ARRAY) fails with this error on DuckDB 1.3.0, 1.3.2 and 1.4.3 and reads as 1.5.6 reads it on 1.5.0, 1.5.1 and 2.0.0 (by hand, internal/realduckdb's probes; no writer here writes such pages); the footer check is held to a UUID file of DuckDB's writer whose chunk's encodings are patched to DELTA_BYTE_ARRAY (TestReadFindsFooterQuirks); 1.3.1, 1.4.0-1.4.2, 1.4.4 and 1.4.5 are modelled from their source (the same decoder)"},
}

// FooterQuirkNamed returns the footer quirk of that name.
func FooterQuirkNamed(name string) (FooterQuirk, bool) {
	for _, q := range FooterQuirks {
		if q.Name == name {
			return q, true
		}
	}
	return FooterQuirk{}, false
}

// Info documents q as a QuirkInfo, for reports that name reader quirks.
func (q FooterQuirk) Info() QuirkInfo {
	return QuirkInfo{Name: q.Name, Family: "Parquet footers (DuckDB core)",
		Behaviour: fmt.Sprintf("%s: DuckDB %s %s", q.Trigger, strings.Join(q.Releases, ", "), q.Behaviour),
		Source:    q.Source + "; fixed by " + q.Fixed, Error: q.Error, Evidence: q.Evidence}
}

// AffectedFooterQuirk is a footer quirk with the releases of a format's
// readers that have it.
type AffectedFooterQuirk struct {
	FooterQuirk
	// In are the quirk's releases among the readers.
	In []string
}

// FooterQuirksOf returns the footer quirks some reader of the format has:
// the releases that open it (v.DuckDB) and, when readers is set (a
// repository's fdl.json range for the format), that readers admits. A
// publisher who serves 0.3 to DuckDB >= 1.4.4 is not held to the bugs of
// 1.4.0-1.4.3 that fail a read: those releases still open the catalog (a
// DuckDB opens the newest format it can, whatever fdl.json promises: the
// FDL rule, resolve), and fail on it as they would find no catalog at all.
// A quirk that returns other rows without an error (Silent) counts every
// release that opens the format, whatever readers says: a release left out
// of the promise still opens the catalog, and would read wrong rows.
func (v *Version) FooterQuirksOf(readers goversion.Constraints) []AffectedFooterQuirk {
	own, err := goversion.NewConstraint(v.DuckDB)
	if err != nil {
		return nil // formats.All.Validate refuses such a range
	}
	var out []AffectedFooterQuirk
	for _, q := range FooterQuirks {
		var in []string
		for _, r := range q.Releases {
			rv, err := goversion.NewVersion(r)
			if err == nil && own.Check(rv) && (readers == nil || readers.Check(rv) || q.Silent()) {
				in = append(in, r)
			}
		}
		if len(in) > 0 {
			out = append(out, AffectedFooterQuirk{FooterQuirk: q, In: in})
		}
	}
	return out
}

// Silent reports whether the affected releases return other rows than the
// others without an error (Error ""), rather than fail the read.
func (q FooterQuirk) Silent() bool { return q.Error == "" }

// Advice says how a publisher gets the format read alike by every reader
// it is served to: narrow its range to the releases from the fix on, where
// the format's own range has them and the affected releases fail (a
// release outside the range still opens the catalog: one that would read
// wrong rows is no reader to leave out), else rewrite the data files.
func (a AffectedFooterQuirk) Advice(v *Version) string {
	if a.Silent() {
		return fmt.Sprintf("%s open%s a format %s catalog whatever fdl.json serves the format to (a DuckDB opens the newest format it can), so narrowing the range does not help: rewrite the data files", a.ReleasesText(), plural(len(a.In)), v.Name)
	}
	own, err1 := goversion.NewConstraint(v.DuckDB)
	fixed, err2 := goversion.NewVersion(a.FixedIn)
	if err1 == nil && err2 == nil && own.Check(fixed) {
		return fmt.Sprintf("serve format %s to DuckDB >= %s only (a repository's fdl.json range for it), or rewrite the data files", v.Name, a.FixedIn)
	}
	return fmt.Sprintf("no release of format %s's range has the fix (DuckDB %s): rewrite the data files", v.Name, a.FixedIn)
}

// ReleasesText names the releases for a message ("DuckDB 1.4.0-1.4.3").
func (a AffectedFooterQuirk) ReleasesText() string {
	if len(a.In) == 1 {
		return "DuckDB " + a.In[0]
	}
	return "DuckDB " + a.In[0] + "-" + a.In[len(a.In)-1]
}

// plural is the verb ending of a subject of n releases ("DuckDB 1.4.0
// opens", "DuckDB 1.4.0-1.4.3 open").
func plural(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

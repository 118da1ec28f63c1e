package compare

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// A proof, once made, holds as long as neither catalog nor any file of the
// data folders changed. With a DigestCache, Catalogs keeps each
// equivalence it proved under a key naming all of that: the catalogs'
// contents (sha256) and, per data folder, every file's path, size and
// modification time. A later comparison of the same pair over the same
// files (check after backfill: the published catalog is the file the
// backfill proved), or over data folders that only gained files since
// (keptlistings.go: a version published, a data cache grown), returns the
// kept report instead of reading again. Only proofs of equivalence are
// kept; differences are always found anew.

// proofVersion changes whenever what a proof checks changes (v25: a 1.0
// catalog B with table statistics of a table without column statistics,
// which DuckDB 1.5.2 and 1.5.3 fail on, is a stats difference; v26: a
// TIMESTAMPTZ/TIMETZ Hive value without a UTC offset that the two
// catalogs' readers cast differently, hive-tz-values-read-as-utc, and
// format 0.1's DuckDB 1.3.0 nested defaults; v27: format 0.1's DuckDB
// 1.3.0 remap_struct on nested lists and maps, remapped-nested-lists-unreserved;
// v28: a 0.1-0.3 catalog B with temporal file statistics its readers
// compare as text, temporal-stats-compared-as-text, and a 0.4 catalog B
// with a VARCHAR table statistic without min and max that DuckDB 1.5.0
// reads as empty, string-table-stats-without-minmax-empty;
// v29: a 0.3 catalog B read as DuckDB 1.4.0 reads it too, inlined tables at
// snapshot 0 and delete files of two columns only, delete-files-two-columns-only;
// v30: an inlined table holding a column with another type than the
// looked-up schema's is unreadable only where its rows are visible, and an
// inlined file deletion with a NULL or negative file_id or row_id makes its
// table unreadable, invalid-inlined-deletion;
// v31: DuckDB 1.3.0-1.5.0 reading STRUCT values NULL after a wholly
// deleted vector, struct-nulls-after-skipped-vector;
// v32: a data file of B whose Parquet footer some DuckDB release among
// B's format's readers fails on or misreads, formats.FooterQuirks; and
// one-sided table column statistics, formats.OneSidedStatsEmpty;
// v33: delete files under key=value folders, delete-files-hive-columns, and
// partial data files' record_count held to their Parquet row count;
// v34: one-sided table column statistics read as empty by column type and
// DuckLake build, formats.OneSidedEmptySQL (now OneSidedMisreadSQL);
// v35: a 1.0 or 1.1 catalog B with value_count 0 for a column of a data
// file that may hold values, which DuckDB 1.5.3+ and 2.0 skip under
// comparison filters while A's readers keep it,
// files-with-value-count-zero-pruned;
// v36: a catalog B with metadata values DuckLake's readers cannot read
// where A's can (ids and counts NULL or negative, a partition transform
// spelled otherwise, column_order ties), formats.ReaderValueRules);
// v37: tables, views and macros named with a part quoted where it holds a
// dot or a double quote (qualified), so schema "a.b" with table "c" and
// schema "a" with table "b.c" are not matched as one;
// v38: a catalog with a NULL DuckLake's writers always write in the
// partition spec, macros, sort order, name mappings, inlined data and deletions or their
// registrations, or where its readers need it beside another value (an
// encrypted catalog's file keys, a default's default_value_type, a
// recorded folder's path_is_relative) is not opened
// (formats.Column.NullWhen, formats.Version.DynamicTable);
// v39: nor one with a NULL table_id or next_row_id in a table statistics
// row the readers load, column_id in such a table's column statistics, or
// data_file_id in a file's column statistics;
// v40: a 1.1 catalog's view column comments (ducklake_view_column_tag)
// are compared, and B's commit info, macros, expression defaults and view
// column comments where A's format cannot hold them are differences;
// v41: a one-sided table column statistics row of B is a difference only
// where its bound is at or beyond its type's extreme (DuckDB's
// NumericStats::HasMinMax reads the others as no bounds),
// formats.OneSidedMisreadSQL;
// v42: such a row at its type's extreme folds min/max (DuckDB 1.5.4+ and
// 2.0 answer [v, the type's minimum] or [its maximum, v]), foldExtremes,
// and a TIMESTAMP_NS statistic before 1677-09-22, which DuckDB casts but
// cannot render as text, reads as a value;
// v43: a catalog with a NULL view id, schema_id, begin_snapshot, name,
// query or alias list, or a NULL extra_stats in a GEOMETRY column's table
// statistics the readers load, is not opened, and a NULL table_uuid or
// schema_uuid no longer makes the table unreadable (read as the text
// 'NULL', used by writers only);
// v44: a footer quirk whose releases return other rows without an error
// (string-stats-without-min-max-empty) is held to every release that
// opens B's format, not only those BReaders admits: a release left out
// of fdl.json's range still opens the catalog (formats.FooterQuirk.Silent);
// v45: a catalog whose GEOMETRY column's table statistics the readers load
// name no geometry type (an empty "types" list, as ducklake_add_data_files
// writes for files without geospatial statistics) while the column's files
// hold values is not opened: DuckDB 2.0 reads it as the NULL of v43;
// v46: DuckDB 2.0 folds min/max of a VARCHAR column from exact table
// statistics too (formats.TableStatsReading.FoldStringMinMax), so a 1.0 or
// 1.1 catalog B whose VARCHAR bound is no value A's readers scan (DuckDB's
// Parquet writer cuts strings past 256 bytes) is a minmax difference;
// v47: a 1.0 or 1.1 catalog B whose VARCHAR table statistics row has both
// bounds NULL where a 0.1-0.4 catalog A's row has both, the rest equal, is
// equivalent (formats.StringBoundsUnfolded: convert writes that; was a
// stats difference);
// v48: a 1.1 catalog B whose VARCHAR table statistics row has both bounds
// NULL where a 1.0 catalog A's row has both, the rest equal, is equivalent
// (formats.StringBoundsCutUnfolded: convert writes that for a bound that is
// not the rows' min or max; was a stats difference);
// v49: a macro implementation's parameters are compared in storage order,
// the order DuckLake's readers bind a call's arguments in (was column_id
// order: the same rows stored in another order were equivalent), each
// parameter's fields apart (were joined with ':', '=' and ',', which a
// quoted name may hold: one parameter named "a:unknown=NULL:unknown,b"
// read as the two a and b); and of
// snapshots sharing a time, the one stored first, which AT (TIMESTAMP =>
// t) reads (timeTies); and a B with a name mapping entry loaded before its
// parent, which readers fail on, is a difference
// (formats.NameMapParentAfterChild);
// v50: a data file row's and an inlined row's end_snapshot is compared
// where the change feed reads it and no snapshot's read pins it (a row no
// snapshot sees, an end among expired snapshots: endedEntries);
// v51: a row of a table that ends before the table's first snapshot is
// described there (endedSince; was not described at all);
// v52: those rows of v47 and v48, and the one-sided rows of v41, are taken
// for A's column by column (boundsNulled), and never where the key has
// two rows on either side (the text replacement took the first row's
// bound for the folded row's);
// v53: a data file whose field of a time_ns column is a Parquet TIME is
// unreadable for format 0.4 (formats.QuirkTimeNSFilesUnreadable: DuckDB
// 1.5.0 and 1.5.1 read it as TIME and cannot cast it; timeNSUnreadable);
// v54: the change feed's delete side is compared, data file by data file,
// as each side's release line computes it for every range of snapshots
// (feedDeletes: delete files and inlined file deletions no snapshot sees
// or begun among expired snapshot ids, partial deletion files' stored
// snapshots), and an ended data file's name mapping and partition values
// (endedEntries);
// v55: a change feed difference is taken for convert's delete-file chains
// (feedExcused) only where B's delete files are plain and, for a partial
// deletion file written as a chain, one per stored snapshot up to the
// last (a B with a partial file's snapshots changed, or a chain stopping
// early, was excused);
// v56: a change feed difference of a 0.1-0.3 merged file (split list) is
// taken for convert's --rewrite-deletes only where B's feed is, for every
// range, that of the chain convert writes for it (mergedChain; a B hiding
// the rows from another snapshot, or with another delete file, was
// excused);
// v57: the values of an inlined row no snapshot sees, which the change
// feed returns, are compared where its end is described
// (unseenInlinedValues; a B with other values there was equivalent);
// v58: a 0.1 catalog, and a 0.2 catalog B, with a visible data file whose
// row_id_start is NULL is unreadable for that table (row-id-start-required:
// DuckDB 1.3.0's and 1.3.1's DuckLake read it as a number);
// v59: tags (ducklake_tag, ducklake_column_tag) as the readers take them,
// a row with a NULL value none (tagRow.readerTag: a NULL row stored after
// a comment hid it, on both sides), and a partition spec's keys joined to
// it by partition_id alone, as the readers join them (a key row naming
// another table_id was left out), a visible partition spec or sort hint
// of no visible table and a macro without an implementation, any of which
// fails the readers' load of the catalog (the first two were not
// described, the join left the third out);
// v60: the chain convert's --rewrite-deletes writes for a 0.1-0.3 merged
// file that ends holds a partial deletion file begun and ended at its end
// (the rows the feed left out there), and the exemption requires it (a B
// without it, whose feed at the end leaves out rows A's reports, was
// excused);
// v61: a 0.1 catalog's, and a 0.2 catalog B's, data file row that ends
// with a NULL row_id_start is unreadable in its "data file ended" entry
// (row-id-start-required: DuckDB 1.3.0's and 1.3.1's change feed reads it
// as a number, whether or not a snapshot sees the file; a B with such a
// file no snapshot sees was equivalent);
// v62: a delete file is read with each catalog's own encryption key (the
// comparison kept what it read by path alone: a B whose delete file had
// another key than A's, or one where A's had none, was equivalent);
// v63: a data file of a 0.4 catalog B whose VARIANT column is shredded on
// a DECIMAL of at most 4 digits is reported (variant-shredded-decimal2:
// DuckDB 1.5.0 and 1.5.1 fail every read of the column), and one of a 0.4
// or 1.0 catalog B whose VARIANT column is shredded on BLOB
// (variant-shredded-blob-as-base64: DuckDB 1.5.0-1.5.3 read base64
// VARCHARs), and one of a 0.1 or 0.2 catalog B with a DECIMAL of 19-38
// digits stored as INT32/INT64 (decimal-wide-in-int32-int64: DuckDB 1.3.0
// and 1.3.1 fail every read of the column); such a B was equivalent;
// v64: a snapshot at which the readers' load of the whole catalog fails
// makes every table there unreadable (loadRefusal: a table whose schema is
// not visible, a table_id with two visible rows, a table without column
// rows, two columns of a table named alike in any letter case, a column
// tag other than a comment, view column aliases that do not parse, a
// table, view or macro of a second schema named alike in any letter case,
// a view or macro whose schema is not visible, a stray partition spec or
// sort hint, a macro without implementation or with one of another type
// than scalar or table; the
// first two were equivalent to a source without them, the others
// equivalent where both catalogs had them, and a frozen catalog with one
// read alone cleanly);
// v65: a catalog whose metadata column has another DuckDB type than its
// format's writers give it (formats.Version.TypeDiffs: a VARCHAR
// snapshot_time, a VARCHAR or INTEGER statistics column; a collation or a
// generated column, read from the table's CREATE statement,
// formats.Collations and formats.Generated) cannot be read,
// as a catalog with another column; such a B holding A's values was
// equivalent, while DuckLake's readers bind their SQL to the type.
// v66: a column_type is matched against the type names in ASCII letter
// case only, as the readers' StringUtil::CIEquals does ("ſtruct" with
// fields and "jſon" are refused, where Go's Unicode folding took them for
// a struct and a JSON and the proof failed); v67: tables are paired and
// read by the name the readers resolve (shadowTables: of two visible
// tables of one name in ASCII letter case in one schema the one of the
// larger table_id, none where a view has the name; a B adding an empty
// table of A's table's name and a larger table_id, stored first, was
// equivalent), a table whose name resolves to another entry is described
// apart, and its column and folder refusals fail the load; v68: a Parquet
// footer's column names and a name mapping's sources match a column's
// names in ASCII letter case only, as DuckDB's readers match them, so a
// footer's "É" is not a column "é", and an inlined table is found by its
// name in ASCII letter case only (dynamicName); v69: a frozen catalog (A)
// whose snapshot_time is a TIMESTAMP (formats.FrozenTypes: a working
// catalog copied from another database) opens again, as it did before v65,
// and a catalog under proof (B) with such a stand-in is a catalog
// difference (Reader.strictTypeDiffs) instead of unreadable; v70: an
// inlined table's columns (its system columns and the table's) are found
// by name in ASCII letter case only, as DuckDB binds the readers' SELECT
// (a further column "K", the Kelvin sign, or "begin_ſnapshot" was read in
// place of k or begin_snapshot, and a B holding A's values there was
// equivalent).
// v71: a data
// file of a catalog B in 0.1-0.4 or 1.0 whose DECIMAL column is stored as
// BYTE_ARRAY is reported (decimal-byte-array-empty-value: DuckDB 1.3.0 to
// 1.5.4 read a zero-length value, a zero, as minus one unit of its last
// place where the next byte has its high bit set), and one of a 0.1-0.3
// catalog B whose chunk of a column DuckDB holds other than as a string
// (a UUID, a DECIMAL) is encoded DELTA_BYTE_ARRAY
// (delta-byte-array-not-string: DuckDB 1.3 and 1.4 fail every read of
// the column); such a B was equivalent, both read by DuckDB 1.5.6.
// v72: snapshot times are compared as instants, a TIMESTAMP stand-in read
// as its UTC instants (formats.Version.StandInReads), so a conversion of
// such a frozen catalog, whose output holds TIMESTAMPTZ, is equivalent
// (every snapshot's time "differed" by its "+00").
// v73: names compared in ASCII letter case only where DuckDB and DuckLake
// compare so: a delete file's Hive folder key against its columns ("poſ=1"
// is a third column, not "pos"), and a registered inlined table's name
// against the catalog's objects ("zz_İnl" names no table, not a view
// zz_inl), and the objects named like DuckLake's (formats.ReadObjects,
// CheckObjects, CheckInlined: a view "ducKlake_x", with the Kelvin sign, is
// no impostor), and the registration that holds an inlined table to its
// required fields (formats.CheckRequired: "ducklake_İnlined_data_1_4"
// registers no table).
// v74: a visible table whose column rows are none visible at a snapshot is
// not loaded there, as every release line's load leaves it out
// (formats.LoadRows.Loaded): it is not read (the proof failed: "has no
// columns"), takes no name from another table, its partition specs and sort
// hints are strays, and it is described apart ("not loaded").
// v75: two visible views, or two macros of one kind, of one schema named
// alike in ASCII letter case are described as a group (formats.NameClashes:
// identical, or which one the readers read undetermined), where the
// description keyed by name kept the last row, so that a B adding a view of
// A's view's name with another query, stored first, was equivalent.
// v76: a visible nested field whose parent the readers' load has not added
// before it (its parent ended, or is a field whose parent_column is greater
// than its own id) fails the load of the catalog at the snapshot
// (formats.ParentRefusal: "Could not find parent column"), where the proof
// failed ("has unknown parent") or read it, so that a B and its A holding
// one alike were equivalent.
// v77: a COLLATE in a metadata table's CHECK constraint or in a column's
// DEFAULT or generated expression is not the column's collation
// (formats.Collations reads the column's own, outside parentheses), where
// the proof refused such a catalog (a table CHECK read as a collated column
// "CHECK").
// v78: a negative id of a visible row the catalog's load reads (a schema's
// schema_id, a table's table_id or schema_id, a column's column_id or
// parent_column, a view's or macro's schema_id) fails the load at the
// snapshot (catalog-load-fails), where a value rule A broke too was excused
// and the frozen catalog's own read did not check them.
// v79: a name-mapped file's Hive partition value is found in its path as
// DuckDB's HivePartitioning::Parse finds it (formats.HivePartitionValue: a
// folder, never the file name; not one with two '=', '?' or a newline; the
// first of its key), and a file without one is unreadable
// (hive-partition-not-in-path), where the first segment name=... was taken
// (a folder k=x=y read as "x=y", a file named k=2.parquet as "2.parquet").
// v80: a name mapping's source matches the first file column (or struct
// field) equal to it in ASCII letter case, as DuckDB's NameMapper does
// (was an exact match first); of a mapping's rows with one column_id the
// first loaded takes the children (was the last); and a B with two entries
// of one parent sharing a column_id or target field id (not one row twice)
// is unreadable (formats.NameMapDuplicate).
// v81: formats.NameMapDuplicate refuses only siblings that read otherwise
// in the two load orders: one target field id (unless one name, partition
// flag and children), or one column_id some entry names as parent (unless
// one name, field id and partition flag); siblings of one column_id no
// entry names as parent were refused.
// v82: a column or field without fields whose initial_default (and, in
// 0.1-0.3, default_value) does not cast to its type is unreadable
// (uncastable-default): every reader's schema load casts it, where the
// proof used it only for files lacking the column; so is a 0.4+
// expression default_value that is not one plain expression
// (unparsable-default-expression); and a column with
// fields missing from a file reads NULL, its own initial_default ignored
// as every reader ignores it (was cast to the column's type); a file
// read without a schema map (name-mapped, or by position) has its
// columns read by position after matching them by name, so that
// read_parquet's renaming of case-duplicate names (keyx -> keyx_1) cannot
// make a name reach another column.
// v83: a TIMESTAMPTZ initial_default (and, in 0.1-0.3, default_value)
// naming a time zone other than UTC does not cast (uncastable-default):
// DefaultCastAs has no ICU, where the judge's TRY_CAST, ICU loaded, took
// the name (formats.DefaultCastQuery).
// v84: a JSON initial_default (and, in 0.1-0.3, default_value) casts
// whatever its text: the default cast reinterprets a VARCHAR, where the
// judge's TRY_CAST, the json extension loaded, validated it.
// v85: a name-mapped or positional file's columns and fields are matched
// by the names DuckDB's Parquet reader gives them (keyx after KEYX is
// keyx_1, at the top level and in structs: pnode.setChildren), as every
// DuckLake reader matches them, not by the file's own names; a positional
// file's table column i reads file column i; a column with fields has
// its default_value no longer described (no reader takes one).
// v86: a field-id file's column is trivially mappable for DuckDB 1.3.0
// (formats.QuirkRemapListsUnreserved) when its struct fields' names as the
// Parquet reader gives them (pnode.setChildren: x, X read as x, X_1) are the
// catalog's, not the file's own names.
// v87: in formats DuckDB 2.0 reads (1.0 and 1.1), a default also casts as
// 2.0 casts it (formats.Version.DefaultCastQuery): a DATE with more than
// white space after the date only where the whole text is a timestamp, no
// offset ending in a colon (TIMETZ: no one-digit offset minute), where the
// proof held them to DuckDB 1.5's cast only.
// v88: a default whose cast throws in this DuckDB where the type casts at
// all (a GEOMETRY text that is not WKT: Geometry::FromString throws, also
// under TRY_CAST) does not cast (uncastable-default), where it was taken
// for a type this DuckDB cannot cast to and not judged.
// v89: in 1.0 and 1.1, a TIMETZ default whose offset after the time does
// not end cleanly ('12:00:00+02:0x', '+02:00:5z') and a TIME or TIME_NS
// one read as a timestamp whose offset ends in a colon ('2024-01-01
// 12:00:00+02:') do not cast, as in DuckDB 2.0, where they were taken; an
// offset whose colon a space follows casts (2.0 reads an empty zone name).
// v90: only a default cast's own failure (a Conversion or Invalid Input
// error) on a type this DuckDB casts to is "does not cast"; any other
// error is an error, where v88-v89 kept it as a refusal.
// v91 held catalog A to the default casts of any line reading its format;
// v92 holds it to every line again, as v90: the frozen catalog A is also
// the catalog served to every release its format admits (DuckDB 2.0 for
// 1.0), and v91's check certified a 1.0 frozen catalog 2.0 cannot load.
// v93: a default cast judge whose statement asking whether the type casts
// at all fails for the machine (not naming the type: internal/duckerr),
// or whose cast fails so, is an error, where v88-v92 took the text for
// one that casts (not judged) and a kept proof could certify on it.
// v94: a default holding a NUL byte is judged and read by its value
// (formats.SQLText), where its statements were cut short and failed;
// in 1.0 and 1.1 an expression holding one is refused (DuckDB 2.0's
// parser reads past it, 1.5's stops at it); "not judged" only where the
// cast and the castable statement both name a type DuckDB does not know.
const proofVersion = "fdl-formats proof v94"

// proofKeyName names a comparison's inputs under opts' rules, or nothing
// when they cannot be named (a remote data folder, or catalog paths
// outside the data folder).
func proofKeyName(ctx context.Context, a, b *Reader, opts Options) proofName {
	for _, r := range []*Reader{a, b} {
		if !r.allPathsRelative(ctx) {
			return proofName{}
		}
	}
	return inputsName(a.path, b.path, a.dataPath, b.dataPath, opts.SumA, opts.SumB, opts.Listings, opts)
}

// inputsName names both catalogs' bytes and every file of their data
// folders. Everything else a proof depends on (the formats, whether every
// path is relative) is a function of those bytes, so a proof kept under
// its key can be found without opening the catalogs, when the data
// folders are given (the override repositories always pass). sumA and
// sumB, when not "", are the catalogs' sha256 as their caller hashed them.
func inputsName(catA, catB, dataA, dataB, sumA, sumB string, l *Listings, opts Options) proofName {
	for _, dir := range []string{dataA, dataB} {
		if dir == "" || strings.Contains(dir, "://") {
			return proofName{} // not a local folder: its files cannot be listed
		}
	}
	sums := [2]string{sumA, sumB}
	for i, cat := range []string{catA, catB} {
		if _, err := os.Lstat(cat + ".wal"); err == nil {
			return proofName{} // Open refuses it: never answer for it from the cache
		}
		if sums[i] == "" {
			var err error
			if sums[i], err = fileSHA256(cat); err != nil {
				return proofName{}
			}
		}
	}
	return sumsName(sums[0], sums[1], dataA, dataB, l, opts)
}

// proofName names a kept proof in two parts: base, everything it depends
// on but the files of its data folders (proofVersion, the build, both
// catalogs' sha256, the data folders, the rules), and text, the data
// folders' listing (walkListing: every file's path, size, modification
// time and identity). Its key is a function of base and the listing's
// sha256, so that a proof kept under an earlier listing can be found again
// from that listing's digest alone (keptGrown). The zero proofName names
// nothing (key "").
type proofName struct {
	base string
	text []byte
	dirs []string // the data folders text lists (stillListed)
	// sum is listingSum(text) where the run's Listings had it (one data
	// folder), "" to hash text when asked (textSum).
	sum string
}

// key is the name's key in the digest cache, "" for none.
func (n proofName) key() string {
	if n.base == "" {
		return ""
	}
	return listedKey(n.base, n.textSum())
}

// textSum is listingSum(n.text): the run's, hashed once per listing, where
// n names one data folder. A long history's folder lists thousands of
// files (1.3 MB at lakegen -history 200), and a backfill's cell asked for
// the sum of the same listing four times.
func (n proofName) textSum() string {
	if n.sum != "" {
		return n.sum
	}
	return listingSum(n.text)
}

// listedKey is the key of a proof with base kept under the listing whose
// sha256 is sum.
func listedKey(base, sum string) string {
	h := sha256.Sum256([]byte("fdl-formats proof\x00" + base + "\x00listing " + sum))
	return hex.EncodeToString(h[:])
}

// listingSum is a listing's sha256: its name in the digest cache.
func listingSum(text []byte) string {
	h := sha256.Sum256(text)
	return hex.EncodeToString(h[:])
}

// sumsName names catalogs by their sha256 and every file of their data
// folders (local folders; none for any other), listed by list, under
// opts' rules.
func sumsName(sumA, sumB, dataA, dataB string, l *Listings, opts Options) proofName {
	h := sha256.New()
	fmt.Fprintf(h, "%s %s\x00", proofVersion, buildID())
	for _, c := range [][2]string{{sumA, dataA}, {sumB, dataB}} {
		if c[0] == "" || c[1] == "" || strings.Contains(c[1], "://") {
			return proofName{}
		}
		fmt.Fprintf(h, "catalog %s data %s\x00", c[0], l.folderName(c[1]))
	}
	text, sum, err := l.listed(dataA)
	if err != nil {
		return proofName{}
	}
	dirs := []string{dataA}
	if dataB != dataA {
		textB, err := l.list(dataB)
		if err != nil {
			return proofName{}
		}
		text, sum, dirs = slices.Concat(text, textB), "", append(dirs, dataB)
	}
	return proofName{base: withRules(hex.EncodeToString(h.Sum(nil)), opts), text: text, dirs: dirs, sum: sum}
}

// Listings lists the data folders that name a kept proof (every file's
// path, size and modification time) once per run instead of once per
// proof: share one across the proofs of a run. A run that writes into a
// data folder (a backfill's --rewrite-deletes, a remote store's data
// cache) calls Changed after each write; every later key lists again, so
// a key never misses a file its own run wrote before asking. A nil
// *Listings lists for every key.
type Listings struct {
	mu    sync.Mutex
	gen   uint64 // Changed calls so far
	byDir map[string]listing
	// stored holds the sha256 of the listings this run has kept in the
	// digest cache (keepListing); grew, the answers of grewSince by
	// listing sums (earlier, now).
	stored map[string]bool
	grew   map[[2]string]bool
	walks  int // folders listed (tests)
	sums   int // listings hashed (tests)
	// mirrors are the data folders that mirror a store's folder, by
	// their clean path (SetMirror).
	mirrors map[string]Mirror
	// links are whether a data folder holds a symbolic link, as a
	// reader's sandbox found it (Reader.linksUnder), with the gen it was
	// found at.
	links map[string]linksFound
}

// A Mirror is a local folder that holds copies of a store's objects (a
// remote repository's data cache), each held to its object, as the store
// gives it, before a proof reads it. A kept proof names such a folder, and
// the copies in it, by the store's identity of the objects rather than by
// what the copies are on local disk, so that a proof is found again from a
// copy of the folder (a cache restored in CI: every file a new inode, and
// maybe a new path). See docs/compare.md, "A store's mirror" (under "The
// digest").
type Mirror interface {
	// Name names the store's folder the local one mirrors (its store's
	// location and the key prefix).
	Name() string
	// Identity names the copy at path (under the folder) by its object:
	// key, size and a strong validator the run holds the copy to (an S3
	// ETag), or "" where the store gives none (a Last-Modified time and
	// size only): the copy is then named by its local identity, as in any
	// folder. skip is true for a file of the mirror's own bookkeeping,
	// which no reader reads: left out of the listing.
	Identity(path string) (id string, skip bool)
}

// SetMirror says the data folder dir mirrors a store's folder (m): its
// listing and its files' identities name the store's objects (Mirror).
func (l *Listings) SetMirror(dir string, m Mirror) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mirrors == nil {
		l.mirrors = map[string]Mirror{}
	}
	l.mirrors[filepath.Clean(dir)] = m
}

// mirrorOf returns the Mirror registered for dir, nil for a plain folder.
func (l *Listings) mirrorOf(dir string) Mirror {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mirrors[filepath.Clean(dir)]
}

// mirrorHolding returns the Mirror registered for a folder holding the
// file at path, nil when there is none.
func (l *Listings) mirrorHolding(path string) Mirror {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if m, ok := l.mirrors[dir]; ok {
			return m
		}
		if next := filepath.Dir(dir); next == dir {
			return nil
		}
	}
}

// folderName is how a key names the data folder dir: a mirror by its
// store's folder, any other by its path.
func (l *Listings) folderName(dir string) string {
	if m := l.mirrorOf(dir); m != nil {
		return "mirror of " + m.Name()
	}
	return dir
}

type listing struct {
	gen  uint64 // the generation its walk began in
	text []byte
	sum  string // listingSum(text), "" until asked (Listings.listed)
}

// NewListings returns an empty Listings.
// linksFound is what a walk of a data folder found (Listings.links).
type linksFound struct {
	gen   uint64
	found bool
}

// linksIn returns whether the data folder dir holds a symbolic link, as
// walk finds it, once per folder until the run writes into a data folder
// (Changed). Safe for concurrent use; a nil *Listings walks every time.
func (l *Listings) linksIn(dir string, walk func(string) bool) bool {
	if l == nil {
		return walk(dir)
	}
	l.mu.Lock()
	got, ok := l.links[dir]
	gen := l.gen
	l.mu.Unlock()
	if ok && got.gen == gen {
		return got.found
	}
	found := walk(dir)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.links == nil {
		l.links = map[string]linksFound{}
	}
	l.links[dir] = linksFound{gen: gen, found: found}
	return found
}

func NewListings() *Listings {
	return &Listings{byDir: map[string]listing{}}
}

// Changed says the run wrote into a data folder: the listings made so far
// are not used again.
func (l *Listings) Changed() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.gen++
	l.mu.Unlock()
}

// list returns the listing of dir: the run's, unless the run wrote into a
// data folder since it was made.
func (l *Listings) list(dir string) ([]byte, error) {
	text, _, err := l.listedSum(dir, false)
	return text, err
}

// listed is list with the listing's sha256 (listingSum), hashed once per
// listing the run keeps.
func (l *Listings) listed(dir string) (text []byte, sum string, err error) {
	return l.listedSum(dir, true)
}

// listedSum is list, and with withSum listed.
func (l *Listings) listedSum(dir string, withSum bool) (text []byte, sum string, err error) {
	if l == nil {
		text, err = walkListing(dir, nil)
		return text, "", err // hashed when asked (proofName.textSum)
	}
	m := l.mirrorOf(dir)
	l.mu.Lock()
	gen := l.gen
	got, ok := l.byDir[dir]
	if !ok || got.gen != gen {
		l.walks++
		l.mu.Unlock()
		text, err := walkListing(dir, m)
		if err != nil {
			return nil, "", err
		}
		got = listing{gen: gen, text: text}
		l.mu.Lock()
		if l.gen == gen { // else a write since the walk began: not kept
			l.byDir[dir] = got
		}
	}
	l.mu.Unlock()
	if withSum && got.sum == "" {
		got.sum = listingSum(got.text)
		l.mu.Lock()
		l.sums++
		if kept, ok := l.byDir[dir]; ok && kept.gen == got.gen && sameText(kept.text, got.text) {
			kept.sum = got.sum
			l.byDir[dir] = kept
		}
		l.mu.Unlock()
	}
	return got.text, got.sum, nil
}

// sameText reports whether a and b are the same bytes in memory (one
// listing), not only equal ones.
func sameText(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// InputsKey names a result that is a function of parts and of the local
// data folder dataPath as it is now (every file's path, size and
// modification time, listed through l, nil for now), made by this build
// (as a kept proof's key): a key under which a caller keeps in a
// DigestStore what it verified, to be found only while none of that
// changed. kind names what is kept. "" when the folder cannot be listed.
func (l *Listings) InputsKey(kind, dataPath string, parts ...string) string {
	if dataPath == "" || strings.Contains(dataPath, "://") {
		return ""
	}
	dir := overridePath(dataPath)
	text, err := l.list(dir)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s %s\x00data %s\x00", kind, proofVersion, buildID(), l.folderName(dir))
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\x00", len(p), p)
	}
	h.Write(text)
	return hex.EncodeToString(h.Sum(nil))
}

// BuildKey names a result that is a function of parts alone (such as a
// file's sha256) as this build computes it: a key under which a caller
// keeps in a DigestStore what it verified of those bytes, found again only
// by the same build (proofVersion and buildID, as InputsKey). kind names
// what is kept.
func BuildKey(kind string, parts ...string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s %s\x00", kind, proofVersion, buildID())
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\x00", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// errLinkedFolder makes a listing fail (and so a key "", nothing kept or
// reused) for a data folder holding a symbolic link to a folder.
var errLinkedFolder = errors.New("a symbolic link to a folder: not listed, nothing kept")

// walkListing lists every file under dir as readers read it: the folder
// itself resolved (a data folder that is a symbolic link is walked at its
// target, which WalkDir would not enter), and each file by what it names
// (a symbolic link by its target's stat, followed as DuckDB and DiskCheck
// follow it, and its target text): size, modification time and, where the
// system has them, the inode change time, device and inode
// (fileid.Inode). A symbolic link to a folder fails the listing: its
// files would not be listed (WalkDir does not enter it) and walking into
// it would need loop guards for a layout no writer makes; the folder gets
// no key, so every check of it reads (cold) instead of trusting a listing
// that misses files.
//
// A folder that mirrors a store's (m not nil) is named by the store's
// folder, and each copy the mirror can name by its object (Mirror.Identity:
// key, size, strong validator) by that alone: the listing is the same for
// a copy of the folder, wherever it is. The others are listed as above.
func walkListing(dir string, m Mirror) ([]byte, error) {
	return walkCopies(dir, m, nil, nil)
}

// walkCopies is walkListing that also gives, in ids when not nil, the copy
// identity (copyIdentity) of each file whose path under dir resolved named
// holds.
func walkCopies(dir string, m Mirror, ids map[string]string, named map[string]bool) ([]byte, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var b bytes.Buffer
	if m != nil {
		fmt.Fprintf(&b, "mirror of %s\x00", m.Name())
	} else {
		fmt.Fprintf(&b, "root %s\x00", root)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if m != nil && d.Type().IsRegular() {
			id, skip := m.Identity(p)
			if skip {
				return nil
			}
			if id != "" {
				fmt.Fprintf(&b, "object %s", id)
				b.WriteByte(0)
				if ids != nil && named[p] {
					ids[p] = objectIdentity + id
				}
				return nil
			}
		}
		link := ""
		var info fs.FileInfo
		if d.Type()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
			if info, err = os.Stat(p); err != nil {
				return err // a dangling link: readers fail on it too
			}
			if info.IsDir() {
				return fmt.Errorf("%s: %w", p, errLinkedFolder)
			}
		} else if info, err = d.Info(); err != nil {
			return err
		}
		// The path and fileid.Stamp, without fmt's allocations (a
		// folder is listed again after every proof: stillListed).
		e := append(b.AvailableBuffer(), p...)
		e = append(e, ' ')
		b.Write(fileid.AppendStamp(e, info))
		if ids != nil && named[p] {
			ids[p] = diskIdentity(info)
		}
		if link != "" {
			fmt.Fprintf(&b, " -> %d:%s", len(link), link)
		}
		b.WriteByte(0)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	return b.Bytes(), nil
}

// KeptProof returns the report of a proof kept in opts.DigestCache for
// catalogs whose bytes have the sha256 opts.SumA and opts.SumB, over the
// data folders of opts (DataPath, DataPathB) as they are now (through
// opts.Listings), without opening or reading either catalog: a and b only
// name them in the report. The caller vouches that readers open exactly
// those bytes: hashed as they were read, with nothing beside them (a
// write-ahead log) that DuckDB would replay.
func KeptProof(a, b string, opts Options) (*Report, bool) {
	start := time.Now()
	if opts.DigestCache == nil || opts.DataPath == "" {
		return nil, false
	}
	// a and b name the catalogs for the report only (a store's keys):
	// the sums stand for them.
	dpA, dpB := keyDataPaths(opts)
	kept, ok := findKept(opts, sumsName(opts.SumA, opts.SumB, dpA, dpB, opts.Listings, opts))
	if !ok {
		return nil, false
	}
	return keptReport(kept, a, b, start), true
}

// buildID names the running program's build, so that a new build of the
// tool proves again instead of trusting an older build's proofs: the Go
// build ID the linker wrote into the executable (a hash of its inputs,
// different for any two builds that differ), else its module version, VCS
// revision and the executable's size and time. A fact of the binary,
// computed once.
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err == nil {
		if id, err := executableBuildID(exe); err == nil && id != "" {
			return "go build id " + id
		}
	}
	id := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		id = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				id += " " + s.Value
			}
		}
	}
	if err == nil {
		if st, err := os.Stat(exe); err == nil {
			id += fmt.Sprintf(" exe %d %d", st.Size(), st.ModTime().UnixNano())
		}
	}
	return id
})

// The Go linker writes the build ID near the start of the executable: in
// an ELF file as a note (owner "Go", type 4) in its first pages, and in
// the text as `\xff Go build ID: "<id>"\n \xff`, at the start of the text
// when Go links the program itself (with cgo the system linker may place
// the text megabytes further, so the note is read first).
var (
	buildIDStart = []byte("\xff Go build ID: \"")
	buildIDEnd   = []byte("\"\n \xff")
	elfGoNote    = []byte("Go\x00\x00")
)

const (
	buildIDWindow = 64 << 10 // how much of the executable is read
	buildIDMax    = 1 << 10  // longer is not a build ID
	elfNoteGoID   = 4        // the Go build ID note's type
)

// executableBuildID returns the Go build ID written in the first 64 KiB
// of the executable at path, or "" when there is none.
func executableBuildID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the build ID of %s: %w", path, err)
	}
	defer f.Close()
	buf := make([]byte, buildIDWindow)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the build ID of %s: %w", path, err)
	}
	buf = buf[:n]
	if id := elfNoteBuildID(buf); id != "" {
		return id, nil
	}
	_, rest, ok := bytes.Cut(buf, buildIDStart)
	if !ok {
		return "", nil
	}
	id, _, ok := bytes.Cut(rest, buildIDEnd)
	if !ok || len(id) == 0 || len(id) > buildIDMax || bytes.ContainsAny(id, "\"\n\x00") {
		return "", nil
	}
	return string(id), nil
}

// elfNoteBuildID finds the Go build ID note in buf, the start of an ELF
// file: name size 4, description size, type 4, the name "Go\0\0", then
// the ID (each field a 4-byte integer in the file's byte order).
func elfNoteBuildID(buf []byte) string {
	if len(buf) < 6 || !bytes.HasPrefix(buf, []byte("\x7fELF")) {
		return ""
	}
	var order binary.ByteOrder
	switch buf[5] { // EI_DATA
	case 1:
		order = binary.LittleEndian
	case 2:
		order = binary.BigEndian
	default:
		return ""
	}
	for from := 0; ; {
		i := bytes.Index(buf[from:], elfGoNote)
		if i < 0 {
			return ""
		}
		i += from
		from = i + 1
		if i < 12 {
			continue
		}
		nameSize, descSize, typ := order.Uint32(buf[i-12:]), order.Uint32(buf[i-8:]), order.Uint32(buf[i-4:])
		end := i + len(elfGoNote) + int(descSize)
		if nameSize != 4 || typ != elfNoteGoID || descSize == 0 || descSize > buildIDMax || end > len(buf) {
			continue
		}
		return string(buf[i+len(elfGoNote) : end])
	}
}

// AllPathsRelative reports whether every schema, table, data and delete
// file path of the catalog is relative, so that every file it references is
// in its data folder (and named by InputsKey's listing of it).
func (r *Reader) AllPathsRelative(ctx context.Context) bool { return r.allPathsRelative(ctx) }

// allPathsRelative reports whether every schema, table, data and delete
// file path of the catalog is relative (so its files are in the data
// folder): one query, once per reader (a Source's reader answers every
// proof it serves).
func (r *Reader) allPathsRelative(ctx context.Context) bool {
	if r.relative != nil {
		return *r.relative
	}
	if all, ok := r.keptRelative(); ok {
		r.relative = &all
		return all
	}
	var parts []string
	for _, t := range relativeTables {
		if r.has(t, "path_is_relative") {
			parts = append(parts, fmt.Sprintf("SELECT count(*) AS n FROM cat.%s WHERE path_is_relative = false", t))
		}
	}
	all := true
	if len(parts) > 0 {
		var n sql.NullInt64
		err := r.conn.QueryRowContext(ctx, "SELECT sum(n) FROM ("+strings.Join(parts, " UNION ALL ")+")").Scan(&n)
		if err != nil {
			return false // not kept: a cancelled query is asked again
		}
		all = n.Int64 == 0
	}
	r.relative = &all
	return all
}

// relativeTables are the tables whose paths allPathsRelative checks.
var relativeTables = []string{"ducklake_schema", "ducklake_table", "ducklake_data_file", "ducklake_delete_file"}

// keptRelative answers allPathsRelative from ReadEveryTable's pass, which
// counts the rows whose path_is_relative is false (tableExtras); ok is
// false when it has not run, or did not count one of the tables.
func (r *Reader) keptRelative() (all, ok bool) {
	if r.notRelative == nil {
		return false, false
	}
	var n int64
	for _, t := range relativeTables {
		if !r.has(t, "path_is_relative") {
			continue
		}
		c, counted := r.notRelative[t]
		if !counted {
			return false, false
		}
		n += c
	}
	return n == 0, true
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cachedProof returns the report of an earlier proof of the same inputs.
func cachedProof(store DigestStore, key string) (*Report, bool) {
	if store == nil || key == "" {
		return nil, false
	}
	b, ok := store.Get(key)
	if !ok {
		return nil, false
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil || !rep.Equivalent {
		return nil, false
	}
	return &rep, true
}

// keepProof stores the report of a proof of equivalence under n's key,
// and n's listing with it (keepListing: found again while the data
// folders only grow, keptGrown).
func keepProof(store DigestStore, n proofName, rep *Report, l *Listings) {
	key := n.key()
	if store == nil || key == "" || !rep.Equivalent {
		return
	}
	if b, err := json.Marshal(rep); err == nil && store.Put(key, b) == nil {
		l.keepListing(store, n) // a cache that cannot be written only costs time
	}
}

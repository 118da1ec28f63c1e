package repo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/store"
)

// checkContents runs a version's content pass (contentIssues), unless the
// digest cache holds a clean pass over the very same inputs (contentsKey):
// then it reads nothing, and needs no copy of the frozen catalog. A clean
// pass is kept, with its warnings (ProblemWarning), which a kept pass
// returns again; other issues are always found anew. The caller releases
// v's frozen copy. source (may be nil) is the reader of the frozen copy
// that the version's proofs share: the pass reads the catalog with it.
func (r *repository) checkContents(ctx context.Context, v *version, frozen *frozenCopies, source *compare.Source, disk *compare.DiskCheck, jsonFiles bool) []Issue {
	key := r.contentsKey(v, jsonFiles)
	if key != "" {
		if kept, ok := r.digestCache.Get(key); ok {
			return keptWarnings(kept)
		}
	}
	issues, inDataFolder := r.contentIssues(ctx, v, frozen, source, disk, jsonFiles)
	if key != "" && onlyWarnings(issues) && inDataFolder && ctx.Err() == nil {
		kept := "clean"
		for _, is := range issues {
			kept += "\n" + strings.ReplaceAll(is.Detail, "\n", " ")
		}
		_ = r.digestCache.Put(key, []byte(kept)) // a cache that cannot be written only costs time
	}
	return issues
}

// onlyWarnings reports whether every issue is a warning (none: true).
func onlyWarnings(issues []Issue) bool {
	for _, is := range issues {
		if is.Problem != ProblemWarning {
			return false
		}
	}
	return true
}

// keptWarnings are the warnings of a kept clean pass: the lines after
// its first, "clean".
func keptWarnings(kept []byte) []Issue {
	lines := strings.Split(string(kept), "\n")
	var out []Issue
	for _, l := range lines[1:] {
		if l != "" {
			out = append(out, Issue{Problem: ProblemWarning, Detail: l})
		}
	}
	return out
}

// earlyStatsWarning is a warning when v's frozen catalog, in a format
// some of whose first releases fail to read any table of a catalog with a
// ducklake_table_stats row of a table without column statistics (1.0:
// DuckDB 1.5.2 and 1.5.3; formats.Version.EarlyQuirks), holds such rows
// and fdl.json's range for the format (else the registry's) admits those
// releases. The frozen catalog is as its writer made it (DuckDB 1.5.4+
// and 2.0 read it) and backfill writes no catalog in its own format, so
// it does not fail the check; a catalog this tool writes in the format
// never holds such rows (convert drops them, the proof holds it to that).
func (r *repository) earlyStatsWarning(ctx context.Context, rd *compare.Reader, key string) []Issue {
	f := rd.Format()
	q := formats.QuirkTableStatsNeedColumnStats
	text, fixed, admits := r.admitsEarly(f, q)
	if !admits {
		return nil
	}
	tables, err := rd.TablesWithFailingStats(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the table statistics of %s: %v", key, err), cause: err}}
	}
	if len(tables) == 0 {
		return nil
	}
	return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s (format %s) has table statistics of tables without column statistics: %s; DuckDB before %s, readers of format %s by its range DuckDB %s, fail to read any table of it (%s), where no other catalog of the version opens in them; this tool does not change a frozen catalog (its writer's DuckDB reads it): narrow the range to DuckDB >= %s, or have those readers upgrade",
		key, f.Name, strings.Join(tables, ", "), fixed, f.Name, text, q.Info().Name, fixed)}}
}

// timeNSWarning is a warning when v's frozen catalog, in a format some of
// whose first releases fail every read of a table whose data file holds a
// time_ns column's field as a Parquet TIME (formats.Version.EarlyQuirks:
// 1.0, DuckDB 1.5.2-1.5.5, before the release its EarlyFixes names),
// holds such files (compare.Reader.TimeNSFiles: what DuckDB 1.5.6 and 2.0
// write for TIME_NS) and fdl.json's range for the format (else the
// registry's) admits those releases. As earlyStatsWarning, it does not
// fail the check: the frozen catalog is as its writer made it (its
// writer's DuckDB reads it, and the proof reads it so, as a source), this
// tool does not change it, and narrowing the range silences it; a catalog
// this tool writes in the format never holds such a file (convert refuses
// it, the proof reports it). The files are read from a folder's or the
// cache's copies once they check out against the catalog (CheckFiles).
func (r *repository) timeNSWarning(ctx context.Context, rd *compare.Reader, key string) []Issue {
	f := rd.Format()
	q := formats.QuirkTimeNSFilesUnreadable
	text, fixed, admits := r.admitsEarly(f, q)
	if !admits {
		return nil
	}
	files, err := rd.TimeNSFiles(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the time_ns fields of the data files of %s: %v", key, err), cause: err}}
	}
	if len(files) == 0 {
		return nil
	}
	list := firstFiles(files)
	return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s (format %s) has data files holding a time_ns column's field as a Parquet TIME (as DuckDB 1.5.6 and 2.0 write TIME_NS): %s; DuckDB before %s, readers of format %s by its range DuckDB %s, read the field as TIME and cannot cast it to TIME_NS, so they fail every read of those tables (%s), where DuckDB %s and later read them; this tool does not change a frozen catalog (its writer's DuckDB reads it): narrow the range to DuckDB >= %s, or have those readers upgrade",
		key, f.Name, list, fixed, f.Name, text, q.Info().Name, fixed, fixed)}}
}

// frozenFooterQuirks are the footer quirks (formats.FooterQuirks) some
// reader of v's frozen catalog's format f has: its range, narrowed by
// fdl.json's for it (text names the range), as for a published catalog
// (servedRanges; a quirk that returns other rows counts whatever the
// range, formats.Version.FooterQuirksOf).
func (r *repository) frozenFooterQuirks(f *formats.Version) (text string, affected []formats.AffectedFooterQuirk) {
	if f == nil {
		return "", nil
	}
	var readers goversion.Constraints
	text = f.DuckDB
	if d, ok := r.cfg.Format(f.Name); ok && d.Readers != nil {
		readers, text = d.Readers, d.DuckDB+" (fdl.json)"
	}
	return text, f.FooterQuirksOf(readers)
}

// footerQuirksWarning is a warning when v's frozen catalog has data files
// (its own, not encrypted) whose Parquet footers some DuckDB release among
// its format's readers fails on or misreads (frozenFooterQuirks: 1.0's
// DuckDB 1.5.2 and 1.5.3 read a VARIANT's BLOBs shredded so as base64
// VARCHARs, variant-shredded-blob-as-base64, in files DuckDB 1.5.4+
// writes), naming the quirk, the releases, each file's table and column.
// The proof reports such a file of a published catalog in another format
// (compare's footer differences) and convert refuses to write one; a
// frozen catalog is as its writer made it and backfill writes no catalog
// in its format, so, as timeNSWarning, this does not fail the check.
// Before, nothing read a frozen catalog's footers for these quirks.
func (r *repository) footerQuirksWarning(ctx context.Context, rd *compare.Reader, key string) []Issue {
	f := rd.Format()
	text, affected := r.frozenFooterQuirks(f)
	// Only a catalog with a column of a quirk's types (formats.FooterQuirk
	// ColumnTypes) has its footers read for it: most have no VARIANT.
	affected, err := rd.FooterQuirksWithColumns(ctx, affected)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the column types of %s: %v", key, err), cause: err}}
	}
	if len(affected) == 0 {
		return nil
	}
	names := make([]string, len(affected))
	for i, q := range affected {
		names[i] = q.Name
	}
	files, err := rd.FooterQuirkFiles(ctx, r.digests, names...)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the Parquet footers of the data files of %s: %v", key, err), cause: err}}
	}
	var out []Issue
	for _, q := range affected {
		var items []string
		for _, h := range files {
			if h.Quirk == q.Name {
				items = append(items, fmt.Sprintf("%s: data file %s (data_file_id %d), column %s: %s", h.Table, h.Path, h.ID, h.Column, h.Detail))
			}
		}
		if len(items) == 0 {
			continue
		}
		does := "fail to read"
		if q.Silent() {
			does = "read other values from"
		}
		out = append(out, Issue{Problem: ProblemWarning, Detail: fmt.Sprintf("%s (format %s) has data files whose Parquet footers %s, readers of format %s by its range DuckDB %s, %s (%s): %s; %s: %s; fixed by %s; this tool does not change a frozen catalog (its writer's DuckDB reads it): %s, or have those readers upgrade",
			key, f.Name, q.ReleasesText(), f.Name, text, does, q.Name, firstFiles(items), q.Trigger, q.Behaviour, q.Fixed, q.Advice(f))})
	}
	return out
}

// rowIDStartWarning is a warning when v's frozen catalog, in a format
// some of whose first releases fail every read of a table while a data
// file of it whose row_id_start is NULL is visible
// (formats.QuirkRowIDStartRequired among formats.Version.EarlyQuirks: 0.2,
// DuckDB 1.3.1), holds such files (compare.Reader.NullRowIDStartFiles:
// what DuckDB 1.3.2's merge_adjacent_files writes for files whose row ids
// are not adjacent) and fdl.json's range for the format (else the
// registry's) admits those releases. As earlyStatsWarning, it does not
// fail the check: the frozen catalog is as its writer made it (DuckDB
// 1.3.2 reads it, and the proof reads it so, as a source), this tool does
// not change it, and narrowing the range silences it; a catalog this tool
// writes in the format never holds such a file (convert refuses it, the
// proof reports it).
func (r *repository) rowIDStartWarning(ctx context.Context, rd *compare.Reader, key string) []Issue {
	f := rd.Format()
	q := formats.QuirkRowIDStartRequired
	text, fixed, admits := r.admitsEarly(f, q)
	if !admits {
		return nil
	}
	files, err := rd.NullRowIDStartFiles(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the data files of %s: %v", key, err), cause: err}}
	}
	if len(files) == 0 {
		return nil
	}
	list := firstFiles(files)
	return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s (format %s) has data files whose row_id_start is NULL (as DuckDB 1.3.2's merge_adjacent_files writes them): %s; DuckDB before %s, readers of format %s by its range DuckDB %s, read every visible data file's row_id_start as a number, so they fail every read of those tables while such a file is visible (%s), where DuckDB %s and later read them; this tool does not change a frozen catalog (its writer's DuckDB reads it): narrow the range to DuckDB >= %s, or have those readers upgrade",
		key, f.Name, list, fixed, f.Name, text, q.Info().Name, fixed, fixed)}}
}

// firstFiles lists a warning's data files: the first ten, then how many
// more there are.
func firstFiles(files []string) string {
	const shown = 10
	list := strings.Join(files[:min(len(files), shown)], "; ")
	if len(files) > shown {
		list += fmt.Sprintf("; and %d more", len(files)-shown)
	}
	return list
}

// admitsEarly reports whether f is a format only some of whose first
// releases have q (formats.Version.EarlyQuirks), fixed from DuckDB fixed
// (Version.EarlyFixedIn), and fdl.json's range for it (else the
// registry's, named by text), within the format's own, admits a release
// before fixed.
func (r *repository) admitsEarly(f *formats.Version, q formats.ReaderQuirk) (text string, fixed *goversion.Version, admits bool) {
	if f == nil || f.ReadsWith(q) {
		return "", nil, false
	}
	if fixed = f.EarlyFixedIn(q); fixed == nil {
		return "", nil, false
	}
	own, err := goversion.NewConstraint(f.DuckDB)
	if err != nil {
		return "", nil, false
	}
	c, text := own, f.DuckDB
	if d, ok := r.cfg.Format(f.Name); ok && d.Readers != nil {
		c, text = append(slices.Clone(d.Readers), own...), d.DuckDB+" (fdl.json)"
	}
	return text, fixed, admitsBefore(c, fixed)
}

// emptyStringsWarning is a warning when v's frozen catalog, in a format
// some of whose readers read a VARCHAR column's table statistics without
// min and max as an empty column (formats.QuirkStringTableStatsEmpty,
// 0.4: DuckDB 1.5.0), holds such rows of a column that may hold values:
// those readers return no rows for an equality filter on the column
// (WHERE col = 'x') where later readers of the format return them. They
// open the catalog whatever range fdl.json declares for the format (a
// DuckDB opens the newest format it can: resolve), so, unlike
// earlyStatsWarning's failures, narrowing the range does not silence it.
// DuckDB 1.5.0 and 1.5.1 write such rows themselves (a file whose
// VARCHAR chunk records no min or max). As earlyStatsWarning, it does
// not fail the check: the frozen catalog is as its writer made it, and a
// catalog this tool writes in the format never holds such rows.
func (r *repository) emptyStringsWarning(ctx context.Context, rd *compare.Reader, key string) []Issue {
	f := rd.Format()
	q := formats.QuirkStringTableStatsEmpty
	text, admits := r.admitsEmptyStrings(f)
	if !admits {
		return nil
	}
	cols, err := rd.EmptyStringStats(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the VARCHAR table column statistics of %s: %v", key, err), cause: err}}
	}
	if len(cols) == 0 {
		return nil
	}
	return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s (format %s) has table statistics of VARCHAR columns with values but no min_value and max_value: %s; DuckDB before %s (1.5.0, DuckLake 7ea15644), a reader of format %s by its range DuckDB %s, reads them as an empty column and returns no rows for a filter on it (WHERE column = 'x', %s), where later readers return them; it opens this catalog whatever range fdl.json declares for format %s (a DuckDB opens the newest format it can), and this tool does not change a frozen catalog: have those readers upgrade to DuckDB >= %s",
		key, f.Name, strings.Join(cols, ", "), emptyStringsFixedIn, f.Name, text, q.Info().Name, f.Name, emptyStringsFixedIn)}}
}

// cutStringsWarning is a warning when v's frozen catalog, in a format some
// of whose readers answer SELECT min(c), max(c) of a top-level VARCHAR
// column from exact table statistics (1.0 and 1.1: DuckDB 2.0,
// formats.TableStatsReading.FoldStringMinMax), holds such bounds that are
// not the min and max of the column's rows (compare.Reader.CutStringBounds:
// DuckDB's Parquet writer cuts a string past 256 bytes, the max with its
// last byte incremented), so those readers answer a value no row holds.
// DuckDB 2.0 opens the catalog whatever range fdl.json declares. The rows
// are read from a folder's data files once they check out against the
// catalog (CheckFiles), not from an object store's or web site's. As
// emptyStringsWarning, it does not fail the check: the frozen catalog is
// as its writer made it; a catalog this tool converts from it into 1.1
// has those bounds NULL, and none into 1.0 or 0.1-0.4 is written from a
// 1.1 one holding them (string-table-stats-cut-unfolded,
// string-minmax-folded-cut).
func cutStringsWarning(ctx context.Context, rd *compare.Reader, key string) []Issue {
	f := rd.Format()
	if f == nil || f.ReadsTableStats().FoldStringMinMax == "" {
		return nil
	}
	cols, err := rd.CutStringBounds(ctx)
	if err != nil {
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read the VARCHAR table column statistics of %s against its rows: %v", key, err), cause: err}}
	}
	if len(cols) == 0 {
		return nil
	}
	return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s (format %s) has exact table statistics of VARCHAR columns whose bounds are not the min and max of their rows: %s; %s, a reader of format %s, answers SELECT min(column), max(column) from them with a value no row holds (string-minmax-folded: DuckDB's Parquet writer cuts a string past 256 bytes, the max with its last byte incremented), where DuckDB 1.5 scans the rows; it opens this catalog whatever range fdl.json declares, and this tool does not change a frozen catalog: rewrite the strings past 256 bytes, or publish its 1.1 conversion, whose bounds convert writes NULL where it reads the rows (--data)",
		key, f.Name, strings.Join(cols, "; "), f.ReadsTableStats().FoldStringMinMax, f.Name)}}
}

// admitsEmptyStrings reports whether f is a format some of whose readers
// have formats.QuirkStringTableStatsEmpty and its range (the registry's,
// named by text) admits one of them. fdl.json's range does not narrow it:
// those releases open the catalog whatever the publisher promises.
func (r *repository) admitsEmptyStrings(f *formats.Version) (text string, admits bool) {
	if f == nil || !f.ReadsWith(formats.QuirkStringTableStatsEmpty) {
		return "", false
	}
	c, err := goversion.NewConstraint(f.DuckDB)
	return f.DuckDB, err == nil && admitsBefore(c, emptyStringsFixedIn)
}

// emptyStringsFixedIn is the first DuckDB whose DuckLake reads VARCHAR
// table statistics without min and max as unknown (8b94fb1c, first in
// 67480b1d, the DuckLake of DuckDB 1.5.1).
var emptyStringsFixedIn = goversion.Must(goversion.NewVersion("1.5.1"))

// contentsKeyKind changes whenever what a content pass checks changes.
// v2: files under data_dir; v3: version.json's ducklake.format, which the
// key names; v4: files judged against every table and schema folder
// recorded while they are visible; v5: the catalog's snapshots and
// bookkeeping against ducklake.snapshot_id and ducklake.snapshots (with
// the parent's snapshot_id, which the key names), and no inlined rows;
// v6: inlined tables are those ducklake_inlined_data_tables registers
// and inlined tables named in any letter case; v7: a "." part in a data
// or delete file's path; v8: the frozen catalog read whole (readWhole);
// v9: warnings kept with a clean pass (earlyStatsWarning); v10: columns
// DuckDB 1.3 misreads in a frozen catalog of a storage older than v1.4.0
// (frozenMisreadDetail), and files.json's footer_bytes against the file
// where the catalog records no footer_size (footerBytesIssues); v11:
// VARCHAR table statistics DuckDB 1.5.0 reads as empty
// (emptyStringsWarning); v12: a files.json key two live tables share
// (sharedFilesKeys); v13: version.json's changes against the column
// differences from the parent's snapshot (changesIssues), which the key
// names; v14: a column only retyped (a promotion) unclaimed or claimed
// not breaking is a warning, no longer a difference, and a view created,
// dropped or redefined is a difference entries may name; v15: a table's
// partitioning, sort hint and tags, its columns' tags and a view's tags
// changed are differences entries may name, and unlisted, a warning;
// v16: the NULLs DuckLake's writers never leave in the partition spec,
// macros, sort order, inlined tables and name mappings, and where its
// readers need a value beside another (proofVersion v38), make the frozen
// catalog invalid; v17: so do those of the table, column and file
// statistics DuckLake's readers fail on or prune by (proofVersion v39);
// v18: and those of the views and of a GEOMETRY column's table statistics
// (proofVersion v43); v19: emptyStringsWarning whatever fdl.json's range
// for the format; v20: a GEOMETRY column's table statistics naming no
// geometry type over values make the frozen catalog invalid (proofVersion
// v45); v21: a 1.0 or 1.1 frozen catalog's VARCHAR table statistics
// bounds DuckDB 2.0 folds that are not its rows' min and max are a warning
// (cutStringsWarning); v22: a frozen catalog's data files holding a
// time_ns field as a Parquet TIME, which the first releases of its format
// fdl.json's range admits fail to read, are a warning (timeNSWarning);
// v23: so are a frozen 0.2 catalog's data files with a NULL row_id_start
// (rowIDStartWarning); v24: a files.json whose tables' Parquet files
// readers without DuckLake read otherwise by name (a column added with a
// default, or under a dropped column's name) is a warning (byNameIssue);
// v25: byNameIssue also counts the files registered with
// ducklake_add_data_files: for a column added with a default, those whose
// mapping gives it no field of their footers, whenever they were
// registered; for one added under a dropped column's name, those whose
// footer has a field of its name the mapping does not give it; v26: a
// data or delete file's look-alike in the data folder may differ in
// Unicode normalization too (lookAlikeData, foldName); v27: a frozen
// catalog's data files whose Parquet footers some reader of its format
// fails on or misreads (formats.FooterQuirks) are a warning
// (footerQuirksWarning);
// v28: the frozen catalog's self-read fails where the readers' load of the
// whole catalog at a snapshot fails (proofVersion v64, loadRefusal); v29:
// byNameIssue names the first files of each column it warns of; v30: a
// look-alike may differ in letters whose uppercase is one ("ς" and "σ",
// "ı" and "i": foldCase); v31: a frozen catalog whose metadata column has
// another type than its format's writers give it, a collation or a
// generated column, cannot be read (proofVersion v65, TypeDiffs); v32:
// the self-read matches type names in ASCII letter case only
// (proofVersion v66); v33: and fails on the column and folder refusals of
// a table whose name the readers resolve to another entry (proofVersion
// v67, shadowTables); v34: a frozen catalog whose snapshot_time is a
// TIMESTAMP reads again (formats.FrozenTypes, proofVersion v69); v35: the
// self-read and the bookkeeping find an inlined table's columns in ASCII
// letter case only (proofVersion v70); v36: the footer quirks warned of
// include decimal-byte-array-empty-value (a DECIMAL stored as BYTE_ARRAY)
// and delta-byte-array-not-string (proofVersion v71); v37: the self-read
// leaves out a table the readers do not load at a snapshot, all its column
// rows ended there (proofVersion v72); v38: the self-read fails where a
// visible nested field's parent is not added before it, ended or a field
// added after it (formats.ParentRefusal, proofVersion v76); v39: a
// COLLATE in a metadata table's CHECK or a DEFAULT expression is not a
// collated column (proofVersion v77); v40: the self-read fails on a
// negative id the catalog's load reads (proofVersion v78); v41: Hive
// partition values are found in a path as DuckDB finds them, and a
// name-mapped file without its partition folder fails the self-read
// (proofVersion v79); v42: the self-read matches a name mapping's source
// to the first file column equal to it in ASCII letter case, and of
// mapping rows with one column_id the first takes the children
// (proofVersion v80); v43: mapping siblings of one column_id no entry
// names as parent are no longer refused (formats.NameMapDuplicate,
// proofVersion v81); v44: the self-read fails on an initial_default (and,
// in 0.1-0.3, a default_value) that does not cast to its column's type
// (uncastable-default) and on a 0.4+ expression default that is not one
// expression (unparsable-default-expression), and reads a struct, list or map missing from a
// file as NULL whatever its initial_default, and reads a name-mapped or
// positional file's columns by position after matching their names
// (proofVersion v82); v45: a TIMESTAMPTZ default naming a time zone
// other than UTC does not cast (formats.DefaultCastQuery, proofVersion
// v83); v46: a JSON default casts whatever its text (proofVersion v84);
// v47: the self-read matches a name-mapped or
// positional file's columns and struct fields by the Parquet reader's
// names (case duplicates renamed _1, _2, ...), a positional column i
// reading file column i, and a column with fields is not reported read
// otherwise by name for its initial_default (proofVersion v85); v48: a
// field-id file's struct field names are the Parquet reader's for DuckDB
// 1.3.0's trivial mapping (proofVersion v86), and a 1.0 or 1.1 default
// must also cast as DuckDB 2.0 casts it (proofVersion v87); v49: a
// default whose cast throws does not cast (proofVersion v88); v50: DuckDB
// 2.0's TIMETZ offsets and TIME read as a timestamp (proofVersion v89);
// v51: only a cast's own failure is "does not cast" (proofVersion v90);
// v52 held a frozen catalog's defaults to any line reading its format,
// v53 to every line again (proofVersion v92); v54: a default cast judge's
// machine failure is an error, not a text that casts (proofVersion v93);
// v55: defaults holding a NUL byte judged by their value (proofVersion
// v94).
const contentsKeyKind = "fdl-formats content pass v55"

// contentsKey names everything a content pass of v reads, or "" (no digest
// cache, or an object store, whose data files the pass fetches and
// verifies against the store): the frozen catalog's bytes by version.json's
// sha256, which the plan matched the catalog against where it lies (a
// version whose catalog did not match gets no content pass), the format
// version.json claims for it (a clean pass proved the claim), the snapshot,
// the snapshots range with the parent's snapshot_id it was checked with
// and the ancestors' snapshots the catalog must hold,
// version.json's changes (changesPart), and the files.json and
// dataset.json it compares (by their sha256 too,
// which the plan matched, or jsonFiles is false), and every file of the
// data folder as it is (compare.Listings.InputsKey), and whether fdl.json's
// range for the format admits the releases earlyStatsWarning,
// timeNSWarning and rowIDStartWarning warn about, and the format's those emptyStringsWarning
// warns about, and the footer quirks footerQuirksWarning reads for (a
// kept warning is kept with the range that raised it).
func (r *repository) contentsKey(v *version, jsonFiles bool) string {
	if r.remote != nil || r.digestCache == nil {
		return ""
	}
	parent, known := r.parentSnapshot(v)
	f, _ := formats.Lookup(v.meta.DuckLake.Format)
	_, _, early := r.admitsEarly(f, formats.QuirkTableStatsNeedColumnStats)
	_, _, timeNS := r.admitsEarly(f, formats.QuirkTimeNSFilesUnreadable)
	_, _, rowIDStart := r.admitsEarly(f, formats.QuirkRowIDStartRequired)
	_, emptyStrings := r.admitsEmptyStrings(f)
	var footerQuirks []string
	_, affected := r.frozenFooterQuirks(f)
	for _, q := range affected {
		footerQuirks = append(footerQuirks, q.Name+" "+strings.Join(q.In, ","))
	}
	parts := []string{"footer-quirks " + strings.Join(footerQuirks, ";"), "catalog " + v.meta.Catalog.SHA256, "format " + v.meta.DuckLake.Format, fmt.Sprintf("snapshot %d json %t early-stats %t early-time-ns %t early-row-id-start %t empty-strings %t", v.meta.DuckLake.SnapshotID, jsonFiles, early, timeNS, rowIDStart, emptyStrings),
		snapshotsPart(v.meta.DuckLake.Snapshots, parent, known, r.ancestorSnapshots(v))}
	parts = append(parts, changesPart(v.meta.Changes))
	for _, ref := range []*fdljson.FileRef{v.meta.Files, v.meta.Dataset} {
		if ref == nil {
			parts = append(parts, "none")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d %s", ref.Path, ref.Bytes, ref.SHA256))
	}
	return r.listings.InputsKey(contentsKeyKind, r.dataPath, parts...)
}

// contentIssues reads a version's frozen catalog (a private verified copy)
// and checks every data and delete file it references against disk and,
// when jsonFiles, compares files.json and dataset.json with what the
// catalog holds at its snapshot: for files.json the live tables, their data
// files in order, rows, bytes, footer sizes and delete files; for
// dataset.json the described tables and their fields' types and
// nullability. The catalog wins; every disagreement is an issue.
// inDataFolder reports that every file the catalog references is in the
// data folder (all its paths are relative).
func (r *repository) contentIssues(ctx context.Context, v *version, frozen *frozenCopies, source *compare.Source, disk *compare.DiskCheck, jsonFiles bool) (_ []Issue, inDataFolder bool) {
	src, problem, err := frozen.catalog(ctx, v)
	if err != nil {
		return []Issue{{Problem: problem, Detail: err.Error(), cause: err}}, false
	}
	key := v.prefix() + v.meta.Catalog.Path
	rd, done, err := source.Reader(ctx, src, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines, Listings: r.listings, Gate: r.gate()})
	if err != nil {
		// A view (or the like) standing for a bookkeeping table: the
		// frozen catalog is not the DuckLake catalog its tables say.
		var impostor *formats.NotBaseTableError
		if errors.As(err, &impostor) {
			return []Issue{{Problem: ProblemViolation, Detail: key + ": " + impostor.Detail()}}, false
		}
		if errors.Is(err, compare.ErrDamaged) || errors.Is(err, formats.ErrNullField) {
			// Not even opened: the whole read below says the same (its
			// NULL fields: invalid, as the version's bytes hold them).
			problem, err := frozen.readWhole(ctx, v, source)
			return []Issue{{Problem: problem, Detail: err.Error(), cause: err}}, false
		}
		return []Issue{{Problem: ProblemUnreadable, Detail: fmt.Sprintf("read %s: %v", key, err), cause: err}}, false
	}
	defer done()
	// Every row of every table, first: a block no later step reads is
	// still read by every DuckLake reader that loads the catalog, which
	// fails on it (ProblemInvalid). Once per run and frozen catalog, and
	// not at all when this build read the same bytes whole before (the
	// proofs of the version take the answer through source). The steps
	// below then answer from what it read (AllPathsRelative, bookkeeping).
	if problem, err := frozen.readWhole(ctx, v, source); err != nil {
		return []Issue{{Problem: problem, Detail: err.Error(), cause: err}}, false
	}
	inDataFolder = rd.AllPathsRelative(ctx)
	var issues []Issue
	// The one pass that opens every version's frozen catalog checks
	// version.json's ducklake.format with it (the reader matrix, evaluated
	// after, uses what it found).
	if f := rd.Format(); f != nil {
		v.detected = f.Name
		if err := formatClaim(v.prefix()+v.meta.Catalog.Path, v, f.Name); err != nil {
			issues = append(issues, Issue{Problem: ProblemMismatch, Detail: err.Error(), cause: err})
		}
	}
	issues = append(issues, r.bookkeepingIssues(ctx, v, rd, key)...)
	issues = append(issues, r.changesIssues(ctx, v, rd, key)...)
	issues = append(issues, r.earlyStatsWarning(ctx, rd, key)...)
	issues = append(issues, r.rowIDStartWarning(ctx, rd, key)...)
	issues = append(issues, r.emptyStringsWarning(ctx, rd, key)...)
	// Saved at a storage older than v1.4.0, it opens in DuckDB 1.3, which
	// misreads some dictionary-FSST columns as NULL: as for a published
	// catalog (misreadDetail), whether or not a proof of the version runs.
	if mis, err := rd.MisreadColumns(ctx); err != nil {
		issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("%s: %v", key, err), cause: err})
	} else if len(mis) > 0 {
		issues = append(issues, Issue{Problem: ProblemMismatch, Detail: frozenMisreadDetail(key, rd.Format(), mis)})
	}
	// Every data file must be under data_dir: one violation per file that
	// is not. A remote store's data files come into the cache first
	// (verified by the size the catalog records); a folder's are checked in
	// place. The files are listed with this reader, unless the copy's
	// other users (the version's proofs) listed them already. A failed
	// listing is reported here (ensureListed leaves a folder's to later
	// steps).
	var listErr error
	list := readerLister(rd, key)
	err = frozen.fetch(ctx, v, func(ctx context.Context) ([]compare.StoredFile, string, error) {
		files, dataPath, err := list(ctx)
		listErr = err
		return files, dataPath, err
	})
	if listErr != nil {
		return append(issues, Issue{Problem: ProblemUnreadable, Detail: listErr.Error(), cause: listErr}), false
	}
	if w := r.links.warning(r, key); w != "" {
		issues = append(issues, Issue{Problem: ProblemWarning, Detail: w})
	}
	var outside *OutsideError
	if errors.As(err, &outside) {
		for _, f := range outside.Files {
			issues = append(issues, Issue{Problem: ProblemViolation, Detail: fmt.Sprintf("%s: %s; every data file a catalog names must be under data_dir, recorded relative to the catalog's data path (FDL 0.1, Versions: The frozen catalog)", key, f)})
		}
		err = outside.Other
	}
	var notRegular *NotRegularError
	if errors.As(err, &notRegular) {
		// Not opened, nor checked on disk (that opens them).
		for _, f := range notRegular.Files {
			issues = append(issues, Issue{Problem: ProblemViolation, Detail: fmt.Sprintf("%s: %s; not opened (opening a FIFO blocks): restore the data file", key, f)})
		}
		inDataFolder = false // never a clean pass to keep
	} else if err != nil {
		problem := ProblemUnreadable
		if errors.Is(err, errStoreDiffers) {
			problem = ProblemMismatch
		}
		issues = append(issues, Issue{Problem: problem, Detail: fmt.Sprintf("fetch the data files of %s: %v", key, err), cause: err})
	} else {
		if r.remote == nil {
			// A folder's look-alikes (a bucket's keys and a web site's
			// paths are what readers ask for, letter for letter).
			if files, err := rd.StoredFiles(ctx); err == nil {
				for _, f := range r.lookAlikeData(files) {
					issues = append(issues, Issue{Problem: ProblemViolation, Detail: fmt.Sprintf("%s names %s: %s", key, f, lookAlikeWhy)})
				}
			}
		}
		bad, err := rd.CheckFiles(ctx, disk)
		if err != nil {
			issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("check the data files of %s: %v", key, err), cause: err})
		}
		for _, b := range bad {
			issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("data file disagrees with %s: %s", key, r.relDataText(b))})
		}
		if err == nil && len(bad) == 0 {
			// The footers of the data files, once they check out.
			issues = append(issues, r.timeNSWarning(ctx, rd, key)...)
			issues = append(issues, r.footerQuirksWarning(ctx, rd, key)...)
		}
		if err == nil && len(bad) == 0 && r.remote == nil {
			// The rows of a folder's data files, once they check out.
			issues = append(issues, cutStringsWarning(ctx, rd, key)...)
		}
	}
	if !jsonFiles || (v.meta.Files == nil && v.meta.Dataset == nil) {
		return issues, inDataFolder
	}
	snap := v.meta.DuckLake.SnapshotID
	tables, err := rd.Tables(ctx, snap)
	if err != nil {
		return append(issues, Issue{Problem: ProblemUnreadable, Detail: err.Error(), cause: err}), false
	}
	// Both files.json and dataset.json (its rows) are checked against
	// each table's files at the snapshot.
	tableFiles := map[int64][]compare.DataFile{}
	for _, t := range tables {
		if tableFiles[t.ID], err = rd.Files(ctx, t, snap); err != nil {
			return append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("list the data files of %s at snapshot %d to check files.json and dataset.json: %v", key, snap, err), cause: err}), false
		}
	}
	if ref := v.meta.Files; ref != nil {
		// files.json and dataset.json are the bytes the plan read and
		// matched with version.json (readVerified), or, where it did not,
		// read again here: bytes that cannot be read or parsed, or are not
		// those version.json names (and the key of a clean pass names), are
		// an issue, so that a pass over them is never kept as clean.
		got, changed, err := r.parsedFiles(ctx, v, ref)
		if changed != nil {
			issues = append(issues, *changed)
		}
		if err != nil {
			issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: err.Error(), cause: err})
		} else {
			renamed, err := rd.RenamedColumns(ctx, snap)
			if err != nil {
				return append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("%s: %v", key, err), cause: err}), false
			}
			// A key two live tables share (schema "a.b" with table "c",
			// schema "a" with table "b.c"): no entry describes both, so
			// the file cannot be right, whatever it holds there. It is a
			// violation, and the key is left out of the comparison.
			shared := sharedFilesKeys(tables)
			for _, key := range slices.Sorted(maps.Keys(shared)) {
				issues = append(issues, Issue{Problem: ProblemViolation, Detail: sharedKeyDetail(v.prefix()+ref.Path, key, shared[key])})
			}
			want := &fdljson.Files{Tables: map[string]*fdljson.FilesTable{}}
			for _, t := range tables {
				if shared[t.DottedName()] != nil {
					continue
				}
				ft := &fdljson.FilesTable{Files: []fdljson.DataFile{}, RenamedColumns: len(renamed[t.ID]) > 0, Renamed: renamed[t.ID]}
				for _, f := range tableFiles[t.ID] {
					df := fdljson.DataFile{Path: r.relData(f.Path), Rows: f.RecordCount, Bytes: f.SizeBytes, FooterBytes: f.FooterSize}
					if d := f.Delete; d != nil {
						df.Deletes = &fdljson.DeleteFile{Path: r.relData(d.Path), Rows: d.DeleteCount, Bytes: d.SizeBytes}
					}
					ft.Files = append(ft.Files, df)
				}
				want.Tables[t.DottedName()] = ft
			}
			if len(shared) > 0 {
				kept := &fdljson.Files{Tables: map[string]*fdljson.FilesTable{}}
				for key, ft := range got.Tables {
					if shared[key] == nil {
						kept.Tables[key] = ft
					}
				}
				got = kept
			}
			for _, d := range got.Diff(want) {
				issues = append(issues, Issue{Problem: ProblemMismatch, Detail: v.prefix() + ref.Path + ": " + d})
			}
			issues = append(issues, r.footerBytesIssues(v, ref, got, tables, tableFiles)...)
			byName, err := r.byNameIssue(ctx, v, ref, rd, snap, tables, want)
			if err != nil {
				return append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("%s: %v", key, err), cause: err}), false
			}
			issues = append(issues, byName...)
		}
	}
	if ref := v.meta.Dataset; ref != nil {
		got, changed, err := r.parsedDataset(ctx, v, ref)
		if changed != nil {
			issues = append(issues, *changed)
		}
		if err != nil {
			issues = append(issues, Issue{Problem: ProblemUnreadable, Detail: err.Error(), cause: err})
		} else {
			var want []fdljson.DatasetTable
			for _, t := range tables {
				cols, err := rd.Columns(ctx, t.ID, snap)
				if err != nil {
					return append(issues, Issue{Problem: ProblemUnreadable, Detail: err.Error(), cause: err}), false
				}
				// A table's rows at the snapshot, as the catalog records
				// them: each live data file's rows less its delete file's.
				var rows int64
				for _, f := range tableFiles[t.ID] {
					rows += f.RecordCount
					if f.Delete != nil {
						rows -= f.Delete.DeleteCount
					}
				}
				dt := fdljson.DatasetTable{Schema: t.Schema, Name: t.Name, Rows: &rows}
				for _, c := range cols {
					nullable := c.NullsAllowed
					dt.Fields = append(dt.Fields, fdljson.DatasetField{Name: c.Name, Type: c.Type, Nullable: &nullable})
				}
				want = append(want, dt)
			}
			views, err := rd.Views(ctx, snap)
			if err != nil {
				return append(issues, Issue{Problem: ProblemUnreadable, Detail: fmt.Sprintf("%s: %v", key, err), cause: err}), false
			}
			for _, vw := range views {
				want = append(want, fdljson.DatasetTable{Schema: vw.Schema, Name: vw.Name, Kind: "view", SQL: &vw.SQL})
			}
			for _, d := range got.Diff(want) {
				issues = append(issues, Issue{Problem: ProblemMismatch, Detail: v.prefix() + ref.Path + ": " + d})
			}
		}
	}
	return issues, inDataFolder
}

// sharedFilesKeys are the files.json keys (schema.table joined as they
// are, compare.Table.DottedName) that two or more of tables have, with
// those tables.
func sharedFilesKeys(tables []compare.Table) map[string][]compare.Table {
	byKey := map[string][]compare.Table{}
	for _, t := range tables {
		byKey[t.DottedName()] = append(byKey[t.DottedName()], t)
	}
	for key, ts := range byKey {
		if len(ts) < 2 {
			delete(byKey, key)
		}
	}
	return byKey
}

// sharedKeyDetail says that the tables (two or more) share key in the
// files.json file.
func sharedKeyDetail(file, key string, tables []compare.Table) string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Shown()
	}
	list, all := strings.Join(names, " and "), "both"
	if len(names) > 2 {
		list, all = strings.Join(names[:len(names)-1], ", ")+" and "+names[len(names)-1], "all"
	}
	return fmt.Sprintf("%s: tables %s %s have the key %s (files.json keys a table schema.table, joined as they are; FDL 0.1, Versions: files.json), and one entry cannot describe the files of %d tables: a reader without DuckLake would read one table's files for another; leave files.json out of this version (it is optional: a reader must work without it), or give the tables names whose keys differ",
		file, list, all, oneline.Name(key), len(tables))
}

// relDataText is a message of compare.DiskCheck (it starts with the
// file's resolved path, as oneline.Name writes it) with the path made
// relative to data_dir, as relData makes it: a path Go-quoted (it holds a
// line break or another control character) stays quoted.
func (r *repository) relDataText(msg string) string {
	if rest, ok := strings.CutPrefix(msg, `"`+r.dataPath); ok && strconv.Quote(r.dataPath) == `"`+r.dataPath+`"` {
		return `"` + rest
	}
	return r.relData(msg)
}

// relData makes a resolved data file path relative to data_dir.
func (r *repository) relData(p string) string {
	if rel, ok := strings.CutPrefix(p, r.dataPath); ok {
		return strings.ReplaceAll(rel, string(os.PathSeparator), "/")
	}
	return p
}

// readRef reads the file ref names in v. changed is an issue when its
// bytes are not those ref names (size and sha256): not those the plan
// matched, and the key of a clean content pass names; the bytes read are
// still compared, and the issue keeps the pass from being kept as clean.
func (r *repository) readRef(ctx context.Context, v *version, ref *fdljson.FileRef) (data []byte, changed *Issue, err error) {
	if data, ok := v.heldRef(ref); ok {
		return data, nil, nil // the plan's read, those bytes (readVerified)
	}
	key := v.prefix() + ref.Path
	data, err = store.ReadAll(ctx, r.st, key)
	if err != nil {
		return nil, nil, storeErr(r.st, "read", key, err)
	}
	sum := sha256.Sum256(data)
	if p, err := matchRef(key, ref.Bytes, ref.SHA256, int64(len(data)), hex.EncodeToString(sum[:])); err != nil {
		changed = &Issue{Problem: p, Detail: err.Error(), cause: err}
	}
	return data, changed, nil
}

// parsedFiles reads and parses files.json (changed: see readRef).
func (r *repository) parsedFiles(ctx context.Context, v *version, ref *fdljson.FileRef) (*fdljson.Files, *Issue, error) {
	data, changed, err := r.readRef(ctx, v, ref)
	if err != nil {
		return nil, nil, err
	}
	f, err := fdljson.ParseFiles(v.prefix()+ref.Path, data)
	return f, changed, err
}

// parsedDataset reads and parses dataset.json (changed: see readRef).
func (r *repository) parsedDataset(ctx context.Context, v *version, ref *fdljson.FileRef) (*fdljson.Dataset, *Issue, error) {
	data, changed, err := r.readRef(ctx, v, ref)
	if err != nil {
		return nil, nil, err
	}
	d, err := fdljson.ParseDataset(v.prefix()+ref.Path, data)
	return d, changed, err
}

// frozenMisreadDetail says, for a frozen catalog (its key) of a storage
// older than v1.4.0 holding columns that DuckDB 1.3 reads as NULL
// (compare.Reader.MisreadColumns), what they read and what the writer must
// do: backfill writes no catalog in the frozen catalog's own format, so
// only a frozen catalog saved again without dictionary-FSST mends it.
func frozenMisreadDetail(key string, f *formats.Version, mis []compare.Misread) string {
	cols := make([]string, len(mis))
	for i, m := range mis {
		cols[i] = m.Table + "." + m.Column
	}
	format := "?"
	if f != nil {
		format = f.Name
	}
	return fmt.Sprintf("%s, the frozen catalog (format %s, storage %s, older than v1.4.0, which DuckDB 1.3 opens): DuckDB 1.3 reads column(s) %s as NULL, with no error, in every row of their dictionary-FSST segments with an 'Empty Validity' mask (DuckDB 1.4 and later read the values); `fdl-formats backfill` cannot help (it writes no catalog in the frozen catalog's own format): the writer must save the frozen catalog at that storage with dict_fsst disabled (`SET disabled_compression_methods = 'dict_fsst'` before writing it); version.json hashes these bytes, so withdraw the version and publish its data again in a new one",
		key, format, mis[0].Storage, strings.Join(cols, ", "))
}

// footerBytesIssues checks files.json's footer_bytes of each data file
// whose catalog records no footer_size (files registered with
// ducklake_add_data_files, say) against the file's own footer, read from
// its last bytes: where the catalog records one, files.json is held to the
// catalog (fdljson.Files.Diff) and the file to the catalog (the disk
// check), but with none recorded nothing else would check it.
func (r *repository) footerBytesIssues(v *version, ref *fdljson.FileRef, got *fdljson.Files, tables []compare.Table, tableFiles map[int64][]compare.DataFile) []Issue {
	var issues []Issue
	for _, t := range tables {
		gt := got.Tables[t.DottedName()] // nil for a key tables share (left out of got)
		files := tableFiles[t.ID]
		if gt == nil || len(gt.Files) != len(files) {
			continue // Diff reports it
		}
		for i, f := range files {
			g := gt.Files[i]
			if f.FooterSize != nil || g.FooterBytes == nil || g.Path != r.relData(f.Path) {
				continue
			}
			n, err := compare.FileFooterSize(f.Path, "parquet")
			switch {
			case errors.Is(err, compare.ErrIncomparable):
				continue // the disk check reports a file it cannot read
			case err != nil:
				issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s%s: table %s file %s: footer_bytes %d, but the file has no readable footer (%v); the catalog records no footer_size", v.prefix(), ref.Path, t.Shown(), oneline.Name(g.Path), *g.FooterBytes, err), cause: err})
			case n != *g.FooterBytes:
				issues = append(issues, Issue{Problem: ProblemMismatch, Detail: fmt.Sprintf("%s%s: table %s file %s: footer_bytes %d, the file's footer is %d bytes (the catalog records no footer_size)", v.prefix(), ref.Path, t.Shown(), oneline.Name(g.Path), *g.FooterBytes, n)})
			}
		}
	}
	return issues
}

// byNameIssue is a warning naming the tables of a version's files.json
// whose Parquet files a reader without DuckLake, reading fields by name,
// reads otherwise than DuckLake's readers (compare.Reader.
// ColumnsReadOtherwiseByName: a column added with a default after a file
// was written, or under a dropped column's name), though files.json lets
// it read them (FDL 0.1, files.json: such a reader must not read a table
// whose files have deletes or whose renamed_columns is true, and may read
// the others). files.json agrees with the catalog there (it has no flag for
// it), so it does not fail the check; the conformance lakes
// 02_add_drop_columns and 05_defaults_not_null have such tables.
func (r *repository) byNameIssue(ctx context.Context, v *version, ref *fdljson.FileRef, rd *compare.Reader, snap int64, tables []compare.Table, want *fdljson.Files) ([]Issue, error) {
	cols, err := rd.ColumnsReadOtherwiseByName(ctx, snap)
	if err != nil || len(cols) == 0 {
		return nil, err
	}
	var parts []string
	for _, t := range tables {
		ft := want.Tables[t.DottedName()]
		if ft == nil || ft.RenamedColumns || len(cols[t.ID]) == 0 || slices.ContainsFunc(ft.Files, func(f fdljson.DataFile) bool { return f.Deletes != nil }) {
			continue // not described, or its readers are told to apply DuckLake's rules
		}
		parts = append(parts, fmt.Sprintf("table %s: %s", t.Shown(), strings.Join(cols[t.ID], "; ")))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return []Issue{{Problem: ProblemWarning, Detail: fmt.Sprintf("%s%s lets readers without DuckLake read these tables' Parquet files (no deletes, renamed_columns false), but reading fields by name they read columns otherwise than DuckLake's readers, which take each file's fields by field id and a missing one as the column's initial default: %s; FDL 0.1's files.json has no flag for this (it agrees with the catalog), so such readers get other values than DuckLake's",
		v.prefix(), ref.Path, strings.Join(parts, " | "))}}, nil
}

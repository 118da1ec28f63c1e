package compare

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckerr"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// This file models the metadata every DuckLake release's reader refuses
// (v1.3-ossivalis, v1.4-andium, v1.5-variegata and main read it alike):
// loading a snapshot's schema, or a table's file list, fails on it, so a
// reader of that catalog gets an error where a reader of the other catalog
// may get rows. Such a table is reported unreadable (UnreadableError, a
// difference of kind "unreadable"), whichever side has it: a catalog whose
// reader throws is never equivalent to one that reads.

// Refusals of the real reader's metadata load, as UnreadableError names
// them (they are not format quirks: every format's reader refuses them).
var (
	refusedType = formats.QuirkInfo{Name: "unparsable-column-type",
		Behaviour: "DuckLakeTypes::FromString: type names match case-insensitively but are not trimmed; a decimal is only decimal(W,S) in lower case",
		Error:     "Failed to parse DuckLake type - unsupported type"}
	refusedNested = formats.QuirkInfo{Name: "unrecognized-nested-type",
		Behaviour: "TransformColumnType: a column with fields must be struct, list or map (case-insensitive, untrimmed), a list of one field, a map of two",
		Error:     "Unrecognized nested type"}
	refusedDefaultType = formats.QuirkInfo{Name: "unknown-default-value-type",
		Behaviour: "TransformColumnType (0.4+): a default_value other than NULL must have default_value_type 'literal' or 'expression'",
		Error:     "Column type"}
	refusedDefaultCast = formats.QuirkInfo{Name: "uncastable-default",
		Behaviour: "TransformColumnType (src/storage/ducklake_catalog.cpp, v1.3-ossivalis, v1.4-andium, v1.5-variegata and main) casts the initial_default of every column and field without fields of its own, and in formats 0.1-0.3 (v1.3-ossivalis, v1.4-andium) its default_value too, to its type with Value::DefaultCastAs when it loads a snapshot's schema: a text that does not cast fails the load, whether or not a file lacks the column",
		Error:     "Conversion Error: Could not convert string"}
	refusedDefaultExpr = formats.QuirkInfo{Name: "unparsable-default-expression",
		Behaviour: "TransformColumnType (formats 0.4+: v1.5-variegata and main) parses a default_value whose default_value_type is 'expression' with Parser::ParseExpressionList when it loads a snapshot's schema: text that does not parse after SELECT as one plain expression list, or parses as more than one expression, fails the load",
		Error:     "Parser Error / Expected a single expression"}
	refusedNull = formats.QuirkInfo{Name: "null-metadata-value",
		Behaviour: "the metadata manager reads nulls_allowed, and path_is_relative where a path is recorded, with GetValue<bool>, which fails on NULL",
		Error:     "Attempting to get value of a NULL"}
	refusedInlinedMissing = formats.QuirkInfo{Name: "registered-inlined-table-missing",
		Behaviour: "a table's inlined data tables are those ducklake_inlined_data_tables registers; the reader selects FROM each registered name (DuckLakeMetadataManager::ReadInlinedData) and fails when it is not there",
		Error:     "Failed to read inlined data from DuckLake"}
	refusedInlinedDeletion = formats.QuirkInfo{Name: "invalid-inlined-deletion",
		Behaviour: "formats 0.4+: every scan's file list (GetFilesForTable) reads every row of ducklake_inlined_delete_<table> with begin_snapshot <= the snapshot read, of any data file, visible or not (ReadInlinedFileDeletions, in 7ea15644, 67480b1d, v1.5-variegata and main), and reads file_id and row_id with GetValue<idx_t>: a NULL fails (Calling GetValueInternal on a value that is NULL), a negative value fails its cast to UBIGINT (out of range)",
		Error:     "Calling GetValueInternal on a value that is NULL"}
	refusedNoKey = formats.QuirkInfo{Name: "encrypted-file-without-key",
		Behaviour: "in a catalog whose ducklake_metadata says encrypted = 'true', the reader selects every visible data and delete file's encryption_key and fails on a NULL one (DuckLakeMetadataManager::ReadDataFile, also for delete files, in v1.3-ossivalis, v1.4-andium, v1.5-variegata and main)",
		Error:     "Database is encrypted, but file"}
	refusedStatsCast = formats.QuirkInfo{Name: "uncastable-column-stats",
		Behaviour: "DuckDB asks the scan for each read column's statistics while planning (StatisticsPropagator, propagate_get.cpp); DuckLake answers from ducklake_table_column_stats as of the catalog's current snapshot, typed as the column is there (DuckLakeStatistics -> GetColumnStats -> DuckLakeColumnStats::ToStats -> CreateNumericStats), which casts min_value and max_value to the type with DefaultCastAs: a text that does not cast fails every query reading the column, at any snapshot (in 1.1, read by DuckLake main from d2f4b9c0 only, at the catalog's current snapshot: statsAtCurrentSnapshotOnly). Formats 0.1-0.3 (v1.3-ossivalis, v1.4-andium) cast only when both are set, 0.4+ (7ea15644 on) each one set; the types: SMALLINT to UBIGINT (not TINYINT), DATE, TIME, TIMESTAMP (with time zone, _S, _MS, _NS), FLOAT and DOUBLE where contains_nan is false; 1.1 (main) also BOOLEAN, TINYINT, DECIMAL, UUID and TIMESTAMPTZ_NS",
		Error:     "Conversion Error: Could not convert string"}
	refusedHiveKeyMissing = formats.QuirkInfo{Name: "hive-partition-not-in-path",
		Behaviour: "a name mapping entry with is_partition takes its column from the data file's path as DuckDB's HivePartitioning::Parse finds the folders name=value (a text ended by '/' or '\\': never the file name; not a folder with two '=', '?' or a newline); MapColumns (v1.4-andium, v1.5-variegata, main) throws when the entry's source_name has none",
		Error:     "Column ... should have been read from hive partitions - but it was not found in filename"}
	refusedPartialInfo = formats.QuirkInfo{Name: "unparsable-partial-file-info",
		Behaviour: "ParsePartialFileInfo (formats with a partial_file_info column, 0.1-0.3): a value is a list 'snapshot:rows|...' of unsigned integers, or, in 0.3 (DuckDB 1.4), 'partial_max:N'; any other, the empty string included, fails the file list",
		Error:     "stoull / Invalid partial file info"}
)

// refusal returns an *UnreadableError when the real reader of every format
// fails to load table t at snap: a column type it cannot parse, a
// default_value_type it does not know, a NULL nulls_allowed, a NULL
// path_is_relative beside a recorded path (the table's or its schema's
// folder, a visible data file or its delete file), an inlined file deletion with a NULL or negative file_id or
// row_id (0.4+), or, in an encrypted catalog, a visible data or delete file
// without an encryption key. Nil when it loads.
func (r *Reader) refusal(ctx context.Context, t Table, snap int64) error {
	why, err := r.loadRefusal(ctx, snap)
	if err != nil {
		return err
	}
	if why != "" {
		return r.refused(refusedLoad, t, "the readers' load of the catalog at snapshot %d fails: %s", snap, why)
	}
	if t.folderRefusal != "" {
		return r.refused(refusedNull, t, "%s", t.folderRefusal)
	}
	cols, err := r.Columns(ctx, t.ID, snap)
	if err != nil {
		return err
	}
	v, err := r.columnsVerdictOf(ctx, t, snap)
	if err != nil {
		return err
	}
	if v.what != "" {
		return r.refused(v.q, t, "%s", v.what)
	}
	why = v.clash
	if why == "" {
		if why, err = r.columnTagRefusal(ctx, t, cols, snap); err != nil {
			return err
		}
	}
	if why != "" {
		return r.refused(refusedLoad, t, "the readers' load of the catalog at snapshot %d fails: %s", snap, why)
	}
	if err := r.statsCastRefusal(ctx, t, cols, snap); err != nil {
		return err
	}
	files, err := r.files(ctx, t, snap)
	if err != nil {
		return err
	}
	// The inlined deletions are read after the file list's query, before
	// its rows.
	if err := r.inlinedDeletionRefusal(ctx, t, snap); err != nil {
		return err
	}
	for _, f := range files {
		// The real reader reads a file's path, then its key, then its
		// delete file's: the first failure is the one it reports.
		if r.encrypted == "true" && f.encryptionKey == nil {
			return r.refused(refusedNoKey, t, "Database is encrypted, but file %s does not have an encryption key (data file id %d)", oneline.Name(f.Path), f.ID)
		}
		if d := f.Delete; d != nil && r.encrypted == "true" && d.encryptionKey == nil {
			return r.refused(refusedNoKey, t, "Database is encrypted, but file %s does not have an encryption key (delete file id %d of data file %s)", oneline.Name(d.Path), d.ID, oneline.Name(f.Stored))
		}
		if f.relNull {
			return r.refused(refusedNull, t, "data file %s (id %d) has a NULL path_is_relative", oneline.Name(f.Stored), f.ID)
		}
		if f.RowIDStart == nil && r.rowIDStartRequired() {
			q := formats.QuirkRowIDStartRequired
			return r.unreadable(q, t, "data file %s (id %d) has a NULL row_id_start, which %s read as a number when they list the table's files", oneline.Name(f.Stored), f.ID, r.format.ReadersWith(q))
		}
		if d := f.Delete; d != nil && d.relNull {
			return r.refused(refusedNull, t, "delete file %s (id %d) of data file %s (id %d) has a NULL path_is_relative", oneline.Name(r.relPath(d.Path)), d.ID, oneline.Name(f.Stored), f.ID)
		}
		if f.PartialInfo != nil && !partialInfoParses(*f.PartialInfo, r.format.Has(formats.CapPartialMaxInfo)) {
			return r.refused(refusedPartialInfo, t, "data file %s (id %d) has partial_file_info %q, which the reader of format %s cannot parse", oneline.Name(f.Stored), f.ID, *f.PartialInfo, r.format.Name)
		}
	}
	return nil
}

// rowIDStartRequired tells whether r's readers fail on a visible data file
// whose row_id_start is NULL (formats.QuirkRowIDStartRequired): every
// release of its format, or, for a catalog B, its first releases
// (EarlyQuirks: 0.2, DuckDB 1.3.1): what this tool writes must read in
// every release of its format. A source is read as the newest release of
// its format reads it.
func (r *Reader) rowIDStartRequired() bool {
	q := formats.QuirkRowIDStartRequired
	return r.readsWith(q) || (!r.asSource && r.format.EarlyReadsWith(q))
}

// partialInfoParses tells whether a reader parses a partial_file_info
// value: a split list, or 'partial_max:N' where the format has it
// (partialMax). Every value such a reader stores parses; the empty string,
// which this reader once read as "not partial", does not.
func partialInfoParses(info string, partialMax bool) bool {
	if rest, ok := strings.CutPrefix(info, "partial_max:"); ok && partialMax {
		_, err := strconv.ParseUint(rest, 10, 64)
		return err == nil
	}
	for _, part := range strings.Split(info, "|") {
		s, n, ok := strings.Cut(part, ":")
		if !ok {
			return false
		}
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			return false
		}
		if _, err := strconv.ParseUint(n, 10, 64); err != nil {
			return false
		}
	}
	return true
}

func (r *Reader) refused(q formats.QuirkInfo, t Table, format string, args ...any) error {
	return &UnreadableError{Format: r.format.Name, Quirk: q, Table: t.FullName(), Detail: fmt.Sprintf(format, args...)}
}

// columnsVerdict is what a table's columns alone tell of its refusal
// (refusal): the first refusal of columnsRefusal, else of
// defaultCastRefusal (q and what), and the clash of two column names
// (columnsLoadRefusal's first check).
type columnsVerdict struct {
	q     formats.QuirkInfo
	what  string
	clash string
}

// columnsVerdictOf is the verdict of the columns of table t at snap
// (Columns), made once per table and columns epoch and kept with them
// (epochColumns): a wide catalog's refusal is asked at each of its
// snapshots, several times. An error is not kept.
func (r *Reader) columnsVerdictOf(ctx context.Context, t Table, snap int64) (columnsVerdict, error) {
	ec, err := r.epochColumnsOf(ctx, t.ID, snap)
	if err != nil {
		return columnsVerdict{}, err
	}
	if ec.verdict != nil {
		return *ec.verdict, nil
	}
	var v columnsVerdict
	if v.q, v.what = r.columnsRefusal(ec.cols); v.what == "" {
		if v.q, v.what, err = r.defaultCastRefusal(ctx, ec.cols); err != nil {
			return columnsVerdict{}, err
		}
	}
	if v.what == "" {
		v.clash = columnNamesClash(ec.cols)
	}
	ec.verdict = &v
	return v, nil
}

// columnsRefusal names the first column (nested fields included) the real
// reader refuses, and why; "" when every column loads.
func (r *Reader) columnsRefusal(cols []*Column) (formats.QuirkInfo, string) {
	for _, c := range cols {
		// Named only when refused: asked of every column at every
		// snapshot, it refuses almost none.
		name := func() string { return fmt.Sprintf("column %s (id %d)", c.Name, c.ID) }
		switch {
		case c.nullsNull:
			return refusedNull, name() + " has a NULL nulls_allowed"
		case len(c.Children) > 0 && !c.nested():
			return refusedNested, fmt.Sprintf("%s has fields but type %q", name(), c.Type)
		case formats.TypeIs(c.Type, "list") && len(c.Children) != 1:
			return refusedNested, fmt.Sprintf("%s is a list of %d fields (Lists must have a single child entry)", name(), len(c.Children))
		case formats.TypeIs(c.Type, "map") && len(c.Children) != 2:
			return refusedNested, fmt.Sprintf("%s is a map of %d fields (Maps must have two child entries)", name(), len(c.Children))
		case len(c.Children) == 0 && !r.format.SupportsType(c.Type):
			return refusedType, fmt.Sprintf("%s has type %q, which format %s readers cannot parse", name(), c.Type, r.format.Name)
		}
		if kind := r.defaultKind(c); strings.HasPrefix(kind, "refused") {
			return refusedDefaultType, fmt.Sprintf("%s has default %q with default_value_type %s", name(), *c.DefaultValue, optString(c.DefaultType))
		}
		if q, what := r.columnsRefusal(c.Children); what != "" {
			return q, what
		}
	}
	return formats.QuirkInfo{}, ""
}

// defaultCastRefusal names the first column or field without fields of its
// own (depth first, in column order) whose initial_default, or, in formats
// without expression defaults (0.1-0.3), whose default_value, does not cast
// to its type (refusedDefaultCast), or, in 0.4+, whose expression
// default_value does not parse as one expression (refusedDefaultExpr),
// either of which fails every reader's load of the schema; "" when all
// load. A nested column's own defaults
// are not cast (TransformColumnType takes them only for columns without
// fields), and 0.4+ readers keep a literal default_value as text and parse
// an expression (defaultKind). The rule and its judges are formats'
// (CastsDefaultValue, DefaultCastQuery, DefaultParsesQuery), which convert
// applies too before it writes; a text whose cast and castable statement
// both name a type this DuckDB does not know is not judged.
func (r *Reader) defaultCastRefusal(ctx context.Context, cols []*Column) (formats.QuirkInfo, string, error) {
	for _, c := range cols {
		if len(c.Children) > 0 {
			if q, what, err := r.defaultCastRefusal(ctx, c.Children); what != "" || err != nil {
				return q, what, err
			}
			continue
		}
		type cast struct {
			field string
			text  *string
		}
		texts := []cast{{"initial_default", c.InitialDefault}}
		if r.format.CastsDefaultValue() {
			texts = append(texts, cast{"default_value", c.DefaultValue})
		}
		for _, x := range texts {
			if x.text == nil {
				continue
			}
			ok, err := r.defaultCasts(ctx, c, *x.text)
			if err != nil {
				return formats.QuirkInfo{}, "", err
			}
			if !ok {
				return refusedDefaultCast, fmt.Sprintf("column %s (id %d): %s %q does not cast to %s (Could not convert string)", c.Name, c.ID, x.field, *x.text, c.Type), nil
			}
		}
		if r.defaultKind(c) == "expression" {
			ok, err := r.defaultParses(ctx, *c.DefaultValue)
			if err != nil {
				return formats.QuirkInfo{}, "", fmt.Errorf("column %s (id %d): parse default_value %q: %w", c.Name, c.ID, *c.DefaultValue, err)
			}
			if !ok {
				return refusedDefaultExpr, fmt.Sprintf("column %s (id %d): default_value %q (default_value_type expression) is not one expression", c.Name, c.ID, *c.DefaultValue), nil
			}
		}
	}
	return formats.QuirkInfo{}, "", nil
}

// defaultParses tells whether Parser::ParseExpressionList, which 0.4+
// readers run on an expression default_value as they load the schema,
// returns one expression for text (formats.DefaultParsesQuery). Memoised.
func (r *Reader) defaultParses(ctx context.Context, text string) (bool, error) {
	key := [2]string{"\x00expression", text}
	if ok, seen := r.meta.defaultCasts[key]; seen {
		return ok, nil
	}
	var ok bool
	err := r.conn.QueryRowContext(ctx, r.format.DefaultParsesQuery(text)).Scan(&ok)
	if err != nil {
		return false, err
	}
	r.meta.defaultCasts[key] = ok
	return ok, nil
}

// defaultCasts tells whether text casts to column c's type, as the readers'
// DefaultCastAs casts it (formats.DefaultCastQuery: a TIMESTAMPTZ text
// with a time zone name other than UTC does not; a text whose cast throws
// does not either); true where this DuckDB does not know the type (not
// judged: formats.DefaultCastError). Memoised by type and text.
func (r *Reader) defaultCasts(ctx context.Context, c *Column, text string) (bool, error) {
	dt, err := c.DuckType()
	if err != nil {
		return true, nil
	}
	key := [2]string{dt, text}
	if ok, seen := r.meta.defaultCasts[key]; seen {
		return ok, nil
	}
	var ok bool
	if err := r.conn.QueryRowContext(ctx, r.format.DefaultCastQuery(text, dt)).Scan(&ok); err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("column %s (id %d): cast %q to %s: %w", c.Name, c.ID, text, dt, err)
		}
		// The text's cast throws where the type casts at all: the
		// readers' does too; other errors are errors, not verdicts.
		if ok, err = duckerr.DefaultCastFailure(ctx, r.conn, err, dt); err != nil {
			return false, fmt.Errorf("column %s (id %d): cast %q to %s: %w", c.Name, c.ID, text, dt, err)
		}
	}
	r.meta.defaultCasts[key] = ok
	return ok, nil
}

// defaultKind is how the catalog's reader takes a column's default_value
// for new rows: "" without one (NULL, or 0.4+'s 'NULL' sentinel),
// "literal" (a constant: every default before 0.4, whose readers cast the
// text to the column type) or "expression" (0.4+ parses it as SQL), and
// "refused(...)" for a default_value_type 0.4+ readers do not know (they
// compare it case-sensitively; a NULL one is refused too). Nested columns'
// defaults are not read.
func (r *Reader) defaultKind(c *Column) string {
	if len(c.Children) > 0 || r.normDefault(c.DefaultValue) == nil {
		return ""
	}
	if !r.format.Has(formats.CapExpressionDefaults) {
		return "literal"
	}
	if c.DefaultType != nil && (*c.DefaultType == "literal" || *c.DefaultType == "expression") {
		return *c.DefaultType
	}
	if c.DefaultType == nil {
		return "refused(NULL)"
	}
	return "refused(" + strconv.Quote(*c.DefaultType) + ")"
}

// statsCastTypes are the types whose table statistics every reader of v
// casts when it plans a scan (DuckLakeColumnStats::ToStats;
// formats.TableStatsReading.CastByEvery), as DuckDB type names, and whether
// it casts only when both min_value and max_value are set (BothBounds:
// formats 0.1-0.3). Format 1.0 is read by DuckDB 1.5.2 too, whose DuckLake
// (415a9ebd) casts the types of 0.4; 1.5.3 on (e6a3bd0a) cast BOOLEAN,
// TINYINT, DECIMAL and UUID too, which only some 1.0 readers then fail on:
// not a refusal. main casts TIMESTAMPTZ_NS too, a type this reader cannot
// read (a column of it makes the comparison stop before).
func statsCastTypes(v *formats.Version) (types func(string) bool, both bool) {
	st := v.ReadsTableStats()
	switch st.CastByEvery {
	case formats.StatsTypesNone:
		return func(string) bool { return false }, st.BothBounds
	case formats.StatsTypesBase:
		return func(t string) bool { return statsBaseTypes[t] }, st.BothBounds
	}
	return func(t string) bool {
		switch t {
		case "BOOLEAN", "TINYINT", "UUID":
			return true
		}
		return statsBaseTypes[t] || strings.HasPrefix(t, "DECIMAL(")
	}, st.BothBounds
}

// statsBaseTypes are formats.StatsTypesBase as DuckDB type names.
var statsBaseTypes = map[string]bool{
	"SMALLINT": true, "INTEGER": true, "BIGINT": true,
	"UTINYINT": true, "USMALLINT": true, "UINTEGER": true, "UBIGINT": true,
	"FLOAT": true, "DOUBLE": true, "DATE": true, "TIME": true, "TIMESTAMP": true,
	"TIMESTAMPTZ": true, "TIMESTAMP_S": true, "TIMESTAMP_MS": true, "TIMESTAMP_NS": true,
}

// statsAtCurrentSnapshotOnly tells whether every reader of v gives the
// planner the table statistics only for a scan at the catalog's current
// snapshot, so that a read at an older one (AT (VERSION => ...)) never
// casts them (formats.TableStatsReading.CurrentSnapshotOnly: DuckLake main
// from d2f4b9c0, which alone reads 1.1; every DuckLake of 1.3-1.5.x casts
// them for every scan).
func statsAtCurrentSnapshotOnly(v *formats.Version) bool {
	return v.ReadsTableStats().CurrentSnapshotOnly
}

// statsCastRefusal is the refusal of a table read at a snapshot whose
// columns (nested fields too) include one whose current statistics the
// format's readers fail to cast (uncastableStats): at every snapshot, or
// only at the catalog's latest where the readers cast them for current
// scans only (statsAtCurrentSnapshotOnly).
func (r *Reader) statsCastRefusal(ctx context.Context, t Table, cols []*Column, snap int64) error {
	bad, err := r.uncastableStats(ctx, t)
	if err != nil || len(bad) == 0 {
		return err
	}
	if statsAtCurrentSnapshotOnly(r.format) {
		snaps, err := r.Snapshots(ctx)
		if err != nil {
			return err
		}
		if snap != latestSnapshot(snaps) {
			return nil
		}
	}
	var find func(cs []*Column) error
	find = func(cs []*Column) error {
		for _, c := range cs {
			if what, ok := bad[c.ID]; ok && len(c.Children) == 0 {
				return r.refused(refusedStatsCast, t, "column %s (id %d): %s", c.Name, c.ID, what)
			}
			if err := find(c.Children); err != nil {
				return err
			}
		}
		return nil
	}
	return find(cols)
}

// uncastableStats names, per column id of t, the statistics text in
// ducklake_table_column_stats that the format's readers fail to cast to
// the column's type at the catalog's latest snapshot (castStats), with
// DuckDB's error. Kept per reader and table: a refusal is asked at every
// snapshot.
func (r *Reader) uncastableStats(ctx context.Context, t Table) (map[int64]string, error) {
	if bad, ok := r.statsCast[t.ID]; ok {
		return bad, nil
	}
	st, err := r.castStats(ctx, t)
	if err != nil {
		return nil, err
	}
	if r.statsCast == nil {
		r.statsCast = map[int64]map[int64]string{}
	}
	casts, _ := statsCastTypes(r.format)
	var bad map[int64]string
	for _, s := range st {
		if !casts(s.typ) {
			continue // cast only by the readers that fold min/max
		}
		what, v := "min_value", s.min
		if s.min == nil || s.minVal.Valid {
			what, v = "max_value", s.max
			if s.max == nil || s.maxVal.Valid {
				continue
			}
		}
		// The failing cast again, for DuckDB's error, the one the reader
		// reports.
		msg := "does not cast"
		var out sql.NullString
		if err := r.conn.QueryRowContext(ctx, fmt.Sprintf("SELECT CAST(%s AS %s)::VARCHAR", sqlString(*v), s.typ)).Scan(&out); err != nil {
			msg = err.Error()
		}
		if bad == nil {
			bad = map[int64]string{}
		}
		bad[s.id] = fmt.Sprintf("%s %q of the table statistics does not cast to %s (%s)", what, *v, s.typ, msg)
	}
	r.statsCast[t.ID] = bad
	return bad, nil
}

// inlinedDeletionRefusal applies refusedInlinedDeletion: table t's inlined
// file deletions (inlinedDeleteTable) that the real reader reads at snap
// (begin_snapshot <= snap, any file) must have file_id and row_id set and
// not negative. The first snapshot that reads such a row is found once per
// table; the row named is the first one in storage order read at snap.
func (r *Reader) inlinedDeletionRefusal(ctx context.Context, t Table, snap int64) error {
	inl, ok := r.inlinedDeleteTable(t)
	if !ok {
		return nil
	}
	const bad = `(file_id IS NULL OR row_id IS NULL OR file_id < 0 OR row_id < 0)`
	from, ok := r.inl.badDeletions[t.ID]
	if !ok {
		if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT min(begin_snapshot) FROM cat.%s WHERE %s`, ident(inl), bad)).Scan(&from); err != nil {
			return fmt.Errorf("read the inlined deletions of %s in %s: %w", t.Shown(), oneline.Name(r.path), err)
		}
		r.inl.badDeletions[t.ID] = from
	}
	if !from.Valid || snap < from.Int64 {
		return nil
	}
	var file, row sql.NullInt64
	var begin int64
	if err := r.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT file_id, row_id, begin_snapshot FROM cat.%s WHERE begin_snapshot <= %d AND %s ORDER BY rowid LIMIT 1`, ident(inl), snap, bad)).Scan(&file, &row, &begin); err != nil {
		return fmt.Errorf("read the inlined deletions of %s in %s at snapshot %d: %w", t.Shown(), oneline.Name(r.path), snap, err)
	}
	text := func(v sql.NullInt64) string {
		if !v.Valid {
			return "NULL"
		}
		return strconv.FormatInt(v.Int64, 10)
	}
	// The reader reads file_id first, then row_id: the first that fails
	// is its error.
	q := refusedInlinedDeletion
	switch {
	case !file.Valid || file.Int64 >= 0 && !row.Valid:
		q.Error = "INTERNAL Error: Calling GetValueInternal on a value that is NULL"
	default:
		q.Error = "Invalid Input Error: Type INT64 with value"
	}
	return r.refused(q, t, "%s has a row (file_id %s, row_id %s, begin_snapshot %d), which the reader reads at every snapshot from %d on, and cannot read as unsigned numbers", inl, text(file), text(row), begin, begin)
}

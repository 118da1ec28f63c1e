package convert

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
	"github.com/fdl-formats/fdl-formats/internal/parquetsql"
)

// readerChecks applies the model of the source's and the target's real
// readers (formats.ReaderQuirk): where they would read the same metadata
// rows differently, the catalog is rewritten into what both read the same,
// or the conversion is refused naming the behaviour and the table. It runs
// on the working copy after the steps (target layout); every query adapts to
// the columns present (mapping_id from 0.2, is_partition from 0.3, table
// paths from 0.2).
func (r *run) readerChecks(source, target *formats.Version) error {
	if r.opts.faithful {
		return nil
	}
	step := "reader " + target.Name
	// The source is read as the newest release of its format reads it, the
	// target as every release of its format must (formats.Version).
	differ := func(q formats.ReaderQuirk) bool { return source.ReadsAsSourceWith(q) != target.ReadsWith(q) }
	// The facts the checks below ask, read together (mayFind).
	tableStats := formats.QuirkTableStatsNeedColumnStats
	r.wantFacts(map[*workFact]bool{
		&factHivePartitions:      !formats.ReadAlike(source, target, formats.QuirkHiveValuesRaw) || !formats.ReadAlike(source, target, formats.QuirkHiveTimeZoneValuesUTC),
		&factTableStatsNoBounds:  target.ReadsWith(formats.QuirkStringTableStatsEmpty),
		&factTableStatsUncovered: target.ReadsWith(tableStats) || target.EarlyReadsWith(tableStats),
		&factTableStatsOneBound:  formats.OneSidedStatsEmpty(target),
		&factViewPlaceholder:     differ(formats.QuirkViewCatalogVerbatim),
		&factValueCountZero:      target.ReadsWith(formats.QuirkValueCountZeroPruned) && !source.ReadsAsSourceWith(formats.QuirkValueCountZeroPruned),
		&factPlainStringBounds:   r.opts.DataPath != "" && (formats.StringBoundsCutUnfolded(source, target) || formats.StringBoundsFoldedOnlyBySource(source, target)),
		&factTimeNSColumns:       !formats.ReadAlike(source, target, formats.QuirkTimeNSFilesUnreadable) || target.EarlyReadsWith(formats.QuirkTimeNSFilesUnreadable),
	})
	if differ(formats.QuirkTimeTZDefaultOffset) {
		if err := r.normaliseTimeTZDefaults(step, source, target); err != nil {
			return fmt.Errorf("%s: %w", formats.QuirkTimeTZDefaultOffset.Info().Name, err)
		}
	}
	// Hive values: every release of the target (0.4: DuckDB 1.5.0 casts
	// raw, 1.5.1 decodes) must read them as the source's newest does.
	if !formats.ReadAlike(source, target, formats.QuirkHiveValuesRaw) {
		items, err := r.hiveValuesReadDifferently()
		if err != nil {
			return fmt.Errorf("%s: %w", formats.QuirkHiveValuesRaw.Info().Name, err)
		}
		r.refuseQuirk(step, formats.QuirkHiveValuesRaw, source, target, "ducklake_name_mapping", items)
	}
	if !formats.ReadAlike(source, target, formats.QuirkHiveTimeZoneValuesUTC) {
		items, err := r.hiveTimeZoneValues()
		if err != nil {
			return fmt.Errorf("%s: %w", formats.QuirkHiveTimeZoneValuesUTC.Info().Name, err)
		}
		r.refuseQuirk(step, formats.QuirkHiveTimeZoneValuesUTC, source, target, "ducklake_name_mapping", items)
	}
	if err := r.partialDeletesWithInlinedCheck(step, source, target); err != nil {
		return err
	}
	if err := r.nestedDefaultsCheck(step, source, target); err != nil {
		return err
	}
	if err := r.timeNSCheck(step, source, target); err != nil {
		return err
	}
	if err := r.rowIDStartCheck(step, target); err != nil {
		return fmt.Errorf("%s: %w", formats.QuirkRowIDStartRequired.Info().Name, err)
	}
	if differ(formats.QuirkViewCatalogVerbatim) {
		if err := r.runCheck(step, viewCatalogPlaceholderCheck(source, target)); err != nil {
			return fmt.Errorf("%s: %w", formats.QuirkViewCatalogVerbatim.Info().Name, err)
		}
	}
	if err := r.stringTableStatsWithoutMinMax(step, target); err != nil {
		return fmt.Errorf("%s: %w", formats.QuirkStringTableStatsEmpty.Info().Name, err)
	}
	if err := r.tableStatsWithoutColumnStats(step, target); err != nil {
		return fmt.Errorf("%s: %w", formats.QuirkTableStatsNeedColumnStats.Info().Name, err)
	}
	if err := r.fileColumnStats(step, source, target); err != nil {
		return fmt.Errorf("%s: %w", formats.QuirkFilesWithoutColumnStatsPruned.Info().Name, err)
	}
	if err := r.textStats(step, source, target); err != nil {
		return err
	}
	if err := r.valueCountZero(step, source, target); err != nil {
		return fmt.Errorf("%s: %w", formats.QuirkValueCountZeroPruned.Info().Name, err)
	}
	if err := r.oneSidedTableStats(step, target); err != nil {
		return fmt.Errorf("one-sided table statistics: %w", err)
	}
	if err := r.unfoldStringBounds(step, source, target); err != nil {
		return fmt.Errorf("VARCHAR table statistics folded by %s: %w", target.ReadsTableStats().FoldStringMinMax, err)
	}
	if err := r.unfoldCutStringBounds(step, source, target); err != nil {
		return fmt.Errorf("VARCHAR table statistics folded by %s: %w", target.ReadsTableStats().FoldStringMinMax, err)
	}
	if err := r.foldedStringCutCheck(step, source, target); err != nil {
		return fmt.Errorf("VARCHAR table statistics folded by %s: %w", source.ReadsTableStats().FoldStringMinMax, err)
	}
	if err := r.footerQuirksCheck(step, target); err != nil {
		return fmt.Errorf("footer quirks: %w", err)
	}
	return nil
}

// stringTableStatsWithoutMinMax applies formats.QuirkStringTableStatsEmpty
// to a target some of whose readers (0.4: DuckDB 1.5.0) read a VARCHAR
// column's table statistics with NULL min_value and max_value as an empty
// column: such a row of a column that may hold values is dropped, and a
// note names the table and column. Without a row the readers have no
// statistics for the column (as DuckDB 1.5.1 reads the row), so nothing is
// pruned and no answer changes. It runs before tableStatsWithoutColumnStats:
// a table left without any column statistics row then gets its refusal
// (its ducklake_table_stats row would fail every read).
func (r *run) stringTableStatsWithoutMinMax(step string, target *formats.Version) error {
	q := formats.QuirkStringTableStatsEmpty
	if !target.ReadsWith(q) {
		return nil
	}
	if ok, err := r.w.hasTable(r.ctx, "ducklake_table_column_stats"); err != nil || !ok {
		return err
	}
	stats, err := r.fileStatsTable()
	if err != nil || stats == "" {
		return err
	}
	if !r.mayFind(&factTableStatsNoBounds) {
		return nil
	}
	offending := formats.StringTableStatsWithoutMinMaxSQL("") + " AND " + formats.ColumnMayHoldValuesSQL("", stats)
	items, err := r.w.strings(r.ctx, `SELECT 'table ' || s.table_id || ' ' || coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = s.table_id), '?')
			|| ' column ' || coalesce((SELECT arg_max(c.column_name, c.begin_snapshot) FROM ducklake_column c WHERE c.table_id = s.table_id AND c.column_id = s.column_id), '?')
			|| ' (id ' || s.column_id || ')'
		FROM ducklake_table_column_stats s WHERE `+offending+` ORDER BY s.table_id, s.column_id`)
	if err != nil || len(items) == 0 {
		return err
	}
	if err := r.w.exec(r.ctx, `DELETE FROM ducklake_table_column_stats s WHERE `+offending); err != nil {
		return err
	}
	info := q.Info()
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: "ducklake_table_column_stats", Detail: summarize(items),
		Reason: fmt.Sprintf("table column statistics of VARCHAR columns with NULL min_value and max_value dropped: DuckDB 1.5.0, a format %s reader, reads such a row as a column holding no string, so WHERE col = 'x' returns no rows (%s; fixed in DuckDB 1.5.1); without the row no reader has statistics for the column, as 1.5.1 reads the row, and no answer changes", target.Name, info.Name)})
	return nil
}

// tableStatsWithoutColumnStats applies formats.QuirkTableStatsNeedColumnStats
// to a target some of whose readers fail on a ducklake_table_stats row of a
// table without ducklake_table_column_stats rows. Where every reader of the
// target has the quirk (0.1-0.4), the conversion is refused, or the rows
// dropped with --allow-lossy table-stats. Where only its first releases have
// it (1.0: DuckDB 1.5.2 and 1.5.3; formats.Version.EarlyQuirks), the rows
// are dropped and a note names the tables: no 1.0 reader's answer depends
// on them (count(*) counts the files, MIN/MAX folds only column statistics,
// which such a table has none of, and record_count is otherwise only the
// planner's cardinality estimate), and the first releases fail every read
// of the catalog while they are there.
func (r *run) tableStatsWithoutColumnStats(step string, target *formats.Version) error {
	q := formats.QuirkTableStatsNeedColumnStats
	every, early := target.ReadsWith(q), target.EarlyReadsWith(q)
	if !every && !early {
		return nil
	}
	ok, err := r.w.hasTable(r.ctx, "ducklake_table_column_stats")
	if err != nil || !ok {
		return err
	}
	if !r.mayFind(&factTableStatsUncovered) {
		return nil
	}
	info := q.Info()
	offending := formats.TableStatsWithoutColumnStatsSQL("")
	items := `SELECT 'table ' || s.table_id || ' ' || coalesce((SELECT any_value(t.table_name) FROM ducklake_table t WHERE t.table_id = s.table_id), '?')
				FROM ducklake_table_stats s WHERE ` + offending + ` ORDER BY s.table_id`
	drop := `DELETE FROM ducklake_table_stats WHERE table_id IN (SELECT s.table_id FROM ducklake_table_stats s WHERE ` + offending + `)`
	if every {
		return r.runCheck(step, check{code: info.Name, table: "ducklake_table_stats", query: items,
			reason: fmt.Sprintf("format %s readers fail to read any table of this catalog: %s (%s); dropping these statistics rows (a table without them reads the same, as an empty table does) makes it readable",
				target.Name, info.Behaviour, info.Source),
			option: "table-stats",
			fix:    []string{drop},
		})
	}
	tables, err := r.w.strings(r.ctx, items)
	if err != nil || len(tables) == 0 {
		return err
	}
	if err := r.w.exec(r.ctx, drop); err != nil {
		return err
	}
	r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: "ducklake_table_stats", Detail: summarize(tables),
		Reason: fmt.Sprintf("table statistics rows of tables without column statistics dropped: format %s's first readers, %s, fail to read any table of a catalog holding one (%s), and no format %s reader's answer depends on them (count(*) counts the data files, MIN/MAX folds only column statistics, record_count is otherwise a planner estimate)",
			target.Name, target.EarlyReleases(q), info.Behaviour, target.Name)})
	return nil
}

// unmappedFilesCheck refuses data files without field ids and without a
// name mapping when the source's and the target's readers read them
// differently (formats.QuirkUnmappedFilesNull). It runs before the steps,
// while mapping_id still says which files are mapped (0.1 has no mappings).
func (r *run) unmappedFilesCheck(source, target *formats.Version) error {
	if r.opts.faithful || source.ReadsWith(formats.QuirkUnmappedFilesNull) == target.ReadsWith(formats.QuirkUnmappedFilesNull) {
		return nil
	}
	items, err := r.beforeSteps(func(b *beforeSteps) **itemsOutcome { return &b.unmapped }, r.unmappedFilesWithoutFieldIDs)
	if err != nil {
		return fmt.Errorf("%s: %w", formats.QuirkUnmappedFilesNull.Info().Name, err)
	}
	r.refuseQuirk("reader "+target.Name, formats.QuirkUnmappedFilesNull, source, target, "ducklake_data_file", items)
	return nil
}

// refuseQuirk records a refusal naming the reader behaviour and the items.
func (r *run) refuseQuirk(step string, q formats.ReaderQuirk, source, target *formats.Version, table string, items []string) {
	if len(items) == 0 {
		return
	}
	r.add(Finding{Severity: Refuse, Code: q.Info().Name, Step: step, Table: table, Detail: summarize(items),
		Reason: quirkReason(q, source, target)})
}

// quirkReason says which side's readers have the behaviour q and what it is.
func quirkReason(q formats.ReaderQuirk, source, target *formats.Version) string {
	info := q.Info()
	who := "format " + target.Name + " readers"
	if source.ReadsAsSourceWith(q) && !target.ReadsWith(q) {
		who = "format " + source.Name + " readers (the source's)"
	}
	return fmt.Sprintf("%s read this differently from format %s readers: %s (%s)", who, otherSide(q, source, target), info.Behaviour, info.Source)
}

// otherSide names the format of the pair whose reader lacks the quirk.
func otherSide(q formats.ReaderQuirk, source, target *formats.Version) string {
	if target.ReadsWith(q) {
		return source.Name
	}
	return target.Name
}

// normaliseTimeTZDefaults makes TIMETZ initial defaults read alike by a
// reader that drops their offset and one that keeps it
// (QuirkTimeTZDefaultOffset). From a source whose reader drops it
// (sourceDrops: 0.1-0.4 to 1.0+), every literal with an offset is
// rewritten as the wall-clock time at +00, which both read the same. To a
// target whose reader drops it, a literal at +00 already reads the same;
// one with another offset cannot be written so that the target's reader
// returns it (DuckDB keeps the offset in the value: '12:34:56+02' is not
// '10:34:56+00', = is false and hour() differs), so the conversion is
// refused naming the table, the column and the literal.
func (r *run) normaliseTimeTZDefaults(step string, source, target *formats.Version) error {
	sourceDrops := source.ReadsWith(formats.QuirkTimeTZDefaultOffset)
	items, err := r.w.fields(r.ctx, `SELECT table_id, column_id, begin_snapshot, column_name, initial_default
		FROM ducklake_column WHERE lower(trim(column_type)) = 'timetz' AND initial_default IS NOT NULL ORDER BY table_id, column_id, begin_snapshot`)
	if err != nil {
		return err
	}
	var changed, refused []string
	for _, it := range items {
		f := it
		old := f[4]
		t, ok := formats.ParseTimeTZ(old)
		if !ok || t.Offset == 0 {
			continue // read alike (or failing alike, unparsed)
		}
		if !sourceDrops {
			refused = append(refused, fmt.Sprintf("table %s column %s (id %s): initial_default %q", f[0], f[3], f[1], old))
			continue
		}
		v := t.DropOffset().String()
		if err := r.w.exec(r.ctx, `UPDATE ducklake_column SET initial_default = ? WHERE table_id = ? AND column_id = ? AND begin_snapshot = ?`, v, f[0], f[1], f[2]); err != nil {
			return err
		}
		changed = append(changed, fmt.Sprintf("table %s column %s: %q -> %q", f[0], f[3], old, v))
	}
	r.refuseQuirk(step, formats.QuirkTimeTZDefaultOffset, source, target, "ducklake_column", refused)
	if len(changed) > 0 {
		info := formats.QuirkTimeTZDefaultOffset.Info()
		r.add(Finding{Severity: Note, Code: info.Name, Step: step, Table: "ducklake_column", Detail: summarize(changed),
			Reason: "TIMETZ initial defaults written at +00 as the wall-clock time the source's reader returns, so that readers that keep the offset read it the same (" + info.Source + ")"})
	}
	return nil
}

// unmappedFilesWithoutFieldIDs lists the data files without a name mapping
// whose top-level Parquet columns do not all carry field ids (none, or
// only some: readers before 1.0 and 1.0+ read both otherwise; read from
// the footers in the
// local data folder; without one nothing can be checked here, and the
// proof in compare catches them). Encrypted files are DuckLake's own
// (written with field ids).
func (r *run) unmappedFilesWithoutFieldIDs() ([]string, error) {
	if r.opts.DataPath == "" {
		return nil, nil
	}
	mapped := "false"
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_data_file", "mapping_id"); err != nil {
		return nil, err
	} else if ok {
		mapped = "f.mapping_id IS NOT NULL"
	}
	all, err := r.localDataFiles("NOT (" + mapped + ") AND f.encryption_key IS NULL")
	if err != nil {
		return nil, err
	}
	type unmapped struct {
		table, name, id, local string
	}
	var locals []string
	for _, f := range all {
		if f.local != "" { // "": outside the data folder, the proof reports it
			locals = append(locals, f.local)
		}
	}
	// The file each footer is read from: the data file, or a stand-in
	// holding its footer (Options.Footers); a missing one is left out (the
	// proof reports it).
	paths, err := r.footerPaths(locals)
	if err != nil {
		return nil, err
	}
	var files []unmapped
	stats := map[string]os.FileInfo{} // by path read; nil when missing
	of := map[string]string{}         // local path by path read
	hasIDs := map[string]bool{}       // by local path, once known
	var unread []string               // paths whose footers are not known yet
	for _, f := range all {
		p, ok := paths[f.local]
		if !ok {
			continue // outside the data folder or missing: the proof reports it
		}
		st, seen := stats[p]
		if !seen {
			st, _ = os.Stat(p) // nil when missing
			stats[p], of[p] = st, f.local
			if st != nil {
				if ids, known := r.footers.footer(p, st); known {
					hasIDs[f.local] = ids
				} else {
					unread = append(unread, p)
				}
			}
		}
		if st == nil {
			continue // missing: the proof reports it
		}
		files = append(files, unmapped{table: f.table, name: f.name, id: f.id, local: f.local})
	}
	fileOf := func(p string) string {
		for _, f := range files {
			if f.local == of[p] {
				return fmt.Sprintf("data file %s (table %s)", oneline.Name(f.local), f.name)
			}
		}
		return "data file " + p
	}
	read, err := r.fieldIDs(unread, fileOf)
	if err != nil {
		return nil, err
	}
	for p, ids := range read {
		hasIDs[of[p]] = ids
		r.footers.keepFooter(p, stats[p], ids)
	}
	var out []string
	for _, f := range files {
		if !hasIDs[f.local] {
			out = append(out, fmt.Sprintf("table %s %s: data_file_id %s %s has no name mapping and not a field id on every top-level column", f.table, f.name, f.id, oneline.Name(f.local)))
		}
	}
	return out, nil
}

// localDataFile is a data file of the working copy with the local path it
// has in the data folder (Options.DataPath).
type localDataFile struct {
	table, name, id, stored string
	local                   string // "": not under the data folder
}

// localDataFiles lists the data files matching where (a condition on
// ducklake_data_file f) with their local paths, by data_file_id; nothing
// without a local data folder.
func (r *run) localDataFiles(where string) ([]localDataFile, error) {
	if r.opts.DataPath == "" {
		return nil, nil
	}
	// 0.1: no table paths, files are relative to data_path itself.
	dirs := `SELECT t.table_id, dp.value AS data_path, dp.value AS dir FROM (SELECT DISTINCT table_id FROM ducklake_table) t,
		(SELECT value FROM ducklake_metadata WHERE key = 'data_path'` + r.globalScope() + `) dp`
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_table", "path"); err != nil {
		return nil, err
	} else if ok {
		dirs = sqlTableDirs
	}
	rows, err := r.w.fields(r.ctx, `SELECT f.table_id, coalesce(t.table_name, '?'), f.data_file_id, CASE WHEN NOT f.path_is_relative THEN f.path WHEN starts_with(td.dir, td.data_path) THEN 'rel:' || substr(td.dir, length(td.data_path) + 1) || f.path ELSE '' END, f.path
		FROM ducklake_data_file f LEFT JOIN (`+dirs+`) td USING (table_id)
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		WHERE `+where+` ORDER BY f.data_file_id`)
	if err != nil {
		return nil, err
	}
	out := make([]localDataFile, 0, len(rows))
	for _, row := range rows {
		f := row
		local := f[3]
		if rel, ok := strings.CutPrefix(local, "rel:"); ok {
			local = filepath.Join(r.opts.DataPath, filepath.FromSlash(rel))
		}
		out = append(out, localDataFile{table: f[0], name: f[1], id: f[2], local: local, stored: f[4]})
	}
	return out, nil
}

// fieldIDs reads the footers of the local data files and tells, for each,
// whether its Parquet columns carry field ids: one statement for all of
// them (parquet_schema of the list, by file_name). A file the answer does
// not name (DuckDB spelled its path otherwise), or all of them when the
// statement fails, are read one by one, so that an error names the file
// and its table (fileOf: a stand-in's path names its data file).
func (r *run) fieldIDs(locals []string, fileOf func(string) string) (map[string]bool, error) {
	out := make(map[string]bool, len(locals))
	if len(locals) > 1 {
		if err := r.fieldIDsAtOnce(locals, out); err != nil {
			clear(out) // each file alone names the one it failed on
		}
	}
	for _, l := range locals {
		if _, ok := out[l]; ok {
			continue
		}
		one := map[string]bool{}
		if err := r.topLevelFieldIDs("parquet_schema("+parquetsql.Path(l)+")", map[string]bool{}, one); err != nil {
			return nil, fmt.Errorf("read the footer of %s: %w", fileOf(l), err)
		}
		ids := false
		for _, v := range one { // one file: its one answer, whatever its spelling
			ids = v
		}
		out[l] = ids
	}
	return out, nil
}

// fieldIDsAtOnce is fieldIDs' one statement: it fills out for the files the
// answer names.
func (r *run) fieldIDsAtOnce(locals []string, out map[string]bool) error {
	list := make([]string, len(locals))
	asked := make(map[string]bool, len(locals))
	for i, l := range locals {
		list[i], asked[l] = parquetsql.Path(l), true
	}
	return r.topLevelFieldIDs("parquet_schema(["+strings.Join(list, ", ")+"])", asked, out)
}

// topLevelFieldIDs reads the parquet_schema rows of from and sets out[file]
// to whether every top-level column of the file has a field id, for the
// files asked for (all when asked is empty). 1.0+ readers map a file by
// field id only then, else by position; 0.1-0.4 readers always by field id
// (formats.QuirkUnmappedFilesNull): only such files read alike in both. A
// file's rows come in order, its root first, each node followed by its
// subtree.
func (r *run) topLevelFieldIDs(from string, asked, out map[string]bool) error {
	rows, err := r.w.conn.QueryContext(r.ctx, "SELECT file_name, field_id IS NOT NULL, coalesce(num_children, 0) FROM "+from)
	if err != nil {
		return err
	}
	defer rows.Close()
	type node struct {
		id       bool
		children int64
	}
	byFile := map[string][]node{}
	var order []string
	for rows.Next() {
		var name string
		var n node
		if err := rows.Scan(&name, &n.id, &n.children); err != nil {
			return err
		}
		if _, ok := byFile[name]; !ok {
			order = append(order, name)
		}
		byFile[name] = append(byFile[name], n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range order {
		if len(asked) > 0 && !asked[name] {
			continue
		}
		nodes := byFile[name]
		// end returns the index past the subtree rooted at i.
		var end func(i int) int
		end = func(i int) int {
			j := i + 1
			for k := int64(0); k < nodes[i].children && j < len(nodes); k++ {
				j = end(j)
			}
			return j
		}
		all := len(nodes) > 1 && nodes[0].children > 0
		for i, k := 1, int64(0); all && k < nodes[0].children && i < len(nodes); k++ {
			all = nodes[i].id
			i = end(i)
		}
		out[name] = all
	}
	return nil
}

// globalScope restricts ducklake_metadata to global rows where scopes exist.
func (r *run) globalScope() string {
	if ok, _ := r.w.hasColumn(r.ctx, "ducklake_metadata", "scope"); ok {
		return " AND scope IS NULL"
	}
	return ""
}

// hiveValuesReadDifferently lists Hive partition values (name mapping
// entries with is_partition) of data files whose raw path text differs
// from the value it stands for: URL-encoded text, or the NULL marker.
func (r *run) hiveValuesReadDifferently() ([]string, error) {
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_name_mapping", "is_partition"); err != nil || !ok {
		return nil, err
	}
	if !r.mayFind(&factHivePartitions) {
		return nil, nil
	}
	rows, err := r.w.fields(r.ctx, `SELECT f.table_id, coalesce(t.table_name, '?'), f.data_file_id, f.path, n.source_name
		FROM ducklake_data_file f JOIN ducklake_name_mapping n ON n.mapping_id = f.mapping_id AND n.is_partition
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		ORDER BY f.data_file_id, n.source_name`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range rows {
		f := row
		for _, seg := range strings.Split(f[3], "/") {
			k, v, ok := strings.Cut(seg, "=")
			if !ok || k != f[4] {
				continue
			}
			if !formats.HiveValueReadRawAlike(v, false) {
				out = append(out, fmt.Sprintf("table %s %s: data_file_id %s partition %s=%s", f[0], f[1], f[2], k, v))
			}
		}
	}
	return out, nil
}

// hiveTimeZoneValues lists the Hive partition values of TIMESTAMPTZ and
// TIMETZ columns without an explicit UTC offset
// (formats.HiveValueHasOffset), each a data file, a top-level partition
// column and a type the column has while the file is visible: readers with
// QuirkHiveTimeZoneValuesUTC read them as UTC, the others in the session's
// TimeZone. Values read as NULL by the decoding readers are left to
// hiveValuesReadDifferently.
func (r *run) hiveTimeZoneValues() ([]string, error) {
	if ok, err := r.w.hasColumn(r.ctx, "ducklake_name_mapping", "is_partition"); err != nil || !ok {
		return nil, err
	}
	if !r.mayFind(&factHivePartitions) {
		return nil, nil
	}
	rows, err := r.w.fields(r.ctx, `SELECT DISTINCT f.table_id, coalesce(t.table_name, '?'), f.data_file_id, f.path, n.source_name, c.column_name, lower(trim(c.column_type))
		FROM ducklake_data_file f JOIN ducklake_name_mapping n ON n.mapping_id = f.mapping_id AND n.is_partition AND n.parent_column IS NULL
		JOIN ducklake_column c ON c.table_id = f.table_id AND c.column_id = n.target_field_id AND c.parent_column IS NULL
			AND c.begin_snapshot < coalesce(f.end_snapshot, 9223372036854775807) AND f.begin_snapshot < coalesce(c.end_snapshot, 9223372036854775807)
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t ON t.table_id = f.table_id
		WHERE lower(trim(c.column_type)) IN `+formats.HiveTimeZoneTypesSQL+`
		ORDER BY ALL`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range rows {
		f := row
		for _, seg := range formats.HiveTimeZoneValues(f[3], f[4]) {
			out = append(out, fmt.Sprintf("table %s %s: data_file_id %s %s: column %s (%s) partition value %s has no UTC offset", f[0], f[1], f[2], f[3], f[5], f[6], seg))
		}
	}
	return out, nil
}

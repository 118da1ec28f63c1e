package convert

import (
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

// A workFact is a cheap condition on the working copy without which a
// reader check cannot find anything: when it does not hold, the check's own
// statements (joins, listings of names, a few milliseconds of DuckDB's
// parsing and planning each) are skipped, and its result is the one it
// would have found, nothing. It is read only where its table (and column)
// exists; each check still runs in full where its fact holds. One thing a
// skip does change: on a damaged working copy, an error the skipped
// statements would have raised (a column of the wrong type, say) is not
// raised by the check; the frozen checks and the output's own reads still
// meet it.
type workFact struct {
	needs []string // the tables ("table") and columns ("table.column") cond reads
	cond  string   // a boolean SQL expression
}

// The facts, as data: the checks that consult them say why each suffices.
var (
	// factHivePartitions: a name mapping entry is a Hive partition value
	// (hiveValuesReadDifferently, hiveTimeZoneValues join only those).
	factHivePartitions = workFact{[]string{"ducklake_name_mapping.is_partition"},
		`EXISTS (SELECT 1 FROM ducklake_name_mapping WHERE is_partition)`}
	// factTableStatsNoBounds: a table column statistics row has neither
	// bound (stringTableStatsWithoutMinMax selects only those).
	factTableStatsNoBounds = workFact{[]string{"ducklake_table_column_stats"},
		`EXISTS (SELECT 1 FROM ducklake_table_column_stats WHERE min_value IS NULL AND max_value IS NULL)`}
	// factTableStatsOneBound: a table column statistics row has one bound
	// only (oneSidedTableStats selects only those).
	factTableStatsOneBound = workFact{[]string{"ducklake_table_column_stats"},
		`EXISTS (SELECT 1 FROM ducklake_table_column_stats WHERE (min_value IS NULL) <> (max_value IS NULL))`}
	// factTableStatsUncovered: a table statistics row is what
	// tableStatsWithoutColumnStats lists (its condition, without the names).
	factTableStatsUncovered = workFact{[]string{"ducklake_table_stats", "ducklake_table_column_stats"},
		`EXISTS (SELECT 1 FROM ducklake_table_stats s WHERE ` + formats.TableStatsWithoutColumnStatsSQL("") + `)`}
	// factStructColumns: a top-level column is a STRUCT (structSkipFiles
	// lists only data files of such a column's table).
	factStructColumns = workFact{[]string{"ducklake_column"},
		`EXISTS (SELECT 1 FROM ducklake_column WHERE parent_column IS NULL AND lower(trim(column_type)) = 'struct')`}
	// factViewPlaceholder: a view's SQL holds the catalog placeholder
	// (viewsWithCatalogPlaceholder selects only those).
	factViewPlaceholder = workFact{[]string{"ducklake_view"},
		`EXISTS (SELECT 1 FROM ducklake_view WHERE contains(sql, ` + literal(formats.ViewCatalogPlaceholder) + `))`}
	// factValueCountZero: a file column statistics row has value_count 0
	// (valueCountZero selects only those).
	factValueCountZero = workFact{[]string{"ducklake_file_column_stats.value_count"},
		`EXISTS (SELECT 1 FROM ducklake_file_column_stats WHERE value_count = 0)`}
	// factPlainStringBounds: a table column statistics row has both
	// bounds, of a table without a live delete file (cutStringBounds
	// reads only such rows, of such tables).
	factPlainStringBounds = workFact{[]string{"ducklake_table_column_stats", "ducklake_delete_file"},
		`EXISTS (SELECT 1 FROM ducklake_table_column_stats s WHERE s.min_value IS NOT NULL AND s.max_value IS NOT NULL AND ` + sqlNoLiveDeleteFile + `)`}
	// factTimeNSColumns: a column is of type time_ns (timeNSCheck lists
	// only data files holding one).
	factTimeNSColumns = workFact{[]string{"ducklake_column"},
		`EXISTS (SELECT 1 FROM ducklake_column WHERE lower(trim(column_type)) = 'time_ns')`}
	workFacts = []*workFact{&factHivePartitions, &factTableStatsNoBounds, &factTableStatsOneBound, &factTableStatsUncovered, &factStructColumns, &factViewPlaceholder, &factValueCountZero, &factPlainStringBounds, &factTimeNSColumns}
)

// workFactsRead are the facts as last read, and the working copy's write
// count then (work.writes): a statement written since may have changed any,
// and they are read again.
type workFactsRead struct {
	writes int
	holds  map[*workFact]bool // absent: not read (not asked, or its table or column is missing)
}

// wantFacts names the facts the checks about to run will ask (readerChecks,
// from the same conditions as the checks'): the first one asked reads them
// all in one statement, and a fact not asked yet is read again with the
// next one asked after a write. It changes no answer, only how many
// statements read them; a fact asked but not named is read when asked.
func (r *run) wantFacts(want map[*workFact]bool) {
	r.factsWanted = map[*workFact]bool{}
	for f, ok := range want {
		if ok {
			r.factsWanted[f] = true
		}
	}
}

// mayFind reports whether a check that needs f may find anything: false
// only when f was read and does not hold. A fact whose table or column is
// missing, or a failure to read the facts, answers true: the check then
// runs as it would without them (and says what is missing or failing).
func (r *run) mayFind(f *workFact) bool {
	if r.facts != nil && r.facts.writes != r.w.writes {
		r.facts = nil
	}
	if r.facts == nil {
		r.facts = &workFactsRead{writes: r.w.writes, holds: map[*workFact]bool{}}
	}
	delete(r.factsWanted, f) // asked: a later read need not read it for a check to come
	holds, read := r.facts.holds[f]
	if !read {
		// f and the wanted facts not read since the last write, in
		// workFacts' order.
		ask := []*workFact{f}
		for _, w := range workFacts {
			if _, ok := r.facts.holds[w]; !ok && r.factsWanted[w] {
				ask = append(ask, w)
			}
		}
		r.readFacts(ask)
		holds, read = r.facts.holds[f]
	}
	return !read || holds
}

// readFacts reads the facts of ask whose tables and columns exist into
// r.facts, in one statement; none when it fails.
func (r *run) readFacts(ask []*workFact) {
	var asked []*workFact
	var conds []string
facts:
	for _, f := range ask {
		for _, n := range f.needs {
			var ok bool
			var err error
			if table, column, isColumn := strings.Cut(n, "."); isColumn {
				ok, err = r.w.hasColumn(r.ctx, table, column)
			} else {
				ok, err = r.w.hasTable(r.ctx, table)
			}
			if err != nil {
				return
			}
			if !ok {
				continue facts
			}
		}
		asked, conds = append(asked, f), append(conds, f.cond)
	}
	if len(asked) == 0 {
		return
	}
	got := make([]bool, len(asked))
	dest := make([]any, len(asked))
	for i := range got {
		dest[i] = &got[i]
	}
	if err := r.w.conn.QueryRowContext(r.ctx, "SELECT "+strings.Join(conds, ", ")).Scan(dest...); err != nil {
		return
	}
	for i, f := range asked {
		r.facts.holds[f] = got[i]
	}
}

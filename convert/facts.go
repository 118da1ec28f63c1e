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
// exists; each check still runs in full where its fact holds.
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
	workFacts = []*workFact{&factHivePartitions, &factTableStatsNoBounds, &factTableStatsOneBound, &factTableStatsUncovered}
)

// workFactsRead are the facts as last read, in one statement for all of them,
// and the working copy's write count then (work.writes): a statement
// written since may have changed any, and they are read again.
type workFactsRead struct {
	writes int
	holds  map[*workFact]bool // absent: not read (its table or column is missing)
}

// mayFind reports whether a check that needs f may find anything: false
// only when f was read and does not hold. A fact whose table or column is
// missing, or a failure to read the facts, answers true: the check then
// runs as it would without them (and says what is missing or failing).
func (r *run) mayFind(f *workFact) bool {
	if r.facts == nil || r.facts.writes != r.w.writes {
		r.facts = r.readFacts()
	}
	holds, read := r.facts.holds[f]
	return !read || holds
}

// readFacts reads every fact whose table and column exist, in one
// statement; none when it fails.
func (r *run) readFacts() *workFactsRead {
	read := &workFactsRead{writes: r.w.writes, holds: map[*workFact]bool{}}
	var asked []*workFact
	var conds []string
facts:
	for _, f := range workFacts {
		for _, n := range f.needs {
			var ok bool
			var err error
			if table, column, isColumn := strings.Cut(n, "."); isColumn {
				ok, err = r.w.hasColumn(r.ctx, table, column)
			} else {
				ok, err = r.w.hasTable(r.ctx, table)
			}
			if err != nil {
				return read
			}
			if !ok {
				continue facts
			}
		}
		asked, conds = append(asked, f), append(conds, f.cond)
	}
	if len(asked) == 0 {
		return read
	}
	got := make([]bool, len(asked))
	dest := make([]any, len(asked))
	for i := range got {
		dest[i] = &got[i]
	}
	if err := r.w.conn.QueryRowContext(r.ctx, "SELECT "+strings.Join(conds, ", ")).Scan(dest...); err != nil {
		return read
	}
	for i, f := range asked {
		read.holds[f] = got[i]
	}
	return read
}

package convert

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckpool"
)

// Plan returns the chain of formats a conversion walks, from the source's
// format to the target, both included. A development layout first converges
// to its release; development layouts are not written.
func Plan(from, to *formats.Version) ([]*formats.Version, error) {
	if to.Dev {
		return nil, fmt.Errorf("%w from %s to %s: development layouts are not written; choose release %s", ErrNoPath, from, to, to.Release)
	}
	path := []*formats.Version{from}
	cur := from
	if from.Dev {
		rel, err := formats.Lookup(from.Release)
		if err != nil {
			return nil, err
		}
		path = append(path, rel)
		cur = rel
	}
	releases := formats.All.Releases()
	i, j := releases.Index(cur), releases.Index(to)
	if i < 0 || j < 0 {
		return nil, fmt.Errorf("%w from %s to %s", ErrNoPath, from, to)
	}
	for i != j {
		if i < j {
			i++
		} else {
			i--
		}
		path = append(path, releases[i])
	}
	for k := 1; k < len(path); k++ {
		if _, ok := lookupStep(path[k-1], path[k]); !ok {
			return nil, fmt.Errorf("%w: no step %s -> %s declared", ErrNoPath, path[k-1], path[k])
		}
	}
	return path, nil
}

// run is one conversion in progress.
type run struct {
	ctx      context.Context
	w        *work
	opts     Options
	log      *slog.Logger
	findings []Finding
	dryRun   bool // Check: analyse, write nothing
	// format is the working copy's format: the source's, then each
	// step's target (apply). Its readers' rule reads the delete files'
	// format column (formats.Version.DeleteFileFormatSQL).
	format   *formats.Version
	pending  []pendingFile  // rewritten data-folder files to publish with the catalog
	scratch  string         // the run's folder for them, once made
	partials partialDeletes // partial deletion files by content, once read (partialDeleteFiles)
	// readingData: a readsData check is running (dataThreads may give
	// DuckDB its threads); allThreads: it gave them.
	readingData, allThreads bool
	// before is what the pass's reader checks before the steps found
	// (pass.before; nil: not kept).
	before *beforeSteps
	// footers keeps what was read of data files' footers (pass.footers;
	// nil: nothing kept).
	footers *Engines
	// stepChecks keeps what the steps' checks found (pass.stepChecks;
	// nil: nothing kept).
	stepChecks stepCheckMemo
	// facts are the cheap facts about the working copy last read, and
	// factsWanted those the running reader checks will still ask (mayFind).
	facts       *workFactsRead
	factsWanted map[*workFact]bool
}

func (r *run) add(f Finding) { r.findings = append(r.findings, f) }

// apply runs one step on the working copy.
func (r *run) apply(from, to *formats.Version) error {
	s, _ := lookupStep(from, to)
	name := from.Name + "->" + to.Name
	r.log.Debug("step", "from_version", from.Name, "to_version", to.Name)
	for i, c := range s.checks {
		if err := r.runStepCheck(name, i, c); err != nil {
			return fmt.Errorf("step %s: check %s: %w", name, c.code, err)
		}
	}
	for _, rn := range s.renames {
		has, err := r.w.hasTable(r.ctx, rn[0])
		if err != nil {
			return err
		}
		if has {
			if err := r.w.execShape(r.ctx, fmt.Sprintf("ALTER TABLE %s RENAME TO %s", quote(rn[0]), quote(rn[1])), tableRenamed(rn[0], rn[1])); err != nil {
				return fmt.Errorf("step %s: %w", name, err)
			}
		}
	}
	if err := r.reshape(to); err != nil {
		return fmt.Errorf("step %s: %w", name, err)
	}
	for col, stmts := range s.sqlIf {
		table, column, _ := strings.Cut(col, ".")
		has, err := r.w.hasColumn(r.ctx, table, column)
		if err != nil {
			return err
		}
		if has {
			for _, q := range stmts {
				if err := r.w.exec(r.ctx, q); err != nil {
					return fmt.Errorf("step %s: %w", name, err)
				}
			}
		}
	}
	for _, q := range s.sql {
		if err := r.w.exec(r.ctx, q); err != nil {
			return fmt.Errorf("step %s: %w", name, err)
		}
	}
	if err := rewriteTokens(r, formats.ChangeKindRenames(from, to)); err != nil {
		return fmt.Errorf("step %s: %w", name, err)
	}
	if s.dynamic != nil {
		if err := s.dynamic(r); err != nil {
			return fmt.Errorf("step %s: %w", name, err)
		}
	}
	if err := r.prune(to); err != nil {
		return fmt.Errorf("step %s: %w", name, err)
	}
	if err := r.stamp(to); err != nil {
		return err
	}
	r.format = to
	return nil
}

// runCheck evaluates one check and records a finding if anything offends.
func (r *run) runCheck(stepName string, c check) error {
	return r.runStepCheck(stepName, -1, c)
}

// stepCheckMemo keeps what the declared checks of a pass's steps found,
// by the working copy's history (work.history), step and check: the
// outputs of a pass walk the same steps from the same source (1.0 to
// 0.1, 0.2, 0.3 and 0.4 each run the checks of 1.0->0.4 on the same
// rows; a backfill's pass writes a version in two to six formats), and a
// check that found its items without writing anything finds the same in
// a working copy of the same history. Only what a check found is kept:
// its finding, lossy fix and rewrite are made by each output.
type stepCheckMemo map[stepCheckKey][]string

// stepCheckKey is a step's check (the i-th of the step named step) run
// on a working copy of the given history.
type stepCheckKey struct {
	history [sha256.Size]byte
	step    string
	i       int
}

// runStepCheck is runCheck for the check numbered i of the step named
// stepName (i < 0: no step's declared check), whose items the pass keeps
// (stepCheckMemo).
func (r *run) runStepCheck(stepName string, i int, c check) error {
	items, err := r.stepCheckItems(stepName, i, c)
	if err != nil || len(items) == 0 {
		return err
	}
	for i, it := range items {
		if it == "" {
			items[i] = "(a row with NULL in the fields shown)"
		}
	}
	f := Finding{Severity: Refuse, Code: c.code, Step: stepName, Table: c.table, Detail: summarize(items), Reason: c.reason}
	if c.rewrite != nil {
		f.Option = "--rewrite-deletes --data DIR"
		if r.opts.DataPath != "" {
			// A repository's run (plan, backfill) already has the data
			// folder, and refuses --data for a local repository.
			f.Option = "--rewrite-deletes"
		}
		if r.opts.RewriteDeletes {
			var cannot cannotRewrite
			switch err := duckpool.AllThreads(r.ctx, r.w.conn, func() error { return c.rewrite(r) }); {
			case errors.As(err, &cannot):
				f.Reason += "; cannot rewrite: " + cannot.reason
				f.Option = ""
			case err != nil:
				return err
			default:
				f.Severity, f.Reason, f.Option = Note, c.rewritten, ""
			}
		}
	}
	if c.option != "" {
		f.Option = "--allow-lossy " + c.option
		if slices.Contains(r.opts.Lossy, c.option) {
			f.Severity = Lossy
			for _, q := range c.fix {
				if err := r.w.exec(r.ctx, q); err != nil {
					return err
				}
			}
		}
	}
	r.add(f)
	return nil
}

// stepCheckItems lists what check c finds, or what it found in a working
// copy of the same history in an earlier output of the pass (i >= 0 and
// a pass's memo): kept only when finding them wrote nothing (no
// statement to the working copy, no finding, no file to publish).
func (r *run) stepCheckItems(stepName string, i int, c check) ([]string, error) {
	key := stepCheckKey{history: r.w.history, step: stepName, i: i}
	kept := i >= 0 && r.stepChecks != nil
	if kept {
		if items, ok := r.stepChecks[key]; ok {
			return slices.Clone(items), nil
		}
	}
	writes, findings, pending := r.w.writes, len(r.findings), len(r.pending)
	var items []string
	var err error
	switch {
	case c.custom != nil && c.readsData:
		items, err = r.readsData(c.custom)
	case c.custom != nil:
		items, err = c.custom(r)
	default:
		items, err = r.w.strings(r.ctx, c.query)
	}
	if err == nil && kept && r.w.writes == writes && len(r.findings) == findings && len(r.pending) == pending {
		r.stepChecks[key] = slices.Clone(items)
	}
	return items, err
}

// readsData runs a check that reads data files' rows (check.readsData)
// with DuckDB's default number of threads, as duckpool.AllThreads does,
// from its first read of rows (dataThreads) to its end, when it is put
// back on one thread, also when it fails or panics. Most such checks find
// no file to read (no partial deletion, merged or flushed file), or read
// only footers: they stay on one thread, and DuckDB starts and stops no
// worker thread for them (two statements and a thread's start and stop
// for each check of each conversion step before).
func (r *run) readsData(custom func(*run) ([]string, error)) (items []string, err error) {
	r.readingData = true
	defer func() {
		r.readingData = false
		if !r.allThreads {
			return
		}
		r.allThreads = false
		if _, errSet := r.w.conn.ExecContext(context.WithoutCancel(r.ctx), duckpool.OneThread); errSet != nil {
			err = errors.Join(err, fmt.Errorf("put DuckDB back on one thread: %w", errSet))
		}
	}()
	return custom(r)
}

// dataThreads gives DuckDB its default number of threads before a
// statement that reads data files' rows, within readsData (elsewhere it
// does nothing: the caller runs on the threads it has).
func (r *run) dataThreads() error {
	if !r.readingData || r.allThreads {
		return nil
	}
	if _, err := r.w.conn.ExecContext(r.ctx, "RESET threads"); err != nil {
		return fmt.Errorf("give DuckDB its threads: %w", err)
	}
	r.allThreads = true
	return nil
}

// summarize names the first offending items and how many there are.
func summarize(items []string) string {
	return summarizeEach(len(items), func(i int) string { return items[i] })
}

// summarizeShown is how many items summarize names.
const summarizeShown = 5

// summarizeEach is summarize of n items, item(i) giving the i-th: only the
// items named are written (a wide catalog's conversion to 0.4 writes
// thousands of statistics rows, and names five).
func summarizeEach(n int, item func(i int) string) string {
	shown := make([]string, min(n, summarizeShown))
	for i := range shown {
		shown[i] = item(i)
	}
	if n <= summarizeShown {
		return strings.Join(shown, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(shown, "; "), n-summarizeShown)
}

// reshape adds the target's tables and columns the working copy lacks,
// filled as DuckLake's migrations fill them.
func (r *run) reshape(to *formats.Version) error {
	layout, _, err := r.w.layout(r.ctx)
	if err != nil {
		return err
	}
	for _, t := range to.Tables {
		cols, ok := layout[t.Name]
		if !ok {
			if err := r.w.execShape(r.ctx, t.DDL(), tableCreated(t.Name, t.ColumnNames())); err != nil {
				return fmt.Errorf("create %s: %w", t.Name, err)
			}
			continue
		}
		for _, c := range t.Columns {
			if slices.Contains(cols, c.Name) {
				continue
			}
			q := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", quote(t.Name), quote(c.Name), c.Type)
			if c.Fill != "" {
				q += " DEFAULT " + c.Fill
			}
			if err := r.w.execShape(r.ctx, q, columnAdded(t.Name, c.Name)); err != nil {
				return fmt.Errorf("add column %s.%s: %w", t.Name, c.Name, err)
			}
		}
	}
	return nil
}

// prune drops what the target format does not have.
func (r *run) prune(to *formats.Version) error {
	layout, dynamic, err := r.w.layout(r.ctx)
	if err != nil {
		return err
	}
	for name, cols := range layout {
		t, ok := to.Table(name)
		if !ok {
			if err := r.w.execShape(r.ctx, "DROP TABLE "+quote(name), tableDropped(name)); err != nil {
				return err
			}
			continue
		}
		for _, c := range cols {
			if _, ok := t.Column(c); !ok {
				if err := r.w.execShape(r.ctx, fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", quote(name), quote(c)), columnDropped(name, c)); err != nil {
					return err
				}
			}
		}
	}
	if !to.Has(formats.CapInlinedDeletes) {
		for _, t := range dynamic {
			if strings.HasPrefix(t, "ducklake_inlined_delete_") {
				if err := r.w.execShape(r.ctx, "DROP TABLE "+quote(t), tableDropped(t)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (r *run) stamp(to *formats.Version) error {
	q := `UPDATE ducklake_metadata SET value = ? WHERE key = 'version'`
	if to.Has(formats.CapScopedSettings) {
		q += ` AND scope IS NULL`
	}
	return r.w.exec(r.ctx, q, to.Stamp)
}

// checkTarget verifies, from the registry alone, that every type, partition
// transform and change token left in the working copy is one the target's
// readers accept. It is the last line of defence for steps that miss one.
func (r *run) checkTarget(to *formats.Version) error {
	name := "target " + to.Name
	// The column and macro types, partition transforms and change lists in
	// one statement (kind, value), each kind's values distinct and sorted.
	parts := []string{
		// Types as stored: the target's readers parse them case-sensitively
		// for decimal( and untrimmed (formats.Version.SupportsType).
		`SELECT 0 AS kind, column_type AS v FROM ducklake_column`,
		`SELECT 2, coalesce(transform, '') FROM ducklake_partition_column`,
		`SELECT 3, changes_made FROM ducklake_snapshot_changes WHERE changes_made IS NOT NULL`,
	}
	if has, _ := r.w.hasTable(r.ctx, "ducklake_macro_parameters"); has {
		parts = append(parts, `SELECT 1, t FROM (SELECT parameter_type AS t FROM ducklake_macro_parameters UNION SELECT default_value_type FROM ducklake_macro_parameters) WHERE t IS NOT NULL`)
	}
	rows, err := r.w.conn.QueryContext(r.ctx, strings.Join(parts, " UNION ")+" ORDER BY kind, v")
	if err != nil {
		return fmt.Errorf("read the target's types, transforms and changes: %w", err)
	}
	var types, transforms, changes []string
	for rows.Next() {
		var kind int
		var v sql.NullString // a NULL type is no type the target supports
		if err := rows.Scan(&kind, &v); err != nil {
			rows.Close()
			return fmt.Errorf("read the target's types, transforms and changes: %w", err)
		}
		switch kind {
		case 0, 1:
			types = append(types, v.String)
		case 2:
			transforms = append(transforms, v.String)
		default:
			changes = append(changes, v.String)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the target's types, transforms and changes: %w", err)
	}
	var bad []string
	for _, t := range types {
		if !to.SupportsType(t) {
			bad = append(bad, t)
		}
	}
	if len(bad) > 0 {
		cols, err := r.w.strings(r.ctx, fmt.Sprintf(`SELECT DISTINCT 'table ' || table_id || ' column ' || column_name || ' ' || column_type FROM ducklake_column WHERE column_type IN (%s) ORDER BY 1`, inList(bad)))
		if err != nil {
			return err
		}
		r.add(Finding{Severity: Refuse, Code: "types", Step: name, Table: "ducklake_column", Detail: summarize(append(cols, "types: "+strings.Join(bad, ", "))),
			Reason: fmt.Sprintf("format %s cannot store the types %s", to.Name, strings.Join(bad, ", "))})
	}
	var badT []string
	for _, tr := range transforms {
		if to.SupportsTransform(tr) {
			continue
		}
		where, err := r.w.strings(r.ctx, fmt.Sprintf(`SELECT DISTINCT concat_ws(' ', 'table', table_id, 'partition', partition_id, coalesce(transform, 'NULL')) FROM ducklake_partition_column WHERE coalesce(transform, '') = %s ORDER BY 1`, literal(tr)))
		if err != nil {
			return err
		}
		badT = append(badT, where...)
	}
	if len(badT) > 0 {
		r.add(Finding{Severity: Refuse, Code: "partition-transforms", Step: name, Table: "ducklake_partition_column", Detail: summarize(badT),
			Reason: fmt.Sprintf("format %s readers do not know these partition transforms and fail to load the table", to.Name)})
	}
	var badK []string
	for _, c := range changes {
		for _, tok := range splitChanges(c) {
			if k := tokenKind(tok); !to.SupportsChangeToken(k) && !slices.Contains(badK, k) {
				badK = append(badK, k)
			}
		}
	}
	if len(badK) > 0 {
		slices.Sort(badK)
		r.add(Finding{Severity: Refuse, Code: "change-tokens", Step: name, Table: "ducklake_snapshot_changes", Detail: strings.Join(badK, ", "),
			Reason: fmt.Sprintf("format %s's change parser rejects these snapshot change kinds", to.Name)})
	}
	return nil
}

func inList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = literal(v)
	}
	return strings.Join(q, ", ")
}

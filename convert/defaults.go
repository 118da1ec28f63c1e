package convert

import (
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/duckerr"
	"github.com/fdl-formats/fdl-formats/internal/faults"
)

// defaultsCheck refuses a conversion whose output the target's readers
// cannot load because of a column's defaults (formats/defaults.go, the
// rule compare's proof applies as uncastable-default and
// unparsable-default-expression): every reader casts the initial_default
// of a column or field without fields of its own to its type when it
// loads the schema, 0.1-0.3 readers its default_value too, and 0.4+
// readers parse an expression default_value. It reads the working copy
// as the steps left it, in the target's layout: 0.4+'s 'NULL' sentinel is
// already SQL NULL in 0.3, and an expression default going down to 0.3
// was refused (expression-defaults) or dropped with its option. A 1.0
// literal default that 1.0 readers keep as text but that does not cast
// to its column's type was written as 0.3 and only the proof told that
// no 0.3 reader loads it; it is refused here, before anything is
// written, naming the table, the column, the text, the type and the
// format.
//
// exprRows are the rows (table_id, column_id, begin_snapshot) whose
// default_value was an expression before the steps (expressionDefaults):
// going down to 0.3 their text stays in default_value when the
// expression-defaults check refuses them, and is not judged again.
func (r *run) defaultsCheck(to *formats.Version, exprRows map[[3]int64]bool, before map[string][]string, judged *defaultsJudged) error {
	// The source's check judged these rows already: where no statement
	// since the copy-in may have changed them and the target's readers
	// judge every text as the source's, the target's failures are the
	// source's, all dropped below (a wide catalog's 1,300 column rows
	// read twice: TestDefaultsJudgedOnceWhereAlike).
	if len(exprRows) == 0 && !r.w.columnsWritten {
		if same, err := judged.sameFor(r, to); err != nil || same {
			return err
		}
	}
	failed, _, err := r.defaultFailures(to, exprRows)
	if err != nil {
		return err
	}
	// What the source's own readers fail on was refused as the source's.
	for code, items := range failed {
		failed[code] = slices.DeleteFunc(items, func(it string) bool { return slices.Contains(before[code], it) })
	}
	r.addDefaultFindings("target "+to.Name, to, failed, "no "+to.Name+" reader could load the converted catalog")
	return nil
}

// defaultsJudged is how defaultFailures judged a working copy's defaults
// for a format: the rows' query, whether the format casts default_value,
// and each distinct text and DuckDB type asked ("" for an expression)
// with its judge's statement.
type defaultsJudged struct {
	clean             bool // no statement since the copy-in named the tables read (work.columnsWritten)
	query             string
	castsDefaultValue bool
	judges            map[[2]string]string
}

// sameFor tells whether judging the working copy for format to asks the
// same rows the same questions as j did (nil: not known), so that its
// answers are j's.
func (j *defaultsJudged) sameFor(r *run, to *formats.Version) (bool, error) {
	if j == nil || !j.clean || j.castsDefaultValue != to.CastsDefaultValue() {
		return false, nil
	}
	q, err := r.defaultsQuery(to)
	if err != nil || q != j.query {
		return false, err
	}
	for k, judge := range j.judges {
		if defaultJudge(to, k[0], k[1]) != judge {
			return false, nil
		}
	}
	return true, nil
}

// defaultJudge is the statement judging text for format v's readers: cast
// to duckType, or parsed as an expression where duckType is "".
func defaultJudge(v *formats.Version, text, duckType string) string {
	if duckType == "" {
		return v.DefaultParsesQuery(text)
	}
	return v.DefaultCastQuery(text, duckType)
}

// sourceDefaultsCheck refuses a source whose own readers fail on its
// defaults (the rule of defaultsCheck, in the source's format): the
// proof calls it unreadable, and its conversion is never equivalent. It
// returns what failed, by code, and how it judged, for defaultsCheck.
func (r *run) sourceDefaultsCheck(source *formats.Version) (map[string][]string, *defaultsJudged, error) {
	failed, judged, err := r.defaultFailures(source, nil)
	if err != nil {
		return nil, nil, err
	}
	r.addDefaultFindings("source "+source.Name, source, failed, "no "+source.Name+" reader can load the source catalog; repair it")
	return failed, judged, nil
}

// addDefaultFindings adds a refusal per code of failed.
func (r *run) addDefaultFindings(step string, v *formats.Version, failed map[string][]string, consequence string) {
	if items := failed["uncastable-default"]; len(items) > 0 {
		fields := "the initial_default of every column and field without fields of its own"
		if v.CastsDefaultValue() {
			fields += ", and its default_value too (formats 0.1-0.3: 0.4+ readers keep a literal default as text),"
		}
		r.add(Finding{Severity: Refuse, Code: "uncastable-default", Step: step, Table: "ducklake_column", Detail: summarize(items),
			Reason: "format " + v.Name + " readers cast " + fields + " to its type with DefaultCastAs when they load the schema (TransformColumnType): " +
				"these texts do not cast, so " + consequence})
	}
	if items := failed["unparsable-default-expression"]; len(items) > 0 {
		r.add(Finding{Severity: Refuse, Code: "unparsable-default-expression", Step: step, Table: "ducklake_column", Detail: summarize(items),
			Reason: "format " + v.Name + " readers parse an expression default_value with Parser::ParseExpressionList when they load the schema (TransformColumnType): " +
				"these are not one plain expression, so " + consequence})
	}
}

// defaultFailures judges the working copy's defaults as format to's
// readers load them: the items that fail, by code (uncastable-default,
// unparsable-default-expression), and how they were judged.
func (r *run) defaultFailures(to *formats.Version, exprRows map[[3]int64]bool) (map[string][]string, *defaultsJudged, error) {
	q, err := r.defaultsQuery(to)
	if err != nil {
		return nil, nil, err
	}
	judgedBy := &defaultsJudged{clean: !r.w.columnsWritten, query: q, castsDefaultValue: to.CastsDefaultValue(), judges: map[[2]string]string{}}
	var asks []judged
	err = r.w.eachRow(r.ctx, q, func(rows *sql.Rows) error {
		var table, column, begin sql.NullInt64
		var end sql.NullInt64
		var tableName, name, typ, initial, def, defKind sql.NullString
		if err := rows.Scan(&table, &tableName, &column, &name, &typ, &begin, &end, &initial, &def, &defKind); err != nil {
			return err
		}
		var at *defaultRow // the row, for the asks about it
		row := func() *defaultRow {
			if at == nil {
				at = &defaultRow{table: table.Int64, column: column.Int64, begin: begin.Int64, end: end, tableName: tableName.String, name: name.String, typ: typ.String}
			}
			return at
		}
		dt, ok := formats.ScalarDuckType(typ.String)
		if exprRows[[3]int64{table.Int64, column.Int64, begin.Int64}] {
			def.Valid = false // refused, or dropped, as an expression (expression-defaults)
		}
		if initial.Valid && ok {
			asks = append(asks, judged{row(), "initial_default", initial.String, dt, "uncastable-default"})
		}
		if !def.Valid {
			return nil
		}
		switch {
		case to.CastsDefaultValue() && ok:
			asks = append(asks, judged{row(), "default_value", def.String, dt, "uncastable-default"})
		case defKind.String == "expression":
			asks = append(asks, judged{row(), "default_value", def.String, "", "unparsable-default-expression"})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read the column defaults: %w", err)
	}
	if len(asks) == 0 {
		return nil, judgedBy, nil
	}
	// One statement answers every distinct text and type, each by
	// formats' judge: a wide catalog repeats a few defaults on hundreds
	// of columns, and a statement of one part per column took 50 ms to
	// plan.
	judgeOf := make([]int, len(asks))
	distinct := map[[2]string]int{}
	var parts []string
	for i, a := range asks {
		k := [2]string{a.text, a.duckType}
		j, seen := distinct[k]
		if !seen {
			judge := defaultJudge(to, a.text, a.duckType)
			judgedBy.judges[k] = judge
			j = len(parts)
			distinct[k] = j
			parts = append(parts, fmt.Sprintf("SELECT %d AS i, (%s) AS ok", j, judge))
		}
		judgeOf[i] = j
	}
	oks := make([]sql.NullBool, len(parts))
	err = r.w.eachRow(r.ctx, strings.Join(parts, " UNION ALL ")+" ORDER BY i", func(rows *sql.Rows) error {
		var i int
		var ok sql.NullBool
		if err := rows.Scan(&i, &ok); err != nil {
			return err
		}
		oks[i] = ok
		return nil
	})
	if err != nil {
		if r.ctx.Err() != nil {
			return nil, nil, fmt.Errorf("judge the column defaults: %w", err)
		}
		// A judge this DuckDB cannot run: each alone, its error told by
		// formats.DefaultCastError (a cast that throws where the type
		// casts at all fails the readers' cast too; one to a type this
		// DuckDB does not know is not judged; others are errors).
		for j, p := range parts {
			oks[j] = sql.NullBool{}
			a := asks[slices.Index(judgeOf, j)]
			err := faults.At(r.ctx, "convert/judge-default", a.what())
			if err == nil {
				err = r.w.conn.QueryRowContext(r.ctx, "SELECT ok FROM ("+p+")").Scan(&oks[j])
			}
			// An expression's judge answers a text that does not parse
			// (json_serialize_sql): its failure is the machine's, never a
			// verdict, as the proof's (compare's defaultParses).
			if err != nil && (r.ctx.Err() != nil || a.duckType == "") {
				return nil, nil, fmt.Errorf("judge the column defaults: %s: %w", a.what(), err)
			}
			if err != nil {
				ok, err := duckerr.DefaultCastFailure(r.ctx, r.w.conn, err, a.duckType)
				if err != nil {
					return nil, nil, fmt.Errorf("judge the column defaults: %s: %w", a.what(), err)
				}
				// Not judged (a type this DuckDB does not know) stays
				// unknown, as the proof leaves it.
				if !ok {
					oks[j] = sql.NullBool{Valid: true}
				}
			}
		}
	}
	failed := map[string][]string{}
	for i, a := range asks {
		if ok := oks[judgeOf[i]]; ok.Valid && !ok.Bool {
			failed[a.code] = append(failed[a.code], a.what())
		}
	}
	return failed, judgedBy, nil
}

// defaultsQuery reads the working copy's rows some snapshot sees with a
// default format to's readers read (defaultFailures).
func (r *run) defaultsQuery(to *formats.Version) (string, error) {
	hasType, err := r.w.hasColumn(r.ctx, "ducklake_column", "default_value_type")
	if err != nil {
		return "", err
	}
	kind := `NULL`
	if hasType && to.Has(formats.CapExpressionDefaults) {
		kind = `c.default_value_type`
	}
	// Rows some snapshot sees, with a default the target reads; a
	// column with fields gets none (TransformColumnType).
	return `SELECT c.table_id, coalesce(t.table_name, '?'), c.column_id, c.column_name, c.column_type, c.begin_snapshot, c.end_snapshot,
			c.initial_default, c.default_value, ` + kind + `
		FROM ducklake_column c
		LEFT JOIN (SELECT table_id, any_value(table_name ORDER BY begin_snapshot DESC) AS table_name FROM ducklake_table GROUP BY table_id) t USING (table_id)
		WHERE (c.end_snapshot IS NULL OR c.end_snapshot > c.begin_snapshot)
			AND (c.initial_default IS NOT NULL OR c.default_value IS NOT NULL)
			AND lower(c.column_type) NOT IN ('struct', 'list', 'map')
		ORDER BY c.table_id, c.column_id, c.begin_snapshot`, nil
}

// defaultRow is a ducklake_column row whose defaults defaultFailures
// judges.
type defaultRow struct {
	table, column, begin int64
	end                  sql.NullInt64
	tableName, name, typ string
}

// judged is one default text defaultFailures asks about: field
// (initial_default or default_value) of row, cast to duckType, or parsed
// as an expression where duckType is "".
type judged struct {
	row            *defaultRow
	field          string
	text, duckType string
	code           string
}

// what names the row, the field and the text, and why it fails. It is
// written only for the texts that fail (and in errors): a wide catalog
// asks about hundreds of defaults, all of which load.
func (a judged) what() string {
	row := a.row
	span := strconv.FormatInt(row.begin, 10) + " on"
	if row.end.Valid {
		span = fmt.Sprintf("%d to %d", row.begin, row.end.Int64-1)
	}
	what := fmt.Sprintf("table %d %s column %s (id %d, snapshots %s): %s %s", row.table, row.tableName, row.name, row.column, span, a.field, strconv.Quote(a.text))
	if a.duckType == "" {
		return what + " (expression) is not one expression"
	}
	return what + " does not cast to " + row.typ
}

// expressionDefaults lists the source's rows (table_id, column_id,
// begin_snapshot) whose default_value is an expression, where the target
// has none (0.4+ down to 0.3): nil otherwise.
func (r *run) expressionDefaults(source, target *formats.Version) (map[[3]int64]bool, error) {
	if !source.Has(formats.CapExpressionDefaults) || target.Has(formats.CapExpressionDefaults) {
		return nil, nil
	}
	has, err := r.w.hasColumn(r.ctx, "ducklake_column", "default_value_type")
	if err != nil || !has {
		return nil, err
	}
	out := map[[3]int64]bool{}
	err = r.w.eachRow(r.ctx, `SELECT table_id, column_id, begin_snapshot FROM ducklake_column WHERE default_value_type = 'expression'`, func(rows *sql.Rows) error {
		var k [3]sql.NullInt64
		if err := rows.Scan(&k[0], &k[1], &k[2]); err != nil {
			return err
		}
		out[[3]int64{k[0].Int64, k[1].Int64, k[2].Int64}] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the source's expression defaults: %w", err)
	}
	return out, nil
}

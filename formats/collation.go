package formats

import (
	"slices"
	"strings"
	"unicode"
)

// Collations reads the column collations of a table from the CREATE TABLE
// statement DuckDB gives for it (duckdb_tables().sql), by column name:
// a column declared VARCHAR COLLATE NOCASE maps to "NOCASE". DuckDB's
// duckdb_columns() names such a column's type VARCHAR, without its
// collation, while every comparison with the column (and every ORDER BY,
// MIN or MAX of it) follows the collation: DuckLake's readers compare a
// VARCHAR column's statistics with a filter's constant as text
// ('Z' BETWEEN min_value AND max_value), so min_value and max_value
// collated NOCASE make them skip a file holding 'Z' whose bounds are 'B'
// and 'a'. No DuckLake writer gives a metadata column a collation;
// TypedWithCollations adds them to the types TypeDiffs holds to the
// registry's. Quoted identifiers and string literals are skipped; a
// statement that is not one DuckDB renders gives what could be read of it.
//
// Only a COLLATE of the column's own definition counts, outside
// parentheses: one inside its DEFAULT(...) or GENERATED ALWAYS AS(...)
// expression collates that expression's text, not the column, and one in
// a CHECK constraint (which DuckDB renders after the columns, as the
// table's) compares in the check alone; neither changes what the column
// holds or how a reader compares it. Before, each was taken for the
// column's collation (a table-level CHECK for a column named "CHECK"),
// and the catalog refused as unreadable.
func Collations(createSQL string) map[string]string {
	out := map[string]string{}
	for name, toks := range columnTokens(createSQL) {
		depth := 0
		for i := 1; i+1 < len(toks) && out[name] == ""; i++ {
			switch {
			case toks[i] == "(":
				depth++
			case toks[i] == ")":
				depth--
			case depth == 0 && strings.EqualFold(toks[i], "COLLATE"):
				out[name] = toks[i+1]
			}
		}
	}
	return out
}

// Generated lists the generated columns of a table from its CREATE TABLE
// statement as DuckDB gives it (GENERATED ALWAYS AS (expression), which
// DuckDB writes for "AS (expression)" too). DuckDB computes such a column
// when it is read, in the reading session: an expression of
// current_setting('TimeZone'), version() or the like gives the proof (in
// UTC, on the DuckDB it links) a catalog's values and a reader in another
// time zone or release other ones (another table name, path, statistic).
// duckdb_columns() shows such a column's type alone; no DuckLake writer
// makes one.
func Generated(createSQL string) []string {
	var out []string
	for name, toks := range columnTokens(createSQL) {
		depth := 0
		for i := 1; i < len(toks); i++ {
			if toks[i] == "(" {
				depth++
			} else if toks[i] == ")" {
				depth--
			} else if depth == 0 && strings.EqualFold(toks[i], "GENERATED") {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// columnTokens gives each column definition of a CREATE TABLE statement
// as words (sqlTokens), by column name (unquoted). A table constraint
// (CHECK, PRIMARY KEY, UNIQUE, FOREIGN KEY, CONSTRAINT name ..., each an
// unquoted reserved word: a column of that name is rendered quoted) is no
// column.
func columnTokens(createSQL string) map[string][]string {
	out := map[string][]string{}
	for _, d := range columnDefs(createSQL) {
		toks := sqlTokens(d)
		if len(toks) == 0 || slices.ContainsFunc([]string{"CHECK", "PRIMARY", "UNIQUE", "FOREIGN", "CONSTRAINT"}, func(w string) bool { return strings.EqualFold(toks[0], w) }) {
			continue
		}
		out[unquoteIdent(toks[0])] = toks
	}
	return out
}

// TypedWithCollations returns types (duckdb_columns()'s data_type by
// table and column name) with each collated column's type given as
// "<type> COLLATE <collation>", and each generated column's as "<type>
// GENERATED", read from its table's CREATE TABLE statement (tableSQL, by
// table name): what its reads and comparisons follow. A column types does
// not name is added with the clause alone ("GENERATED").
func TypedWithCollations(types map[[2]string]string, tableSQL map[string]string) map[[2]string]string {
	out := make(map[[2]string]string, len(types))
	for k, v := range types {
		out[k] = v
	}
	for table, stmt := range tableSQL {
		for col, coll := range Collations(stmt) {
			k := [2]string{table, col}
			out[k] = strings.TrimSpace(out[k] + " COLLATE " + coll)
		}
		for _, col := range Generated(stmt) {
			k := [2]string{table, col}
			out[k] = strings.TrimSpace(out[k] + " GENERATED")
		}
	}
	return out
}

// columnDefs splits the parenthesised list of a CREATE TABLE statement
// at its top-level commas (outside quotes and nested parentheses).
func columnDefs(stmt string) []string {
	var defs []string
	depth, start := 0, -1
	for i := 0; i < len(stmt); i++ {
		switch c := stmt[i]; c {
		case '\'', '"':
			i = skipQuoted(stmt, i)
		case '(':
			depth++
			if depth == 1 {
				start = i + 1
			}
		case ')':
			if depth == 1 && start >= 0 {
				defs = append(defs, stmt[start:i])
				return defs
			}
			depth--
		case ',':
			if depth == 1 && start >= 0 {
				defs = append(defs, stmt[start:i])
				start = i + 1
			}
		}
	}
	if start >= 0 && start <= len(stmt) {
		defs = append(defs, stmt[start:])
	}
	return defs
}

// skipQuoted returns the index of the quote closing the quoted text that
// starts at i (a doubled quote inside it is one character of the text),
// or the last index when it is not closed.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(s) - 1
}

// sqlTokens splits a column definition into words: quoted texts whole,
// parentheses and commas on their own, the rest at white space.
func sqlTokens(def string) []string {
	var toks []string
	for i := 0; i < len(def); {
		c := def[i]
		switch {
		case unicode.IsSpace(rune(c)):
			i++
		case c == '\'' || c == '"':
			j := skipQuoted(def, i)
			toks = append(toks, def[i:j+1])
			i = j + 1
		case c == '(' || c == ')' || c == ',':
			toks = append(toks, def[i:i+1])
			i++
		default:
			j := i
			for j < len(def) && !unicode.IsSpace(rune(def[j])) && !strings.ContainsRune("()',\"", rune(def[j])) {
				j++
			}
			toks = append(toks, def[i:j])
			i = j
		}
	}
	return toks
}

// unquoteIdent gives an identifier as named: a double-quoted one without
// its quotes, a doubled quote inside it as one.
func unquoteIdent(tok string) string {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
		return strings.ReplaceAll(tok[1:len(tok)-1], `""`, `"`)
	}
	return tok
}

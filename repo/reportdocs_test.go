package repo

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// reportDocs is the documentation of the JSON reports' layouts.
const reportDocs = "../docs/repository.md"

// TestReportLayoutDocumented: the field tables of docs/repository.md and
// the reports agree. Their format_version promises readers the documented
// fields (docs/repository.md, "When format_version changes"), so a field
// the code drops or renames while the table still lists it, a top-level
// field the table leaves out, a name in a row that is no field or value of
// that part of the report, or a finding kind or cell problem the table
// lists wrongly, each fails here.
func TestReportLayoutDocumented(t *testing.T) {
	doc, err := os.ReadFile(reportDocs)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{string(KindDifference), string(KindInvalid), string(KindUnverifiable), string(KindMissing), string(KindWarning)}
	problems := []string{string(ProblemInvalid), string(ProblemMismatch), string(ProblemUnreadable), string(ProblemNotEquivalent), string(ProblemViolation), string(ProblemWarning)}
	outcomes := []string{string(Written), string(AlreadyThere), string(Planned), string(Failed), string(Interrupted)}
	// Named in a row without being one of its fields or values: JSON's
	// literals, and fdl.json's until (readers[].unreadable[].expected).
	words := []string{"null", "true", "false", "until"}
	for _, tc := range []struct {
		title  string // the sentence the table follows
		report any
		values []string // the values of the report's lists of names that rows may name
	}{
		{"The `check --json` report", CheckReport{}, slices.Concat(kinds, words)},
		{"The `backfill --json` report", BackfillReport{}, slices.Concat(problems, outcomes, words)},
	} {
		t.Run(tc.title, func(t *testing.T) {
			rows := docTable(t, string(doc), tc.title)
			fields := map[string]reflect.Type{}
			rt := reflect.TypeOf(tc.report)
			for i := range rt.NumField() {
				if name := jsonName(rt.Field(i)); name != "" {
					fields[name] = rt.Field(i).Type
				}
			}
			documented := map[string]bool{}
			for _, r := range rows {
				for _, name := range r.names {
					documented[name] = true
					typ, ok := fields[name]
					if !ok {
						t.Errorf("%s documents field %q, which %T has not", reportDocs, name, tc.report)
						continue
					}
					// Every other name in the row is a field at any depth
					// of this one, or a value the row lists.
					inner := jsonNames(typ, map[reflect.Type]bool{})
					for _, word := range r.words {
						if !inner[word] && !slices.Contains(tc.values, word) && !slices.Contains(r.names, word) {
							t.Errorf("%s, row %q: %q is no field of %s (%v) nor a listed value", reportDocs, name, word, name, typ)
						}
					}
				}
			}
			for name := range fields {
				if !documented[name] {
					t.Errorf("%T field %q is not in the table after %q in %s", tc.report, name, tc.title, reportDocs)
				}
			}
			// The lists of values the rows give are the code's, whole.
			for _, r := range rows {
				switch {
				case slices.Contains(r.names, "findings") && tc.title == "The `check --json` report":
					i := strings.Index(r.text, "Kinds:")
					if i < 0 {
						t.Fatalf("row findings of %s names no kinds (\"Kinds: …\")", reportDocs)
					}
					got := backticked(r.text[i:])
					if !slices.Equal(sorted(got), sorted(kinds)) {
						t.Errorf("documented finding kinds %q, want %q", got, kinds)
					}
				case slices.Contains(r.names, "results"):
					i := strings.Index(r.text, "(its class:")
					if i < 0 {
						t.Fatalf("row results of %s names no problem classes (\"(its class: …)\")", reportDocs)
					}
					got := backticked(r.text[i : strings.Index(r.text[i:], ")")+i])
					if want := slices.DeleteFunc(slices.Clone(problems), func(p string) bool { return p == string(ProblemWarning) }); !slices.Equal(sorted(got), sorted(want)) {
						t.Errorf("documented problem classes of a failed cell %q, want %q (a warning fails no cell)", got, want)
					}
				}
			}
		})
	}
}

// docRow is one row of a field table: the fields of its first column, and
// the names (`word`) its second column gives.
type docRow struct {
	names, words []string
	text         string
}

// docTable reads the table that follows the paragraph starting with title.
func docTable(t *testing.T, doc, title string) []docRow {
	t.Helper()
	i := strings.Index(doc, "\n"+title)
	if i < 0 {
		t.Fatalf("%s has no paragraph %q", reportDocs, title)
	}
	var rows []docRow
	inTable := false
	for line := range strings.Lines(doc[i+1:]) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "|"):
			inTable = true
			cols := strings.SplitN(strings.Trim(line, "|"), "|", 2)
			if len(cols) < 2 || strings.Contains(cols[0], "---") || strings.TrimSpace(cols[0]) == "Field" {
				continue
			}
			rows = append(rows, docRow{names: backticked(cols[0]), words: backticked(cols[1]), text: cols[1]})
		case inTable:
			if len(rows) == 0 {
				t.Fatalf("%s: the table after %q has no rows", reportDocs, title)
			}
			return rows
		}
	}
	t.Fatalf("%s: no table after %q", reportDocs, title)
	return nil
}

// fieldWord is a backquoted name that may be a field or a value: lower
// case, digits, '_' and '-' (not a flag, a path or a JSON example).
var fieldWord = regexp.MustCompile("`([a-z][a-z0-9_-]*)`")

func backticked(s string) []string {
	var out []string
	for _, m := range fieldWord.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// jsonName is the name a struct field has in JSON, "" when it has none.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}

// jsonNames are the JSON names of the fields of t at any depth.
func jsonNames(t reflect.Type, seen map[reflect.Type]bool) map[string]bool {
	names := map[string]bool{}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return names
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		if !f.Anonymous {
			names[name] = true
		}
		for n := range jsonNames(f.Type, seen) {
			names[n] = true
		}
	}
	return names
}

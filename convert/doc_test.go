package convert

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

var update = flag.Bool("update", false, "rewrite docs/formats.md from the registry and the steps")

// TestFormatsDoc keeps docs/formats.md equal to what the registry and the
// declared steps say, so the documentation cannot drift from the data.
func TestFormatsDoc(t *testing.T) {
	const path = "../docs/formats.md"
	want := renderFormatsDoc()
	// The sections after handWritten are prose, kept as they are.
	if cur, err := os.ReadFile(path); err == nil {
		if i := strings.Index(string(cur), handWritten); i >= 0 {
			want += string(cur[i:])
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run `go test ./convert -run TestFormatsDoc -update` and review the diff", path)
	}
}

// handWritten starts the prose sections at the end of docs/formats.md,
// which -update keeps.
const handWritten = "<!-- Written by hand from here on: kept by -update. -->"

func renderFormatsDoc() string {
	var b strings.Builder
	b.WriteString("# DuckLake formats and conversion steps\n\n")
	b.WriteString("Generated from `formats/` and `convert/steps.go` by `go test ./convert -run TestFormatsDoc -update`; do not edit, except the sections written by hand at the end.\n\n")
	b.WriteString("## Formats\n\n| Format | Version row | DuckDB (read-only) | Default storage | Tables | Capabilities |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, v := range formats.All {
		name := v.Name
		if v.Dev {
			name += fmt.Sprintf(" (development layout, converges to %s)", v.Release)
		}
		duck := v.DuckDB
		if v.Dev {
			duck = "development builds only"
		}
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | `%s` | %d | %s |\n", name, v.Stamp, duck, v.Storage, len(v.Tables), strings.ReplaceAll(v.Caps.String(), "|", ", "))
	}
	b.WriteString("\n## Types, partition transforms and change tokens added by each release\n\n")
	b.WriteString("A change token (a kind of `ducklake_snapshot_changes.changes_made` entry) a release adds is shown with what the release before calls it (`formats.Version.NewChangeKinds`, the one declaration): " +
		"a conversion down writes that name, step by step, and the proof reads a kind the other side's format lacks as so written; — means the release before has none (the entry is dropped); " +
		"*alias* means the release's own readers read the token as that older one. Every release parses every token of the one before, so a conversion up renames none.\n\n")
	var prev *formats.Version
	for _, v := range formats.All.Releases() {
		fmt.Fprintf(&b, "- **%s**:", v.Name)
		if prev == nil {
			fmt.Fprintf(&b, " types %s; transforms %s; change tokens %s\n", strings.Join(v.Types, ", "), strings.Join(v.Transforms, ", "), strings.Join(v.ChangeTokens, ", "))
		} else {
			var kinds []string
			for _, k := range v.NewChangeKinds {
				before := k.Before
				switch {
				case before == "":
					before = "—"
				case k.Alias:
					before += ", alias"
				}
				kinds = append(kinds, fmt.Sprintf("%s (%s: %s)", k.Name, prev.Name, before))
			}
			fmt.Fprintf(&b, " types +[%s]; transforms +[%s]; change tokens +[%s]\n", strings.Join(added(prev.Types, v.Types), ", "), strings.Join(added(prev.Transforms, v.Transforms), ", "), strings.Join(kinds, ", "))
		}
		prev = v
	}
	b.WriteString("\n## Table layouts\n\n")
	for _, v := range formats.All {
		fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n```sql\n", v.Name)
		for _, t := range v.Tables {
			b.WriteString(t.DDL() + ";\n")
		}
		b.WriteString("```\n\n</details>\n\n")
	}
	b.WriteString("## Fields DuckLake requires\n\n" +
		"DuckLake's writers always write a value in these columns (`formats.Column.NullRead`; none is NOT NULL in DuckDB's own tables but those of a PRIMARY KEY). " +
		"A catalog holding NULL in one (where a condition is given, in a row it holds for: `formats.Column.NullWhen`) is not a DuckLake catalog: `convert` refuses it before writing anything (invalid input, exit 6), `compare` cannot open it (exit 6), " +
		"and `check` finds a version whose frozen catalog holds one invalid (exit 6; `backfill` writes none of its catalogs). Each error names the file, the table, the column and the row (its ids and rowid). " +
		"The per-table tables are held to their system columns (`formats.Version.DynamicTable`; an inlined data table where `ducklake_inlined_data_tables` registers it). " +
		"What DuckLake's readers do with such a NULL, read from the extension's source:\n\n| Table | Column | Formats | Where | A NULL there |\n| --- | --- | --- | --- | --- |\n")
	type field struct{ table, column, when, read string }
	var fields []field
	in := map[field][]string{}
	for _, v := range formats.All.Releases() {
		tables := slices.Clone(v.Tables)
		for _, name := range []string{"ducklake_inlined_data_<table>_<schema version>", "ducklake_inlined_delete_<table>"} {
			if t, ok := v.DynamicTable(name); ok {
				tables = append(tables, t)
			}
		}
		for _, t := range tables {
			for _, c := range t.Columns {
				if c.NullRead == "" {
					continue
				}
				f := field{t.Name, c.Name, formats.DescribeNullWhen(c.NullWhen), c.NullRead}
				if in[f] == nil {
					fields = append(fields, f)
				}
				in[f] = append(in[f], v.Name)
			}
		}
	}
	for _, f := range fields {
		fs := in[f]
		which := fs[0] + "-" + fs[len(fs)-1]
		if len(fs) == 1 {
			which = fs[0]
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.table, f.column, which, f.when, f.read)
	}
	b.WriteString("\nThe same holds of a value that DuckLake's readers read as that NULL (`formats.Column.ReadAsNull`, in a row the condition holds for); the error names the file, the table, the column and the row, and says what the value is:\n\n| Table | Column | Formats | Where | The value |\n| --- | --- | --- | --- | --- |\n")
	type asNull struct{ table, column, when, is string }
	var asNulls []asNull
	asNullIn := map[asNull][]string{}
	for _, v := range formats.All.Releases() {
		for _, t := range v.Tables {
			for _, c := range t.Columns {
				if c.ReadAsNull == "" {
					continue
				}
				f := asNull{t.Name, c.Name, formats.DescribeNullWhen(c.ReadAsNull), c.ReadAsNullIs}
				if asNullIn[f] == nil {
					asNulls = append(asNulls, f)
				}
				asNullIn[f] = append(asNullIn[f], v.Name)
			}
		}
	}
	for _, f := range asNulls {
		fs := asNullIn[f]
		which := fs[0] + "-" + fs[len(fs)-1]
		if len(fs) == 1 {
			which = fs[0]
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", f.table, f.column, which, f.when, f.is)
	}
	b.WriteString("\n## Steps\n\nEach step runs its checks on its input, renames tables, adds the target's new tables and columns (filled as DuckLake's migration fills them), runs its data migration, renames or drops the change tokens the target's readers do not parse (derived from the registry: see above), and drops what the target lacks.\n\n")
	for _, s := range steps {
		fmt.Fprintf(&b, "### %s → %s\n\n", s.from, s.to)
		if s.note != "" {
			b.WriteString(s.note + ".\n\n")
		}
		for _, c := range s.checks {
			kind := "refuses"
			if c.option != "" {
				kind = "drops only with `--allow-lossy " + c.option + "`"
			}
			fmt.Fprintf(&b, "- `%s` (%s) %s: %s.", c.code, c.table, kind, c.reason)
			if c.rewrite != nil {
				fmt.Fprintf(&b, " With `--rewrite-deletes --data DIR`: %s.", c.rewritten)
			}
			b.WriteString("\n")
		}
		tokens := stepChangeKindRenames(s)
		if len(tokens) > 0 {
			var keys []string
			for k := range tokens {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var maps []string
			for _, k := range keys {
				to := tokens[k]
				if to == "" {
					to = "(removed)"
				}
				maps = append(maps, fmt.Sprintf("`%s`→`%s`", k, to))
			}
			fmt.Fprintf(&b, "- change tokens: %s.\n", strings.Join(maps, ", "))
		}
		if len(s.checks) == 0 && len(tokens) == 0 && s.note == "" {
			b.WriteString("Version row only.\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// stepChangeKindRenames are the change kinds step s renames or drops, as
// the engine derives them from the registry.
func stepChangeKindRenames(s step) map[string]string {
	from, err1 := formats.Lookup(s.from)
	to, err2 := formats.Lookup(s.to)
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("step %s -> %s names an unknown format", s.from, s.to))
	}
	return formats.ChangeKindRenames(from, to)
}

func added(before, after []string) []string {
	var out []string
	for _, x := range after {
		if !slices.Contains(before, x) {
			out = append(out, x)
		}
	}
	return out
}

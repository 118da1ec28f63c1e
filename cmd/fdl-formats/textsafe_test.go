package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/internal/testduck"
	"github.com/fdl-formats/fdl-formats/lakegen"
)

// Forged lines: each name below holds a line break, then what GitHub
// Actions reads as a workflow command at the start of a line, then a
// carriage return and a terminal sequence (clear the screen).
const (
	forgedTable  = "orders\n::error::forged-table\r\x1b[2J"
	forgedColumn = "amount\r\n::error::forged-column\x1b[2J\x7f\u009b"
	forgedView   = "v\n::error::forged-view\x1b[2J\r"
	forgedPart   = "p\n::error::forged-path\r\x1b[2J" // a partition value: a data file's folder
)

// TestHostileNamesPrintNoLine: names of a repository reach report lines,
// errors and logs. A table, column, view and data file path holding a
// line break and a workflow command, a carriage return and ESC [2J are
// run through plan, backfill, check, convert, compare and resolve (with
// a published catalog edited so that check and compare name the column,
// and a view that format 0.4 cannot hold, so that refusals name it): no
// line of stdout or stderr starts with the injected text, no control
// character but "\n" and "\t" is printed, --json reports still decode,
// and the exit codes are what the repository calls for.
func TestHostileNamesPrintNoLine(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "hostile")
	spec := lakegen.Spec{Name: "hostile", Versions: []lakegen.Version{
		{Message: "hostile names", Snapshots: []lakegen.Snapshot{
			{lakegen.CreateTable{Table: forgedTable, Columns: []lakegen.Column{{Name: "id", Type: "BIGINT"}, {Name: forgedColumn, Type: "VARCHAR"}}}},
			{lakegen.CreateTable{Table: "parts", Columns: []lakegen.Column{{Name: "k", Type: "VARCHAR"}, {Name: "v", Type: "BIGINT"}}}},
			{lakegen.PartitionBy{Table: "parts", Columns: []string{"k"}}},
			{lakegen.Insert{Table: forgedTable, Select: "SELECT range, 'x' FROM range(4)"}},
			{lakegen.Insert{Table: "parts", Select: "SELECT * FROM (VALUES ('" + forgedPart + "', 1), ('b', 2)) v(k, v)"}},
			// Format 0.4 readers fail on the placeholder: refused, naming the view.
			{lakegen.CreateView{View: forgedView, SQL: "SELECT * FROM {DUCKLAKE_CATALOG}.main.parts"}},
		}},
		{Message: "more", Snapshots: []lakegen.Snapshot{
			{lakegen.Delete{Table: forgedTable, Where: "id = 1"}},
		}},
	}}
	res, err := lakegen.Repository(t.Context(), root, spec)
	if err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(root, "versions", res.Versions[0].ID)
	second := filepath.Join(root, "versions", res.Versions[1].ID)
	cache := t.TempDir()
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		app := newApp()
		app.Writer, app.ErrWriter = &out, &errOut
		cmdline := strings.Join(args[:len(args)-1], " ") // without the last argument, a path
		code := runMain(app, append([]string{"fdl-formats", "--log-level", "debug"}, args...), &errOut, time.Minute)
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", cmdline, code, want, out.String(), errOut.String())
		}
		for _, o := range []struct{ name, text string }{{"stdout", out.String()}, {"stderr", errOut.String()}} {
			for i, line := range strings.Split(o.text, "\n") {
				// GitHub Actions reads a workflow command after leading spaces too.
				if strings.HasPrefix(strings.TrimLeft(line, " \t"), "::") {
					t.Errorf("%s: %s line %d starts with a name's text: %q", cmdline, o.name, i+1, line)
				}
			}
			for i := 0; i < len(o.text); {
				r, n := utf8.DecodeRuneInString(o.text[i:])
				if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || (r == utf8.RuneError && n == 1) {
					t.Errorf("%s: %s holds %q at byte %d: %q", cmdline, o.name, r, i, o.text[max(0, i-60):min(len(o.text), i+20)])
					break
				}
				i += n
			}
		}
		return out.String(), errOut.String()
	}
	seen := func(cmd, text string, escaped ...string) {
		t.Helper()
		for _, e := range escaped {
			if !strings.Contains(text, e) {
				t.Errorf("%s: the output does not name %s", cmd, e)
			}
		}
	}
	view := `\n::error::forged-view\x1b[2J\r`
	out, _ := run(exitOK, "plan", "--cache", cache, root)
	seen("plan", out, view, `\n::error::forged-path\r\x1b[2J`)
	out, _ = run(exitOK, "backfill", "--cache", cache, root)
	seen("backfill", out, view)
	// The published 1.1 catalog of the first version renames the column:
	// check and compare name both.
	published := filepath.Join(first, "catalogs", "1.1.duckdb")
	db := testduck.Open(t, published)
	if _, err := db.Exec("UPDATE ducklake_column SET column_name = ? WHERE column_name = ?", forgedColumn+"-renamed", forgedColumn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// The finding's line holds the renamed column's entry whole: the
	// table's name escaped, then the column's id and what differs.
	entry := `column main.orders\n::error::forged-table\r\x1b[2J (id 2) differs: name (A: name="amount\r\n::error::forged-column\x1b[2J\x7f\u009b" type=VARCHAR`
	out, errOut := run(exitDifferent, "check", "--no-cache", root)
	seen("check", out+errOut, view)
	lineWith(t, "check", out, "difference ", entry)
	run(exitDifferent, "--log-format", "json", "check", "--no-cache", root)
	out, _ = run(exitDifferent, "check", "--no-cache", "--json", root)
	// Its findings' details are the text's: the names escaped.
	var checked struct{ Findings []struct{ Detail string } }
	if err := json.Unmarshal([]byte(out), &checked); err != nil {
		t.Errorf("check --json: %v", err)
	} else if !slices.ContainsFunc(checked.Findings, func(f struct{ Detail string }) bool { return strings.Contains(f.Detail, entry) }) {
		t.Errorf("check --json: no finding's detail holds %s\n%s", entry, out)
	}
	_, errOut = run(exitRefused, "convert", filepath.Join(first, "ducklake.duckdb"), "--to", "0.4", "-o", filepath.Join(t.TempDir(), "out.duckdb"))
	seen("convert", errOut, view)
	out, errOut = run(exitDifferent, "compare", filepath.Join(first, "ducklake.duckdb"), published, "--data", filepath.Join(root, "data"))
	seen("compare", out+errOut, `\n::error::forged-table\r\x1b[2J`, `\r\n::error::forged-column\x1b[2J\x7f\u009b`)
	lineWith(t, "compare", out, "DIFF ", entry)
	lineWith(t, "compare", errOut, "Error: ", entry)
	run(exitDifferent, "compare", filepath.Join(first, "ducklake.duckdb"), filepath.Join(second, "ducklake.duckdb"), "--data", filepath.Join(root, "data"))
	run(exitOK, "resolve", root)
	if _, err := os.Stat(published); err != nil {
		t.Fatal(err)
	}
	// A data file of the hostile table replaced by another table's: the
	// backfill's proof fails on the frozen catalog itself, and the failed
	// cell's line names the table whole, then the file and what differs.
	if err := os.Remove(published); err != nil {
		t.Fatal(err)
	}
	orders, _ := filepath.Glob(filepath.Join(root, "data", "main", "*", "*.parquet")) // its folder is its uuid
	parts, _ := filepath.Glob(filepath.Join(root, "data", "main", "parts", "*", "*.parquet"))
	if len(orders) == 0 || len(parts) == 0 {
		t.Fatalf("data files: %q, %q", orders, parts)
	}
	other, err := os.ReadFile(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orders[0], other, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = run(exitFailure, "backfill", "--cache", cache, "--versions", res.Versions[0].ID, root)
	lineWith(t, "backfill", out, "failed ", `first: files in "main.orders\n::error::forged-table\r\x1b[2J": catalog A: `)
	lineWith(t, "backfill", out, "failed ", `: table "main.orders\n::error::forged-table\r\x1b[2J": `) // the error the read stopped at
	run(exitNoCatalog, "resolve", "--duckdb", "1.4.3", root)
}

// TestControlEscaper: stdout's last guard escapes what a report line let
// through and keeps a --json report's strings decoding to the same text.
func TestControlEscaper(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain é\n\tline\n", "plain é\n\tline\n"},
		{"a\rb\x1b[2J\x7f", `a\u000db\u001b[2J\u007f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"bad \xff byte", `bad \xff byte`},
	} {
		var b strings.Builder
		n, err := controlEscaper{w: &b}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) || b.String() != tc.want {
			t.Errorf("Write(%q) = %d, %v, wrote %q; want %q", tc.in, n, err, b.String(), tc.want)
		}
	}
	name := "v\x7f\u0085\u009b[2J"
	var raw strings.Builder
	if err := writeJSON(&raw, map[string]string{"name": name}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	controlEscaper{w: &b}.Write([]byte(raw.String()))
	var got map[string]string
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil || got["name"] != name {
		t.Errorf("--json through the guard: %q decodes to %q, %v; want %q", b.String(), got["name"], err, name)
	}
}

// TestRenderErrorKeepsOwnLines: a refusal's reasons stay one a line, and
// a name's line break in a reason is escaped.
func TestRenderErrorKeepsOwnLines(t *testing.T) {
	err := fmt.Errorf("backfill: %w", &convert.RefusedError{Source: "a\n::error::src.duckdb", From: "1.0", To: "0.4", Findings: []convert.Finding{
		{Severity: convert.Refuse, Code: "x", Table: "ducklake_view", Detail: "view main.v\n::error::forged"},
		{Severity: convert.Refuse, Code: "y", Table: "ducklake_table", Detail: "table \x1b[2J"},
	}})
	got := renderError(err)
	lines := strings.Split(got, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], "Try: ") || !strings.HasPrefix(lines[0], `Error: backfill: convert a\n::error::src.duckdb from 1.0 to 0.4: refused, 2 reason(s):`) ||
		!strings.Contains(lines[1], `view main.v\n::error::forged`) || !strings.Contains(lines[2], `table \x1b[2J`) {
		t.Errorf("renderError:\n%s", got)
	}
}

// lineWith fails t unless a line of out starting with prefix holds want.
func lineWith(t *testing.T, cmd, out, prefix, want string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, want) {
			return
		}
	}
	t.Errorf("%s: no line starting %q holds %s\n%s", cmd, prefix, want, out)
}

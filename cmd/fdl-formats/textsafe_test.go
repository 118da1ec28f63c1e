package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fdl-formats/fdl-formats/convert"
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
	db, err := sql.Open("duckdb", published)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE ducklake_column SET column_name = ? WHERE column_name = ?", forgedColumn+"-renamed", forgedColumn); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut := run(exitDifferent, "check", "--no-cache", root)
	seen("check", out+errOut, view)
	run(exitDifferent, "--log-format", "json", "check", "--no-cache", root)
	out, _ = run(exitDifferent, "check", "--no-cache", "--json", root)
	if err := json.Unmarshal([]byte(out), new(map[string]any)); err != nil {
		t.Errorf("check --json: %v", err)
	} else if !strings.Contains(out, `\u001b[2J`) {
		t.Errorf("check --json names no name as it is\n%s", out)
	}
	_, errOut = run(exitRefused, "convert", filepath.Join(first, "ducklake.duckdb"), "--to", "0.4", "-o", filepath.Join(t.TempDir(), "out.duckdb"))
	seen("convert", errOut, view)
	out, errOut = run(exitDifferent, "compare", filepath.Join(first, "ducklake.duckdb"), published, "--data", filepath.Join(root, "data"))
	seen("compare", out+errOut, `\n::error::forged-table\r\x1b[2J`, `\r\n::error::forged-column\x1b[2J\x7f\u009b`)
	run(exitDifferent, "compare", filepath.Join(first, "ducklake.duckdb"), filepath.Join(second, "ducklake.duckdb"), "--data", filepath.Join(root, "data"))
	run(exitOK, "resolve", root)
	run(exitNoCatalog, "resolve", "--duckdb", "1.4.3", root)
	if _, err := os.Stat(published); err != nil {
		t.Fatal(err)
	}
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

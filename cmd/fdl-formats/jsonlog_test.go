package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestFinalErrorJSONLog: with --log-format=json the run's final error is
// one JSON log record at level ERROR (msg "failed", with the error, the
// hint and the exit code), wherever the flag is given; it was two plain
// lines, "Error: …" and "Try: …", in the JSON log (trial 2 F2.7). Text
// logs keep the plain lines.
func TestFinalErrorJSONLog(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nosuch")
	for _, tc := range []struct {
		name string
		args []string
		code int
		hint string
	}{
		{"flag before the command", []string{"--log-format=json", "check", missing}, exitInvalid, "give the folder that holds fdl.json (or s3://BUCKET/PREFIX, https://HOST/PREFIX where it is); see docs/repository.md"},
		{"flag after the command", []string{"check", "--log-format", "json", missing}, exitInvalid, "give the folder that holds fdl.json (or s3://BUCKET/PREFIX, https://HOST/PREFIX where it is); see docs/repository.md"},
		{"usage error", []string{"--log-format=json", "check", "--jobs", "x", missing}, exitUsage, "fdl-formats check --help"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			app := newApp()
			app.Writer, app.ErrWriter = &out, &errOut
			code := runMain(app, append([]string{"fdl-formats"}, tc.args...), &errOut, interruptGrace)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errOut.String())
			}
			var last map[string]any
			for _, line := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
				last = nil
				if err := json.Unmarshal([]byte(line), &last); err != nil {
					t.Fatalf("stderr line is not JSON: %q", line)
				}
			}
			if last["level"] != "ERROR" || last["msg"] != "failed" || last["exit_code"] != float64(tc.code) || last["error"] == "" {
				t.Errorf("last record %v, want level ERROR, msg failed, exit_code %d, the error", last, tc.code)
			}
			if h, _ := last["hint"].(string); h != tc.hint {
				t.Errorf("hint %q, want %q", h, tc.hint)
			}
		})
	}
	var errOut strings.Builder
	app := newApp()
	app.ErrWriter = &errOut
	if code := runMain(app, []string{"fdl-formats", "check", missing}, &errOut, interruptGrace); code != exitInvalid || !strings.HasPrefix(errOut.String(), "Error: not an FDL repository") {
		t.Errorf("text logs: exit %d, stderr %q; want the plain Error: line", code, errOut.String())
	}
}

// TestBackfillCellLogLine: a backfill logs one INFO line per cell (not on
// a terminal, where the progress bar stands for it) naming the cell (its
// version, format and key), its result, the catalog's size and the time,
// and nothing of the run's private work folder. The converter's
// "converted" line, about 400 characters with two private temporary
// paths, was the line per cell at INFO; it is at DEBUG now.
func TestBackfillCellLogLine(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	dir := copyRepo(t, "lakes", "06_deletes")
	var out, errOut strings.Builder
	app := newApp()
	app.Writer, app.ErrWriter = &out, &errOut
	args := []string{"fdl-formats", "--log-format=json", "backfill", "--formats=1.1", "--jobs=1", remoteNow, dir}
	if code := runMain(app, args, &errOut, interruptGrace); code != exitOK {
		t.Fatalf("backfill: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	cells := 0
	for _, line := range strings.Split(strings.TrimSpace(errOut.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if strings.Contains(line, "fdl-backfill-") || m["msg"] == "converted" {
			t.Errorf("an INFO line names the run's work folder or is the converter's: %s", line)
		}
		if m["msg"] != "backfill cell finished" {
			continue
		}
		cells++
		key, _ := m["key"].(string)
		version, _ := m["version"].(string)
		bytes, _ := m["bytes"].(float64)
		secs, _ := m["duration_seconds"].(float64)
		if version == "" || m["to_version"] != "1.1" || key != "versions/"+version+"/catalogs/1.1.duckdb" || m["result"] != "written" ||
			bytes <= 0 || secs <= 0 || m["done"] != float64(cells) || m["total"] == nil || len(line) > 320 {
			t.Errorf("cell line %s (%d characters): want version, to_version 1.1, its key, result written, bytes, duration_seconds, done %d, total, in at most 320 characters", line, len(line), cells)
		}
	}
	if cells == 0 {
		t.Errorf("no cell line in\n%s", errOut.String())
	}
	// The run ends with its summary, the counts of the report's last line:
	// a cron job's log held the cells only, nothing for a night with
	// nothing to do, and never the outcome (the report goes to stdout).
	wantSummary(t, errOut.String(), "backfill finished", map[string]any{"written": float64(cells), "failed": 0.0, "refused": 0.0, "in_error": 0.0})
	for _, tc := range []struct {
		args []string
		msg  string
		want map[string]any
	}{
		{[]string{"backfill", "--formats=1.1", "--jobs=1", remoteNow, dir}, "backfill finished", map[string]any{"written": 0.0, "already_there": 0.0, "failed": 0.0, "present": float64(cells)}},
		{[]string{"check", "--formats=1.1", "--jobs=1", remoteNow, dir}, "check finished", map[string]any{"ok": true, "proofs": float64(cells), "difference": 0.0, "missing": 0.0}},
	} {
		out.Reset()
		errOut.Reset()
		app := newApp()
		app.Writer, app.ErrWriter = &out, &errOut
		if code := runMain(app, append([]string{"fdl-formats", "--log-format=json"}, tc.args...), &errOut, interruptGrace); code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", tc.args[0], code, out.String(), errOut.String())
		}
		wantSummary(t, errOut.String(), tc.msg, tc.want)
	}
}

// wantSummary requires the last record of a JSON log to be the run's
// summary msg, with its time and the wanted values.
func wantSummary(t *testing.T, log, msg string, want map[string]any) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last log line is not JSON: %q", lines[len(lines)-1])
	}
	if last["msg"] != msg || last["level"] != "INFO" || last["versions"] == nil || last["duration_seconds"] == nil {
		t.Fatalf("last log record %v, want %s at INFO with versions and duration_seconds", last, msg)
	}
	for k, v := range want {
		if last[k] != v {
			t.Errorf("%s: %s = %v, want %v", msg, k, last[k], v)
		}
	}
}

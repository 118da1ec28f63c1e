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
			code := runMain(app, append([]string{"fdl-formats"}, tc.args...), &errOut)
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
	if code := runMain(app, []string{"fdl-formats", "check", missing}, &errOut); code != exitInvalid || !strings.HasPrefix(errOut.String(), "Error: not an FDL repository") {
		t.Errorf("text logs: exit %d, stderr %q; want the plain Error: line", code, errOut.String())
	}
}

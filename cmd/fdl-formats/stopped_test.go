package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/repo"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/httpstore"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestStoppedRunExit: a run that a store failure about the whole store
// stopped mid-way (repo.StoppedError) exits as that failure does at setup
// (1; a bucket gone: 6, as a missing one), prints one Error: line naming
// the file and the store's Try: line, and is no interruption (130) though
// it cancelled the run's other work. repo's TestStoreFailsMidRun makes
// such errors on a real server.
func TestStoppedRunExit(t *testing.T) {
	sdk := errors.New("api error")
	for _, tc := range []struct {
		name string
		err  error
		code int
		try  string
	}{
		{"secret rotated", &s3.ConfigError{Problem: s3.BadSecret, Op: "stat", Key: "versions/v/ducklake.duckdb", Bucket: "b", Location: "s3://b/lake", Status: 403, Code: "SignatureDoesNotMatch", Err: sdk},
			exitFailure, "set AWS_SECRET_ACCESS_KEY"},
		{"token expired", &s3.ConfigError{Problem: s3.ExpiredCredentials, Op: "open", Key: "data/x.parquet", Bucket: "b", Location: "s3://b/lake", Status: 400, Code: "ExpiredToken", Err: sdk},
			exitFailure, "renew the session credentials"},
		{"bucket gone", &s3.ConfigError{Problem: s3.NoBucket, Op: "open", Key: "data/x.parquet", Bucket: "b", Location: "s3://b/lake", Status: 404, Code: "NoSuchBucket", Err: sdk},
			exitInvalid, "check the bucket's name"},
		{"site gone", &httpstore.SetupError{Problem: httpstore.Unreachable, Op: "stat", Key: "data/x.parquet", Location: "http://127.0.0.1:1/", Host: "127.0.0.1:1", Err: sdk},
			exitFailure, "check the host and port in the URL"},
		{"a listing's site gone", &httpstore.SetupError{Problem: httpstore.Unreachable, Op: "list", Key: "versions/v/", Location: "http://127.0.0.1:1/", Host: "127.0.0.1:1", Err: sdk},
			exitFailure, "check the host and port in the URL"},
		// A server that takes requests and never answers (repo's
		// TestServerStopsAnsweringMidRun): no interruption, though the
		// run's context was cancelled with it.
		{"server stopped answering", &store.ServerStoppedError{Server: "https://h", First: "HEAD https://h/data/a.parquet", Last: "HEAD https://h/data/b.parquet", After: 2 * time.Minute},
			exitFailure, "check the server at https://h (and any proxy, gateway or CDN in front of it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := &repo.StoppedError{Command: "check", Err: tc.err}
			lines := strings.Split(renderError(err), "\n")
			if code := exitCode(err); code != tc.code || len(lines) != 2 ||
				!strings.HasPrefix(lines[0], "Error: check stopped: ") || !strings.Contains(lines[0], tc.err.Error()) ||
				!strings.HasPrefix(lines[1], "Try: "+tc.try) {
				t.Errorf("exit %d (want %d), rendered:\n%s\nwant Error: check stopped: ... and Try: %s...", code, tc.code, strings.Join(lines, "\n"), tc.try)
			}
		})
	}
}

// TestStoppedCheckReport: a check that a whole-store failure stopped after
// it found a difference prints that difference, and a line saying the run
// stopped and what it did not check, in text and in --json (ok false,
// "stopped" with the reason and what was not checked); it still exits as
// the stop does (1), whatever it found before, and its Error: line counts
// what it found. repo's TestStoppedCheckKeepsFindings makes such a report
// on a real server.
func TestStoppedCheckReport(t *testing.T) {
	const key = "versions/v1/catalogs/1.1.duckdb"
	stop := &s3.ConfigError{Problem: s3.ExpiredCredentials, Op: "open", Key: "versions/v2/files.json", Bucket: "b", Location: "s3://b/lake", Status: 400, Code: "ExpiredToken", Err: errors.New("api error")}
	rep := repo.RunFailedCheckReport()
	rep.Plan = &repo.Matrix{FormatVersion: 1}
	rep.Proofs = []*repo.Proof{{Version: "v1", Format: "1.1", Key: key, Error: "not equivalent"}}
	rep.Findings = []repo.Finding{{Kind: repo.KindDifference, Version: "v1", Format: "1.1", Key: key, Detail: key + " is not equivalent"}}
	rep.Counts[repo.KindDifference] = 1
	rep.Stopped = &repo.StoppedCheck{Reason: stop.Error(), VersionsNotChecked: []string{"v2", "v3"}, CatalogsNotProved: []string{"versions/v2/catalogs/1.1.duckdb", "versions/v3/catalogs/1.1.duckdb"}}
	err := &repo.StoppedError{Command: "check", Err: stop, Found: rep.Counts}
	setRunError(rep, err)
	if code := exitCode(err); code != exitFailure || rep.ExitCode != exitFailure {
		t.Errorf("exit %d, report's exit_code %d; want the stop's, %d, whatever was found before it", code, rep.ExitCode, exitFailure)
	}
	if first := strings.Split(renderError(err), "\n")[0]; !strings.HasPrefix(first, "Error: check stopped: "+stop.Error()) || !strings.Contains(first, "before the stop it found 1 difference") {
		t.Errorf("Error: line %q, want the stop, then the difference found before it", first)
	}
	var text strings.Builder
	printCheck(&text, "s3://b/lake", rep)
	for _, want := range []string{
		"difference   v1 1.1: " + key + " is not equivalent",
		"proofs: 0 of 1 published catalogs equivalent to their source (2 more not proved: the run stopped)",
		"stopped      the run stopped part-way (a failure of the whole store: see the error): 2 version(s) not checked, 2 published catalog(s) not proved",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report:\n%s\nwant a line with %q", text.String(), want)
		}
	}
	if strings.Contains(text.String(), "check: ok") {
		t.Errorf("text report of a stopped check says ok:\n%s", text.String())
	}
	var js strings.Builder
	if err := writeJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		OK       bool   `json:"ok"`
		ExitCode int    `json:"exit_code"`
		Error    string `json:"error"`
		Hint     string `json:"hint"`
		Findings []struct {
			Kind, Key string
		} `json:"findings"`
		Stopped *struct {
			Reason             string   `json:"reason"`
			VersionsNotChecked []string `json:"versions_not_checked"`
			CatalogsNotProved  []string `json:"catalogs_not_proved"`
		} `json:"stopped"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	if back.OK || back.ExitCode != exitFailure || !strings.HasPrefix(back.Error, "check stopped: ") || !strings.HasPrefix(back.Hint, "renew the session credentials") || len(back.Findings) != 1 || back.Findings[0].Kind != "difference" || back.Findings[0].Key != key ||
		back.Stopped == nil || back.Stopped.Reason != stop.Error() || len(back.Stopped.VersionsNotChecked) != 2 || len(back.Stopped.CatalogsNotProved) != 2 {
		t.Errorf("JSON report:\n%s\nwant ok false, exit_code 1, the stop's error and hint, the difference of %s, and stopped with its reason and what was not checked", js.String(), key)
	}
}

// TestStoppedAfterEveryProofReport: a check stopped after every content
// pass and proof, at the reader matrix's reads (repo's
// TestStopAfterEveryProof), says that only the readers were left, in its
// stopped line and its Error: line, where it said "0 version(s) not
// checked, 0 published catalog(s) not proved"; it exits as the stop does
// (1), the readers not evaluated.
func TestStoppedAfterEveryProofReport(t *testing.T) {
	stop := &httpstore.SetupError{Problem: httpstore.Unreachable, Op: "open", Key: "versions/v1/catalogs/1.1.duckdb", Location: "http://127.0.0.1:1/", Host: "127.0.0.1:1", Err: errors.New("connection refused")}
	rep := repo.RunFailedCheckReport()
	rep.Plan = &repo.Matrix{FormatVersion: 1}
	rep.Proofs = []*repo.Proof{{Version: "v1", Format: "1.1", Key: "versions/v1/catalogs/1.1.duckdb", OK: true}}
	rep.Stopped = &repo.StoppedCheck{Reason: stop.Error(), VersionsNotChecked: []string{}, CatalogsNotProved: []string{}}
	err := &repo.StoppedError{Command: "check", Err: stop, Found: rep.Counts, OnlyReaders: true}
	setRunError(rep, err)
	if code := exitCode(err); code != exitFailure || rep.ExitCode != exitFailure {
		t.Errorf("exit %d, report's exit_code %d; want the stop's, %d", code, rep.ExitCode, exitFailure)
	}
	if first := strings.Split(renderError(err), "\n")[0]; !strings.HasSuffix(first, "; every version was checked and every published catalog's proof finished before it, nothing found wrong; only the readers were not evaluated") {
		t.Errorf("Error: line %q, want it to say that only the readers were left", first)
	}
	var text strings.Builder
	printCheck(&text, "http://127.0.0.1:1/", rep)
	want := "stopped      the run stopped after every version was checked and every published catalog's proof finished (a failure of the whole store: see the error): only the readers not evaluated"
	if !strings.Contains(text.String(), want) || strings.Contains(text.String(), "0 version(s) not checked") || strings.Contains(text.String(), "check: ok") {
		t.Errorf("text report:\n%s\nwant a line with %q, and no count of nothing", text.String(), want)
	}
}

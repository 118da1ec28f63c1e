package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/repo"
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

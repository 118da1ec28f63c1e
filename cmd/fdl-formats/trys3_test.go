package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/repo"
)

// TestS3TryLineRuns: the Try: line of a check of a bucket at an endpoint
// given by --endpoint (none in the environment) is a command line that,
// copied, runs against the same bucket: it said `fdl-formats backfill
// s3://BUCKET/lake`, which went to AWS, without the run's cache, --now
// and --formats.
func TestS3TryLineRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	srv, bucket := s3Lake(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	url := "s3://" + bucket + "/lake"
	run := []string{"--endpoint=" + srv.Endpoint, "--cache=" + t.TempDir(), remoteNow, "--formats=0.4"}

	_, errOut, code := runAppStderr(t, append(append([]string{"check"}, run...), url)...)
	m := regexp.MustCompile("\nTry: run `fdl-formats ([^`]*)` to write the missing catalogs").FindStringSubmatch(errOut)
	if code != exitMissing || m == nil {
		t.Fatalf("check before backfill: exit %d, want %d and a Try: line with a backfill command\n%s", code, exitMissing, errOut)
	}
	args := strings.Fields(m[1])
	for _, flag := range run {
		if !strings.Contains(" "+m[1]+" ", " "+flag+" ") {
			t.Fatalf("Try: command %q lacks the run's %s", m[1], flag)
		}
	}
	rep, errOut, code := backfillJSON(t, args[1:]...)
	if code != exitOK || rep.Counts[repo.Written] == 0 {
		t.Fatalf("the Try: line's backfill: exit %d, counts %v\n%s", code, rep.Counts, errOut)
	}
	for _, r := range rep.Results {
		if r.Format != "0.4" {
			t.Errorf("the Try: line's backfill wrote %s, not of the run's --formats=0.4", r.Key)
		}
	}
	if out, errOut, code := runApp(t, append(append([]string{"check"}, run...), url)...); code != exitOK {
		t.Errorf("check after the Try: line's backfill: exit %d\n%s\n%s", code, out, errOut)
	}
}

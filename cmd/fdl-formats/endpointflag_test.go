package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestS3EndpointFlagUsage: an --endpoint that is no http:// or https://
// URL of a host and port (the scheme left out, 127.0.0.1:9000; a colon
// left out, http//x) is a usage error (exit 2) naming the flag and the
// form it wants, found before any request; where only the scheme is
// missing the Try: line is the same run with it, which runs against the
// bucket. It said "not an FDL repository" (exit 6) with the Try: line of
// a REPO that holds no fdl.json. The same endpoint from the environment
// is named by its variable.
func TestS3EndpointFlagUsage(t *testing.T) {
	srv, bucket := s3Lake(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	url := "s3://" + bucket + "/lake"
	hostPort := strings.TrimPrefix(srv.Endpoint, "http://")
	try := regexp.MustCompile("\nTry: .*`fdl-formats ([^`]*)`")

	for _, tc := range []struct{ cmd []string }{
		{[]string{"plan", remoteNow, "--formats=0.4"}},
		{[]string{"resolve", "--duckdb=1.5.2"}},
		{[]string{"check", remoteNow}},
		{[]string{"backfill", "--dry-run", remoteNow}},
	} {
		args := append(append(tc.cmd[:len(tc.cmd):len(tc.cmd)], "--endpoint", hostPort), url)
		_, errOut, code := runAppStderr(t, args...)
		want := "Error: --endpoint \"" + hostPort + "\": not a URL; want http://HOST:PORT or https://HOST:PORT"
		m := try.FindStringSubmatch(errOut)
		if code != exitUsage || !strings.Contains(errOut, want) || m == nil {
			t.Errorf("%v: exit %d, want %d, %q and a Try: line with a command\n%s", args, code, exitUsage, want, errOut)
			continue
		}
		line := " " + m[1] + " "
		if !strings.Contains(line, " --endpoint="+srv.Endpoint+" ") || strings.Count(line, "--endpoint") != 1 {
			t.Errorf("%v: the Try: line's command %q, want the run's flags with --endpoint=%s alone", args, m[1], srv.Endpoint)
		}
		if tc.cmd[0] != "plan" && tc.cmd[0] != "resolve" {
			continue
		}
		if out, errOut, code := runAppStderr(t, strings.Fields(m[1])...); code != exitOK {
			t.Errorf("the Try: line's %s: exit %d\n%s\n%s", m[1], code, out, errOut)
		}
	}

	// Nothing to mend but the form: the command's help.
	_, errOut, code := runAppStderr(t, "plan", "--endpoint", "http//x", url)
	if want := "Error: --endpoint http//x: not an http:// or https:// URL; want http://HOST:PORT or https://HOST:PORT"; code != exitUsage || !strings.Contains(errOut, want) || !strings.Contains(errOut, "\nTry: fdl-formats plan --help") {
		t.Errorf("plan --endpoint http//x: exit %d, want %d, %q and a Try: line with the help\n%s", code, exitUsage, want, errOut)
	}

	// From the environment: named by its variable.
	t.Setenv("AWS_ENDPOINT_URL_S3", hostPort)
	_, errOut, code = runAppStderr(t, "plan", url)
	if want := "$AWS_ENDPOINT_URL_S3 \"" + hostPort + "\": not a URL"; code != exitUsage || !strings.Contains(errOut, want) || strings.Contains(errOut, "not an FDL repository") {
		t.Errorf("plan with $AWS_ENDPOINT_URL_S3=%s: exit %d, want %d and %q\n%s", hostPort, code, exitUsage, want, errOut)
	}
}

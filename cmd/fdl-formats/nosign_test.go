package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
)

// TestS3NoSignRequest: a bucket whose policy lets anyone list and read it
// is checked, planned and resolved from a run without credentials, its
// requests unsigned (--no-sign-request, as the AWS CLI's). Before, such a
// run (a third party's CI checking a public repository) stopped at its
// first request, "no credentials to sign the request with", telling it to
// set keys it does not have. A bucket that is not public refuses unsigned
// requests: access denied, the Try: line saying so; backfill, which
// writes, refuses the flag (exit 2) before any request, and check's Try:
// line for the publisher's backfill leaves it out.
func TestS3NoSignRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a lake")
	}
	srv := s3test.Start(t)
	public, private := srv.Bucket(t), srv.Bucket(t)
	lake := copyRepo(t, "lakes", "06_deletes")
	srv.Upload(t, lake, public, "lake")
	srv.Upload(t, lake, private, "lake")
	policy := `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject", "s3:ListBucket"],
		"Resource": ["arn:aws:s3:::` + public + `", "arn:aws:s3:::` + public + `/*"]}]}`
	if _, err := srv.Client().PutBucketPolicy(context.Background(), &awss3.PutBucketPolicyInput{Bucket: aws.String(public), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	// No credentials anywhere.
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_ENDPOINT_URL_S3"} {
		t.Setenv(k, "")
	}
	ep := "--endpoint=" + srv.Endpoint
	url := "s3://" + public + "/lake"

	_, errOut, code := runAppStderr(t, "check", remoteNow, "--formats=1.0", ep, url)
	if code != exitFailure || !strings.Contains(errOut, "no credentials to sign the request with") || !strings.Contains(errOut, "--no-sign-request") {
		t.Fatalf("check without credentials: exit %d, want %d, no credentials, and a Try: line naming --no-sign-request\n%s", code, exitFailure, errOut)
	}
	out, errOut, code := runAppStderr(t, "check", remoteNow, "--formats=1.0", "--no-sign-request", ep, url)
	if code != exitOK || !strings.Contains(out, "check: ok") {
		t.Fatalf("check --no-sign-request %s: exit %d, want %d\n%s\n%s", url, code, exitOK, out, errOut)
	}
	if out, errOut, code := runAppStderr(t, "plan", remoteNow, "--no-sign-request", ep, url); code != exitOK || !strings.Contains(out, "missing") {
		t.Errorf("plan --no-sign-request %s: exit %d\n%s\n%s", url, code, out, errOut)
	}
	if out, errOut, code := runAppStderr(t, "resolve", "--duckdb=1.5.6", "--no-sign-request", ep, url); code != exitOK || !strings.Contains(out, "ATTACH 'ducklake:"+url+"/versions/") {
		t.Errorf("resolve --no-sign-request %s: exit %d\n%s\n%s", url, code, out, errOut)
	}
	// The publisher's backfill, from check's Try: line: signed.
	_, errOut, code = runAppStderr(t, "check", remoteNow, "--no-sign-request", ep, url)
	if want := "run `fdl-formats backfill --now=2026-11-30T00:00:00Z " + ep + " " + url + "` to write"; code != exitMissing || !strings.Contains(errOut, want) {
		t.Errorf("check --no-sign-request with catalogs missing: exit %d, want %d and %q\n%s", code, exitMissing, want, errOut)
	}
	if _, errOut, code := runAppStderr(t, "backfill", remoteNow, "--no-sign-request", ep, url); code != exitUsage || !strings.Contains(errOut, "unsigned requests may not") {
		t.Errorf("backfill --no-sign-request: exit %d, want %d\n%s", code, exitUsage, errOut)
	}
	if out, errOut, code := runAppStderr(t, "backfill", "--dry-run", remoteNow, "--no-sign-request", ep, url); code != exitOK || !strings.Contains(out, "planned") {
		t.Errorf("backfill --dry-run --no-sign-request: exit %d, want %d\n%s\n%s", code, exitOK, out, errOut)
	}

	// A bucket that is not public.
	url = "s3://" + private + "/lake"
	_, errOut, code = runAppStderr(t, "check", remoteNow, "--no-sign-request", ep, url)
	if code != exitFailure || !strings.Contains(errOut, "access denied") || !strings.Contains(errOut, "does not let anyone (unsigned requests, --no-sign-request)") {
		t.Errorf("check --no-sign-request of a private bucket: exit %d, want %d, access denied, and a Try: line saying the bucket is not public\n%s", code, exitFailure, errOut)
	}
}

package main

import (
	"os"
	"strings"
	"testing"
)

// TestS3NoRegion: an s3:// repository on AWS itself (no endpoint) read
// where no region is set (a CI step with keys but no AWS_REGION, and no
// profile) is the runner's setup (exit 1, as a missing credential), and
// the Try: line says to set AWS_REGION. It said "not an FDL repository:
// s3://BUCKET: no region" (exit 6), its Try: line to give the folder that
// holds fdl.json.
func TestS3NoRegion(t *testing.T) {
	for k, v := range map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL_S3": "", "AWS_ENDPOINT_URL": "",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "x", "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	for _, cmd := range []string{"check", "plan", "resolve"} {
		_, errOut, code := runAppStderr(t, cmd, "s3://fdl-population/population")
		if code != exitFailure || !strings.Contains(errOut, "Error: s3://fdl-population/population: no region") || !strings.Contains(errOut, "\nTry: set AWS_REGION to the bucket's region") {
			t.Errorf("%s without a region: exit %d, want %d, naming the repository and a Try: line to set AWS_REGION\n%s", cmd, code, exitFailure, errOut)
		}
	}
}

// TestS3SetupErrorsNameRepository: the two faults of an S3 run's setup
// found before any request, by the README's exit codes: an endpoint from
// the environment that is not http(s)://HOST:PORT is a bad value (exit 2,
// as --endpoint's and $FDL_FORMATS_STALL_TIMEOUT's), a missing region a
// setting the runner lacks (exit 1, as a credential). Both name the
// repository alike, s3://BUCKET/PREFIX: the endpoint's said s3://BUCKET.
func TestS3SetupErrorsNameRepository(t *testing.T) {
	for k, v := range map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL_S3": "", "AWS_ENDPOINT_URL": "",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "x", "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	for _, tc := range []struct {
		env        map[string]string
		code       int
		want, json string
	}{
		{map[string]string{"AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": "127.0.0.1:9"}, exitUsage, "Error: s3://b/lake: $AWS_ENDPOINT_URL_S3 \"127.0.0.1:9\": not a URL", ""},
		{map[string]string{"AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": "http//x"}, exitUsage, "Error: s3://b/lake: $AWS_ENDPOINT_URL http//x: not an http:// or https:// URL", ""},
		{nil, exitFailure, "Error: s3://b/lake: no region", `"exit_code": 1`},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		out, errOut, code := runAppStderr(t, "check", "--json", "s3://b/lake")
		if code != tc.code || !strings.Contains(errOut, tc.want) || (tc.json == "") != (out == "") || !strings.Contains(out, tc.json) {
			t.Errorf("check --json with %v: exit %d, want %d and %q (a report only for a runtime failure)\n%s\n%s", tc.env, code, tc.code, tc.want, out, errOut)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
}

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

package s3_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestSetupErrorsNameRootRepository: a repository at a bucket's root is
// named s3://BUCKET by its setup's errors, as before the prefix was added
// to them (it read s3://BUCKET/, with a trailing slash no repository has).
func TestSetupErrorsNameRootRepository(t *testing.T) {
	for k, v := range map[string]string{"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL_S3": "", "AWS_ENDPOINT_URL": "",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull, "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	for prefix, want := range map[string]string{"": "s3://b: ", "/": "s3://b: ", "lake/": "s3://b/lake: "} {
		_, err := s3.New(context.Background(), "b", prefix, s3.Options{})
		if !errors.Is(err, s3.ErrNoRegion) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("New(b, %q) = %v, want ErrNoRegion naming %q", prefix, err, want)
		}
	}
}

package open_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/store/open"
)

func TestRepository(t *testing.T) {
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	dir := t.TempDir()
	for _, tc := range []struct {
		arg, want string // want: the store's type, or "error"
	}{
		{dir, "*local.Store"},
		{"s3://bucket/some/prefix", "*s3.Store"},
		{"S3://bucket", "*s3.Store"},
		{"https://data.example.org/population", "*httpstore.Store"},
		{"http://127.0.0.1:8080/lake/", "*httpstore.Store"},
		{filepath.Join(dir, "missing"), "error"},
		{"ftp://host/x", "error"},
		{"s3:///prefix", "error"},
		{"s3://bucket/../up", "error"},
	} {
		st, err := open.Repository(context.Background(), tc.arg, open.Options{})
		got := "error"
		if err == nil {
			got = fmt.Sprintf("%T", st)
		}
		if got != tc.want {
			t.Errorf("Repository(%q) = %s (%v), want %s", tc.arg, got, err, tc.want)
		}
	}
}

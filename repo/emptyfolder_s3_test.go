package repo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestEmptyFolderRuleBucket: in a bucket (versitygw) a version folder made
// by a console's "create folder" (a marker object ending in "/") or an
// empty folder of the server's own disk is no version and no warning, as
// docs/repository.md says; a half-uploaded version (its ducklake.duckdb,
// no version.json) is invalid, as on disk.
func TestEmptyFolderRuleBucket(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const marker = "01fffffe-0000-7000-8000-000000000000"
	if _, err := srv.Client().PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("lake/versions/" + marker + "/"), Body: strings.NewReader("")}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(srv.Root, bucket, "lake", "versions", emptyVersionID, "catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("bucket keys: %q", srv.Keys(t, bucket))
	rep, err := Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	lines := findingLines(rep)
	if err != nil || slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, marker) || strings.Contains(l, emptyVersionID) }) {
		t.Errorf("check = %v, findings %q; want a pass naming neither folder", err, lines)
	}
	if _, err := srv.Client().PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("lake/versions/" + marker + "/ducklake.duckdb"), Body: strings.NewReader("half uploaded")}); err != nil {
		t.Fatal(err)
	}
	rep, err = Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	// Named where it is: its s3:// URL at the endpoint.
	want := "s3://" + bucket + "/lake/versions/" + marker + "/version.json at " + srv.Endpoint + ": missing"
	if !errors.Is(err, ErrInvalidVersion) || !slices.ContainsFunc(findingLines(rep), func(l string) bool {
		return strings.Contains(l, marker) && strings.Contains(l, want)
	}) {
		t.Errorf("check = %v, findings %q; want %s invalid, %q", err, findingLines(rep), marker, want)
	}
}

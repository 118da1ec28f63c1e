package repo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/digestcache"
	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestCheckDataMD5 checks a repository in a bucket of a real S3 server
// (versitygw) with a local --data folder. The same size and last 8 bytes
// do not make the same file: a data file whose bytes 40-59 were flipped in
// the bucket (the size and footer kept) passed such a check while readers
// of the bucket could not read it (a check without --data: a Snappy
// decompression failure). Where the object's ETag is an MD5 (a single-part
// upload), it is compared with the folder's copy's: a mismatch is
// unverifiable. An object uploaded in parts has no MD5 ETag: the run passes
// and warns, with a count, that only sizes and footers were compared.
func TestCheckDataMD5(t *testing.T) {
	if testing.Short() {
		t.Skip("converts and proves a lake")
	}
	ctx := context.Background()
	root := lake11(t) // shared: copied before any change
	files, err := filepath.Glob(filepath.Join(root, "data", "main", "del", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("data files: %v %v", files, err)
	}
	victim, _ := filepath.Rel(root, files[0])
	victim = filepath.ToSlash(victim)
	orig, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	client := srv.Client()
	flipped := bytes.Clone(orig)
	for i := 40; i < 60; i++ {
		flipped[i] ^= 0xff
	}
	for _, tc := range []struct {
		name    string
		replace func(t *testing.T, key string) // the victim's object, after the upload
		want    error
		detail  string // of the failure, or of the warning
	}{
		{"untouched", func(*testing.T, string) {}, nil, ""},
		{"bytes 40-59 flipped, size and footer kept", func(t *testing.T, key string) {
			put(t, client, bucket, key, flipped)
		}, ErrUnverifiable, "is not the MD5 of the --data folder's copy"},
		{"uploaded in parts (ETag ...-1)", func(t *testing.T, key string) {
			s3test.PutMultipart(t, client, bucket, key, orig)
		}, nil, "--data: 1 data file(s) in the store have no MD5 ETag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := strings.NewReplacer(" ", "-", "(", "", ")", "", ".", "", ",", "").Replace(tc.name)
			srv.Upload(t, root, bucket, prefix)
			tc.replace(t, prefix+"/"+victim)
			st, err := s3.New(ctx, bucket, prefix, s3.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cache, err := digestcache.Open(t.TempDir(), digestcache.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			data := t.TempDir()
			if err := copyTree(filepath.Join(root, "data"), data); err != nil {
				t.Fatal(err)
			}
			// Twice: the second run takes the folder's MD5s from the cache.
			for run := range 2 {
				rep, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.1"}, DataPath: data, WorkDir: t.TempDir(), Cache: t.TempDir(), DigestCache: cache})
				if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
					t.Fatalf("run %d: Check = %v, want %v", run+1, err, tc.want)
				}
				var details []string
				for _, f := range rep.Findings {
					details = append(details, string(f.Kind)+": "+f.Detail)
				}
				all := strings.Join(details, "\n")
				switch {
				case tc.detail == "" && strings.Contains(all, "no MD5 ETag"):
					t.Errorf("run %d: warning about ETags, every object has an MD5 one:\n%s", run+1, all)
				case tc.detail != "" && !strings.Contains(all, tc.detail):
					t.Errorf("run %d: no finding saying %q:\n%s", run+1, tc.detail, all)
				case tc.want != nil && !strings.Contains(all, victim):
					t.Errorf("run %d: no finding naming %s:\n%s", run+1, victim, all)
				}
			}
			// What --data now refuses to pass, readers of the bucket cannot
			// read: a check of the bucket's own bytes fails too.
			if tc.want != nil {
				if _, err := Check(ctx, st, Options{Jobs: 2, Formats: []string{"1.1"}, WorkDir: t.TempDir(), NoDataCache: true}); !errors.Is(err, ErrUnverifiable) && !errors.Is(err, ErrDifferences) {
					t.Errorf("Check of the bucket's bytes = %v, want a failure", err)
				}
			}
		})
	}
}

func put(t *testing.T, c *awss3.Client, bucket, key string, body []byte) {
	t.Helper()
	if _, err := c.PutObject(context.Background(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
}

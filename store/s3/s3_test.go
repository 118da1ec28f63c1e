package s3_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

func TestS3(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	n := 0
	storetest.Run(t, func(t *testing.T) store.Store {
		n++
		// Each store is a fresh prefix of one bucket, so List is scoped.
		st, err := s3.New(context.Background(), bucket, "repo"+strings.Repeat("x", n%3)+"/"+t.Name(), s3.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

func TestProbe(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Probe(ctx); err != nil {
		t.Fatalf("Probe on versitygw: %v", err)
	}
	// The probe cleans up after itself.
	if keys := srv.Keys(t, bucket); len(keys) != 0 {
		t.Errorf("probe left %q behind", keys)
	}
}

// TestProbeRemovesStale: a run killed between the probe's write and its
// delete left its object under .fdl-formats/; the next probe deletes
// probe objects older than s3.StaleProbeAge, and no other: a younger one
// (a probe running now), another name under .fdl-formats/, another
// prefix's. They stayed for good.
func TestProbeRemovesStale(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	c := srv.Client()
	put := func(key string, age time.Duration) {
		t.Helper()
		if _, err := c.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("fdl-formats conditional write probe\n")}); err != nil {
			t.Fatal(err)
		}
		// versitygw's posix backend gives the file's time as LastModified.
		then := time.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(srv.Root, bucket, filepath.FromSlash(key)), then, then); err != nil {
			t.Fatal(err)
		}
	}
	stale := "lake/" + s3.PrivatePrefix + "probe-0123456789abcdef"
	kept := []string{
		"lake/" + s3.PrivatePrefix + "probe-fedcba9876543210",  // a probe running now
		"lake/" + s3.PrivatePrefix + "notes",                   // not a probe's name
		"lake/" + s3.PrivatePrefix + "probe-0123456789abcdef0", // not a probe's name
		"other/" + s3.PrivatePrefix + "probe-0123456789abcdef", // another repository's
	}
	put(stale, s3.StaleProbeAge+time.Minute)
	put(kept[0], s3.StaleProbeAge-5*time.Minute)
	for _, k := range kept[1:] {
		put(k, 2*s3.StaleProbeAge)
	}
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// List hides them all: no repository content.
	if objs, err := st.List(ctx, ""); err != nil || len(objs) != 0 {
		t.Errorf("List: %v, %v; want nothing", objs, err)
	}
	if err := st.Probe(ctx); err != nil {
		t.Fatalf("Probe on versitygw: %v", err)
	}
	slices.Sort(kept)
	if keys := srv.Keys(t, bucket); !slices.Equal(keys, kept) {
		t.Errorf("after the probe the bucket holds %q, want %q (%s deleted, nothing else)", keys, kept, stale)
	}
}

func TestNoBucket(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	st, err := s3.New(ctx, "no-such-bucket", "x", s3.Options{Endpoint: srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, "k", strings.NewReader("x")); err == nil || errors.Is(err, store.ErrExists) {
		t.Errorf("Create in a missing bucket: %v, want an error", err)
	}
	// The error names the bucket and where it was looked for.
	if _, err := st.List(ctx, "versions/"); err == nil || !strings.Contains(err.Error(), "no-such-bucket") || !strings.Contains(err.Error(), srv.Endpoint) {
		t.Errorf("List in a missing bucket: %v, want an error naming the bucket and the endpoint %s", err, srv.Endpoint)
	}
}

// An endpoint with credentials is refused, from the flag or the
// environment, and the error does not repeat them: the endpoint is printed
// in logs and reports, and the SDK would ignore them anyway.
func TestEndpointCredentials(t *testing.T) {
	const secret = "S3CRETzzz123"
	for _, tc := range []struct {
		name string
		opts s3.Options
		want string
	}{
		{"flag", s3.Options{Endpoint: "http://KEYID:" + secret + "@127.0.0.1:9000"}, "endpoint http://127.0.0.1:9000: credentials in the endpoint URL are not supported"},
		{"env", s3.Options{Getenv: func(k string) string {
			if k == "AWS_ENDPOINT_URL_S3" {
				return "https://KEYID:" + secret + "@r2.example.com"
			}
			return ""
		}}, "$AWS_ENDPOINT_URL_S3 https://r2.example.com: credentials"},
		{"no_scheme", s3.Options{Endpoint: "minio.local:9000"}, "not an http:// or https:// URL"},
		{"unparsable", s3.Options{Endpoint: "http://KEYID:" + secret + "@[::1"}, "endpoint: not a URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s3.New(context.Background(), "bucket", "lake", tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "KEYID") {
				t.Errorf("the error repeats the credentials: %v", err)
			}
		})
	}
}

// A prefix with "?" or "#" is refused before anything is read: DuckDB's
// s3:// reader cuts the key there, so it would open other objects than the
// ones checked.
func TestPrefixQueryRefused(t *testing.T) {
	ctx := context.Background()
	for _, prefix := range []string{"q?x", "lakes/a#b", "a?"} {
		_, err := s3.New(ctx, "lake", prefix, s3.Options{Endpoint: "http://127.0.0.1:9"})
		if err == nil || !strings.Contains(err.Error(), "query or fragment") {
			t.Errorf("prefix %q: %v, want the query/fragment refusal", prefix, err)
		}
	}
	if _, err := s3.New(ctx, "lake", "lakes/a%20b", s3.Options{Endpoint: "http://127.0.0.1:9"}); err != nil {
		t.Errorf("prefix with a %%-escape: %v, want it accepted (DuckDB's S3 client encodes %%)", err)
	}
}

// An endpoint with a path (an S3 server behind a reverse proxy at
// https://host/minio) is refused: the SDK sends its requests under the path
// (check reads https://host/minio/BUCKET/KEY), while DuckDB's S3 secret
// takes a host and port only (DuckDBSecret, which resolve prints, dropped
// the path), so readers would ask https://host/BUCKET/KEY, another server
// or none. A root path, "/", is no path.
func TestEndpointPathRefused(t *testing.T) {
	for _, ep := range []string{"https://example.org/minio", "http://127.0.0.1:9000/s3/", "http://127.0.0.1:9000/?x=1"} {
		if _, err := s3.New(context.Background(), "bucket", "lake", s3.Options{Endpoint: ep}); err == nil {
			t.Errorf("endpoint %s: accepted, want a refusal (DuckDB's S3 secret takes a host and port)", ep)
		}
	}
	t.Setenv("AWS_REGION", "us-east-1")
	for _, ep := range []string{"http://127.0.0.1:9000", "http://127.0.0.1:9000/"} {
		if _, err := s3.New(context.Background(), "bucket", "lake", s3.Options{Endpoint: ep}); err != nil {
			t.Errorf("endpoint %s: %v, want it accepted", ep, err)
		}
	}
}

// An endpoint the SDK takes from the shared configuration (a profile's
// endpoint_url, or its services section) is the store's endpoint as much as
// --endpoint's: it names the store (Location: the data cache's mirror and
// the kept proofs' keys) and DuckDB's S3 secret. Before, both said AWS:
// a cache of s3://lake/r on MinIO answered for s3://lake/r on R2, and
// resolve printed no secret, so readers' DuckDB asked AWS for the bucket.
func TestProfileEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		ignore       bool   // AWS_IGNORE_CONFIGURED_ENDPOINT_URLS
		want         string // in Location, "" for none
	}{
		{"endpoint_url", "[default]\nregion = us-east-1\nendpoint_url = http://127.0.0.1:9\n", false, " at http://127.0.0.1:9"},
		{"services", "[default]\nregion = us-east-1\nservices = local\n[services local]\ns3 =\n  endpoint_url = http://127.0.0.1:9\n", false, " at http://127.0.0.1:9"},
		{"ignored", "[default]\nregion = us-east-1\nendpoint_url = http://127.0.0.1:9\n", true, ""},
		{"none", "[default]\nregion = us-east-1\n", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range s3test.Env("") {
				t.Setenv(k, v)
			}
			cfg := t.TempDir() + "/config"
			if err := os.WriteFile(cfg, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("AWS_CONFIG_FILE", cfg)
			if tc.ignore {
				t.Setenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")
			}
			st, err := s3.New(context.Background(), "lake", "r", s3.Options{})
			if err != nil {
				t.Fatal(err)
			}
			loc, secret := st.Location(), st.DuckDBSecret()
			if tc.want == "" {
				if loc != "s3://lake/r" || secret != "" {
					t.Errorf("Location %q, DuckDBSecret %q; want AWS's (s3://lake/r, no secret)", loc, secret)
				}
				return
			}
			if !strings.HasSuffix(loc, tc.want) {
				t.Errorf("Location %q, want it to end in %q", loc, tc.want)
			}
			if !strings.Contains(secret, "ENDPOINT '127.0.0.1:9'") || !strings.Contains(secret, "URL_STYLE 'path'") {
				t.Errorf("DuckDBSecret %q, want the profile's endpoint, path-style", secret)
			}
		})
	}
}

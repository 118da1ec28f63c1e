package s3_test

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestConfigErrors: a bucket, credentials, region or endpoint the server
// refuses, or that nothing answers at, is a *s3.ConfigError (or a
// *s3.RegionError) naming the bucket and the endpoint, on every operation.
// Before, each was the SDK's error with its request IDs, and versitygw's
// answer to an unknown access key (404 XAdminUserNotFound) read as a
// missing object: "no fdl.json", a REPO that is no repository. Stat and
// ReadTail start with a HEAD, whose answer has no body and so no code: a
// wrong secret read as "access denied (403 Forbidden)", a missing bucket
// and an unknown access key as a missing object, a wrong region as the
// SDK's bare 400; the store now asks a GET of the first byte for the code
// (headCause). The run's own first request is a GET (of fdl.json), but
// credentials that expire or are rotated during a run meet a HEAD first
// when the next request is a data file's tail.
func TestConfigErrors(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	good, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Create(ctx, "fdl.json", strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() // nothing listens there once closed
	l.Close()

	for _, tc := range []struct {
		name     string
		bucket   string
		env      map[string]string
		endpoint string
		problem  s3.Problem // 0: a *s3.RegionError
		want     string
	}{
		{"missing bucket", "no-such-bucket", nil, "", s3.NoBucket, "the server has no bucket no-such-bucket (404 NoSuchBucket)"},
		{"wrong secret", bucket, map[string]string{"AWS_SECRET_ACCESS_KEY": "not-the-secret"}, "", s3.BadSecret, "(403 SignatureDoesNotMatch)"},
		{"wrong access key", bucket, map[string]string{"AWS_ACCESS_KEY_ID": "nosuchkey"}, "", s3.UnknownAccessKey, "does not know the access key ID in use"},
		{"nothing listening", bucket, nil, closed, s3.Unreachable, "cannot reach it: connect: connection refused"},
		// No credentials anywhere (the server's config and credentials
		// files are /dev/null, the instance metadata off): the SDK's error
		// was the whole message, without a Try: line.
		{"no credentials", bucket, map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""}, "", s3.NoCredentials, "no credentials to sign the request with"},
		{"wrong region", bucket, map[string]string{"AWS_REGION": "eu-west-3"}, "", 0, "bucket " + bucket + " is in region " + s3test.Region + ", not eu-west-3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			endpoint := srv.Endpoint
			if tc.endpoint != "" {
				endpoint = tc.endpoint
			}
			st, err := s3.New(ctx, tc.bucket, "lake", s3.Options{Endpoint: endpoint})
			if err != nil {
				t.Fatal(err)
			}
			_, oerr := st.Open(ctx, "fdl.json")
			_, lerr := st.List(ctx, "versions/")
			_, serr := st.Stat(ctx, "fdl.json")
			_, _, terr := st.ReadTail(ctx, "fdl.json", 8)
			for op, err := range map[string]error{"Open": oerr, "List": lerr, "Stat": serr, "ReadTail": terr} {
				var ce *s3.ConfigError
				var re *s3.RegionError
				switch {
				case err == nil || errors.Is(err, fs.ErrNotExist):
					t.Errorf("%s = %v, want an error that is no missing object", op, err)
				case tc.problem == 0 && !errors.As(err, &re):
					t.Errorf("%s = %v, want an *s3.RegionError", op, err)
				case tc.problem != 0 && (!errors.As(err, &ce) || ce.Problem != tc.problem || ce.Hint() == ""):
					t.Errorf("%s = %v (%T), want an *s3.ConfigError of problem %d with a hint", op, err, err, tc.problem)
				case !strings.Contains(err.Error(), tc.want) || !regexp.MustCompile(`^(open|list|stat) s3://`+regexp.QuoteMeta(tc.bucket)+`/lake/(fdl\.json|versions/) at `+regexp.QuoteMeta(endpoint)+`: `).MatchString(err.Error()):
					t.Errorf("%s = %v, want it to name the object where it is, s3://%s/lake/KEY at %s, and say %q", op, err, tc.bucket, endpoint, tc.want)
				case strings.Contains(err.Error(), "RequestID") || strings.Contains(err.Error(), "\n"):
					t.Errorf("%s = %v, want one line without the SDK's request IDs", op, err)
				}
			}
		})
	}
	// HasPrefix: one listing of one key.
	if found, err := good.HasPrefix(ctx, "fdl"); err != nil || !found {
		t.Errorf("HasPrefix(fdl) = %v, %v; want true", found, err)
	}
	if found, err := good.HasPrefix(ctx, "nodata/"); err != nil || found {
		t.Errorf("HasPrefix(nodata/) = %v, %v; want false", found, err)
	}
	// A HEAD's 404 has no code: a missing key, still.
	if _, err := good.Stat(ctx, "versions/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat of a missing key = %v, want fs.ErrNotExist", err)
	}
	if _, err := good.Open(ctx, "versions/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of a missing key = %v, want fs.ErrNotExist", err)
	}
}

// methods counts the requests sent, by method.
type methods struct {
	mu sync.Mutex
	n  map[string]int
}

func (m *methods) RoundTrip(req *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.n[req.Method]++
	m.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// TestHeadCauseCost: a HEAD's bare 404 is asked again by a GET for its
// code only while the store has had no answer (the bucket and credentials
// unproven); after one, it is a missing object at the cost of the HEAD
// alone, as before: checks look for absent files (a catalog's .wal) in
// every version.
func TestHeadCauseCost(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	t.Setenv("AWS_CA_BUNDLE", "") // the SDK adds one only to its own client
	m := &methods{n: map[string]int{}}
	st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: m}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(ctx, "none"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a missing key = %v, want fs.ErrNotExist", err)
	}
	if m.n["HEAD"] != 1 || m.n["GET"] != 1 {
		t.Errorf("first Stat sent %v, want a HEAD and the GET asking its code", m.n)
	}
	if _, err := st.List(ctx, "versions/"); err != nil {
		t.Fatal(err)
	}
	clear(m.n)
	if _, err := st.Stat(ctx, "none"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a missing key = %v, want fs.ErrNotExist", err)
	}
	if m.n["HEAD"] != 1 || m.n["GET"] != 0 {
		t.Errorf("Stat after a listing sent %v, want one HEAD", m.n)
	}
}

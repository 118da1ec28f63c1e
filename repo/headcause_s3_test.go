package repo

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// rotatedSecret signs every request from the run's first HEAD on with
// another secret than the key ID's, as a secret rotated (or session
// credentials expired) in the middle of a run: the request that meets it
// first is a HEAD, whose answer has no body and so no S3 error code.
type rotatedSecret struct {
	base    http.RoundTripper
	rotated atomic.Bool
}

var signature = regexp.MustCompile(`Signature=[0-9a-f]+`)

func (r *rotatedSecret) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodHead {
		r.rotated.Store(true)
	} else if r.rotated.Load() && req.Header.Get("Range") != "bytes=0-0" {
		// A version's look sends its reads at once (the frozen catalog's
		// HEAD beside the GETs of its JSON files): those GETs wait a
		// moment, so that the HEAD (and the GET of one byte that asks the
		// code of its bare 403) meets the rotated secret first.
		time.Sleep(300 * time.Millisecond)
	}
	if r.rotated.Load() {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", signature.ReplaceAllString(req.Header.Get("Authorization"), "Signature="+zeros))
	}
	return r.base.RoundTrip(req)
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

// TestS3HeadMeetsBadSecret: a check of a bucket whose credentials go
// wrong after fdl.json and the listings were read (a rotated secret) meets
// it first with a HEAD (a data file's or catalog's tail); the run stops
// with the error that the signature was rejected, naming the file, and
// the hint to fix the secret, as when the first request (a GET of
// fdl.json) meets it. Before, the HEAD's bare 403 read "access denied (403
// Forbidden): the credentials may not read it (s3:GetObject)", with the
// permissions hint, once per file (unverifiable); then the rejected
// signature once per file (TestStoreFailsMidRun).
func TestS3HeadMeetsBadSecret(t *testing.T) {
	ctx := context.Background()
	_, root := smallLake(t)
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Upload(t, root, bucket, "lake")
	// The SDK adds a CA bundle only to its own client (a plain endpoint
	// needs none).
	t.Setenv("AWS_CA_BUNDLE", "")
	rt := &rotatedSecret{base: http.DefaultTransport}
	st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	var ce *s3.ConfigError
	if !rt.rotated.Load() || !errors.As(err, &ce) {
		t.Fatalf("check = %v (HEAD sent: %v), want an *s3.ConfigError", err, rt.rotated.Load())
	}
	// The request that met it is a HEAD (a stat).
	if !strings.Contains(err.Error(), ": stat versions/") || !strings.Contains(err.Error(), "the server rejected the request's signature (403 SignatureDoesNotMatch)") || strings.Contains(err.Error(), "access denied") {
		t.Errorf("check = %v; want a stat's rejected signature", err)
	}
	if !strings.Contains(ce.Hint(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("hint %q, want the secret named", ce.Hint())
	}
}

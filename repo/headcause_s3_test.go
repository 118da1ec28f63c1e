package repo

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

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
// it first with a HEAD (a data file's or catalog's tail); the run's error
// says the signature was rejected and how to fix the secret, as it does
// when the first request (a GET of fdl.json) meets it. Before, the HEAD's
// bare 403 read "access denied (403 Forbidden): the credentials may not
// read it (s3:GetObject)", with the permissions hint.
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
	rep, err := Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	if !rt.rotated.Load() || !errors.Is(err, ErrUnverifiable) {
		t.Fatalf("check = %v (HEAD sent: %v), want unverifiable files", err, rt.rotated.Load())
	}
	// Each file the run could not read is named with the cause, those a
	// HEAD (a stat) met first too.
	stats := 0
	for _, f := range rep.Findings {
		if f.Kind != KindUnverifiable {
			continue
		}
		if strings.Contains(f.Detail, "stat versions/") {
			stats++
		}
		if !strings.Contains(f.Detail, "the server rejected the request's signature (403 SignatureDoesNotMatch)") || strings.Contains(f.Detail, "access denied") {
			t.Errorf("finding %s: %s; want the rejected signature", f.Key, f.Detail)
		}
	}
	if stats == 0 {
		t.Errorf("findings %q, want files a HEAD (stat) could not read", findingLines(rep))
	}
}

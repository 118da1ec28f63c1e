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
//
// A version's look sends its reads at once (the frozen catalog's HEAD
// beside the GETs of its JSON files). The GETs sent once the secret is
// rotated (but the one-byte GET that asks the code of the HEAD's bare
// 403) are held until their request's context ends: the run stops on the
// first request that fails for the whole store, so the HEAD's error is
// the one it notes, whatever the machine's load (they slept 300 ms
// before). A GET still held after held is let go, and heldTooLong says
// so: the HEAD's error did not stop the run.
type rotatedSecret struct {
	base        http.RoundTripper
	held        time.Duration
	rotated     atomic.Bool
	heldTooLong atomic.Bool
}

var signature = regexp.MustCompile(`Signature=[0-9a-f]+`)

func (r *rotatedSecret) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodHead {
		r.rotated.Store(true)
	} else if r.rotated.Load() && req.Header.Get("Range") != "bytes=0-0" {
		timer := time.NewTimer(r.held)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
			r.heldTooLong.Store(true)
		}
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
	rt := &rotatedSecret{base: http.DefaultTransport, held: 30 * time.Second}
	st, err := s3.New(ctx, bucket, "lake", s3.Options{HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(ctx, st, Options{Formats: []string{"1.0"}, Jobs: 2, Cache: t.TempDir()})
	if rt.heldTooLong.Load() {
		t.Fatalf("a GET sent after the HEAD was held %v and the run had not stopped (check = %v): the HEAD's rejected signature did not stop it", rt.held, err)
	}
	var ce *s3.ConfigError
	if !rt.rotated.Load() || !errors.As(err, &ce) {
		t.Fatalf("check = %v (HEAD sent: %v), want an *s3.ConfigError", err, rt.rotated.Load())
	}
	// The request that met it is a HEAD (a stat), of the object named
	// once, where it is.
	if !strings.Contains(err.Error(), ": stat s3://"+bucket+"/lake/versions/") || strings.Count(err.Error(), ce.Key) != 1 || !strings.Contains(err.Error(), "the server rejected the request's signature (403 SignatureDoesNotMatch)") || strings.Contains(err.Error(), "access denied") {
		t.Errorf("check = %v; want a stat's rejected signature", err)
	}
	if !strings.Contains(ce.Hint(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("hint %q, want the secret named", ce.Hint())
	}
}

package s3_test

import (
	"context"
	"fmt"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/internal/webtest"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestKeepsConnectionsOfARun: the SDK's client keeps a connection for
// each request a run has in flight at once (a plan's data files' ends read
// 16 at a time beside its downloads), so a second round of 24 requests at
// once opens none: with the SDK's 10 kept, 14 were closed after each round
// and opened again (a TLS handshake each on a real service).
func TestKeepsConnectionsOfARun(t *testing.T) {
	const n = 24
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	direct, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := direct.Create(ctx, fmt.Sprintf("f%d", i), strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := webtest.ServeRounds(t, n, proxy)
	st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		front.Round(t, func(i int) error {
			_, err := st.Stat(ctx, fmt.Sprintf("f%d", i))
			return err
		})
		if got := front.Opened(); round == 0 && got != n {
			t.Fatalf("the first round opened %d connections, want %d", got, n)
		}
	}
	if got := front.Opened() - n; got != 0 {
		t.Errorf("the second round of %d requests at once opened %d connections, want none (kept from the first)", n, got)
	}
}

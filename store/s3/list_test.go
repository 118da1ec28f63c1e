package s3_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// TestListCutShort: a listing page that says more follows without a token
// to follow, or with a token already given, is an error. The SDK's
// paginator ended quietly on the first (a check then passed on the
// versions listed) and looped forever on the second.
func TestListCutShort(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	direct, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		if err := direct.Create(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
	}
	truncated := regexp.MustCompile(`<IsTruncated>false</IsTruncated>`)
	for _, tc := range []struct {
		name, page, want string // page: what replaces IsTruncated in a listing
	}{
		{"as sent", "<IsTruncated>false</IsTruncated>", ""},
		{"truncated without a token", "<IsTruncated>true</IsTruncated>", "gives no continuation token"},
		{"a token repeated", "<IsTruncated>true</IsTruncated><NextContinuationToken>again</NextContinuationToken>", "repeated continuation token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, _ := url.Parse(srv.Endpoint)
			proxy := httputil.NewSingleHostReverseProxy(target)
			proxy.ModifyResponse = func(resp *http.Response) error {
				if resp.Request.URL.Query().Get("list-type") != "2" {
					return nil
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				body = truncated.ReplaceAll(body, []byte(tc.page))
				resp.Body = io.NopCloser(bytes.NewReader(body))
				resp.ContentLength = int64(len(body))
				resp.Header.Del("Content-Length")
				return nil
			}
			front := httptest.NewServer(proxy)
			t.Cleanup(front.Close)
			st, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL})
			if err != nil {
				t.Fatal(err)
			}
			got, err := st.List(ctx, "")
			if tc.want == "" {
				if err != nil || len(got) != 3 {
					t.Fatalf("List = %d objects, %v; want 3", len(got), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("List = %d objects, %v; want an error containing %q", len(got), err, tc.want)
			}
		})
	}
}

package open_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
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

// TestRepositoryStallTimeout: Options.StallTimeout reaches a web
// repository's client, the default one or one given: a body whose server
// stops sending fails instead of hanging.
func TestRepositoryStallTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	for _, client := range []*http.Client{nil, srv.Client()} {
		st, err := open.Repository(context.Background(), srv.URL+"/lake", open.Options{HTTPClient: client, StallTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rc, err := st.Open(ctx, "fdl.json")
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(rc)
		rc.Close()
		cancel()
		var se *store.StallError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "/lake/fdl.json") {
			t.Errorf("client %v: read %v, want a stall error naming the file", client, err)
		}
	}
}

// TestRepositoryErrorsName: a repository argument that opens no store is
// named in the error, as the user wrote it (before, "s3:///prefix" said
// only "s3: no bucket").
func TestRepositoryErrorsName(t *testing.T) {
	dir := t.TempDir()
	for _, arg := range []string{filepath.Join(dir, "missing"), "ftp://host/x", "s3:///prefix", "s3://bucket/../up"} {
		_, err := open.Repository(context.Background(), arg, open.Options{})
		if err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("Repository(%q) = %v, want an error naming %s", arg, err, arg)
		}
	}
}

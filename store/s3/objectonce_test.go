package s3_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// namedOnce fails t unless err names key exactly once, as name (the
// object where it is: s3://BUCKET/PREFIX/KEY at ENDPOINT) followed by
// ": ", and says cause.
func namedOnce(t *testing.T, what string, err error, key, name, cause string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	msg := err.Error()
	if strings.Count(msg, key) != 1 || !strings.Contains(msg, name+": ") || !strings.Contains(msg, cause) {
		t.Errorf("%s: %q, want %s named once and the cause %q", what, msg, name, cause)
	}
}

// TestObjectNamedOnce: the store's errors name the object where it is,
// once, with the server's cause: a missing object, a conditional create
// refused, a wrong secret, a write refused (the probe's), a ranged GET's
// ETag not the HEAD's, a listing that cannot reach the server. Before,
// the wrappers of create, the probe, the ETag check and the listing
// named it beside the store's own name for it ("create KEY: ...: stat
// s3://b/lake/KEY at EP: ...", "probe conditional writes on s3://b/lake
// at EP: ... (PutObject of KEY answered 403): create s3://b/lake/KEY at
// EP: ...", "read the end of KEY: ... (in s3://b/lake at EP)", "list
// s3://b/lake/versions/: ..." without the endpoint).
func TestObjectNamedOnce(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	name := func(key string) string { return "s3://" + bucket + "/lake/" + key + " at " + srv.Endpoint }
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const there = "there.bin"
	if err := st.Create(ctx, there, strings.NewReader("some bytes")); err != nil {
		t.Fatal(err)
	}

	t.Run("missing", func(t *testing.T) {
		const key = "missing.bin"
		_, err := st.Open(ctx, key)
		namedOnce(t, "open", err, key, name(key), "file does not exist")
		_, err = st.Stat(ctx, key)
		namedOnce(t, "stat", err, key, name(key), "file does not exist")
		_, _, err = st.ReadTail(ctx, key, 8)
		namedOnce(t, "read the end", err, key, name(key), "file does not exist")
	})

	t.Run("create conflict", func(t *testing.T) {
		err := st.Create(ctx, there, strings.NewReader("other bytes"))
		if !errors.Is(err, store.ErrExists) {
			t.Errorf("create of an object there = %v, want ErrExists", err)
		}
		namedOnce(t, "create", err, there, "create "+name(there), "object already exists")
	})

	t.Run("wrong secret", func(t *testing.T) {
		t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
		bad, err := s3.New(ctx, bucket, "lake", s3.Options{})
		if err != nil {
			t.Fatal(err)
		}
		const cause = "(403 SignatureDoesNotMatch)"
		_, err = bad.Open(ctx, there)
		namedOnce(t, "open", err, there, name(there), cause)
		_, err = bad.Stat(ctx, there)
		namedOnce(t, "stat", err, there, name(there), cause)
		_, err = bad.List(ctx, "versions/")
		namedOnce(t, "list", err, "versions/", name("versions/"), cause)
		err = bad.Create(ctx, "new.bin", strings.NewReader("x"))
		namedOnce(t, "create", err, "new.bin", name("new.bin"), cause)
	})

	t.Run("write refused", func(t *testing.T) {
		// Read-only credentials, as IAM answers them.
		target, _ := url.Parse(srv.Endpoint)
		rp := httputil.NewSingleHostReverseProxy(target)
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut {
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusForbidden)
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
				return
			}
			rp.ServeHTTP(w, r)
		}))
		defer front.Close()
		ro, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL})
		if err != nil {
			t.Fatal(err)
		}
		err = ro.Probe(ctx)
		if !errors.Is(err, store.ErrWriteDenied) {
			t.Errorf("probe = %v, want ErrWriteDenied", err)
		}
		probe := "s3://" + bucket + "/lake/" + s3.PrivatePrefix + "probe-"
		if msg := fmt0(err); strings.Count(msg, s3.PrivatePrefix+"probe-") != 1 || strings.Count(msg, "s3://") != 1 || strings.Count(msg, front.URL) != 1 ||
			!strings.Contains(msg, "probe conditional writes: create "+probe) || !strings.Contains(msg, " at "+front.URL+": ") || !strings.Contains(msg, "403 AccessDenied") {
			t.Errorf("probe = %q, want the probe object named once, where it is, and the server's 403 AccessDenied", msg)
		}
		err = ro.Create(ctx, "new.bin", strings.NewReader("x"))
		frontName := "s3://" + bucket + "/lake/new.bin at " + front.URL
		namedOnce(t, "create", err, "new.bin", frontName, "403 AccessDenied")
	})

	t.Run("ETag changed", func(t *testing.T) {
		const key = "big.bin"
		if err := st.Create(ctx, key, strings.NewReader(strings.Repeat("x", 100))); err != nil {
			t.Fatal(err)
		}
		target, _ := url.Parse(srv.Endpoint)
		rp := httputil.NewSingleHostReverseProxy(target)
		rp.ModifyResponse = func(resp *http.Response) error {
			if resp.Request.Header.Get("Range") != "" {
				resp.Header.Set("ETag", `"changed"`)
			}
			return nil
		}
		front := httptest.NewServer(rp)
		defer front.Close()
		changing, err := s3.New(ctx, bucket, "lake", s3.Options{Endpoint: front.URL})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = changing.ReadTail(ctx, key, 8)
		var e *store.ETagError
		if !errors.As(err, &e) || e.Key != key {
			t.Errorf("read the end = %v, want an *store.ETagError of %s", err, key)
		}
		namedOnce(t, "read the end", err, key, "read the end of s3://"+bucket+"/lake/"+key+" at "+front.URL, `"changed" by its ranged GET`)
		if strings.Count(fmt0(err), front.URL) != 1 {
			t.Errorf("read the end = %q, want the endpoint named once", err)
		}
	})

	t.Run("listing cut short", func(t *testing.T) {
		// A page that says the listing goes on, with no token to go on.
		cut := through(t, srv, bucket, func(resp *http.Response) error {
			if resp.Request.URL.Query().Get("list-type") != "2" {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			setBody(resp, []byte(strings.Replace(string(body), "<IsTruncated>false</IsTruncated>", "<IsTruncated>true</IsTruncated>", 1)))
			return nil
		})
		_, err := cut.List(ctx, "versions/")
		ep := strings.TrimPrefix(cut.Location(), "s3://"+bucket+"/lake at ")
		namedOnce(t, "list", err, "versions/", "list s3://"+bucket+"/lake/versions/ at "+ep, "gives no continuation token")
	})

	t.Run("listing unreachable", func(t *testing.T) {
		srv.Stop()
		defer srv.Restart()
		_, err := st.List(ctx, "versions/")
		namedOnce(t, "list", err, "versions/", "list "+name("versions/"), "cannot reach it")
	})
}

func fmt0(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

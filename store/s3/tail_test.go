package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
)

// through returns a store of s3://bucket/lake on srv through a proxy whose
// answers modify may change.
func through(t *testing.T, srv *s3test.Server, bucket string, modify func(*http.Response) error) *s3.Store {
	t.Helper()
	target, _ := url.Parse(srv.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = modify
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	st, err := s3.New(context.Background(), bucket, "lake", s3.Options{Endpoint: front.URL})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func setBody(resp *http.Response, body []byte) {
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
}

// TestReadTailAnswers: ReadTail holds the answers of an S3 server to what
// DuckDB's s3:// reads accept, and reads the bytes they hold. A ranged GET
// whose ETag is not the HEAD's once quotes are off (DuckDB fails the read:
// "ETag ... was initially ... and now it returned ..."), a 206 without a
// Content-Range (which bytes it holds cannot be told), and a 200 with the
// whole object for a range that is not all of it (DuckDB's s3:// reads do
// not fall back to a whole download) are errors; a 200 for a range that
// is the whole object must hold the HEAD's size. A HEAD without a
// Content-Length sizes the object by a GET of its first byte (it was read
// as 0 bytes: an empty tail, and every size check against 0).
func TestReadTailAnswers(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	direct, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 100_000) + "footPAR1"
	for k, v := range map[string]string{"big.parquet": big, "small.parquet": "PAR1"} {
		if err := direct.Create(ctx, k, strings.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	ranged := func(resp *http.Response) bool {
		return resp.Request.Method == http.MethodGet && resp.Request.Header.Get("Range") != ""
	}
	// whole answers a ranged GET with 200 and the object (plus extra).
	whole := func(extra string) func(*http.Response) error {
		return func(resp *http.Response) error {
			if !ranged(resp) {
				return nil
			}
			key := strings.TrimPrefix(resp.Request.URL.Path, "/"+bucket+"/lake/")
			b, err := store.ReadAll(ctx, direct, key)
			if err != nil {
				return err
			}
			resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
			resp.Header.Del("Content-Range")
			setBody(resp, append(b, extra...))
			return nil
		}
	}
	for _, tc := range []struct {
		name, key string
		modify    func(*http.Response) error
		want      string // the tail, or a phrase of the error
		ok        bool
	}{
		{"as sent", "big.parquet", nil, "footPAR1", true},
		{"the ETag changed", "big.parquet", func(resp *http.Response) error {
			if ranged(resp) {
				resp.Header.Set("ETag", `"0123456789abcdef0123456789abcdef"`)
			}
			return nil
		}, `/lake/big.parquet at http://127.0.0.1:`, false},
		{"the ETag unquoted by the GET", "big.parquet", func(resp *http.Response) error {
			if ranged(resp) {
				resp.Header.Set("ETag", strings.Trim(resp.Header.Get("ETag"), `"`))
			}
			return nil
		}, "footPAR1", true},
		{"206 without Content-Range", "big.parquet", func(resp *http.Response) error {
			if ranged(resp) {
				resp.Header.Del("Content-Range")
			}
			return nil
		}, "the ranged answer (HTTP 206) has no Content-Range", false},
		{"200 and the whole object", "big.parquet", whole(""), "the server ignored the range bytes=100000-100007 (200 and the whole object)", false},
		{"200 and the whole object, the range asked", "small.parquet", whole(""), "PAR1", true},
		{"200 and more than the object", "small.parquet", whole("x"), "the whole-object answer holds more than the 4 bytes", false},
		{"HEAD without Content-Length", "big.parquet", func(resp *http.Response) error {
			if resp.Request.Method == http.MethodHead {
				resp.Header.Del("Content-Length")
				resp.ContentLength = -1
			}
			return nil
		}, "footPAR1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := through(t, srv, bucket, tc.modify)
			tail, info, err := st.ReadTail(ctx, tc.key, 8)
			if !tc.ok {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("ReadTail = %q, %v; want an error containing %q", tail, err, tc.want)
				}
				return
			}
			want, _ := direct.Stat(ctx, tc.key)
			if err != nil || string(tail) != tc.want || info.Size != want.Size {
				t.Fatalf("ReadTail = %q, size %d, %v; want %q, size %d", tail, info.Size, err, tc.want, want.Size)
			}
			if got, err := st.Stat(ctx, tc.key); err != nil || got.Size != want.Size {
				t.Fatalf("Stat = size %d, %v; want %d", got.Size, err, want.Size)
			}
		})
	}
	t.Run("the ETag error names both", func(t *testing.T) {
		st := through(t, srv, bucket, func(resp *http.Response) error {
			if ranged(resp) {
				resp.Header.Set("ETag", `"changed"`)
			}
			return nil
		})
		head, _ := direct.Stat(ctx, "big.parquet")
		_, _, err := st.ReadTail(ctx, "big.parquet", 8)
		var e *store.ETagError
		if !errors.As(err, &e) || !errors.Is(err, store.ErrETagChanged) || e.Key != "big.parquet" || e.Get != `"changed"` || strings.Trim(e.Head, `"`) != head.ETag ||
			!strings.Contains(err.Error(), fmt.Sprintf(`read the end of s3://%s/lake/big.parquet at `, bucket)) || strings.Count(err.Error(), "big.parquet") != 1 ||
			!strings.Contains(err.Error(), fmt.Sprintf(`: ETag "%s" by its HEAD, "changed" by its ranged GET`, head.ETag)) {
			t.Fatalf("ReadTail = %v, want an *store.ETagError naming the object once, where it is, and both ETags", err)
		}
	})
}

// TestWrongRegion: a bucket in another region than the requests are signed
// for answers 301 PermanentRedirect (AWS names the bucket's region in
// x-amz-bucket-region). The error was the SDK's bare 301; it now names the
// bucket, both regions and what to set.
func TestWrongRegion(t *testing.T) {
	for _, tc := range []struct {
		name, region, want, hint string
	}{
		{"region named", "eu-west-3", "bucket lakes is in region eu-west-3, not us-east-1, the one this run uses (the server answered 301 PermanentRedirect): set AWS_REGION=eu-west-3", "export AWS_REGION=eu-west-3"},
		{"region not named", "", "bucket lakes is not in region us-east-1, the one this run uses (the server answered 301 PermanentRedirect without naming the bucket's region): set AWS_REGION to the bucket's region", "export AWS_REGION=<the bucket's region>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.region != "" {
					w.Header().Set("x-amz-bucket-region", tc.region)
				}
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(http.StatusMovedPermanently)
				if r.Method != http.MethodHead {
					io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Endpoint>lakes.s3.eu-west-3.amazonaws.com</Endpoint><Bucket>lakes</Bucket></Error>`)
				}
			}))
			t.Cleanup(srv.Close)
			for k, v := range s3test.Env(srv.URL) {
				t.Setenv(k, v) // test credentials, nothing of the machine's
			}
			ctx := context.Background()
			st, err := s3.New(ctx, "lakes", "lake", s3.Options{Region: "us-east-1"})
			if err != nil {
				t.Fatal(err)
			}
			_, serr := st.Stat(ctx, "fdl.json")
			_, lerr := st.List(ctx, "versions/")
			for op, err := range map[string]error{"Stat": serr, "List": lerr} {
				var re *s3.RegionError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) || re.Hint() != tc.hint {
					t.Errorf("%s = %v; want an *s3.RegionError containing %q, hint %q", op, err, tc.want, tc.hint)
				}
			}
		})
	}
}

// TestReadTailOf: the ranged GET of an object's end without a HeadObject,
// for an object this run described (a ReadTail of it): one request, held
// to that description as ReadTail holds its GET to its HEAD (the ETag,
// the object's size).
func TestReadTailOf(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	body := strings.Repeat("x", 100_000) + "footPAR1"
	var requests atomic.Int64
	st := through(t, srv, bucket, func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPut {
			requests.Add(1)
		}
		return nil
	})
	if err := st.Create(ctx, "f.parquet", strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	_, head, err := st.ReadTail(ctx, "f.parquet", 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		head store.ObjectInfo
		want string // the tail, or a phrase of the error
	}{
		{"the same object", head, "PAR1"},
		{"another ETag", store.ObjectInfo{Key: head.Key, Size: head.Size, ETag: "0123"}, "by its ranged GET"},
		{"another size", store.ObjectInfo{Key: head.Key, Size: head.Size - 10, ETag: head.ETag}, "is not the object's end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requests.Store(0)
			tail, info, kept, err := st.ReadTailOf(ctx, "f.parquet", 4, tc.head, nil)
			if requests.Load() != 1 || kept {
				t.Errorf("%d requests (kept %t), want the ranged GET alone", requests.Load(), kept)
			}
			if tc.want != "PAR1" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("ReadTailOf = %q, %v; want an error containing %q", tail, err, tc.want)
				}
				return
			}
			if err != nil || string(tail) != tc.want || info.Size != head.Size || info.ETag != head.ETag {
				t.Errorf("ReadTailOf = %q, %+v, %v; want %q of %+v", tail, info, err, tc.want, head)
			}
		})
	}
}

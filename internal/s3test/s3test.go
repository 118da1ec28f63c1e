// Package s3test starts a real S3 server for tests: versitygw (the Versity
// S3 Gateway, Apache-2.0) with its POSIX backend in a temporary folder,
// listening on 127.0.0.1 only. The binary is built once from the pinned
// module version with `go install` into the user cache folder (or taken from
// $FDL_VERSITYGW), so `go test` works on a fresh machine with the Go module
// proxy.
package s3test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/fdl-formats/fdl-formats/internal/testbin"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Module and Version pin the server.
const (
	Module  = "github.com/versity/versitygw/cmd/versitygw"
	Version = "v1.8.0"
)

// Credentials of the server's root user (test-only, local).
const (
	AccessKey = "fdltestaccess"
	SecretKey = "fdltestsecret-not-a-real-one"
	Region    = "us-east-1"
)

var buildOnce = sync.OnceValues(build)

// Binary returns the versitygw binary: $FDL_VERSITYGW, or the pinned
// version built into <user cache>/fdl-formats-test/versitygw-<Version>/.
func Binary() (string, error) { return buildOnce() }

func build() (string, error) {
	if p := os.Getenv("FDL_VERSITYGW"); p != "" {
		return p, nil
	}
	return testbin.Cached("versitygw-"+Version, "versitygw", func(dir string) error {
		goBin, err := exec.LookPath("go")
		if err != nil {
			return fmt.Errorf("build versitygw: no go command on PATH (or set FDL_VERSITYGW): %w", err)
		}
		cmd := exec.Command(goBin, "install", Module+"@"+Version)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off", "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s@%s: %w\n%s", Module, Version, err, out)
		}
		return nil
	})
}

// Server is a running versitygw.
type Server struct {
	// Endpoint is http://127.0.0.1:PORT.
	Endpoint string
	// Root is the POSIX backend's folder: one subfolder per bucket.
	Root string

	t    testing.TB
	bin  string
	addr string
	log  string
	mu   sync.Mutex
	cmd  *exec.Cmd
}

// Start builds (once) and starts a server on a free port of 127.0.0.1; it
// is stopped when the test ends. It sets the AWS_* environment variables of
// the test so that the SDK's default chain finds the server's credentials
// and nothing of the machine's own AWS configuration.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{Endpoint: "http://" + addr, Root: t.TempDir(), t: t, bin: bin, addr: addr, log: t.TempDir()}
	for k, v := range Env(s.Endpoint) {
		t.Setenv(k, v)
	}
	s.start()
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			if data, err := os.ReadFile(filepath.Join(s.log, "versitygw.log")); err == nil {
				t.Logf("versitygw log:\n%s", data)
			}
		}
	})
	return s
}

// Env is the environment a client of the server needs.
func Env(endpoint string) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":           AccessKey,
		"AWS_SECRET_ACCESS_KEY":       SecretKey,
		"AWS_SESSION_TOKEN":           "",
		"AWS_REGION":                  Region,
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_ENDPOINT_URL":            "",
		"AWS_ENDPOINT_URL_S3":         endpoint,
	}
}

func (s *Server) start() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, "--access", AccessKey, "--secret", SecretKey, "--region", Region,
		"--port", s.addr, "--quiet", "posix", s.Root)
	// Its chatter goes to a log beside the data, shown if the test fails.
	logf, err := os.OpenFile(filepath.Join(s.log, "versitygw.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start versitygw: %v", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			s.cmd.Process.Kill()
			s.t.Fatalf("versitygw did not listen on %s: %v", s.addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop kills the server (as a crash would); Restart starts it again on the
// same port and folder.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// Restart starts a stopped server again.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Client is an SDK client of the server, for test setup.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
}

// Bucket creates a bucket with a fresh name and returns the name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	name = strings.Trim(fmt.Sprintf("b%d-%s", time.Now().UnixNano()%1e9, name), "-")
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// Keys lists every object key of a bucket, as the server has them.
func (s *Server) Keys(t testing.TB, bucket string) []string {
	t.Helper()
	var keys []string
	pages := s3.NewListObjectsV2Paginator(s.Client(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list bucket %s: %v", bucket, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// Upload puts every file under dir into s3://bucket/prefix/ (keys are the
// files' paths relative to dir), for test setup.
func (s *Server) Upload(t testing.TB, dir, bucket, prefix string) {
	t.Helper()
	if err := s.UploadDir(context.Background(), dir, bucket, prefix); err != nil {
		t.Fatalf("upload %s to s3://%s/%s: %v", dir, bucket, prefix, err)
	}
}

// UploadDir is Upload returning its error (for benchmarks that run
// outside a test).
func (s *Server) UploadDir(ctx context.Context, dir, bucket, prefix string) error {
	client := s.Client()
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(prefix + "/" + filepath.ToSlash(rel)), Body: f})
		return err
	})
}

// PutMultipart puts body at key as a multipart upload of one part, whose
// ETag is "<MD5 of the part's MD5>-1", not the MD5 of the bytes as a single
// PUT's is: the same bytes under another ETag.
func PutMultipart(t testing.TB, c *s3.Client, bucket, key string, body []byte) {
	t.Helper()
	ctx := context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader(body)})
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{ETag: part.ETag, PartNumber: aws.Int32(1)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if etag := aws.ToString(done.ETag); !strings.HasSuffix(strings.Trim(etag, `"`), "-1") {
		t.Fatalf("multipart upload of %s: ETag %s, want one ending in -1", key, etag)
	}
}

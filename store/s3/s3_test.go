package s3_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/s3test"
	"github.com/fdl-formats/fdl-formats/store"
	"github.com/fdl-formats/fdl-formats/store/s3"
	"github.com/fdl-formats/fdl-formats/store/storetest"
)

func TestS3(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	n := 0
	storetest.Run(t, func(t *testing.T) store.Store {
		n++
		// Each store is a fresh prefix of one bucket, so List is scoped.
		st, err := s3.New(context.Background(), bucket, "repo"+strings.Repeat("x", n%3)+"/"+t.Name(), s3.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

func TestProbe(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	st, err := s3.New(ctx, bucket, "lake", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Probe(ctx); err != nil {
		t.Fatalf("Probe on versitygw: %v", err)
	}
	// The probe cleans up after itself.
	if keys := srv.Keys(t, bucket); len(keys) != 0 {
		t.Errorf("probe left %q behind", keys)
	}
}

func TestNoBucket(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	st, err := s3.New(ctx, "no-such-bucket", "x", s3.Options{Endpoint: srv.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, "k", strings.NewReader("x")); err == nil || errors.Is(err, store.ErrExists) {
		t.Errorf("Create in a missing bucket: %v, want an error", err)
	}
}

package storetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdl-formats/fdl-formats/store"
)

// StallCase is one read of a store whose server stops sending (see
// RunStallCases).
type StallCase struct {
	Name string
	// Op reads through the store (nil bytes for a listing).
	Op func(ctx context.Context) ([]byte, error)
	// Want is a phrase the stall error names (the object or folder); ""
	// when the read must succeed with the test's data.
	Want string
	// Within bounds how long giving up may take.
	Within time.Duration
	// Attempts is how many stalled answers the server should count (the
	// store's retries); 0 leaves it unchecked.
	Attempts int32
	// Says is what the stall error must say besides Want and the timeout;
	// "" means "stopped sending" (a response body; an upload's error
	// says "stopped reading the upload").
	Says string
}

// RunStallCases runs each case under a deadline far beyond the stall
// timeout d, so that a read that would hang fails the test: a case with a
// Want fails with a *store.StallError naming it, the timeout and its Says,
// within its bound and after its number of stalled answers
// (stalls, the server's count, reset before each case); a case without
// reads data in full, taking longer than d (a slow but steady body is
// never cut).
func RunStallCases(t *testing.T, d, deadline time.Duration, data []byte, stalls *atomic.Int32, cases []StallCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			stalls.Store(0)
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			got, err := tc.Op(ctx)
			took := time.Since(start)
			if tc.Want == "" {
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("after %v: %d bytes, %v; want the object's %d", took, len(got), err, len(data))
				}
				// Longer in all than the timeout: the timeout is not a
				// deadline of the whole answer.
				if took < d {
					t.Errorf("the slow body took only %v: not slower than the timeout", took)
				}
				return
			}
			t.Logf("after %v (%d stalled answers): %v", took, stalls.Load(), err)
			var se *store.StallError
			if !errors.As(err, &se) {
				t.Fatalf("after %v: %v, want a stall error", took, err)
			}
			if took > tc.Within {
				t.Errorf("the stall was given up on after %v (timeout %v)", took, d)
			}
			// A stall is a timeout, never the caller's cancellation (the
			// case's deadline is far beyond it).
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v: a stall is not the caller's cancellation", err)
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				t.Errorf("%v: not a timeout", err)
			}
			if n := stalls.Load(); tc.Attempts > 0 && n != tc.Attempts {
				t.Errorf("%d stalled answers, want %d", n, tc.Attempts)
			}
			says := tc.Says
			if says == "" {
				says = "stopped sending"
			}
			for _, want := range []string{tc.Want, says, d.String()} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// ReadAll gives a StallCase's Op that opens key in st and reads it whole.
func ReadAll(st store.Store, key string) func(ctx context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		rc, err := st.Open(ctx, key)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
}

// Package storetest is the conformance suite every store.Store passes.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/store"
)

// Run checks a store implementation. newStore returns an empty store.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	ctx := context.Background()

	t.Run("create_open_stat", func(t *testing.T) {
		s := newStore(t)
		mustCreate(t, s, "versions/a/version.json", "hello")
		if got := mustRead(t, s, "versions/a/version.json"); got != "hello" {
			t.Errorf("Open = %q, want %q", got, "hello")
		}
		info, err := s.Stat(ctx, "versions/a/version.json")
		if err != nil {
			t.Fatal(err)
		}
		if info.Key != "versions/a/version.json" || info.Size != 5 {
			t.Errorf("Stat = %+v, want key versions/a/version.json size 5", info)
		}
		// A store that describes what a read delivers describes it as
		// Stat does, while the object is unchanged (a cache binds the
		// read's validator to the bytes, and compares Stat's with it).
		if o, ok := s.(store.InfoOpener); ok {
			rc, got, err := o.OpenInfo(ctx, "versions/a/version.json")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || string(body) != "hello" {
				t.Errorf("OpenInfo read %q, %v; want %q", body, err, "hello")
			}
			if got.Key != info.Key || got.Size != info.Size || got.ETag != info.ETag || !got.ModTime.Equal(info.ModTime) {
				t.Errorf("OpenInfo describes %+v, Stat %+v", got, info)
			}
		}
		// A store that reads an object's end reads its last bytes (all
		// of them when the object is shorter) and describes the whole
		// object as Stat does.
		if tr, ok := s.(store.TailReader); ok {
			for _, tc := range []struct {
				n    int64
				want string
			}{{3, "llo"}, {5, "hello"}, {100, "hello"}} {
				tail, got, err := tr.ReadTail(ctx, "versions/a/version.json", tc.n)
				if err != nil {
					t.Fatalf("ReadTail(%d): %v", tc.n, err)
				}
				if string(tail) != tc.want || got.Size != info.Size || got.ETag != info.ETag || !got.ModTime.Equal(info.ModTime) {
					t.Errorf("ReadTail(%d) = %q, %+v; want %q, %+v", tc.n, tail, got, tc.want, info)
				}
			}
			if _, _, err := tr.ReadTail(ctx, "nope/x", 8); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadTail(missing) error = %v, want fs.ErrNotExist", err)
			}
		}
	})

	t.Run("empty_object", func(t *testing.T) {
		s := newStore(t)
		mustCreate(t, s, "empty", "")
		if got := mustRead(t, s, "empty"); got != "" {
			t.Errorf("Open = %q, want empty", got)
		}
	})

	t.Run("missing", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.Open(ctx, "nope/x"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(missing) error = %v, want fs.ErrNotExist", err)
		}
		if _, err := s.Stat(ctx, "nope/x"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(missing) error = %v, want fs.ErrNotExist", err)
		}
		mustCreate(t, s, "dir/file", "x")
		if _, err := s.Open(ctx, "dir"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(folder) error = %v, want fs.ErrNotExist", err)
		}
	})

	t.Run("never_overwrites", func(t *testing.T) {
		s := newStore(t)
		mustCreate(t, s, "k", "first")
		if err := s.Create(ctx, "k", strings.NewReader("second")); !errors.Is(err, store.ErrExists) {
			t.Fatalf("second Create error = %v, want ErrExists", err)
		}
		if got := mustRead(t, s, "k"); got != "first" {
			t.Errorf("after second Create, Open = %q, want %q", got, "first")
		}
	})

	t.Run("failing_reader_leaves_nothing", func(t *testing.T) {
		s := newStore(t)
		boom := errors.New("boom")
		r := io.MultiReader(strings.NewReader("partial"), errReader{boom})
		if err := s.Create(ctx, "versions/v/catalogs/1.0.duckdb", r); !errors.Is(err, boom) {
			t.Fatalf("Create error = %v, want it to wrap the reader's error", err)
		}
		assertAbsent(t, s, "versions/v/catalogs/1.0.duckdb")
		if list := mustList(t, s, ""); len(list) != 0 {
			t.Errorf("after a failed Create, List = %v, want nothing", keys(list))
		}
		mustCreate(t, s, "versions/v/catalogs/1.0.duckdb", "whole")
	})

	t.Run("canceled_context_leaves_nothing", func(t *testing.T) {
		s := newStore(t)
		cctx, cancel := context.WithCancel(ctx)
		r := &cancelingReader{cancel: cancel, data: []byte(strings.Repeat("x", 1<<16))}
		err := s.Create(cctx, "k", r)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Create error = %v, want context.Canceled", err)
		}
		assertAbsent(t, s, "k")
		if list := mustList(t, s, ""); len(list) != 0 {
			t.Errorf("after a canceled Create, List = %v, want nothing", keys(list))
		}
	})

	t.Run("list", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"versions/b/version.json", "fdl.json", "versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versionsx", "data/main/t/f.parquet"} {
			mustCreate(t, s, k, k)
		}
		for _, tc := range []struct {
			prefix string
			want   []string
		}{
			{"", []string{"data/main/t/f.parquet", "fdl.json", "versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b/version.json", "versionsx"}},
			{"versions/", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b/version.json"}},
			{"versions", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json", "versions/b/version.json", "versionsx"}},
			{"versions/a/", []string{"versions/a/catalogs/1.0.duckdb", "versions/a/version.json"}},
			{"versions/a/v", []string{"versions/a/version.json"}},
			{"nothing/", []string{}},
		} {
			got := keys(mustList(t, s, tc.prefix))
			if !slices.Equal(got, tc.want) {
				t.Errorf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
			}
		}
		for _, o := range mustList(t, s, "fdl.json") {
			if o.Size != int64(len("fdl.json")) {
				t.Errorf("List size of fdl.json = %d, want %d", o.Size, len("fdl.json"))
			}
		}
	})

	t.Run("invalid_keys", func(t *testing.T) {
		s := newStore(t)
		for _, k := range []string{"", "/abs", "../up", "a/../b", "a//b", "./a", "a/", `a\b`} {
			if err := s.Create(ctx, k, strings.NewReader("x")); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("Create(%q) error = %v, want ErrInvalidKey", k, err)
			}
			if _, err := s.Open(ctx, k); !errors.Is(err, store.ErrInvalidKey) {
				t.Errorf("Open(%q) error = %v, want ErrInvalidKey", k, err)
			}
		}
		if _, err := s.List(ctx, "../"); !errors.Is(err, store.ErrInvalidKey) {
			t.Errorf("List(../) error = %v, want ErrInvalidKey", err)
		}
	})

	t.Run("concurrent_create_one_winner", func(t *testing.T) {
		s := newStore(t)
		const n = 16
		for round := 0; round < 5; round++ {
			key := fmt.Sprintf("versions/v%d/catalogs/1.0.duckdb", round)
			var wg sync.WaitGroup
			errs := make([]error, n)
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					body := bytes.Repeat([]byte{byte('a' + i)}, 1<<15)
					errs[i] = s.Create(ctx, key, bytes.NewReader(body))
				}()
			}
			close(start)
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil:
					if winner >= 0 {
						t.Fatalf("round %d: writers %d and %d both created %s", round, winner, i, key)
					}
					winner = i
				case !errors.Is(err, store.ErrExists):
					t.Fatalf("round %d: writer %d: %v, want nil or ErrExists", round, i, err)
				}
			}
			if winner < 0 {
				t.Fatalf("round %d: no writer created %s", round, key)
			}
			want := strings.Repeat(string(rune('a'+winner)), 1<<15)
			if got := mustRead(t, s, key); got != want {
				t.Fatalf("round %d: content is not the winner's (%d bytes)", round, len(got))
			}
		}
		if got := len(mustList(t, s, "")); got != 5 {
			t.Errorf("List after concurrent creates has %d objects, want 5", got)
		}
	})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// cancelingReader cancels its context after the first read.
type cancelingReader struct {
	cancel func()
	data   []byte
	reads  int
}

func (r *cancelingReader) Read(p []byte) (int, error) {
	r.reads++
	if r.reads > 1 {
		r.cancel()
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1024)], r.data)
	r.data = r.data[n:]
	return n, nil
}

func mustCreate(t *testing.T, s store.Store, key, body string) {
	t.Helper()
	if err := s.Create(context.Background(), key, strings.NewReader(body)); err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
}

func mustRead(t *testing.T, s store.Store, key string) string {
	t.Helper()
	data, err := store.ReadAll(context.Background(), s, key)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(data)
}

func mustList(t *testing.T, s store.Store, prefix string) []store.ObjectInfo {
	t.Helper()
	list, err := s.List(context.Background(), prefix)
	if err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	return list
}

func assertAbsent(t *testing.T, s store.Store, key string) {
	t.Helper()
	if _, err := s.Stat(context.Background(), key); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(%q) error = %v, want fs.ErrNotExist", key, err)
	}
}

func keys(list []store.ObjectInfo) []string {
	out := []string{}
	for _, o := range list {
		out = append(out, o.Key)
	}
	return out
}

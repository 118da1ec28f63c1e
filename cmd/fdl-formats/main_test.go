package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestMain gives the tests a private cache folder, so that they never read
// or fill the user's own (~/.cache/fdl-formats), and removes the lakegen
// histories they copied (historyCopy) when they are done.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fdl-formats-cmd-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(cacheEnv, dir)
	code := m.Run()
	removeHistories()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The cache folder comes from --cache, else $FDL_FORMATS_CACHE, else the
// user cache folder; --no-cache turns it off, also when the variable is
// set, and is refused beside a --cache (one of the two was ignored).
func TestCacheRoot(t *testing.T) {
	env := t.TempDir()
	t.Setenv(cacheEnv, env)
	for _, tc := range []struct {
		args    []string
		want    string
		wantErr string // a usage error saying this
	}{
		{nil, env, ""},
		{[]string{"--cache", "/srv/cache"}, "/srv/cache", ""},
		{[]string{"--no-cache"}, "", ""},
		{[]string{"--no-cache=false", "--cache", "/srv/cache"}, "/srv/cache", ""},
		{[]string{"--cache", "/srv/cache", "--no-cache"}, "", `--cache "/srv/cache" and --no-cache contradict each other`},
		{[]string{"--no-cache", "--cache=" + env}, "", "--no-cache contradict"},
	} {
		var got string
		cmd := &cli.Command{Name: "x", Flags: cacheFlags(), Action: func(_ context.Context, c *cli.Command) error {
			var err error
			got, err = cacheRoot(c)
			return err
		}}
		err := cmd.Run(context.Background(), append([]string{"x"}, tc.args...))
		switch {
		case tc.wantErr != "":
			if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want a usage error saying %q", tc.args, err, tc.wantErr)
			}
		case err != nil:
			t.Fatalf("%v: %v", tc.args, err)
		case got != tc.want:
			t.Errorf("%v: cache folder %q, want %q", tc.args, got, tc.want)
		}
	}
}

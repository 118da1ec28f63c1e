//go:build !unix

package realduckdb

import "context"

// lockBuild does nothing where there are no file locks: concurrent test
// binaries may then build the same probe twice (testbin.Cached keeps
// either copy whole).
func lockBuild(ctx context.Context, folder string) (unlock func(), err error) {
	return func() {}, nil
}

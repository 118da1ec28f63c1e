package compare

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// bReadFailure is B's reader failing on a file A's catalog does not name:
// a data or delete file only B names that is not there. The operator has
// nothing to restore (A reads without it): B differs from A.
type bReadFailure struct{ err error }

func (e *bReadFailure) Error() string { return e.err.Error() }
func (e *bReadFailure) Unwrap() error { return e.err }

// onlyBNames says whether path, a file B's catalog names, is named by no
// row of A's catalog (compared relative to each side's data folder). Not
// knowing (A's files cannot be listed) is false: the failure stays one the
// operator may have to repair.
func (c *comparison) onlyBNames(path string) bool {
	if c.self {
		return false
	}
	if c.aNames == nil {
		files, err := c.a.StoredFiles(c.ctx)
		if err != nil {
			return false
		}
		c.aNames = make(map[string]bool, len(files))
		for _, f := range files {
			c.aNames[c.a.relPath(f.Path)] = true
		}
	}
	return !c.aNames[c.b.relPath(path)]
}

// bOnlyFailure says whether err, which stopped the comparison (or a read of
// B alone before it), is B's reader failing where A's reads: a value B's
// readers need that is NULL or names nothing (a column's unknown parent),
// a file only B names that does not exist. A's reader read the same item
// first (each step reads A, then B) or reads nothing of it. Kept as
// "could not compare": a failure naming A or both catalogs (or either
// catalog's path held in the other's), a file both name, any I/O error
// (a *fs.PathError other than a file only B names, DuckDB's "IO Error"),
// cancellation, DuckDB running out of memory or failing inside
// (environmental). It returns what failed in B.
func bOnlyFailure(err error, a, b string) (string, bool) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	msg := strings.TrimPrefix(err.Error(), ErrIncomparable.Error()+": ")
	var bf *bReadFailure
	if errors.As(err, &bf) {
		return msg, true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) || environmental(msg) {
		return "", false
	}
	if a == "" || b == "" || strings.Contains(a, b) || strings.Contains(b, a) {
		return "", false
	}
	if !strings.Contains(msg, b) || strings.Contains(msg, a) {
		return "", false
	}
	return msg, true
}

// bCannotBeRead is the difference and error for B failing where A reads.
func bCannotBeRead(rep *Report, a, b, what string) error {
	rep.Differences = append(rep.Differences, Difference{Kind: "catalog", Item: "B",
		Reason: "B cannot be read where A can: " + what})
	rep.Incomparable = ""
	if n := len(rep.Differences); n > 1 {
		return fmt.Errorf("%w: %s and %s: %d difference(s), first: %s; catalog: B cannot be read where A can: %s", ErrNotEquivalent, a, b, n, rep.Differences[0], what)
	}
	return fmt.Errorf("%w: %s and %s: catalog: B cannot be read where A can: %s", ErrNotEquivalent, a, b, what)
}

// environmentalErrors are DuckDB's error types that say nothing about the
// catalog's rows: the machine, a mount or DuckDB itself failed, and a
// retry or the operator may succeed.
var environmentalErrors = []string{"IO Error", "Out of Memory Error", "Interrupt Error", "Permission Error",
	"FATAL Error", "INTERNAL Error", "Internal Error", "Connection Error", "HTTP Error"}

func environmental(msg string) bool {
	for _, e := range environmentalErrors {
		if strings.Contains(msg, e) {
			return true
		}
	}
	return false
}

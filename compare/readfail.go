package compare

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
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

// catalogSide is the catalog a read was of.
type catalogSide int

const (
	sideA catalogSide = iota + 1
	sideB
)

// sideError is a failure of the read of one catalog, marked where the read
// happens: each step of the comparison knows which catalog it reads (it
// reads A, then B, item by item, or B first through bThenA) and marks what
// fails with that side. Its message is the failure's own: marking changes
// no text.
type sideError struct {
	side catalogSide
	err  error
}

func (e *sideError) Error() string { return e.err.Error() }
func (e *sideError) Unwrap() error { return e.err }

// onSide marks err as a failure of the read of catalog side; nil stays nil.
func onSide(side catalogSide, err error) error {
	if err == nil {
		return nil
	}
	return &sideError{side: side, err: err}
}

// markA and markB mark err as a failure of A's or of B's read.
func markA(err error) error { return onSide(sideA, err) }
func markB(err error) error { return onSide(sideB, err) }

// mark marks err as a failure of the read of r, one of the comparison's
// two readers (the steps that loop over both sides).
func (c *comparison) mark(r *Reader, err error) error {
	if r == c.b && r != c.a {
		return markB(err)
	}
	return markA(err)
}

// bothFailed is the same read failing alike in A and in B (the same
// message): its text is said once, where errors.Join printed it twice, on
// two lines that read as two failures; it unwraps to both sides' errors,
// so it marks both (failedSides) as errors.Join did.
type bothFailed struct{ a, b error }

func (e *bothFailed) Error() string   { return e.a.Error() + " (in A and in B alike)" }
func (e *bothFailed) Unwrap() []error { return []error{e.a, e.b} }

// bThenA marks errB, a failure of a read of B that no read of A's same
// item came before (a check of B alone, or one that reads B first), as B's;
// when the same read of A, readA (run only then: the common path asks
// nothing more), fails too, as both catalogs': neither can be read there,
// so it is not B failing where A reads. The message is B's failure's, then
// A's.
func bThenA(errB error, readA func() error) error {
	if errB == nil {
		return nil
	}
	if errA := readA(); errA != nil {
		return fmt.Errorf("%w; the same read of A fails too: %w", markB(errB), markA(errA))
	}
	return markB(errB)
}

// bTableNames is B's tableNames for a difference's text, read before A's
// (or without): a failure is both catalogs' when A's fails too (bThenA).
func (c *comparison) bTableNames() (map[int64]string, error) {
	names, err := c.b.tableNames(c.ctx)
	return names, bThenA(err, func() error {
		_, err := c.a.tableNames(c.ctx)
		return err
	})
}

// failedSides says which catalogs' reads err marks as failed, anywhere in
// its tree (an errors.Join of both sides' failures marks both).
func failedSides(err error) (a, b bool) {
	var walk func(error)
	walk = func(e error) {
		for e != nil {
			if s, ok := e.(*sideError); ok {
				a, b = a || s.side == sideA, b || s.side == sideB
			}
			switch u := e.(type) {
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					walk(x)
				}
				return
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			default:
				return
			}
		}
	}
	walk(err)
	return a, b
}

// bOnlyFailure says whether err, which stopped the comparison (or a read of
// B alone before it), is B's reader failing where A's reads: a value B's
// readers need that is NULL or names nothing (a column's unknown parent),
// a file only B names that does not exist. The side is a property of the
// error (sideError, set by the step that read): B's read failed and no
// read of A did (each step reads A, then B, so A's reader read the same
// item first, or reads nothing of it; one that reads B first tries A's
// same read when B's fails, bThenA). What the message says plays no
// part: a failure of A that quotes B's path, or one of B that does not
// name B, is told by its mark. Kept as "could not compare": a failure of
// A or of both, one no step marked (an invalid option, a failure before
// either catalog is read), a file both name, any I/O error (a
// *fs.PathError other than a file only B names, DuckDB's IO error),
// cancellation, DuckDB running out of memory or failing inside
// (environmental: by DuckDB's error type, not by a message that may quote
// B's values). It returns what failed in B.
func bOnlyFailure(err error) (string, bool) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "", false
	}
	if _, ok := errors.AsType[*gateError](err); ok {
		return "", false // the copies', not B's (ReadGate)
	}
	if a, b := failedSides(err); a || !b {
		return "", false
	}
	msg := strings.TrimPrefix(err.Error(), ErrIncomparable.Error()+": ")
	var bf *bReadFailure
	if errors.As(err, &bf) {
		return msg, true
	}
	var pe *fs.PathError
	if errors.As(err, &pe) || environmental(err) {
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

// environmentalTypes are DuckDB's error types that say nothing about the
// catalog's rows: the machine, a mount or DuckDB itself failed, and a
// retry or the operator may succeed.
var environmentalTypes = map[duckdb.ErrorType]bool{
	duckdb.ErrorTypeIO: true, duckdb.ErrorTypeOutOfMemory: true, duckdb.ErrorTypeInterrupt: true,
	duckdb.ErrorTypePermission: true, duckdb.ErrorTypeFatal: true, duckdb.ErrorTypeInternal: true,
	duckdb.ErrorTypeConnection: true, duckdb.ErrorTypeHTTP: true, duckdb.ErrorTypeNetwork: true,
}

// environmentalHeads are how DuckDB's messages of environmentalTypes
// begin ("IO Error: ..."), for the fallback of environmental.
var environmentalHeads = []string{"IO Error", "Out of Memory Error", "INTERRUPT Error", "Interrupt Error", "Permission Error",
	"FATAL Error", "INTERNAL Error", "Internal Error", "Connection Error", "HTTP Error", "Network Error"}

// environmental says whether err is a failure of the machine or of DuckDB
// itself (environmentalTypes), told by the type DuckDB gives it: the
// driver's *duckdb.Error, which every step keeps in the chain (%w). Its
// text may quote B's values and paths (a column or folder named "IO
// Error"), which say nothing about what failed.
func environmental(err error) bool {
	var de *duckdb.Error
	if errors.As(err, &de) {
		if de.Type != duckdb.ErrorTypeInvalid {
			return environmentalTypes[de.Type]
		}
		// ErrorTypeInvalid is also the driver's answer when it finds no
		// type it knows at the head of DuckDB's message: read that head
		// (the driver's table spells some types in one letter case only).
		return environmentalHead(de.Msg)
	}
	// No DuckDB error in the chain: our own and Go's failures, told by
	// their types (a *fs.PathError, cancellation) before this. The text is
	// a fallback for DuckDB's message reaching us as text only (an error
	// rebuilt from a message, by a step of ours or of a library); none of
	// compare's steps does so today. Only where a DuckDB message would
	// begin, at the start or after ": ", not a value quoted within one
	// ("column 2 (IO Error) has unknown parent").
	msg := err.Error()
	for _, h := range environmentalHeads {
		if strings.Contains(msg, ": "+h+": ") {
			return true
		}
	}
	return environmentalHead(msg)
}

// environmentalHead says whether msg begins as DuckDB's messages of
// environmentalTypes do.
func environmentalHead(msg string) bool {
	for _, h := range environmentalHeads {
		if strings.HasPrefix(msg, h+": ") {
			return true
		}
	}
	return false
}

// Environmental says whether err is a failure of the machine or of DuckDB
// itself (an IO error, permissions, out of memory, interrupted, failing
// inside, a connection), told by the type DuckDB gives it, not by a text
// that may quote the catalog's values: a retry, or another machine, may
// read the same bytes. A corrupt block's IO error is one too: its caller
// tells the bytes' faults first.
func Environmental(err error) bool { return environmental(err) }

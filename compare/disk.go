package compare

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// DiskCheck verifies data and delete files against what a catalog records
// for them: the size on disk (file_size_bytes) and, where recorded, the
// footer size (footer_size: a Parquet file's footer metadata length, stored
// in its last 8 bytes; a Puffin container's whole footer, magic included).
// Both catalogs of a proof append the same on-disk file, so only this
// check, against the catalog's own record, sees a file rewritten behind the
// catalog's back. Each (path, size, footer) is checked once and remembered,
// so one DiskCheck can serve a whole run; it is safe for concurrent use.
type DiskCheck struct {
	mu   sync.Mutex
	done map[diskKey]diskResult
}

type diskKey struct {
	path   string
	size   int64
	footer int64 // -1: not recorded
	format string
}

type diskResult struct {
	problem string
	err     error
}

// NewDiskCheck returns an empty DiskCheck.
func NewDiskCheck() *DiskCheck { return &DiskCheck{done: map[diskKey]diskResult{}} }

// Check compares one file with its catalog record. It returns "" when they
// agree, a description of the disagreement, or an error wrapping
// ErrIncomparable when the file is missing or cannot be read (the operator
// can restore it). Remote paths are not checked.
func (d *DiskCheck) Check(path string, size int64, footer *int64, format string) (string, error) {
	k := diskKey{path: path, size: size, footer: -1, format: format}
	if footer != nil && *footer > 0 { // 0: not recorded (bare deletion vectors)
		k.footer = *footer
	}
	d.mu.Lock()
	res, ok := d.done[k]
	d.mu.Unlock()
	if ok {
		return res.problem, res.err
	}
	res.problem, res.err = checkOnDisk(k)
	d.mu.Lock()
	d.done[k] = res
	d.mu.Unlock()
	return res.problem, res.err
}

func checkOnDisk(k diskKey) (string, error) {
	if strings.Contains(k.path, "://") {
		return "", nil
	}
	// Stat before opening: open(2) of a FIFO blocks until a writer comes
	// (and a folder opens, then has no footer to read).
	if st, err := os.Stat(k.path); err == nil && !st.Mode().IsRegular() {
		return fmt.Sprintf("%s is not a regular file (%s)", oneline.Name(k.path), st.Mode().Type()), nil
	}
	f, err := os.Open(k.path)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrIncomparable, namedPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrIncomparable, namedPath(err))
	}
	if st.Size() != k.size {
		return fmt.Sprintf("%s is %d bytes on disk, the catalog records %d", oneline.Name(k.path), st.Size(), k.size), nil
	}
	if k.footer < 0 {
		return "", nil
	}
	got, err := footerSize(f, st.Size(), k.format)
	var unreadable *readError
	if errors.As(err, &unreadable) {
		// An I/O error (a failing disk or mount) says nothing about the
		// file's bytes: the operator can restore it, it is no difference.
		return "", fmt.Errorf("%w: read the footer of %s: %w", ErrIncomparable, oneline.Name(k.path), unreadable.err)
	}
	if err != nil {
		return fmt.Sprintf("%s: the catalog records a %d-byte footer, the file has none readable: %v", oneline.Name(k.path), k.footer, err), nil
	}
	if got != k.footer {
		return fmt.Sprintf("%s has a %d-byte footer, the catalog records %d", oneline.Name(k.path), got, k.footer), nil
	}
	return "", nil
}

// shownPathError is an *fs.PathError whose message names its path as
// oneline.Name does (Go-quoted where it holds a line break or another
// control character): a data file's path is the catalog's text, and the
// message of an error reaches a report line, which a raw line break in
// it would cut. errors.As still finds the *fs.PathError (Unwrap).
type shownPathError struct{ pe *fs.PathError }

func (e *shownPathError) Error() string {
	return e.pe.Op + " " + oneline.Name(e.pe.Path) + ": " + e.pe.Err.Error()
}

func (e *shownPathError) Unwrap() error { return e.pe }

// namedPath is err with its *fs.PathError, when it is one, named as
// shownPathError names it.
func namedPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &shownPathError{pe}
	}
	return err
}

// readError is footerSize's failure to read the file at all, as opposed to
// bytes that hold no footer.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// footerSize reads a file's footer size as DuckLake records it.
func footerSize(f io.ReaderAt, size int64, format string) (int64, error) {
	if size < 12 {
		return 0, fmt.Errorf("%d bytes is too short for a footer", size)
	}
	tail := make([]byte, 12)
	if _, err := f.ReadAt(tail, size-12); err != nil {
		return 0, &readError{err}
	}
	switch format {
	case "puffin":
		if !bytes.Equal(tail[8:], puffinMagic) {
			return 0, fmt.Errorf("no Puffin footer magic")
		}
		// magic, payload, payload size, flags, magic
		return int64(binary.LittleEndian.Uint32(tail[0:4])) + 16, nil
	default:
		// Plain (PAR1) or encrypted-footer (PARE) Parquet.
		if m := string(tail[8:]); m != "PAR1" && m != "PARE" {
			return 0, fmt.Errorf("no Parquet footer magic")
		}
		return int64(binary.LittleEndian.Uint32(tail[4:8])), nil
	}
}

// CheckFiles checks every data and delete file the catalog references at
// any of its snapshots against the catalog's record of it (see DiskCheck)
// and returns the disagreements, each naming the file. A missing or
// unreadable file is an error wrapping ErrIncomparable.
func (r *Reader) CheckFiles(ctx context.Context, d *DiskCheck) ([]string, error) {
	snaps, err := r.Snapshots(ctx)
	if err != nil {
		return nil, err
	}
	var problems []string
	check := func(what, path string, size int64, footer *int64, format string) error {
		problem, err := d.Check(path, size, footer, format)
		if err != nil {
			return fmt.Errorf("%s %s of catalog %s: %w", what, oneline.Name(path), oneline.Name(r.path), err)
		}
		if problem != "" && !slices.Contains(problems, problem) {
			problems = append(problems, problem)
		}
		return nil
	}
	for _, s := range snaps {
		tables, err := r.Tables(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			files, err := r.files(ctx, t, s.ID)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				if err := check("data file", f.Path, f.SizeBytes, f.FooterSize, "parquet"); err != nil {
					return nil, err
				}
				if x := f.Delete; x != nil {
					if err := check("delete file", x.Path, x.SizeBytes, x.FooterSize, x.Format); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return problems, nil
}

// FileFooterSize reads the footer size of the data or delete file at path
// as DuckLake records it (footer_size): a Parquet file's footer metadata
// length, a Puffin container's whole footer (format "puffin"). A file
// that cannot be read is an error wrapping ErrIncomparable; one whose
// last bytes hold no footer, another error.
func FileFooterSize(path, format string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrIncomparable, err)
	}
	n, err := footerSize(f, st.Size(), format)
	var unreadable *readError
	if errors.As(err, &unreadable) {
		return 0, fmt.Errorf("%w: read the footer of %s: %w", ErrIncomparable, path, unreadable.err)
	}
	return n, err
}

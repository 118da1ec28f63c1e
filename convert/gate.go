package convert

import (
	"context"
	"errors"
	"io/fs"
	"os"
)

// A ReadGate makes data and delete files readable just before a check or
// rewrite reads their bytes: a remote repository's data cache holds a
// copy reused from a restored cache to the bytes the store delivered only
// when something is about to read it, so that a conversion reads again
// only the copies its checks read. It has the shape of compare.ReadGate
// (convert and compare do not import each other).
type ReadGate interface {
	// Readable is called with the local paths of the files a read is
	// about to open; its error fails the read.
	Readable(ctx context.Context, paths []string) error
	// Ready reports whether the file at path may be read as it is. A
	// footer check takes a stand-in (Options.Footers) for one that is not,
	// instead of making the whole copy readable.
	Ready(path string) bool
}

// readable lets Options.Gate make the files at paths readable before a
// read opens them; with no gate, nothing is asked.
func (r *run) readable(paths ...string) error {
	if r.opts.Gate == nil || len(paths) == 0 {
		return nil
	}
	return r.opts.Gate.Readable(r.ctx, paths)
}

// ready reports whether the file at path may be read without the gate.
func (r *run) ready(path string) bool {
	return r.opts.Gate == nil || r.opts.Gate.Ready(path)
}

// present makes the data or delete file at local (under DataPath) present
// before a check or rewrite reads its rows, where the data folder lacks it
// and Options.Footers fetches it (a remote repository's data cache, which
// downloads before a conversion's check only what every check reads, not
// its Parquet delete files), then readable through the gate.
func (r *run) present(local string) error {
	if r.opts.Footers != nil {
		if _, err := os.Stat(local); errors.Is(err, fs.ErrNotExist) {
			return r.opts.Footers.Fetch(r.ctx, local)
		}
	}
	return r.readable(local)
}

// presentOrMissing is present for a rewrite's read of a delete file's
// rows, except that a file the store lacks (Options.Footers' Fetch finds
// no such object) is left as a local run leaves one its data folder
// lacks: the read that follows fails as it does there (a rewrite that
// cannot read it is refused; the proof reports the file), or nothing
// reads it. Any other failure to fetch fails the run.
func (r *run) presentOrMissing(local string) error {
	err := r.present(local)
	if errors.Is(err, fs.ErrNotExist) && r.ctx.Err() == nil {
		return nil
	}
	return err
}

// schemaPath is the file a check reads the columns of the Parquet file at
// local from (DESCRIBE, never rows): the file itself where the data folder
// holds it ready, else its footer's stand-in from Options.Footers (a
// remote repository's cache reads a delete file's footer, not the file);
// an encrypted file's (key) is made present whole. "" for a file that is
// not there (the proof reports it).
func (r *run) schemaPath(local, key string) (string, error) {
	if key != "" {
		if _, err := os.Stat(local); err != nil && r.opts.Footers == nil {
			return "", nil
		}
		if err := r.present(local); err != nil {
			return "", err
		}
		return local, nil
	}
	paths, err := r.footerPaths([]string{local})
	if err != nil {
		return "", err
	}
	return paths[local], nil
}

package convert

import "context"

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

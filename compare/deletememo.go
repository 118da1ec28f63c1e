package compare

import (
	"os"
	"strings"
	"sync"

	"github.com/fdl-formats/fdl-formats/internal/fileid"
)

// maxRunDeletes caps the values (positions, and the snapshots of partial
// deletion files) a Deletes holds: 8 MB. Past it, delete files are read
// by each comparison as without one.
const maxRunDeletes = 1 << 20

// Deletes keeps the Parquet delete files that the proofs of a run parsed
// (Options.Deletes), so that a delete file named by many catalogs (every
// version of a repository names its predecessors' files) is read once per
// run, not once per proof. A file is known by its identity on disk: path,
// size and modification time (and the key that decrypts it), taken before
// it was read and unchanged after, so that a file rewritten in place, or
// another repository's file at the same path, is read again; the catalog's
// delete-file id names neither. Remote files, which have no such
// identity, are not kept. It is safe for concurrent comparisons.
type Deletes struct {
	mu     sync.Mutex
	files  map[deleteID]rawDeletes
	byPath map[string]deleteID // the identity kept for each path
	held   int                 // values held
	cap    int                 // maxRunDeletes (tests lower it)
}

// NewDeletes returns an empty Deletes; share it across the proofs of a run.
func NewDeletes() *Deletes {
	return &Deletes{files: map[deleteID]rawDeletes{}, byPath: map[string]deleteID{}, cap: maxRunDeletes}
}

// deleteID is a local delete file's identity.
type deleteID struct {
	path, key string
	stamp     string // fileid.Stamp: size, modification and change time, device, inode
}

// deleteIDOf stats a delete file with stat (os.Stat; key: the one that
// decrypts it, "" if none); ok is false for a remote file or one that
// cannot be stat'ed (reading it reports why).
func deleteIDOf(stat func(string) (os.FileInfo, error), path, key string) (deleteID, bool) {
	if strings.Contains(path, "://") {
		return deleteID{}, false
	}
	st, err := stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return deleteID{}, false
	}
	return deleteID{path: path, key: key, stamp: fileid.Stamp(st)}, true
}

func (d *Deletes) get(id deleteID) (rawDeletes, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	raw, ok := d.files[id]
	return raw, ok
}

// put keeps a file's content read under identity id, replacing what the
// same path held under another identity, unless that passes the cap.
func (d *Deletes) put(id deleteID, raw rawDeletes) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.byPath[id.path]; ok {
		d.held -= rawSize(d.files[old])
		delete(d.files, old)
		delete(d.byPath, id.path)
	}
	n := rawSize(raw)
	if d.held+n > d.cap {
		return
	}
	d.files[id], d.byPath[id.path] = raw, id
	d.held += n
}

// rawSize is what raw holds, in 8-byte values.
func rawSize(raw rawDeletes) int {
	return len(raw.pos) + len(raw.snaps) + len(raw.at) + (len(raw.rank)+7)/8
}

// DeleteFileStats counts how a comparison obtained its Parquet delete
// files (each file once per comparison).
type DeleteFileStats struct {
	// Read: files read from disk.
	Read int `json:"read"`
	// Shared: files another proof of the run had read (Options.Deletes).
	Shared int `json:"shared"`
}

package compare

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/fdl-formats/fdl-formats/internal/parquetfooter"
)

// A ReadGate makes data and delete files readable just before a reader
// reads their bytes. A remote repository's data cache (repo) is one: a
// copy reused from a restored cache is held to the bytes the store
// delivered only when something is about to read it, so that a run reads
// again only the copies its proofs read (docs/compare.md, "A store's
// mirror").
type ReadGate interface {
	// Readable is called with the local paths of the files a read is
	// about to open, before it reads any of their bytes (other than the
	// last 12 that a footer size check reads, DiskCheck); its error fails
	// the read. nil stands for every file the reader may read, where a
	// read cannot name its files cheaply. It must be cheap for files
	// already readable: reads call it every time.
	Readable(ctx context.Context, paths []string) error
	// Ready reports whether the file at path may be read as it is. A read
	// ahead (other files' schemas or delete files in one query, before
	// anyone asks for them) takes only such files, so that it makes no
	// file readable that no read asked for.
	Ready(path string) bool
}

// readable lets r's gate (ReaderOptions.Gate, Options.Gate) make the
// files at paths readable; with none given, nothing is asked.
func (r *Reader) readable(ctx context.Context, paths ...string) error {
	if r.gate == nil || len(paths) == 0 {
		return nil
	}
	return gateFailed(r.gate.Readable(ctx, paths))
}

// readableAll lets r's gate make every file readable, for a read that
// cannot name its files (a query over a table's rows, the ducklake
// extension's reads).
func (r *Reader) readableAll(ctx context.Context) error {
	if r.gate == nil {
		return nil
	}
	return gateFailed(r.gate.Readable(ctx, nil))
}

// gateError is a gate's failure to make files readable (a copy that could
// not be downloaded again): the files', never a catalog's, whichever
// side's read asked first (bOnlyFailure).
type gateError struct{ err error }

func (e *gateError) Error() string { return e.err.Error() }
func (e *gateError) Unwrap() error { return e.err }

func gateFailed(err error) error {
	if err == nil {
		return nil
	}
	return &gateError{err}
}

// ready reports whether a read ahead may take the file at path (ReadGate.Ready).
func (r *Reader) ready(path string) bool {
	return r.gate == nil || r.gate.Ready(path)
}

// setGate gives r the gate g, when set: a Source's reader, opened by a
// caller without one, is gated by the comparisons that use it.
func (r *Reader) setGate(g ReadGate) {
	if r != nil && g != nil {
		r.gate = g
	}
}

// What a file's bytes alone tell (its Parquet schema, its footer quirk
// hits) is kept in the digest cache for a copy in a store's mirror named
// by its object (Mirror.Identity): a proof of a new version builds the
// plan keys of every file its snapshots show, from their schemas, and
// checks their footers, and a restored cache then answers without
// reading the copies again (ReadGate). The footer hits' kind names the
// footer quirks read (v2: variant-shredded-decimal2,
// variant-shredded-blob-as-base64 and decimal-wide-in-int32-int64 too; v3:
// decimal-byte-array-empty-value and delta-byte-array-not-string too), so
// that hits kept before a quirk
// was modelled are read again.
const (
	keptSchemaKind = "fdl-formats mirrored parquet schema v1"
	keptFooterKind = "fdl-formats mirrored footer quirk hits v3"
)

// mirroredKey is the digest cache's key of kind for the copy at path, ""
// for a file no mirror names by its object (it is read as before).
func mirroredKey(l *Listings, kind, path string) string {
	m := l.mirrorHolding(path)
	if m == nil {
		return ""
	}
	obj, _ := m.Identity(path)
	if obj == "" {
		return ""
	}
	return BuildKey(kind, obj)
}

// keptFact decodes what store keeps under kind for the copy at path, and
// returns the key it looked under ("" for none): what a read of the copy
// that follows is kept under (keepFactAs).
func keptFact(store DigestStore, l *Listings, kind, path string, v any) (key string, ok bool) {
	if store == nil {
		return "", false
	}
	key = mirroredKey(l, kind, path)
	if key == "" {
		return "", false
	}
	b, ok := store.Get(key)
	return key, ok && json.Unmarshal(b, v) == nil
}

// keepFactAs keeps v, read from the copy at path, under before: the key
// of kind for the copy as it was before the read (keptFact). It is kept
// only while the copy is still that one: a copy replaced while it was read
// (another run sharing the cache downloaded it again) may have given the
// old copy's bytes or the new one's, and its fact is the run's alone. A
// cache that cannot be written only costs a read next run.
func keepFactAs(store DigestStore, l *Listings, kind, path, before string, v any) {
	if store == nil || before == "" || mirroredKey(l, kind, path) != before {
		return
	}
	if b, err := json.Marshal(v); err == nil {
		_ = store.Put(before, b)
	}
}

// schemaJSON is a pnode as the digest cache keeps it.
type schemaJSON struct {
	Name     string        `json:"name"`
	FieldID  *int64        `json:"field_id,omitempty"`
	Kind     string        `json:"kind"`
	DuckType string        `json:"duck_type,omitempty"`
	Repeated bool          `json:"repeated,omitempty"`
	Annot    string        `json:"annot,omitempty"`
	Children []*schemaJSON `json:"children,omitempty"`
}

func toSchemaJSON(n *pnode) *schemaJSON {
	j := &schemaJSON{Name: n.Name, FieldID: n.FieldID, Kind: n.Kind, DuckType: n.DuckType, Repeated: n.repeated, Annot: n.annot}
	for _, c := range n.Children {
		j.Children = append(j.Children, toSchemaJSON(c))
	}
	return j
}

func (j *schemaJSON) node() *pnode {
	n := &pnode{Name: j.Name, FieldID: j.FieldID, Kind: j.Kind, DuckType: j.DuckType, repeated: j.Repeated, annot: j.Annot}
	if len(j.Children) > 0 {
		children := make([]*pnode, len(j.Children))
		for i, c := range j.Children {
			children[i] = c.node()
		}
		n.setChildren(children)
	}
	return n
}

// keptSchema is the Parquet schema kept for the copy at path; before is
// the key it was looked for under, which a read of the copy is kept under
// (keepSchema).
func (r *Reader) keptSchema(path string) (n *pnode, before string, ok bool) {
	var j schemaJSON
	if r.memo == nil {
		return nil, "", false
	}
	before, ok = keptFact(r.memo.store, r.listings, keptSchemaKind, path, &j)
	if !ok || j.Kind == "" {
		return nil, before, false
	}
	return j.node(), before, true
}

// keepSchema keeps the Parquet schema just read from the copy at path
// under before, its key before the read (keepFactAs), and for the run
// under runKey, its schemaRunKey before the read (keepRunSchema).
func (r *Reader) keepSchema(path, before, runKey string, n *pnode) {
	if r.memo != nil {
		r.memo.afterRead(path)
		keepFactAs(r.memo.store, r.listings, keptSchemaKind, path, before, toSchemaJSON(n))
		r.keepRunSchema(path, runKey, n)
	}
}

// afterRead runs the test hook readHook, when set, for the copy at path.
func (d *Digests) afterRead(path string) {
	if d != nil && d.readHook != nil {
		d.readHook(path)
	}
}

// keptFooterHits are the footer quirk hits the digest cache keeps for the
// copy at path (footerQuirkDifferences); before is the key they were
// looked for under, which a read of the copy is kept under (keepFactAs).
func (d *Digests) keptFooterHits(l *Listings, path string) (hits []parquetfooter.Hit, before string, ok bool) {
	if d == nil {
		return nil, "", false
	}
	hits = []parquetfooter.Hit{}
	if before, ok = keptFact(d.store, l, keptFooterKind, path, &hits); !ok {
		return nil, before, false
	}
	return hits, before, true
}

// footerRunKey names a data file's footer quirk hits for the run
// (Digests.footers): its path, size and copy (copyIdentity), so that a
// copy replaced during the run (another run sharing the cache downloaded
// it again) is read again rather than answered with the old copy's hits.
func footerRunKey(l *Listings, path string, size int64) string {
	c, _ := copyIdentity(path, l) // none: the read fails and says why
	return fmt.Sprintf("%s\x00%d\x00%s", path, size, c)
}

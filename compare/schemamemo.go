package compare

import (
	"strconv"
	"strings"
)

// Every version of a repository names the data files of the versions
// before it, and each version's reader asked DuckDB for the Parquet schema
// of every file it plans (parquet_schema), so a check reading many
// versions read the same schemas again at every version (docs/repository.md,
// "Carrying an earlier self-read"). A schema is a fact of the file's bytes
// alone: the run keeps it (Digests.schemas) under the file's path and copy
// identity (copyIdentity: its stat on disk, or the object a store's mirror
// names it by), taken before the read and kept only while the copy is
// still that one after it, as keepFactAs keeps it in the digest cache
// (identity.go). A later reader finds it while the file is still that
// copy; a copy replaced since (rewritten in place, downloaded again) is
// read again. A remote file read directly (a URL) has no copy identity
// and is read by each reader, as before.

// maxRunSchemaNodes caps the schema nodes a run keeps (distinct trees
// counted once: the files of one table mostly share one): past it, a
// schema not kept yet is read by each reader, as without the memo.
const maxRunSchemaNodes = 1 << 20

// schemaRunKey names the copy at path for the run's schema memo; ok is
// false for a file with no copy identity (a URL, or one that cannot be
// stat'ed: its read says why).
func schemaRunKey(l *Listings, path string) (key string, ok bool) {
	if strings.Contains(path, "://") {
		return "", false
	}
	c, err := copyIdentity(path, l)
	if err != nil {
		return "", false
	}
	return path + "\x00" + c, true
}

// runSchema returns the schema the run kept for the copy at path as it is
// now (schemaRunKey).
func (r *Reader) runSchema(path string) (*pnode, bool) {
	d := r.runDigests()
	if d == nil {
		return nil, false
	}
	key, ok := schemaRunKey(r.listings, path)
	if !ok {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := d.schemas[key]
	return n, ok
}

// keepRunSchema keeps n, read from the copy at path, for the run under
// before, the copy's schemaRunKey taken before the read: only while the
// copy is still that one ("" keeps nothing). A tree equal to one already
// kept is kept once.
func (r *Reader) keepRunSchema(path, before string, n *pnode) {
	d := r.runDigests()
	if d == nil || before == "" {
		return
	}
	if now, ok := schemaRunKey(r.listings, path); !ok || now != before {
		return
	}
	sig := schemaSignature(n)
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.schemas[before]; ok {
		return
	}
	if same, ok := d.schemaTrees[sig]; ok {
		d.schemas[before] = same
		return
	}
	size := schemaNodeCount(n)
	if d.schemaNodes+size > d.schemaCap {
		return
	}
	if d.schemaTrees == nil {
		d.schemaTrees = map[string]*pnode{}
	}
	d.schemaTrees[sig], d.schemas[before] = n, n
	d.schemaNodes += size
}

// schemaNodeCount is the number of nodes of the tree n.
func schemaNodeCount(n *pnode) int {
	c := 1
	for _, ch := range n.Children {
		c += schemaNodeCount(ch)
	}
	return c
}

// schemaSignature writes out every field of the tree n, so that two trees
// with one signature are equal.
func schemaSignature(n *pnode) string {
	var b strings.Builder
	var walk func(n *pnode)
	walk = func(n *pnode) {
		b.WriteString(strconv.Quote(n.Name))
		if n.FieldID != nil {
			b.WriteString(" id ")
			b.WriteString(strconv.FormatInt(*n.FieldID, 10))
		}
		b.WriteString(" " + strconv.Quote(n.Kind) + " " + strconv.Quote(n.DuckType) + " " + strconv.Quote(n.annot))
		if n.repeated {
			b.WriteString(" repeated")
		}
		b.WriteString(" (")
		for _, c := range n.Children {
			walk(c)
		}
		b.WriteString(")")
	}
	walk(n)
	return b.String()
}

// runDigests is the Digests r's reads are kept in (nil: none).
func (r *Reader) runDigests() *Digests {
	if r.memo == nil {
		return nil
	}
	return r.memo.Digests
}

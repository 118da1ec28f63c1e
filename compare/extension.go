package compare

import (
	"fmt"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// extension loads DuckDB's ducklake extension when the local DuckDB has it,
// attaching each catalog whose format this DuckDB opens natively. Without
// it our reader alone decides, and the report says so.
func (c *comparison) extension() {
	loaded := true
	for _, r := range []*Reader{c.a, c.b} {
		// Never download during a proof: only an installed extension
		// counts (every reader's database starts with autoinstall off,
		// duckpool.Open). Its database loaded it, where installed, before
		// its sandbox closed (duckpool.OpenWithin, ReaderOptions.reach):
		// a sandboxed database loads no extension, and the LOAD here only
		// finds it loaded. Where it failed, the note gives that LOAD's
		// error, not the sandbox's refusal.
		if _, err := r.conn.ExecContext(c.ctx, "LOAD ducklake"); err != nil {
			if first := r.loads["ducklake"]; first != nil {
				err = first
			}
			c.rep.ReaderNotes = append(c.rep.ReaderNotes, fmt.Sprintf("%s not used: LOAD ducklake failed: %s", ReaderExtension, oneline.First(err.Error())))
			return
		}
	}
	for _, r := range []*Reader{c.a, c.b} {
		v := duckdbVersion(c.ctx, r.conn)
		if !r.format.Opens(v) {
			c.rep.ReaderNotes = append(c.rep.ReaderNotes, fmt.Sprintf("%s not used for %s: DuckDB %s does not open format %s", ReaderExtension, oneline.Name(r.path), v, r.format))
			r.extAttached = false
			continue
		}
		if r.extAttached {
			continue // a Source's reader, attached by an earlier proof
		}
		q := fmt.Sprintf("ATTACH %s AS dl (READ_ONLY, DATA_PATH %s, OVERRIDE_DATA_PATH true)", sqlString("ducklake:"+r.path), sqlString(r.dataPath))
		if _, err := r.conn.ExecContext(c.ctx, q); err != nil {
			c.rep.ReaderNotes = append(c.rep.ReaderNotes, fmt.Sprintf("%s could not attach %s: %s", ReaderExtension, oneline.Name(r.path), oneline.First(err.Error())))
			loaded = false
			continue
		}
		r.extAttached = true
	}
	if loaded && (c.a.extAttached || c.b.extAttached) {
		c.ext = true
		c.rep.Readers = append(c.rep.Readers, ReaderExtension)
	}
}

// extensionCheck requires the extension's rows to have our reader's digest.
func (c *comparison) extensionCheck(s int64, x, y Table) error {
	if !c.ext {
		return nil
	}
	for _, side := range []struct {
		name string
		r    *Reader
		t    Table
	}{{"A", c.a, x}, {"B", c.b, y}} {
		if !side.r.extAttached {
			continue
		}
		ours, _, err := side.r.TableDigest(c.ctx, side.t, s, ScanOptions{})
		if err != nil {
			return c.mark(side.r, err)
		}
		q := fmt.Sprintf("SELECT * FROM dl.%s.%s AT (VERSION => %d)", ident(side.t.Schema), ident(side.t.Name), s)
		// The extension opens the files it finds: all are made readable.
		if err := side.r.readableAll(c.ctx); err != nil {
			return c.mark(side.r, err)
		}
		var theirs Digest
		err = side.r.scanning(c.ctx, func() (err error) {
			theirs, err = digestOf(c.ctx, side.r.conn, q)
			return err
		})
		if err != nil {
			return c.mark(side.r, fmt.Errorf("read %s at snapshot %d of %s with the ducklake extension: %w", side.t.Shown(), s, oneline.Name(side.r.path), err))
		}
		if ours != theirs {
			c.add(Difference{Kind: "reader", Snapshot: ptr(s), Table: side.t.FullName(), Item: side.r.path,
				Reason: "the ducklake extension returns other rows than our reader", A: ours.String(), B: theirs.String()})
		}
	}
	return nil
}

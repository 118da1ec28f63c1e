package repo

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/fdl-formats/fdl-formats/convert"
	"github.com/fdl-formats/fdl-formats/duckfile"
)

// version.json makes two claims about its frozen catalog that readers act
// on without opening it: ducklake.format (which DuckDB releases read it)
// and catalog.storage (the oldest DuckDB that opens the file). A run checks
// both against the file from what it reads anyway:
//
//   - catalog.storage against the file's DuckDB headers, kept from the
//     bytes the plan hashes against version.json (storageClaim), for every
//     version of Plan, Backfill and Check;
//   - ducklake.format against the format detected where the catalog is
//     opened: by convert.Check (Plan, for the cells it checks), by the
//     conversion (Backfill) and by Check's content pass, which opens every
//     version's frozen catalog (formatClaim).
//
// A false claim makes the version an error: nothing is planned or written
// for it, and Check reports a difference.

// head keeps the first duckfile.HeadersSize bytes written to it and
// discards the rest.
type head struct{ buf []byte }

func (h *head) Write(p []byte) (int, error) {
	if n := duckfile.HeadersSize - len(h.buf); n > 0 {
		h.buf = append(h.buf, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

// header parses the bytes kept; nil when they are not a DuckDB file's
// headers (what opens the file reports that).
func (h *head) header() *duckfile.Header {
	hd, err := duckfile.Read(bytes.NewReader(h.buf))
	if err != nil {
		return nil
	}
	return &hd
}

// storageClaim compares the frozen catalog's headers (v.header) with
// version.json's catalog.storage. A file that needs a newer DuckDB than the
// claim says is a mismatch: the DuckDB releases between the two, which
// version.json admits, cannot open it. A file that needs an older one is
// not: every DuckDB the claim admits opens it (the claim is a bound, which
// the spec asks to be the oldest the declared readers open; DuckDB writes
// headers at its storage-compatibility default, older than the release
// writing them), so readers keep the claim. A claim that names no storage
// version ("duckdb-v1.5.0") is a mismatch too: the spec has readers tell
// from version.json alone whether they open a version. Headers that could
// not be read are not compared (opening the file reports a file that is
// not a DuckDB file).
func storageClaim(v *version) (Problem, error) {
	claimed := duckfile.MinDuckDB(v.meta.Catalog.Storage)
	if claimed == nil {
		header := "its header could not be read"
		if v.header != nil {
			header = fmt.Sprintf("its DuckDB header says storage %s", v.header)
		}
		return ProblemMismatch, fmt.Errorf("%s: version.json's catalog.storage %q names no DuckDB storage version (like \"duckdb-v1.5.0\"), so readers cannot tell from version.json whether they open the file (%s)",
			v.prefix()+v.meta.Catalog.Path, v.meta.Catalog.Storage, header)
	}
	if v.header == nil {
		return "", nil
	}
	needs := v.header.MinDuckDB()
	if !needs.GreaterThan(claimed) {
		return "", nil
	}
	return ProblemMismatch, fmt.Errorf("%s: its DuckDB header says storage %s (DuckDB %s or newer opens it), but version.json's catalog.storage says %q: the DuckDB releases from %s up to %s, which version.json admits, cannot open it",
		v.prefix()+v.meta.Catalog.Path, v.header, needs, v.meta.Catalog.Storage, claimed, needs)
}

// formatClaim compares the frozen catalog's DuckLake format, as detected
// from its version row and tables, with version.json's ducklake.format;
// its error names the catalog name (its key, or where it is: resolve).
func formatClaim(name string, v *version, detected string) error {
	if detected == v.meta.DuckLake.Format {
		return nil
	}
	return fmt.Errorf("%s holds DuckLake format %s (detected from its version row and tables), but version.json's ducklake.format says %s: readers of format %s cannot open it",
		name, detected, v.meta.DuckLake.Format, v.meta.DuckLake.Format)
}

// sourceFormat is the format a conversion (or convert.Check) detected in
// its source, or "" when it failed before it knew. Given
// convert.Options.SourceFormat, a conversion stops as soon as it finds
// another (*convert.SourceFormatError): nothing is converted or written.
func sourceFormat(res *convert.Result, err error) string {
	var refused *convert.RefusedError
	var other *convert.SourceFormatError
	switch {
	case res != nil && res.Source != nil:
		return res.Source.Name
	case errors.As(err, &other):
		return other.Detected
	case errors.As(err, &refused):
		return refused.From
	}
	return ""
}

// refuseVersion puts a version whose frozen catalog breaks version.json's
// claims in error: every cell of it, so that nothing is written or proved
// for it.
func refuseVersion(vp *VersionPlan, problem Problem, err error) {
	vp.Error, vp.cause = err.Error(), err
	for _, c := range vp.Cells {
		c.State, c.Key, c.Problem, c.Reasons, c.cause = Error, "", problem, []string{err.Error()}, err
		c.Findings, c.Violation = nil, ""
	}
}

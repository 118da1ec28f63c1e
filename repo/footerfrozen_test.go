package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCheckFooterQuirkFrozen: DuckDB 1.5.2 and 1.5.3, the first readers
// of format 1.0, read the BLOBs of a VARIANT column shredded on BLOB as
// VARCHARs of their base64 text (variant-shredded-blob-as-base64, fixed in
// 1.5.4), in the files DuckDB 1.5.4 and later write. A publisher's frozen
// 1.0 catalog with such a file (13_variant with main.variant_tbl's first
// data file holding BLOBs, testlakes.VariantRewritten) passed check
// silently: the proof reports such a file only of a published catalog in
// another format, and nothing read the frozen catalog's footers. Now a
// warning names the version's catalog, the quirk, the releases, the table,
// the data file and the column, and the check still passes, also from the
// kept content pass; narrowing fdl.json's 1.0 range past 1.5.3 does not
// silence it (the quirk returns other rows without an error: DuckDB 1.5.2
// opens the newest format it can whatever fdl.json serves it to).
func TestCheckFooterQuirkFrozen(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a repository")
	}
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "13_variant")
	ids := versionIDs(t, lake)
	id := ids[len(ids)-1]
	catalog, data := testlakes.VariantRewritten(t, filepath.Join(lake, "versions", id, "ducklake.duckdb"), filepath.Join(lake, "data"), "CASE WHEN id = 5 THEN v ELSE ('\\x01' || id)::BLOB::VARIANT END")
	st := repoWithFrozen(t, lake, id, catalog, data)
	root := st.Root()
	for _, old := range ids[:len(ids)-1] {
		// The earlier versions' catalogs record the file as it was.
		if err := os.RemoveAll(filepath.Join(root, "versions", old)); err != nil {
			t.Fatal(err)
		}
	}

	opts := Options{Formats: []string{"1.0"}, DigestCache: openTestCache(t)}
	fdl, admitting, narrowed := narrowed10(t, root, "1.5.4")
	// Cold, then from the kept content pass, then with the range narrowed.
	for i, fdlText := range []string{string(admitting), string(admitting), narrowed} {
		if err := os.WriteFile(fdl, []byte(fdlText), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(ctx, st, opts)
		if err != nil {
			t.Fatalf("run %d: check: %v", i+1, err)
		}
		if bad := nonWarnings(rep); len(bad) > 0 {
			t.Fatalf("run %d: check found %v", i+1, bad)
		}
		warned := warningsContaining(rep, formats.FooterVariantBlobBase64)
		if len(warned) != 1 {
			t.Fatalf("run %d: want one %s warning, got %q; findings %+v", i+1, formats.FooterVariantBlobBase64, warned, rep.Findings)
		}
		t.Logf("run %d: %s", i+1, warned[0])
		for _, w := range []string{"versions/" + id + "/ducklake.duckdb (format 1.0)", "DuckDB 1.5.2-1.5.3", "main.variant_tbl: data file main/variant_tbl/", "column v, typed_value", "29cb674de6b"} {
			if !strings.Contains(warned[0], w) {
				t.Errorf("run %d: warning %q lacks %q", i+1, warned[0], w)
			}
		}
	}
}

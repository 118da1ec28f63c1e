package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// TestOtherWritersFilesRefused holds conversions of a lake whose data file
// another writer wrote in a way an older DuckDB misreads or cannot read
// (added with ducklake_add_data_files; footertest rewrites the file and
// the catalogs that list it) to the footer quirk that names it. The
// target the quirk's readers open is refused, naming the quirk, the
// table, the column, the file and the first release concerned, unless
// the target is served only to releases past the quirk (readers); a
// catalog of that target converted before the file was rewritten is
// reported by the proof; a target past the quirk converts and proves.
// Before each quirk, the conversion was written without a finding and
// proved equivalent, though the target's readers read other rows or none.
func TestOtherWritersFilesRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		newLake func(context.Context, string) (*footertest.Lake, error)
		breakIt func(*footertest.Lake, context.Context, ...string) error
		quirk   string
		target  *formats.Version
		// readers: what the target may be served to, and whether the
		// quirk then refuses it.
		readers map[string]bool
		// table, column, release: what the finding names.
		table, column, release string
		proves                 *formats.Version
	}{
		// DuckDB 1.3.0 and 1.3.1 fail every read of a DECIMAL(20,2)
		// stored as INT64; 0.2 is opened by 1.3.1-1.3.2.
		{"decimal wide in int64", footertest.NewWideDecimalLake, (*footertest.Lake).BreakWideDecimal, formats.FooterDecimalWideInInt, formats.V0_2,
			map[string]bool{"": true, ">= 1.3.2": false}, "decs", "column d", "DuckDB 1.3.1", formats.V0_3},
		// Every DuckDB before 1.5.5 reads a DECIMAL(4,2) stored as
		// BYTE_ARRAY, its zero a zero-length value, as -0.01: wrong rows
		// without an error, in every release that opens 0.3.
		{"decimal as byte array", footertest.NewByteArrayDecimalLake, (*footertest.Lake).BreakByteArrayDecimal, formats.FooterDecimalByteArray, formats.V0_3,
			map[string]bool{"": true, ">= 1.4.4": true}, "amounts", "column a", "DuckDB 1.4.0", formats.V1_1},
		// DuckDB 1.3 and 1.4 fail every read of a UUID column whose
		// chunk lists DELTA_BYTE_ARRAY (here only the footer says so).
		{"delta byte array of a uuid", footertest.NewUUIDLake, (*footertest.Lake).BreakDeltaByteArray, formats.FooterDeltaByteArray, formats.V0_3,
			map[string]bool{"": true}, "ids", "column u", "DuckDB 1.4.0", formats.V0_4},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			l, err := c.newLake(ctx, filepath.Join(dir, "lake"))
			if err != nil {
				t.Fatal(err)
			}
			before := filepath.Join(dir, "before-"+c.target.Name+".duckdb")
			if _, err := Catalog(ctx, l.Catalog, before, c.target, Options{DataPath: l.Data}); err != nil {
				t.Fatalf("convert to %s before the file is rewritten: %v", c.target.Name, err)
			}
			if err := c.breakIt(l, ctx, before); err != nil {
				t.Fatal(err)
			}
			for readers, refuses := range c.readers {
				_, err := Check(ctx, l.Catalog, c.target, Options{DataPath: l.Data, Readers: map[string]string{c.target.Name: readers}})
				var refused *RefusedError
				if err != nil && !errors.As(err, &refused) {
					t.Fatal(err)
				}
				var got []string
				for _, f := range refusedFindings(refused) {
					if _, ok := formats.FooterQuirkNamed(f.Code); ok && f.Severity == Refuse {
						got = append(got, f.Code)
						if !strings.Contains(f.Detail, c.table) || !strings.Contains(f.Detail, c.column) || !strings.Contains(f.Detail, ".parquet") || !strings.Contains(f.Reason, c.release) {
							t.Errorf("finding names no table, column, file or release: %s", f)
						}
					}
				}
				var want []string
				if refuses {
					want = []string{c.quirk}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s served to %q: footer findings %v (%v), want %v", c.target.Name, readers, got, err, want)
				}
			}
			wantOnlyFooterDifference(t, l.Catalog, before, l.Data, c.quirk, "main."+c.table)
			convertsAndProves(t, l.Catalog, l.Data, c.proves)
		})
	}
}

// wantOnlyFooterDifference proves catalog b against a and wants it not
// equivalent for one reason: a footer difference of quirk on table's
// data file.
func wantOnlyFooterDifference(t *testing.T, a, b, data, quirk, table string) {
	t.Helper()
	rep, err := compare.Catalogs(context.Background(), a, b, compare.Options{DataPath: data})
	if !errors.Is(err, compare.ErrNotEquivalent) {
		t.Fatalf("proof of %s: %v; want not equivalent", filepath.Base(b), err)
	}
	var got []string
	for _, d := range rep.Differences {
		got = append(got, d.Kind+":"+d.Table)
		if d.Kind == compare.DiffFooter && !strings.Contains(d.Reason, "("+quirk+")") {
			t.Errorf("footer difference of another quirk than %s: %s", quirk, d)
		}
	}
	if !slices.Equal(got, []string{compare.DiffFooter + ":" + table}) {
		t.Errorf("differences %v, want the footer of %s's file: %v", got, table, rep.Differences)
	}
}

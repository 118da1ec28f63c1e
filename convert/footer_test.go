package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/parquetfooter/footertest"
)

// footerQuirkLake writes footertest's lake with its data files broken,
// and returns its catalog and data folder.
func footerQuirkLake(t *testing.T) (catalog, data string) {
	t.Helper()
	ctx := context.Background()
	l, err := footertest.NewLake(ctx, filepath.Join(t.TempDir(), "lake"), true)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Break(ctx); err != nil {
		t.Fatal(err)
	}
	return l.Catalog, l.Data
}

// TestFooterQuirksRefused: a target some of whose readers fail on (or
// skip rows of) a data file by its footer is refused, naming the quirk,
// the table, the column, the file and the releases; a range served only
// to later releases (Options.Readers) is not, unless the earlier releases
// return other rows without an error (they open the catalog all the
// same). These were converted.
func TestFooterQuirksRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	catalog, data := footerQuirkLake(t)
	cases := []struct {
		target  *formats.Version
		readers string
		want    []string // quirk:table
	}{
		{formats.V1_0, "", nil},
		{formats.V0_4, "", []string{formats.FooterGeoCRSNull + ":geo"}},
		{formats.V0_4, ">= 1.5.1", nil},
		{formats.V0_3, "", []string{formats.FooterStringStatsInvalidUTF8 + ":words", formats.FooterStringStatsMissingBound + ":cjk", formats.FooterJSONDeltaLength + ":docs"}},
		// cjk's file is misread (other rows, no error) by DuckDB 1.4.0,
		// which opens a 0.3 catalog whatever range it is served to.
		{formats.V0_3, ">= 1.4.1", []string{formats.FooterStringStatsInvalidUTF8 + ":words", formats.FooterStringStatsMissingBound + ":cjk", formats.FooterJSONDeltaLength + ":docs"}},
		{formats.V0_3, ">= 1.4.2", []string{formats.FooterStringStatsInvalidUTF8 + ":words", formats.FooterStringStatsMissingBound + ":cjk"}},
		{formats.V0_3, ">= 1.4.4", []string{formats.FooterStringStatsMissingBound + ":cjk"}},
		{formats.V0_2, "", []string{formats.FooterStringStatsInvalidUTF8 + ":words"}},
	}
	var targets []*formats.Version // each target's Check for all its readers
	var alone []error
	for _, c := range cases {
		t.Run(c.target.Name+c.readers, func(t *testing.T) {
			_, err := Check(ctx, catalog, c.target, Options{DataPath: data, Readers: map[string]string{c.target.Name: c.readers}})
			if c.readers == "" {
				targets, alone = append(targets, c.target), append(alone, err)
			}
			var refused *RefusedError
			if err != nil && !errors.As(err, &refused) {
				t.Fatal(err)
			}
			var got []string
			for _, f := range refusedFindings(refused) {
				if _, ok := formats.FooterQuirkNamed(f.Code); !ok || f.Severity != Refuse {
					continue
				}
				for _, tab := range []string{"words", "cjk", "docs", "geo"} {
					if strings.Contains(f.Detail, "main."+tab+":") || strings.Contains(f.Detail, " "+tab+": data_file_id") {
						got = append(got, f.Code+":"+tab)
					}
				}
				if !strings.Contains(f.Reason, "DuckDB 1.") || !strings.Contains(f.Detail, "column ") || !strings.Contains(f.Detail, ".parquet") {
					t.Errorf("finding names no release, column or file: %s", f)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("refused %v, want %v (err %v)", got, c.want, err)
			}
		})
	}
	// In one pass (the footers read once, pass.footers), each target is
	// refused as alone.
	assertPassAsAlone(t, catalog, targets, Options{DataPath: data}, alone)
}

func refusedFindings(e *RefusedError) []Finding {
	if e == nil {
		return nil
	}
	return e.Findings
}

package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestCatalogsOnePass converts a catalog into every release format in one
// Catalogs call and checks each output against Catalog's, made alone: the
// same outcome (written, refused with the same reasons, failed) and, when
// written, the same rows; and that the pass attached and listed its source
// once, however many outputs it wrote. An output that cannot be written
// (its file exists, its folder is missing) fails alone.
func TestCatalogsOnePass(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		archive, lake string
		// spoil: outputs (by index) whose file exists before the pass, or
		// whose folder is missing
		exists, noFolder int
	}{
		{archive: "lakes", lake: "06_deletes", exists: -1, noFolder: -1},
		{archive: "lakes-0.3", lake: "17_compaction", exists: 0, noFolder: -1},
		{archive: "lakes-1.1-dev1", lake: "16_data_inlining", exists: -1, noFolder: 1},
	} {
		t.Run(tc.archive+"/"+tc.lake, func(t *testing.T) {
			lake := testlakes.Lake(t, tc.archive, tc.lake)
			vs := versionCatalogs(t, lake)
			src := vs[len(vs)-1]
			tmp := t.TempDir()
			opts := Options{DataPath: filepath.Join(lake, "data"), AllowInlined: true}
			targets := formats.All.Releases()
			var outs []Output
			for i, target := range targets {
				dst := filepath.Join(tmp, "pass-"+target.Name+".duckdb")
				switch i {
				case tc.exists:
					if err := os.WriteFile(dst, []byte("there"), 0o644); err != nil {
						t.Fatal(err)
					}
				case tc.noFolder:
					dst = filepath.Join(tmp, "missing", target.Name+".duckdb")
				}
				outs = append(outs, Output{Target: target, Dst: dst})
			}
			engines := NewEngines(1)
			defer engines.Close()
			log := statementLog(t, engines)
			popts := opts
			popts.Engines = engines
			got := Catalogs(ctx, src, outs, popts)
			stmts := log()
			if len(got) != len(outs) {
				t.Fatalf("%d outcomes for %d outputs", len(got), len(outs))
			}
			failed := 0 // outputs that failed other than by a refusal, before the last
			for i, target := range targets {
				alone := filepath.Join(tmp, "alone-"+target.Name+".duckdb")
				_, errAlone := Catalog(ctx, src, alone, target, opts)
				err := got[i].Err
				switch i {
				case tc.exists:
					if !errors.Is(err, ErrExists) {
						t.Errorf("to %s over an existing file: %v, want ErrExists", target.Name, err)
					}
					if b, _ := os.ReadFile(outs[i].Dst); string(b) != "there" {
						t.Errorf("to %s: the existing file was changed", target.Name)
					}
					continue
				case tc.noFolder:
					// It fails when it would be written; a refusal comes first.
					switch {
					case errAlone == nil && (err == nil || errors.Is(err, ErrRefused)):
						t.Errorf("to %s into a missing folder: %v, want an error", target.Name, err)
					case errAlone != nil && errors.Is(err, ErrRefused) != errors.Is(errAlone, ErrRefused):
						t.Errorf("to %s into a missing folder: %v, alone %v", target.Name, err, errAlone)
					}
					if err != nil && !errors.Is(err, ErrRefused) && i < len(outs)-1 {
						failed++
					}
					continue
				}
				if (err == nil) != (errAlone == nil) || errors.Is(err, ErrRefused) != errors.Is(errAlone, ErrRefused) {
					t.Fatalf("to %s: in the pass %v, alone %v", target.Name, err, errAlone)
				}
				if err != nil {
					if errors.Is(err, ErrRefused) && refusedCodes(err) != refusedCodes(errAlone) {
						t.Errorf("to %s: refused for %s in the pass, %s alone", target.Name, refusedCodes(err), refusedCodes(errAlone))
					}
					if !errors.Is(err, ErrRefused) && i < len(outs)-1 {
						failed++
					}
					continue
				}
				if got[i].Result == nil || got[i].Result.To != target.Name {
					t.Fatalf("to %s: result %+v", target.Name, got[i].Result)
				}
				if diffs := diffDumps(dump(t, alone), dump(t, outs[i].Dst)); len(diffs) > 0 {
					t.Errorf("to %s: the pass wrote another catalog than a conversion alone:\n%s", target.Name, strings.Join(diffs, "\n"))
				}
			}
			if n := containing(stmts, "ATTACH '"+src+"'"); n != 1+failed {
				t.Errorf("the pass attached its source %d times, want %d (once, and again after each failed output)", n, 1+failed)
			}
			if engines.Idle() != 1 {
				t.Errorf("%d idle databases after the pass, want 1", engines.Idle())
			}
		})
	}
}

// refusedCodes lists a refusal's finding codes, in order.
func refusedCodes(err error) string {
	var r *RefusedError
	if !errors.As(err, &r) {
		return ""
	}
	codes := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		codes[i] = f.Code + "/" + f.Table
	}
	return strings.Join(codes, ",")
}

// assertPassAsAlone checks that one pass over src to targets (Catalogs, dry
// runs) ends each output as Check alone did (alone: its error for each
// target, in order), refusal texts and all: what the reader checks before
// the steps find is read once a pass (pass.before) and must be what each
// output would find alone.
func assertPassAsAlone(t *testing.T, src string, targets []*formats.Version, opts Options, alone []error) {
	t.Helper()
	outs := make([]Output, len(targets))
	for i, target := range targets {
		outs[i] = Output{Target: target}
	}
	for i, c := range Catalogs(context.Background(), src, outs, opts) {
		switch err, want := c.Err, alone[i]; {
		case (err == nil) != (want == nil):
			t.Errorf("to %s in one pass: %v, alone %v", targets[i], err, want)
		case err != nil && err.Error() != want.Error():
			t.Errorf("to %s in one pass:\n%v\nalone:\n%v", targets[i], err, want)
		}
	}
}

// TestUnmappedFilesOnePass: the reader lake whose legacy data file has no
// name mapping is refused for 0.3 and 0.4 (unmapped-files-read-null,
// TestConvertRefusesOrNormalisesReaderQuirks) in one pass as alone.
func TestUnmappedFilesOnePass(t *testing.T) {
	t.Parallel()
	for _, lk := range readerLakes(t) {
		if lk.name != "q_delete__delete_legacy_missing_mapping_after_rename_add_files" {
			continue
		}
		opts := Options{DataPath: lk.data}
		targets := []*formats.Version{formats.V0_3, formats.V0_4}
		alone := make([]error, len(targets))
		for i, target := range targets {
			_, alone[i] = Check(context.Background(), lk.src, target, opts)
			if !strings.Contains(fmt.Sprint(alone[i]), "unmapped-files-read-null") {
				t.Fatalf("to %s: %v, want refused for unmapped-files-read-null", target, alone[i])
			}
		}
		assertPassAsAlone(t, lk.src, targets, opts, alone)
	}
}

package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestDefaultsTheTargetCannotLoad: every DuckLake reader casts a column's
// initial_default to its type when it loads the schema, 0.1-0.3 readers
// (v1.3-ossivalis, v1.4-andium) its default_value too, and 0.4+ readers
// parse an expression default_value (TransformColumnType; the rule is
// formats/defaults.go, the proof's uncastable-default and
// unparsable-default-expression). A 1.0 literal default that does not
// cast to its column's type reads in 1.0, where readers keep it as text,
// but its 0.3 conversion fails every 0.3 reader: convert wrote it and only
// the proof caught it. It is refused before anything is written, naming
// the table, the column, the text, the type and the format; so is a
// default that fails every target's readers. A TIMESTAMPTZ default with
// a time zone name other than UTC does not cast (DefaultCastAs has no
// ICU), one with an offset does.
func TestDefaultsTheTargetCannotLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, lake, stmt string
		target           *formats.Version
		opts             Options
		refused, detail  string // "" refused: converts, and the proof holds
	}{
		{"literal to 0.3", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = 'abc' WHERE table_id = 4 AND column_id = 1`,
			formats.V0_3, Options{Lossy: []string{"expression-defaults"}}, "uncastable-default",
			`table 4 nn column i (id 1, snapshots 26 on): default_value "abc" does not cast to int32`},
		{"literal to 0.4", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = 'abc' WHERE table_id = 4 AND column_id = 1`,
			formats.V0_4, Options{}, "", ""},
		{"zone name to 0.3", "01_primitive_types", `UPDATE ducklake_column SET default_value = '2024-01-01 00:00:00 America/New_York' WHERE column_name = 'tstz'`,
			formats.V0_3, Options{}, "uncastable-default", `default_value "2024-01-01 00:00:00 America/New_York" does not cast to timestamptz`},
		{"offset to 0.3", "01_primitive_types", `UPDATE ducklake_column SET default_value = '2024-01-01 00:00:00+02' WHERE column_name = 'tstz'`,
			formats.V0_3, Options{}, "", ""},
		{"initial_default to 1.1", "05_defaults_not_null", `UPDATE ducklake_column SET initial_default = 'x1' WHERE table_id = 3 AND column_id = 2`,
			formats.V1_1, Options{}, "uncastable-default", `initial_default "x1" does not cast to int32`},
		// A GEOMETRY text that is not WKT throws in DuckDB 1.5's cast, also
		// under TRY_CAST: the judge's error is the readers' failure, not a
		// type this DuckDB cannot cast to.
		{"not WKT to 1.1", "14_geometry", `UPDATE ducklake_column SET initial_default = 'not wkt' WHERE column_name = 'g'`,
			formats.V1_1, Options{}, "uncastable-default", `initial_default "not wkt" does not cast to geometry`},
		{"expression to 1.1", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = 'round(' WHERE table_id = 1 AND column_id = 2 AND end_snapshot IS NULL`,
			formats.V1_1, Options{}, "unparsable-default-expression", `default_value "round(" (expression) is not one expression`},
		// 2.0's parser reads past a NUL byte, 1.5's stops at it: refused
		// where 2.0 reads the format (formats.Version.DefaultParsesQuery).
		{"expression holding a NUL to 1.1", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = '1' || chr(0) || ')' WHERE table_id = 1 AND column_id = 2 AND end_snapshot IS NULL`,
			formats.V1_1, Options{}, "unparsable-default-expression", `default_value "1\x00)" (expression) is not one expression`},
		// An expression default going down to 0.3 is the expression-defaults
		// refusal's (its text is not judged as a 0.3 literal); one that no
		// 1.0 reader loads is the source's refusal, also where the option
		// drops it (the proof calls the source unreadable).
		{"expression to 0.3", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = 'round(pi()) + ' || 1 WHERE table_id = 1 AND column_id = 2 AND end_snapshot IS NULL`,
			formats.V0_3, Options{}, "expression-defaults", ""},
		{"unloadable expression to 0.3", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = 'round(' WHERE table_id = 1 AND column_id = 2 AND end_snapshot IS NULL`,
			formats.V0_3, Options{}, "expression-defaults,unparsable-default-expression", `default_value "round(" (expression) is not one expression`},
		{"unloadable expression to 0.3 dropped", "05_defaults_not_null", `UPDATE ducklake_column SET default_value = 'round(' WHERE table_id = 1 AND column_id = 2 AND end_snapshot IS NULL`,
			formats.V0_3, Options{Lossy: []string{"expression-defaults"}}, "unparsable-default-expression", `default_value "round(" (expression) is not one expression`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lake := testlakes.Lake(t, "lakes", tc.lake)
			vs := versionCatalogs(t, lake)
			data := filepath.Join(lake, "data")
			src := editedCopy(t, vs[len(vs)-1], tc.stmt)
			opts := tc.opts
			opts.DataPath = data
			out := filepath.Join(t.TempDir(), "out.duckdb")
			_, err := Catalog(ctx, src, out, tc.target, opts)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("to %s: %v, want converted", tc.target.Name, err)
				}
				proveEquivalent(t, src, out, data)
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("to %s: %v, want refused (%s)", tc.target.Name, err, tc.refused)
			}
			var codes []string
			for _, f := range refused.Findings {
				codes = append(codes, f.Code)
				if f.Code != "expression-defaults" && tc.detail != "" && (!strings.Contains(f.Detail, tc.detail) || !strings.Contains(f.Reason, "format ")) {
					t.Errorf("to %s: %s: %s (%s), want it to name %q and the format", tc.target.Name, f.Code, f.Detail, f.Reason, tc.detail)
				}
			}
			if slices.Sort(codes); strings.Join(codes, ",") != tc.refused {
				t.Errorf("to %s: refused for %v, want %s", tc.target.Name, codes, tc.refused)
			}
		})
	}
}

// TestSourceDefaultsOncePerPass: the source's defaults check reads the
// working copy as copied in, before any step: the same for every output
// of a pass, so a pass to two targets runs it once (the frozen checks'
// way) and both outputs carry its refusal, the same. It ran once per
// output: for a wide catalog, two judging statements per output.
func TestSourceDefaultsOncePerPass(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "05_defaults_not_null")
	vs := versionCatalogs(t, lake)
	src := editedCopy(t, vs[len(vs)-1], `UPDATE ducklake_column SET initial_default = 'x1' WHERE table_id = 3 AND column_id = 2`)
	var mu sync.Mutex
	runs := 0
	ctx := faults.With(context.Background(), func(p faults.Point) error {
		if p.Name == "convert/source-defaults" && p.Path == src {
			mu.Lock()
			runs++
			mu.Unlock()
		}
		return nil
	})
	dir := t.TempDir()
	outs := []Output{{Target: formats.V1_1, Dst: filepath.Join(dir, "1.1.duckdb")}, {Target: formats.V0_3, Dst: filepath.Join(dir, "0.3.duckdb")}}
	res := Catalogs(ctx, src, outs, Options{DataPath: filepath.Join(lake, "data")})
	var refusals []string
	for i, r := range res {
		var refused *RefusedError
		if !errors.As(r.Err, &refused) {
			t.Fatalf("to %s: %v, want refused (uncastable-default)", outs[i].Target.Name, r.Err)
		}
		var got []string
		for _, f := range refused.Findings {
			if strings.HasPrefix(f.Step, "source ") {
				got = append(got, f.Code+": "+f.Detail)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], `uncastable-default: `) || !strings.Contains(got[0], `initial_default "x1" does not cast to int32`) {
			t.Errorf("to %s: source refusals %q, want one uncastable-default naming initial_default \"x1\"", outs[i].Target.Name, got)
		}
		refusals = append(refusals, strings.Join(got, "\n"))
	}
	if refusals[0] != refusals[1] {
		t.Errorf("source refusals differ between the outputs: %q and %q", refusals[0], refusals[1])
	}
	if runs != 1 {
		t.Errorf("the source's defaults check ran %d times in a pass of two outputs, want once", runs)
	}
}

// TestDefaultsDuckDB2CannotLoad: DuckDB 2.0 (DuckLake main), a reader of
// 1.0 and 1.1, casts a column's initial_default as DuckDB 1.3-1.5 do but
// for a DATE with more than white space after the date (only a whole
// timestamp) and an offset ending in a colon (formats.Version.
// DefaultCastQuery). A 0.3 catalog whose DATE initial_default is
// '2024-01-01 x' loads in every 0.3 reader; converted to 1.0 or 1.1 it
// failed DuckDB 2.0's load, and convert wrote it: it is refused. A DATE
// with a time after it loads in all and converts.
func TestDefaultsDuckDB2CannotLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name, stmt string
		target     *formats.Version
		detail     string // "": converts, and the proof holds
	}{
		{"date and a word to 1.0", `UPDATE ducklake_column SET initial_default = '2024-01-01 x' WHERE column_name = 'dt'`,
			formats.V1_0, `initial_default "2024-01-01 x" does not cast to date`},
		{"offset ending in a colon to 1.1", `UPDATE ducklake_column SET initial_default = '2024-01-01 00:00:00+02:' WHERE column_name = 'tstz'`,
			formats.V1_1, `initial_default "2024-01-01 00:00:00+02:" does not cast to timestamptz`},
		{"date and a time to 1.0", `UPDATE ducklake_column SET initial_default = '2024-01-01 12:00:00' WHERE column_name = 'dt'`,
			formats.V1_0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lake := testlakes.Lake(t, "lakes-0.3", "01_primitive_types")
			vs := versionCatalogs(t, lake)
			data := filepath.Join(lake, "data")
			src := editedCopy(t, vs[len(vs)-1], tc.stmt)
			out := filepath.Join(t.TempDir(), "out.duckdb")
			_, err := Catalog(ctx, src, out, tc.target, Options{DataPath: data})
			if tc.detail == "" {
				if err != nil {
					t.Fatalf("to %s: %v, want converted", tc.target.Name, err)
				}
				proveEquivalent(t, src, out, data)
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) || len(refused.Findings) != 1 || refused.Findings[0].Code != "uncastable-default" ||
				!strings.Contains(refused.Findings[0].Detail, tc.detail) {
				t.Fatalf("to %s: %v, want refused (uncastable-default: %s)", tc.target.Name, err, tc.detail)
			}
		})
	}
}

// TestLoneDefaultJudgeFailureIsError: where the statement judging every
// default at once fails (a GEOMETRY text that is not WKT throws), each is
// judged alone, and an expression's judge failing then (the machine: its
// judge answers a text that does not parse) is an error, as the proof's
// is. It was dropped: the expression stayed unjudged and the catalog was
// converted, or refused for the GEOMETRY text alone.
func TestLoneDefaultJudgeFailureIsError(t *testing.T) {
	t.Parallel()
	lake := testlakes.Lake(t, "lakes", "14_geometry")
	vs := versionCatalogs(t, lake)
	src := editedCopy(t, vs[len(vs)-1],
		`UPDATE ducklake_column SET initial_default = 'not wkt' WHERE column_name = 'g'`,
		`UPDATE ducklake_column SET default_value = '1 + 1', default_value_type = 'expression' WHERE column_name <> 'g' AND end_snapshot IS NULL AND lower(column_type) NOT IN ('struct', 'list', 'map', 'geometry')`)
	machine := errors.New("out of memory (a fault)")
	ctx := faults.With(context.Background(), func(p faults.Point) error {
		if p.Name == "convert/judge-default" && strings.Contains(p.Path, "(expression)") {
			return machine
		}
		return nil
	})
	res := Catalogs(ctx, src, []Output{{Target: formats.V1_1, Dst: filepath.Join(t.TempDir(), "1.1.duckdb")}}, Options{DataPath: filepath.Join(lake, "data")})
	if err := res[0].Err; !errors.Is(err, machine) {
		t.Errorf("Catalogs = %v, want the judge's failure", err)
	}
}

// TestDefaultsJudgedOnceWhereAlike: the target's defaults are not read and
// judged again where no statement since the copy-in named the tables the
// check reads and the target's readers judge every text as the source's
// (1.0 to 1.1: one read, the source's); they are where a step changes
// ducklake_column (1.0 to 0.3), and where the target's readers judge a
// text otherwise: a 0.4 catalog's TIMESTAMPTZ default ending in "+02:",
// which 0.4's readers load and DuckDB 2.0, a 1.0 reader, does not, is
// refused going to 1.0.
func TestDefaultsJudgedOnceWhereAlike(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	engines := NewEngines(1)
	defer engines.Close()
	statements := statementLog(t, engines)
	for _, tc := range []struct {
		target *formats.Version
		reads  int
	}{{formats.V1_1, 1}, {formats.V0_3, 2}} {
		dst := filepath.Join(t.TempDir(), "out.duckdb")
		_, err := Catalog(ctx, vs[len(vs)-1], dst, tc.target, Options{Engines: engines, DataPath: filepath.Join(lake, "data"), Lossy: LossyOptions})
		var refused *RefusedError
		if err != nil && !errors.As(err, &refused) {
			t.Fatalf("to %s: %v", tc.target, err)
		}
		if n := containing(statements(), "c.initial_default, c.default_value"); n != tc.reads {
			t.Errorf("to %s: the defaults read %d times, want %d", tc.target, n, tc.reads)
		}
	}

	src03 := testlakes.Lake(t, "lakes-0.3", "01_primitive_types")
	vs03 := versionCatalogs(t, src03)
	data := filepath.Join(src03, "data")
	out04 := filepath.Join(t.TempDir(), "out04.duckdb")
	if _, err := Catalog(ctx, vs03[len(vs03)-1], out04, formats.V0_4, Options{DataPath: data}); err != nil {
		t.Fatalf("to 0.4: %v", err)
	}
	src := editedCopy(t, out04, `UPDATE ducklake_column SET initial_default = '2024-01-01 00:00:00+02:' WHERE column_name = 'tstz'`)
	if _, err := Check(ctx, src, formats.V0_4, Options{DataPath: data}); err != nil {
		t.Fatalf("the edited 0.4 catalog as 0.4: %v, want it loaded by its readers", err)
	}
	_, err := Catalog(ctx, src, filepath.Join(t.TempDir(), "out10.duckdb"), formats.V1_0, Options{DataPath: data})
	var refused *RefusedError
	if !errors.As(err, &refused) || len(refused.Findings) != 1 || refused.Findings[0].Code != "uncastable-default" ||
		!strings.Contains(refused.Findings[0].Detail, `initial_default "2024-01-01 00:00:00+02:" does not cast to timestamptz`) {
		t.Fatalf("to 1.0: %v, want refused (uncastable-default)", err)
	}
}

// TestDefaultsJudgedAgainAfterColumnsWritten: a statement naming
// ducklake_column (in any letter case) after the copy-in makes the
// target's defaults read and judged again, though its readers judge as the
// source's: a 1.0 catalog's int column given the default 'x' after the
// source's check is refused going to 1.1.
func TestDefaultsJudgedAgainAfterColumnsWritten(t *testing.T) {
	ctx := context.Background()
	lake := testlakes.Lake(t, "lakes", "06_deletes")
	vs := versionCatalogs(t, lake)
	for _, update := range []string{
		`UPDATE ducklake_column SET initial_default = 'x' WHERE column_type LIKE 'int%' AND parent_column IS NULL`,
		`UPDATE DuckLake_Column SET initial_default = 'x' WHERE column_type LIKE 'int%' AND parent_column IS NULL`,
	} {
		r, failed, judged, closeDB := sourceChecked(t, ctx, vs[len(vs)-1])
		if err := r.w.exec(ctx, update); err != nil {
			t.Fatal(err)
		}
		if err := r.defaultsCheck(formats.V1_1, nil, failed, judged); err != nil {
			t.Fatal(err)
		}
		if len(r.findings) != 1 || r.findings[0].Code != "uncastable-default" || !strings.Contains(r.findings[0].Detail, `initial_default "x" does not cast`) {
			t.Errorf("after %s: %v, want uncastable-default", update, r.findings)
		}
		closeDB()
	}
}

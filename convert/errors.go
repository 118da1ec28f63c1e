package convert

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
)

var (
	// ErrRefused is matched by the *RefusedError that Catalog and Check
	// return when the target format cannot express the catalog.
	ErrRefused = errors.New("target format cannot express the catalog")
	// ErrNotCatalog is returned by Catalog and Check when the source is not a
	// readable DuckDB file holding a DuckLake catalog.
	ErrNotCatalog = errors.New("not a DuckLake catalog")
	// ErrStorageTooNew is returned when the source DuckDB file uses a storage
	// version this DuckDB cannot open.
	ErrStorageTooNew = errors.New("catalog file uses a newer DuckDB storage version")
	// ErrStorageUnreadable is returned by StorageReadBy for a storage
	// version no DuckDB that reads the target format opens.
	ErrStorageUnreadable = errors.New("no reader of the target format opens that storage version")
	// ErrStorageUnwritable is returned by StorageReadBy for a storage
	// version newer than every one this DuckDB writes (DuckDB 2.0's v2.0.0:
	// duckfile.NewerStorages).
	ErrStorageUnwritable = errors.New("this DuckDB cannot write that storage version")
	// ErrExists is returned by Catalog when the destination already exists.
	ErrExists = errors.New("destination exists")
	// ErrNoPath is returned by Plan when no chain of steps joins two formats.
	ErrNoPath = errors.New("no conversion path")
)

// SourceFormatError is returned by Catalog and Check when the source is not
// in the format Options.SourceFormat says.
type SourceFormatError struct {
	Source, Detected, Expected string
}

func (e *SourceFormatError) Error() string {
	return fmt.Sprintf("convert %s: the source holds DuckLake format %s (detected from its version row and tables), not %s as the caller says", e.Source, e.Detected, e.Expected)
}

// NullFieldsError is a source with NULLs where DuckLake's writers always
// write a value (formats.CheckRequired): not a DuckLake catalog, refused
// before anything is written. It matches ErrNotCatalog and
// formats.ErrNullField.
type NullFieldsError struct {
	Source string
	Err    *formats.NullFieldError
}

func (e *NullFieldsError) Error() string {
	return fmt.Sprintf("convert %s: %s", e.Source, e.Err.Detail())
}

// Unwrap gives ErrNotCatalog and the formats error.
func (e *NullFieldsError) Unwrap() []error { return []error{ErrNotCatalog, e.Err} }

// Hint tells the user what to do.
func (e *NullFieldsError) Hint() string {
	return "DuckLake did not write these rows as they are: restore the catalog from its writer's copy, or set the fields the error names (nothing was written)"
}

// Severity says what a finding does to a conversion.
type Severity string

const (
	// Refuse: the target cannot express it; nothing is written.
	Refuse Severity = "refuse"
	// Lossy: metadata that does not change rows is dropped, because the
	// option named in the finding was given.
	Lossy Severity = "lossy"
	// Note: reported, converted without loss (or an improvement over
	// DuckLake's own migration).
	Note Severity = "note"
)

// Finding is one thing a conversion had to decide about.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Step     string   `json:"step"`             // "1.0->0.4"
	Table    string   `json:"table,omitempty"`  // metadata table concerned
	Detail   string   `json:"detail,omitempty"` // the rows or columns concerned
	Reason   string   `json:"reason"`
	Option   string   `json:"option,omitempty"` // the option that would convert it anyway
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s: %s", f.Step, f.Code, f.Reason)
	if f.Table != "" {
		fmt.Fprintf(&b, " (table %s", f.Table)
		if f.Detail != "" {
			fmt.Fprintf(&b, ": %s", f.Detail)
		}
		b.WriteString(")")
	}
	if f.Option != "" {
		fmt.Fprintf(&b, "; to convert anyway: %s", f.Option)
	}
	return b.String()
}

// RefusedError lists every reason the target cannot express the source.
type RefusedError struct {
	Source, From, To string
	Findings         []Finding // only Refuse findings
}

func (e *RefusedError) Error() string { return strings.Join(e.Lines(), "\n") }

// Lines is the message's lines: what was refused, then each reason
// (oneline.Lines).
func (e *RefusedError) Lines() []string {
	lines := make([]string, 0, 1+len(e.Findings))
	lines = append(lines, fmt.Sprintf("convert %s from %s to %s: refused, %d reason(s):", e.Source, e.From, e.To, len(e.Findings)))
	for _, f := range e.Findings {
		lines = append(lines, "  - "+f.String())
	}
	return lines
}

// Is makes a RefusedError match ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Hint tells the user what to try next.
func (e *RefusedError) Hint() string {
	var opts []string
	for _, f := range e.Findings {
		if f.Option != "" && !slices.Contains(opts, f.Option) {
			opts = append(opts, f.Option)
		}
	}
	if len(opts) == 0 {
		if isUpgrade(e.From, e.To) {
			// Every format past the source is reached through the same
			// steps, so none of them holds it either.
			return fmt.Sprintf("the catalog cannot be carried up from %s to %s, nor past it (the same steps lead there); keep it in its own format, %s, and the older formats it converts to", e.From, e.To, e.From)
		}
		if newer := newerReleases(e.To); len(newer) > 0 {
			return "the target format cannot hold this catalog; publish it in a newer format only (" + strings.Join(newer, ", ") + ")"
		}
		return fmt.Sprintf("no format newer than %s exists to hold this catalog; keep it in the formats it converts to (its own, %s)", e.To, e.From)
	}
	return "some findings can be converted anyway with: " + strings.Join(opts, ", ")
}

// isUpgrade reports whether format to is newer than format from (false
// when either is unknown).
func isUpgrade(from, to string) bool {
	f, errF := formats.Lookup(from)
	t, errT := formats.Lookup(to)
	return errF == nil && errT == nil && formats.All.Index(t) > formats.All.Index(f)
}

// newerReleases names the released formats newer than the format named
// (for a development layout: from the release it converges to on).
func newerReleases(name string) []string {
	v, err := formats.Lookup(name)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range formats.All[formats.All.Index(v)+1:].Releases() {
		out = append(out, r.Name)
	}
	return out
}

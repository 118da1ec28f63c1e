package compare

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// reportLines is every difference of a report, one a line (for failures).
func reportLines(rep *Report) string {
	if rep == nil {
		return ""
	}
	var lines []string
	for _, d := range rep.Differences {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n")
}

// TestDeleteFileFormatByFormat: a delete file's format column is read as
// the real reader of the catalog's format reads it. 1.0+ readers (DuckDB
// 1.5.2+) call DeleteFileFormatFromString on it: NULL is Parquet,
// 'parquet' and 'puffin' match in any case, anything else (the empty
// string included) throws "Unknown delete file format". Readers of
// 0.1-0.4 never select the column and open every delete file as Parquet.
// 06_deletes is a real 1.0 lake whose delete files 6 and 13 are Parquet;
// stamped 0.4, it is the same metadata read by a 0.4 reader. Before, the
// proof read the empty string and NULL as Parquet and 'PUFFIN' as Puffin in every
// format: a 1.0 catalog with format "" was equivalent to its 0.4 source
// (every 1.0 read of the table throws), and a 0.4 catalog with 'PUFFIN' on
// a Parquet file was not equivalent to the same catalog with 'parquet'.
func TestDeleteFileFormatByFormat(t *testing.T) {
	lake, catalog := lastVersion(t, "lakes", "06_deletes")
	data := filepath.Join(lake, "data")
	stamp04 := `UPDATE ducklake_metadata SET value = '0.4' WHERE key = 'version'`
	setFormat := func(v string) string {
		return `UPDATE ducklake_delete_file SET format = ` + v + ` WHERE delete_file_id = 13`
	}
	for _, tc := range []struct {
		name string
		a, b []string
		want string // "" equivalent, else a difference of kind unreadable naming it
	}{
		{"1.0 reading format ''", nil, []string{setFormat("''")}, "Unknown delete file format: "},
		{"1.0 reading format 'orc'", nil, []string{setFormat("'orc'")}, "Unknown delete file format: orc"},
		{"1.0 reading format ' parquet' (not trimmed)", nil, []string{setFormat("' parquet'")}, "Unknown delete file format:  parquet"},
		{"1.0 reading format 'PARQUET'", nil, []string{setFormat("'PARQUET'")}, ""},
		{"1.0 reading format NULL", nil, []string{setFormat("NULL")}, ""},
		{"1.0 reading format 'PUFFIN' on a Parquet file", nil, []string{setFormat("'PUFFIN'")}, "delete file"},
		{"0.4 source with format '' beside 1.0 with ''", []string{stamp04, setFormat("''")}, []string{setFormat("''")}, "Unknown delete file format: "},
		{"0.4 reading format 'PUFFIN' on a Parquet file", []string{stamp04}, []string{stamp04, setFormat("'PUFFIN'")}, ""},
		{"0.4 reading format ''", []string{stamp04}, []string{stamp04, setFormat("''")}, ""},
		{"0.4 reading format 'orc' beside 1.0 reading 'parquet'", []string{stamp04, setFormat("'orc'")}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proveTamperedUnreadable(t, catalog, data, tc.a, tc.b, tc.want)
		})
	}
}

// proveTamperedUnreadable proves catalog edited by a against catalog edited
// by b (nil: unedited): equivalent when want is "", else not equivalent
// with an unreadable table whose difference names want.
func proveTamperedUnreadable(t *testing.T, catalog, data string, a, b []string, want string) {
	t.Helper()
	ca, cb := catalog, catalog
	if a != nil {
		ca = tamper(t, catalog, a...)
	}
	if b != nil {
		cb = tamper(t, catalog, b...)
	}
	rep, err := Catalogs(context.Background(), ca, cb, Options{DataPath: data, Engines: readerDBs})
	if want == "" {
		if err != nil {
			t.Fatalf("Catalogs: %v, want equivalent\n%s", err, reportLines(rep))
		}
		return
	}
	if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", want) {
		t.Fatalf("Catalogs: %v, want an unreadable table naming %q\n%s", err, want, reportLines(rep))
	}
}

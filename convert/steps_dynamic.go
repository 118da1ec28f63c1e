package convert

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/oneline"
)

// Inlined data tables are created per table and schema version, so the steps
// that touch them need Go rather than one statement.

var (
	plainSystemColumns    = []string{"row_id", "begin_snapshot", "end_snapshot"}
	prefixedSystemColumns = []string{"_ducklake_row_id", "_ducklake_begin_snapshot", "_ducklake_end_snapshot"}
)

// inlinedDataTables lists the working copy's inlined data tables with their
// columns.
func inlinedDataTables(r *run) (map[string][]string, error) {
	tables, err := r.w.workingTables(r.ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, t := range tables {
		if formats.IsDynamicTable(t.name) && strings.HasPrefix(t.name, "ducklake_inlined_data_") {
			out[t.name] = slices.Clone(t.columns)
		}
	}
	return out, nil
}

func renameSystemColumns(r *run, from, to []string) error {
	tables, err := inlinedDataTables(r)
	if err != nil {
		return err
	}
	for t, cols := range tables {
		if len(cols) < 3 {
			return fmt.Errorf("inlined table %s: %d columns, want at least the 3 system columns", t, len(cols))
		}
		if slices.Equal(cols[:3], to) {
			continue
		}
		if !slices.Equal(cols[:3], from) {
			return fmt.Errorf("inlined table %s: unexpected column layout (%s)", t, strings.Join(cols[:3], ", "))
		}
		// A user column named like a system column of the target is refused
		// by the step's checks; the table is left as it is.
		if len(userSystemNames(cols, to)) > 0 {
			continue
		}
		for i := range from {
			if err := r.w.exec(r.ctx, fmt.Sprintf("ALTER TABLE %s RENAME COLUMN %s TO %s", quote(t), quote(from[i]), quote(to[i]))); err != nil {
				return err
			}
		}
	}
	return nil
}

// userSystemNames lists the user columns of an inlined table (cols, the
// system columns first) that are named, in any letter case, like one of
// the system columns sys, as DuckDB compares names: in ASCII letter case
// only ("_ducklake_begin_ſnapshot", with the long s, is another name).
func userSystemNames(cols, sys []string) []string {
	var out []string
	for _, c := range cols[min(3, len(cols)):] {
		if slices.ContainsFunc(sys, func(s string) bool { return formats.NamesEqual(s, c) }) {
			out = append(out, c)
		}
	}
	return out
}

// prefixInlinedColumns names the inlined system columns as 1.1 does; like
// unprefixInlinedColumns, an inlined table without rows that has a user
// column named like one of them is dropped with its registration.
func prefixInlinedColumns(r *run) error {
	if err := dropEmptyCollisions(r, prefixedSystemColumns); err != nil {
		return err
	}
	return renameSystemColumns(r, plainSystemColumns, prefixedSystemColumns)
}

// unprefixInlinedColumns names the inlined system columns as 1.0 does.
// An inlined table with a user column named like one of them cannot be
// renamed (DuckDB refuses two columns of one name), and a 1.0 reader
// selects row_id, begin_snapshot and end_snapshot from every registered
// inlined table (ReadInlinedData): from such a table left as it is, it
// binds the user's columns or fails. One without rows is dropped with its
// registration (a 1.0 reader then reads no rows of it, as the source's
// reader reads none); one with rows is refused (inlinedSystemNameCollisions).
func unprefixInlinedColumns(r *run) error {
	if err := dropEmptyCollisions(r, plainSystemColumns); err != nil {
		return err
	}
	return renameSystemColumns(r, prefixedSystemColumns, plainSystemColumns)
}

// dropEmptyCollisions drops the inlined tables without rows that have a
// user column named like one of the system columns sys, with their
// ducklake_inlined_data_tables rows.
func dropEmptyCollisions(r *run, sys []string) error {
	names, rows, err := systemNameCollisions(r, sys)
	if err != nil {
		return err
	}
	var empty []string
	for t := range names {
		if rows[t] == 0 {
			empty = append(empty, t)
		}
	}
	return dropInlinedTables(r, empty)
}

// dropInlinedTables drops inlined data tables (their callers: those
// without rows) with their ducklake_inlined_data_tables rows, so that no
// reader reads them: a reader of the source reads no rows from them.
func dropInlinedTables(r *run, names []string) error {
	names = slices.Sorted(slices.Values(names))
	for _, t := range names {
		if err := r.w.execShape(r.ctx, "DROP TABLE "+quote(t), tableDropped(t)); err != nil {
			return err
		}
		if err := r.w.exec(r.ctx, `DELETE FROM ducklake_inlined_data_tables WHERE lower(table_name) = lower(?)`, t); err != nil {
			return err
		}
	}
	return nil
}

// systemNameCollisions lists the inlined tables with user columns named
// like the system columns sys, with those columns and their rows.
func systemNameCollisions(r *run, sys []string) (map[string][]string, map[string]int64, error) {
	tables, err := inlinedDataTables(r)
	if err != nil {
		return nil, nil, err
	}
	names, rows := map[string][]string{}, map[string]int64{}
	for t, cols := range tables {
		user := userSystemNames(cols, sys)
		if len(user) == 0 {
			continue
		}
		n, err := r.w.count(r.ctx, "SELECT count(*) FROM "+quote(t))
		if err != nil {
			return nil, nil, err
		}
		names[t], rows[t] = user, n
	}
	return names, rows, nil
}

// heldCollisions lists the inlined tables with rows that have user columns
// named like the system columns sys, one item per column (those without
// rows are dropped: dropEmptyCollisions).
func heldCollisions(r *run, sys []string) ([]string, error) {
	names, rows, err := systemNameCollisions(r, sys)
	if err != nil {
		return nil, err
	}
	var out []string
	for t, user := range names {
		if rows[t] == 0 {
			continue
		}
		for _, c := range user {
			out = append(out, fmt.Sprintf("%s column %s (%d rows)", t, c, rows[t]))
		}
	}
	slices.Sort(out)
	return out, nil
}

// inlinedSystemNameCollisions lists the inlined tables with rows whose
// user columns are named like 1.0's unprefixed system columns.
func inlinedSystemNameCollisions(r *run) ([]string, error) {
	return heldCollisions(r, plainSystemColumns)
}

// inlinedPrefixedNameCollisions lists the inlined tables with rows whose
// user columns are named like 1.1's prefixed system columns.
func inlinedPrefixedNameCollisions(r *run) ([]string, error) {
	return heldCollisions(r, prefixedSystemColumns)
}

// inlinedDeleteRows lists inlined file deletions (0.4+).
func inlinedDeleteRows(r *run) ([]string, error) {
	_, dynamic, err := r.w.layout(r.ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range dynamic {
		if !strings.HasPrefix(t, "ducklake_inlined_delete_") {
			continue
		}
		n, err := r.w.count(r.ctx, "SELECT count(*) FROM "+quote(t))
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: %d deleted positions", t, n))
		}
	}
	return out, nil
}

// inlinedRows counts rows held in inlined data tables and inlined deletes:
// a frozen FDL catalog holds none.
func inlinedRows(r *run) ([]string, error) {
	_, dynamic, err := r.w.layout(r.ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range dynamic {
		n, err := r.w.count(r.ctx, "SELECT count(*) FROM "+quote(t))
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: %d rows", t, n))
		}
	}
	return out, nil
}

// puffinContainers lists Puffin delete files that are containers (blobs of
// several snapshots): those with partial_max set and any whose file, where
// this machine can read it (reachableDeleteFile), starts with the container
// magic "PFA1" (a bare deletion vector starts with its length). Format 1.0
// readers decode the whole file as one bare vector and fail on a container
// whatever partial_max says ("Magic bytes mismatch").
func puffinContainers(r *run) ([]string, error) {
	files, err := deleteFiles(r, r.deleteFormatIs("d.format", formats.DeleteFormatPuffin))
	if err != nil {
		return nil, err
	}
	withMax, err := r.w.strings(r.ctx, `SELECT delete_file_id::VARCHAR FROM ducklake_delete_file WHERE `+r.deleteFormatIs("format", formats.DeleteFormatPuffin)+` AND partial_max IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		container := slices.Contains(withMax, fmt.Sprint(f.id))
		if !container {
			if local := r.reachableDeleteFile(f); local != "" {
				if err := r.readable(local); err != nil {
					return nil, err
				}
				if container, err = startsWith(local, "PFA1"); err != nil {
					return nil, err
				}
			}
		}
		if container {
			out = append(out, fmt.Sprintf("delete_file_id %d %s", f.id, oneline.Name(f.path)))
		}
	}
	return out, nil
}

// reachableDeleteFile returns the local path at which this machine reads a
// delete file, "" when it cannot: under the data folder given
// (Options.DataPath) for a file under the catalog's data_path, else where
// the catalog itself puts it (its data_path, or the file's absolute path)
// when that is a local path and the file is there. A file under the data
// folder given is expected there (startsWith reports it missing).
func (r *run) reachableDeleteFile(f deleteFile) string {
	if r.opts.DataPath != "" && f.local {
		return filepath.Join(r.opts.DataPath, filepath.FromSlash(f.relDir+f.path))
	}
	p := f.stored
	if p == "" || strings.Contains(p, "://") || !filepath.IsAbs(filepath.FromSlash(p)) {
		return ""
	}
	p = filepath.FromSlash(p)
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
}

func startsWith(path, magic string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("read delete file: %w", err)
	}
	defer f.Close()
	buf := make([]byte, len(magic))
	if _, err := io.ReadFull(f, buf); err != nil {
		return false, nil // shorter than the magic: not a container
	}
	return string(buf) == magic, nil
}

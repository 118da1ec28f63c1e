package repo

import (
	"fmt"
	"path/filepath"
	"strings"

	goversion "github.com/hashicorp/go-version"

	"github.com/fdl-formats/fdl-formats/fdljson"
)

// hiveSafeFrom is the first DuckDB whose DuckLake reads delete files
// without Hive partition auto-detection (DuckLake fbe8d67a, 2026-04-17,
// "Disable hive partitioning auto-detection in ParquetFileScanner"; DuckDB
// 1.5.3 pins e6a3bd0a, which has it, 1.5.2 pins 415a9ebd, which has not).
// Before it, DuckLake binds parquet_scan on a delete file with
// hive_partitioning left to 'auto', so every key=value folder on the
// file's path becomes a column, and the reader, which wants a delete file
// of exactly its columns, fails ("Invalid schema contained in the delete
// file"; DuckDB 1.4 from two such folders).
var hiveSafeFrom = goversion.Must(goversion.NewVersion("1.5.3"))

// hiveFolderWarning warns when the data folder, where readers read the
// delete files (their DATA_PATH), has a key=value folder on its path and a
// declared format's DuckDB range admits a DuckDB before hiveSafeFrom: those
// readers fail on every version with a delete file. Nothing in a catalog
// can avoid it, so it is a warning about the repository's location.
func (r *repository) hiveFolderWarning(declared []fdljson.Format) string {
	// Where readers find it: its path in a folder, its URL elsewhere.
	loc := filepath.ToSlash(folderName(r.st, r.cfg.DataDir)) + "/"
	folders := hiveLikeFolders(loc)
	if len(folders) == 0 {
		return ""
	}
	var hit []string
	for _, f := range declared {
		if admitsBefore(f.Readers, hiveSafeFrom) {
			hit = append(hit, fmt.Sprintf("%s (DuckDB %s)", f.DuckLake, f.DuckDB))
		}
	}
	if len(hit) == 0 {
		return ""
	}
	return fmt.Sprintf("the data folder %s has key=value folders on its path (%s): DuckDB before %s reads a delete file's path as Hive partitions and fails on every version with a delete file (\"Invalid schema contained in the delete file\"), so readers of %s cannot read such versions from there; serve the repository from a path without '=' in its folder names", loc, strings.Join(folders, ", "), hiveSafeFrom, strings.Join(hit, ", "))
}

// hiveLikeFolders returns the folders of a path or URL named key=value,
// as DuckDB's Hive partition detection reads them.
func hiveLikeFolders(loc string) []string {
	if _, rest, ok := strings.Cut(loc, "://"); ok {
		loc = rest
		if _, path, ok := strings.Cut(loc, "/"); ok {
			loc = path // the host is no folder
		}
	}
	var out []string
	for _, seg := range strings.Split(loc, "/") {
		if k, _, ok := strings.Cut(seg, "="); ok && k != "" {
			out = append(out, seg)
		}
	}
	return out
}

// admitsBefore reports whether c admits a DuckDB release before limit. A
// constraint's answer changes only at its constraintPoints, so the points
// below limit, and the lowest version, are the only ones to try.
func admitsBefore(c goversion.Constraints, limit *goversion.Version) bool {
	try := []*goversion.Version{goversion.Must(goversion.NewVersion("0.0.0"))}
	for _, one := range c {
		try = append(try, constraintPoints(one.String())...)
	}
	for _, v := range try {
		if v.LessThan(limit) && c.Check(v) {
			return true
		}
	}
	return false
}

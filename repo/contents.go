package repo

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/fdljson"
	"github.com/fdl-formats/fdl-formats/store"
)

// checkContents reads a version's frozen catalog (a private verified copy)
// and checks every data and delete file it references against disk and,
// when jsonFiles, compares files.json and dataset.json with what the
// catalog holds at its snapshot: for files.json the live tables, their data
// files in order, rows, bytes, footer sizes and delete files; for
// dataset.json the described tables and their fields' types and
// nullability. The catalog wins; every disagreement is an issue. The
// caller releases v's frozen copy.
func (r *repository) checkContents(ctx context.Context, v *version, frozen *frozenCopies, disk *compare.DiskCheck, jsonFiles bool) []Issue {
	src, problem, err := frozen.catalog(ctx, v)
	if err != nil {
		return []Issue{{problem, err.Error()}}
	}
	key := v.prefix() + v.meta.Catalog.Path
	rd, err := compare.Open(ctx, src, compare.ReaderOptions{DataPath: r.dataPath, Engines: r.engines})
	if err != nil {
		return []Issue{{ProblemUnreadable, fmt.Sprintf("read %s: %v", key, err)}}
	}
	defer rd.Close()
	var issues []Issue
	// A remote store's data files come into the cache first (verified by
	// the size the catalog records); a folder's are checked in place.
	if err := frozen.fetch(ctx, v); err != nil {
		issues = append(issues, Issue{ProblemUnreadable, fmt.Sprintf("fetch the data files of %s: %v", key, err)})
	} else {
		bad, err := rd.CheckFiles(ctx, disk)
		if err != nil {
			issues = append(issues, Issue{ProblemUnreadable, fmt.Sprintf("check the data files of %s: %v", key, err)})
		}
		for _, b := range bad {
			issues = append(issues, Issue{ProblemMismatch, fmt.Sprintf("data file disagrees with %s: %s", key, r.relData(b))})
		}
	}
	if !jsonFiles || (v.meta.Files == nil && v.meta.Dataset == nil) {
		return issues
	}
	snap := v.meta.DuckLake.SnapshotID
	tables, err := rd.Tables(ctx, snap)
	if err != nil {
		return append(issues, Issue{ProblemUnreadable, err.Error()})
	}
	if ref := v.meta.Files; ref != nil {
		if got, err := r.parsedFiles(ctx, v, ref); err == nil {
			want := &fdljson.Files{Tables: map[string]*fdljson.FilesTable{}}
			for _, t := range tables {
				files, err := rd.Files(ctx, t, snap)
				if err != nil {
					return append(issues, Issue{ProblemUnreadable, err.Error()})
				}
				ft := &fdljson.FilesTable{Files: []fdljson.DataFile{}}
				for _, f := range files {
					df := fdljson.DataFile{Path: r.relData(f.Path), Rows: f.RecordCount, Bytes: f.SizeBytes, FooterBytes: f.FooterSize}
					if d := f.Delete; d != nil {
						df.Deletes = &fdljson.DeleteFile{Path: r.relData(d.Path), Rows: d.DeleteCount, Bytes: d.SizeBytes}
					}
					ft.Files = append(ft.Files, df)
				}
				want.Tables[t.FullName()] = ft
			}
			for _, d := range got.Diff(want) {
				issues = append(issues, Issue{ProblemMismatch, v.prefix() + ref.Path + ": " + d})
			}
		}
	}
	if ref := v.meta.Dataset; ref != nil {
		if got, err := r.parsedDataset(ctx, v, ref); err == nil {
			var want []fdljson.DatasetTable
			for _, t := range tables {
				cols, err := rd.Columns(ctx, t.ID, snap)
				if err != nil {
					return append(issues, Issue{ProblemUnreadable, err.Error()})
				}
				dt := fdljson.DatasetTable{Schema: t.Schema, Name: t.Name}
				for _, c := range cols {
					nullable := c.NullsAllowed
					dt.Fields = append(dt.Fields, fdljson.DatasetField{Name: c.Name, Type: c.Type, Nullable: &nullable})
				}
				want = append(want, dt)
			}
			// The reader lists tables only; views are not checked.
			described := *got
			described.Tables = nil
			for _, t := range got.Tables {
				if t.Kind == "" {
					described.Tables = append(described.Tables, t)
				}
			}
			for _, d := range described.Diff(want) {
				issues = append(issues, Issue{ProblemMismatch, v.prefix() + ref.Path + ": " + d})
			}
		}
	}
	return issues
}

// relData makes a resolved data file path relative to data_dir.
func (r *repository) relData(p string) string {
	if rel, ok := strings.CutPrefix(p, r.dataPath); ok {
		return strings.ReplaceAll(rel, string(os.PathSeparator), "/")
	}
	return p
}

func (r *repository) parsedFiles(ctx context.Context, v *version, ref *fdljson.FileRef) (*fdljson.Files, error) {
	data, err := store.ReadAll(ctx, r.st, v.prefix()+ref.Path)
	if err != nil {
		return nil, err
	}
	return fdljson.ParseFiles(v.prefix()+ref.Path, data)
}

func (r *repository) parsedDataset(ctx context.Context, v *version, ref *fdljson.FileRef) (*fdljson.Dataset, error) {
	data, err := store.ReadAll(ctx, r.st, v.prefix()+ref.Path)
	if err != nil {
		return nil, err
	}
	return fdljson.ParseDataset(v.prefix()+ref.Path, data)
}

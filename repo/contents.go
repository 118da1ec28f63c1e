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

// checkContents compares files.json and dataset.json with what the frozen
// catalog holds at its snapshot (read with compare's reader): for
// files.json the live tables, their data files in order, rows, bytes,
// footer sizes and delete files; for dataset.json the described tables and
// their fields' types and nullability. The catalog wins; every disagreement
// is an issue.
func (r *repository) checkContents(ctx context.Context, v *version, work string) []Issue {
	if v.meta == nil || (v.meta.Files == nil && v.meta.Dataset == nil) {
		return nil
	}
	dir, err := os.MkdirTemp(work, "contents-")
	if err != nil {
		return []Issue{{ProblemUnreadable, err.Error()}}
	}
	defer os.RemoveAll(dir)
	src, err := localFile(ctx, r.st, v.prefix()+v.meta.Catalog.Path, dir)
	if err != nil {
		return []Issue{{ProblemUnreadable, err.Error()}}
	}
	rd, err := compare.Open(ctx, src, compare.ReaderOptions{DataPath: r.dataPath})
	if err != nil {
		return []Issue{{ProblemUnreadable, fmt.Sprintf("read %s to check files.json and dataset.json: %v", v.prefix()+v.meta.Catalog.Path, err)}}
	}
	defer rd.Close()
	snap := v.meta.DuckLake.SnapshotID
	tables, err := rd.Tables(ctx, snap)
	if err != nil {
		return []Issue{{ProblemUnreadable, err.Error()}}
	}
	var issues []Issue
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

package lakegen

import (
	"context"
	"fmt"
)

// Demo is the default demo repository: 3 versions over 15 snapshots with
// two tables.
//
//   - main.measurements (id BIGINT, city VARCHAR, temp DOUBLE, taken DATE):
//     inserts across several data files, ADD COLUMN unit with a default
//     (initial_default 'C'), positional deletes, RENAME temp -> temperature,
//     DROP COLUMN taken, and a second delete on the same data files (partial
//     deletion files with _ducklake_internal_snapshot_id) next to a first
//     delete on a newer file; a table comment.
//   - main.stations (code, name, region, info STRUCT(lat DOUBLE, elevation
//     INTEGER)): identity-partitioned by region (Hive folders), one delete.
//   - main.by_city: a view.
func Demo() Spec {
	return Spec{
		Name:       "demo",
		Title:      "Demo: weather measurements and stations",
		RecordRows: true,
		Versions: []Version{
			{Message: "First measurements and stations", Snapshots: []Snapshot{
				// 1
				{CreateTable{Table: "measurements", Columns: []Column{
					{Name: "id", Type: "BIGINT"}, {Name: "city", Type: "VARCHAR"},
					{Name: "temp", Type: "DOUBLE"}, {Name: "taken", Type: "DATE"},
				}}, Insert{Table: "measurements", Files: 3, Select: measurementRows(0, 300, false)}},
				// 2
				{Insert{Table: "measurements", Files: 2, Select: measurementRows(300, 500, false)}},
				// 3
				{CreateTable{Table: "stations", Columns: []Column{
					{Name: "code", Type: "VARCHAR", NotNull: true}, {Name: "name", Type: "VARCHAR"},
					{Name: "region", Type: "VARCHAR"},
					{Name: "info", Type: "STRUCT", Fields: []Column{{Name: "lat", Type: "DOUBLE"}, {Name: "elevation", Type: "INTEGER"}}},
				}}},
				// 4
				{PartitionBy{Table: "stations", Columns: []string{"region"}}},
				// 5
				{Insert{Table: "stations", Select: `SELECT 'S' || lpad(i::VARCHAR, 2, '0'), 'Station ' || i,
					['north', 'south', 'west'][i % 3 + 1], {'lat': 40 + i * 0.5, 'elevation': ((i * 37) % 900)::INTEGER}
					FROM range(1, 13) t(i)`}},
			}},
			{Message: "Add units, drop every tenth reading", Snapshots: []Snapshot{
				// 6
				{AddColumn{Table: "measurements", Column: Column{Name: "unit", Type: "VARCHAR", Default: "C"}}},
				// 7
				{Insert{Table: "measurements", Select: measurementRows(500, 600, true)}},
				// 8
				{Delete{Table: "measurements", Where: "id % 10 = 0"}},
				// 9
				{CreateView{View: "by_city", SQL: "SELECT city, count_star() AS n FROM measurements GROUP BY city"}},
				// 10
				{Comment{Table: "measurements", Text: "Temperature readings by city"}},
			}},
			{Message: "Rename temp, drop taken, remove multiples of seven", Snapshots: []Snapshot{
				// 11
				{RenameColumn{Table: "measurements", From: "temp", To: "temperature"}},
				// 12
				{DropColumn{Table: "measurements", Column: "taken"}},
				// 13
				{Insert{Table: "measurements", Select: `SELECT i, ['Oslo', 'Lima', 'Pune', 'Kobe'][i % 4 + 1],
					round(10 + (i % 17) * 1.5, 1), 'F' FROM range(600, 650) t(i)`}},
				// 14
				{Delete{Table: "measurements", Where: "id % 7 = 0"}},
				// 15
				{Delete{Table: "stations", Where: "code = 'S03'"}},
			}},
		},
	}
}

func measurementRows(from, to int, unit bool) string {
	q := fmt.Sprintf(`SELECT i, ['Oslo', 'Lima', 'Pune', 'Kobe'][i %% 4 + 1], round(10 + (i %% 17) * 1.5, 1),
		DATE '2024-01-01' + (i // 10)::INTEGER`)
	if unit {
		q += `, CASE WHEN i % 2 = 0 THEN 'C' ELSE 'F' END`
	}
	return q + fmt.Sprintf(" FROM range(%d, %d) t(i)", from, to)
}

// Large writes a benchmark repository: one version, one table main.big
// (id BIGINT, grp INTEGER, amount DOUBLE, label VARCHAR) of rows rows split
// into files data files (snapshot 1), then a delete of every 1000th row of
// the first half of the ids (snapshot 2), which gives the first half of the
// files a delete file.
func Large(ctx context.Context, dir string, rows, files int) (*Result, error) {
	if rows < 1 || files < 1 {
		return nil, fmt.Errorf("lakegen: large needs rows >= 1 and files >= 1 (got %d, %d)", rows, files)
	}
	spec := Spec{
		Name:  "large",
		Title: fmt.Sprintf("Large: %d rows in %d files", rows, files),
		Versions: []Version{{Message: "bulk load and a sparse delete", Snapshots: []Snapshot{
			{CreateTable{Table: "big", Columns: []Column{
				{Name: "id", Type: "BIGINT"}, {Name: "grp", Type: "INTEGER"},
				{Name: "amount", Type: "DOUBLE"}, {Name: "label", Type: "VARCHAR"},
			}}, Insert{Table: "big", Files: files, Select: fmt.Sprintf(
				`SELECT i, (i %% 1000)::INTEGER, (i %% 100000) / 100.0, 'row-' || (i %% 5000) FROM range(%d) t(i)`, rows)}},
			{Delete{Table: "big", Where: fmt.Sprintf("id %% 1000 = 0 AND id < %d", rows/2)}},
		}}},
	}
	return Repository(ctx, dir, spec)
}

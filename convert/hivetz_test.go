package convert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/compare"
	"github.com/fdl-formats/fdl-formats/formats"
)

// hiveTZLake builds, from lakes-0.3-reader's
// q_add_files__add_files_hive_partition_cast as the reviewer's script does,
// a 1.0 catalog whose only data file (14, table test_ts) takes its column
// created_at, made of type typ, from the Hive folder created_at=<value>
// (the file copied there under a temporary data folder, recorded by
// absolute path). It returns the catalog and the data folder.
func hiveTZLake(t *testing.T, lk readerLake, typ, value, stat string) (string, string) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	rel := "main/ext/ducklake_add_files_hive_ts/created_at=" + value + "/data_0.parquet"
	if err := os.MkdirAll(filepath.Dir(filepath.Join(data, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(lk.data, "main/ext/ducklake_add_files_hive_ts/created_at=2024-01-15%2010%3A30%3A00/data_0.parquet"), filepath.Join(data, rel))
	statText := "NULL"
	if stat != "" {
		statText = literal(stat)
	}
	src := editedCopy(t, lk.src,
		"DELETE FROM ducklake_data_file WHERE data_file_id <> 14",
		"UPDATE ducklake_data_file SET path = "+literal(filepath.Join(data, rel))+" WHERE data_file_id = 14",
		"UPDATE ducklake_column SET column_type = "+literal(typ)+" WHERE table_id = 5 AND column_id = 2",
		fmt.Sprintf("UPDATE ducklake_file_column_stats SET min_value = %[1]s, max_value = %[1]s WHERE table_id = 5 AND column_id = 2 AND data_file_id = 14", statText),
		fmt.Sprintf("UPDATE ducklake_table_column_stats SET min_value = %[1]s, max_value = %[1]s, contains_null = false WHERE table_id = 5 AND column_id = 2", statText))
	return src, data
}

// TestHiveTimeZoneValues: DuckLake 0.3 (DuckDB 1.4) and 0.4 under DuckDB
// 1.5.0 cast a Hive partition value with DuckDB's core cast, which reads a
// TIMESTAMPTZ or TIMETZ value without a UTC offset as UTC; 0.4 under DuckDB
// 1.5.1, 1.0 and 1.1 cast it in the session's TimeZone (ICU): in a New York
// session created_at=2024-01-15 is 00:00 UTC in 0.3 and 05:00 UTC in 1.0
// (hive-tz-values-read-as-utc). The proof reads in UTC, where both agree,
// so a 1.0 catalog with such a file was converted to 0.3 and 0.4 and proved
// equivalent (review finding). Now convert refuses every conversion between
// formats whose readers differ on it, naming the table, file, column and
// value, and the proof reports such a file as a `rows` difference; a value
// with an explicit offset reads alike and converts, and 1.0 -> 1.1 is
// unchanged.
func TestHiveTimeZoneValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var lk readerLake
	for _, l := range readerLakes(t) {
		if l.name == "q_add_files__add_files_hive_partition_cast" {
			lk = l
		}
	}
	if lk.src == "" {
		t.Fatal("lake q_add_files__add_files_hive_partition_cast not found")
	}
	naive, data := hiveTZLake(t, lk, "timestamptz", "2024-01-15", "2024-01-15 00:00:00+00")

	wantRefused := func(t *testing.T, src string, target *formats.Version, value string) {
		t.Helper()
		_, err := Check(ctx, src, target, Options{DataPath: data})
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("convert to %s: %v, want refused", target.Name, err)
			return
		}
		msg := err.Error()
		for _, want := range []string{"hive-tz-values-read-as-utc", "test_ts", "data_file_id 14", "column created_at", "created_at=" + value} {
			if !strings.Contains(msg, want) {
				t.Errorf("convert to %s: %v, want it to name %q", target.Name, err, want)
			}
		}
	}
	wantDifference := func(t *testing.T, a, b, value string) {
		t.Helper()
		rep, err := compare.Catalogs(ctx, a, b, compare.Options{DataPath: data})
		if !errors.Is(err, compare.ErrNotEquivalent) {
			t.Fatalf("compare: %v, want not equivalent", err)
		}
		for _, d := range rep.Differences {
			if d.Kind == "rows" && d.Table == "main.test_ts" && strings.Contains(d.Reason, "created_at="+value) && strings.Contains(d.Reason, "hive-tz-values-read-as-utc") {
				return
			}
		}
		t.Errorf("differences %v: want rows in main.test_ts naming created_at=%s", rep.Differences, value)
	}

	for _, target := range []*formats.Version{formats.V0_3, formats.V0_4} {
		t.Run("1.0-to-"+target.Name, func(t *testing.T) {
			wantRefused(t, naive, target, "2024-01-15")
			// The same rows written as the target without the refusal: the
			// proof must not call them equivalent.
			out := filepath.Join(t.TempDir(), "faithful.duckdb")
			if _, err := Catalog(ctx, naive, out, target, Options{faithful: true}); err != nil {
				t.Fatalf("faithful conversion: %v", err)
			}
			wantDifference(t, naive, out, "2024-01-15")
			if target == formats.V0_3 {
				// Upgrading the 0.3 catalog to 1.0 reads it the other way.
				wantRefused(t, out, formats.V1_0, "2024-01-15")
			}
		})
	}
	t.Run("0.4-to-1.0", func(t *testing.T) {
		// A 0.4 source is read as DuckDB 1.5.1 reads it, in the session's
		// zone, as 1.0 does: it upgrades.
		src04 := filepath.Join(t.TempDir(), "src-0.4.duckdb")
		if _, err := Catalog(ctx, naive, src04, formats.V0_4, Options{faithful: true}); err != nil {
			t.Fatalf("faithful 0.4: %v", err)
		}
		out := filepath.Join(t.TempDir(), "out.duckdb")
		if _, err := Catalog(ctx, src04, out, formats.V1_0, Options{DataPath: data}); err != nil {
			t.Fatalf("convert 0.4 to 1.0: %v", err)
		}
		if _, err := compare.Catalogs(ctx, src04, out, compare.Options{DataPath: data}); err != nil {
			t.Errorf("compare 0.4 with its 1.0 conversion: %v, want equivalent", err)
		}
		wantRefused(t, src04, formats.V0_3, "2024-01-15")
	})
	t.Run("1.0-to-1.1", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.duckdb")
		if _, err := Catalog(ctx, naive, out, formats.V1_1, Options{DataPath: data}); err != nil {
			t.Fatalf("convert to 1.1: %v", err)
		}
		if _, err := compare.Catalogs(ctx, naive, out, compare.Options{DataPath: data}); err != nil {
			t.Errorf("compare with the 1.1 conversion: %v, want equivalent", err)
		}
	})
	t.Run("timetz", func(t *testing.T) {
		tz, tzData := hiveTZLake(t, lk, "timetz", "10:30:00", "")
		_, err := Check(ctx, tz, formats.V0_3, Options{DataPath: tzData})
		if err == nil || !strings.Contains(err.Error(), "hive-tz-values-read-as-utc") || !strings.Contains(err.Error(), "created_at=10:30:00") {
			t.Errorf("convert TIMETZ value to 0.3: %v, want refused naming created_at=10:30:00", err)
		}
	})
	t.Run("offset", func(t *testing.T) {
		// An explicit offset reads alike in every session: converted, and
		// proved equivalent.
		withOffset, offData := hiveTZLake(t, lk, "timestamptz", "2024-01-15 10:30:00+00", "2024-01-15 10:30:00+00")
		for _, target := range []*formats.Version{formats.V0_3, formats.V0_4} {
			out := filepath.Join(t.TempDir(), "out-"+target.Name+".duckdb")
			if _, err := Catalog(ctx, withOffset, out, target, Options{DataPath: offData}); err != nil {
				t.Fatalf("convert to %s: %v", target.Name, err)
			}
			if _, err := compare.Catalogs(ctx, withOffset, out, compare.Options{DataPath: offData}); err != nil {
				t.Errorf("compare with the %s conversion: %v, want equivalent", target.Name, err)
			}
		}
	})
}

package compare

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCatalogsFindRefusedMetadata plants, in copies of conformance
// catalogs, metadata the real DuckLake readers read otherwise or refuse
// (adversarial review, session 8: default_value_type, partition values'
// table_id, column type spelling, NULL flags, data files' begin_snapshot,
// uuids): each copy must differ from its original, and what
// the real reader reads alike (or only compaction reads) must not.
func TestCatalogsFindRefusedMetadata(t *testing.T) {
	type want struct{ kind, text string }
	cases := []struct {
		lake, name string
		stmts      []string
		want       []want // none: still equivalent
	}{
		// default_value_type (0.4+): a literal is a constant, an
		// expression is parsed; another value fails the schema load.
		{"05_defaults_not_null", "default literal becomes expression",
			[]string{`UPDATE ducklake_column SET default_value_type = 'expression' WHERE table_id = 2 AND column_id = 2 AND default_value = 'random()'`},
			[]want{{"schema", "column main.d2 (id 2) differs: default_kind"}}},
		{"05_defaults_not_null", "default expression becomes literal",
			[]string{`UPDATE ducklake_column SET default_value_type = 'literal' WHERE table_id = 1 AND column_id = 5 AND default_value_type = 'expression'`},
			[]want{{"schema", "(id 5) differs: default_kind"}}},
		{"05_defaults_not_null", "default type unknown",
			[]string{`UPDATE ducklake_column SET default_value_type = 'bogus' WHERE table_id = 3 AND column_id = 4`},
			[]want{{"schema", "(id 4) differs: default_kind"}, {"unreadable", "unknown-default-value-type"}}},
		{"05_defaults_not_null", "default type NULL",
			[]string{`UPDATE ducklake_column SET default_value_type = NULL WHERE table_id = 3 AND column_id = 4`},
			[]want{{"catalog", "ducklake_column.default_value_type is NULL in the row table_id=3, column_id=4, "}}},
		{"05_defaults_not_null", "default type of no default",
			[]string{`UPDATE ducklake_column SET default_value_type = 'bogus' WHERE table_id = 4`}, nil},
		// Column types: DuckLake's parser does not trim, and decimal( is
		// case-sensitive; other names are not.
		{"05_defaults_not_null", "decimal in upper case",
			[]string{`UPDATE ducklake_column SET column_type = 'DECIMAL(18,6)' WHERE column_type = 'decimal(18,6)'`},
			[]want{{"unreadable", `has type "DECIMAL(18,6)"`}}},
		{"05_defaults_not_null", "type with spaces",
			[]string{`UPDATE ducklake_column SET column_type = ' int64 ' WHERE column_type = 'int64'`},
			[]want{{"unreadable", `has type " int64 "`}, {"schema", "differs: type"}}},
		{"05_defaults_not_null", "type name in upper case",
			[]string{`UPDATE ducklake_column SET column_type = 'INT64' WHERE column_type = 'int64'`}, nil},
		{"05_defaults_not_null", "decimal members spaced",
			[]string{`UPDATE ducklake_column SET column_type = 'decimal(18, 6)' WHERE column_type = 'decimal(18,6)'`}, nil},
		// NULL flags: every reader reads them with GetValue<bool>. Where
		// DuckLake's writers always write one (formats.Column.NullRead),
		// the catalog is not opened at all.
		{"05_defaults_not_null", "nulls_allowed NULL",
			[]string{`UPDATE ducklake_column SET nulls_allowed = NULL WHERE table_id = 4 AND column_id = 1`},
			[]want{{"catalog", "B cannot be read while A can"}, {"catalog", "not a DuckLake catalog: 1 NULL field(s) where DuckLake's writers always write a value: ducklake_column.nulls_allowed is NULL in the row table_id=4, column_id=1, "}}},
		{"08_partitioning", "data file path_is_relative NULL",
			[]string{`UPDATE ducklake_data_file SET path_is_relative = NULL WHERE data_file_id = 5`},
			[]want{{"catalog", "ducklake_data_file.path_is_relative is NULL in the row data_file_id=5, "}}},
		{"08_partitioning", "table path_is_relative NULL",
			[]string{`UPDATE ducklake_table SET path_is_relative = NULL WHERE table_id = 6`},
			[]want{{"catalog", "ducklake_table.path_is_relative is NULL in the row table_id=6, "}}},
		{"08_partitioning", "schema path_is_relative NULL",
			[]string{`UPDATE ducklake_schema SET path_is_relative = NULL`},
			[]want{{"catalog", "ducklake_schema.path_is_relative is NULL in the row schema_id=0, "}}},
		// Read as the text 'NULL', used by writers only (TestNullUUIDsRead).
		{"08_partitioning", "table_uuid NULL",
			[]string{`UPDATE ducklake_table SET table_uuid = NULL WHERE table_id = 6`},
			[]want{{"schema", "table main.mk differs: uuid"}}},
		// ducklake_table_info() returns table_uuid.
		{"08_partitioning", "table_uuid changed",
			[]string{`UPDATE ducklake_table SET table_uuid = uuid() WHERE table_id = 6`},
			[]want{{"schema", "table main.mk differs: uuid"}}},
		{"08_partitioning", "schema_uuid changed",
			[]string{`UPDATE ducklake_schema SET schema_uuid = uuid()`},
			[]want{{"schema", "schema main differs: uuid"}}},
		// partition_id is read by compaction only.
		{"08_partitioning", "partition_id changed",
			[]string{`UPDATE ducklake_data_file SET partition_id = 2 WHERE data_file_id = 5`}, nil},
		// The snapshot_id virtual column returns the data file's
		// begin_snapshot: 2 and 3 are both expired here.
		{"18_expire_cleanup", "data file begin_snapshot changed",
			[]string{`UPDATE ducklake_data_file SET begin_snapshot = 2 WHERE data_file_id = 1`},
			[]want{{"files", "differs: begin_snapshot"}}},
		// ... and an inlined row's begin_snapshot (snapshot 2 expired in
		// both catalogs, see the loop: the row is visible at the same ones).
		{"16_data_inlining", "inlined row begin_snapshot changed",
			[]string{`UPDATE ducklake_inlined_data_1_2 SET begin_snapshot = 3 WHERE row_id = 0`},
			[]want{{"files", "inlined rows differs: begin_snapshots"}}},
		// Bucket pruning selects partition values WHERE table_id = <table>.
		{"08_partitioning", "partition value of another table",
			[]string{`UPDATE ducklake_file_partition_value SET table_id = 6 WHERE data_file_id = 5`},
			[]want{{"files", "partition_values"}}},
	}
	engines := readerDBs
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // tampers a copy of its own
			lake, catalog := lastVersion(t, "lakes", tc.lake)
			if tc.lake == "16_data_inlining" {
				catalog = tamper(t, catalog, `DELETE FROM ducklake_snapshot WHERE snapshot_id = 2`)
			}
			b := tamper(t, catalog, tc.stmts...)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: engines})
			var all []string
			if rep != nil {
				for _, d := range rep.Differences {
					all = append(all, d.String())
				}
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("want equivalent, got %v\n%s", err, strings.Join(all, "\n"))
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) {
				t.Fatalf("want ErrNotEquivalent, got %v", err)
			}
			for _, w := range tc.want {
				if rep.Equivalent || !hasDifference(rep, w.kind, w.text) {
					t.Fatalf("no %s difference containing %q; got:\n%s", w.kind, w.text, strings.Join(all, "\n"))
				}
			}
		})
	}
}

// TestPartialFileInfoRefused: a partial_file_info the reader of the
// catalog's format cannot parse fails its file list in DuckDB 1.3 and 1.4
// (std::stoull on each part): the empty string, which this reader once
// read as "not partial", and 'partial_max:N' in formats older than 0.3.
// Planted on the 0.3 conformance lake (its data files are not partial).
func TestPartialFileInfoRefused(t *testing.T) {
	for _, tc := range []struct {
		name, info string
		refused    bool
		err        string // an error naming the file and the value
	}{
		{"empty", "", true, ""},
		{"not a list", "x", true, ""},
		{"a split list with a bad count", "1:x", true, ""},
		// Visible from the file's first snapshot on: the same rows.
		{"partial_max at the first snapshot", "partial_max:' || begin_snapshot || '", false, ""},
		// std::stoull parses numbers to 2^64-1, so the reader lists the
		// file; no catalog holds a snapshot id or row count past int64
		// (BIGINT), and the proof names the value instead of modelling it
		// (it failed with 'bad partial_file_info', naming no file).
		{"a split list's count past int64", "1:9223372036854775808", false, `partial_file_info "1:9223372036854775808": 9223372036854775808 is past int64's maximum`},
		{"a split list's snapshot past int64", "18446744073709551615:5", false, `partial_file_info "18446744073709551615:5": 18446744073709551615 is past int64's maximum`},
		{"partial_max past int64", "partial_max:9223372036854775808", false, `partial_file_info "partial_max:9223372036854775808": 9223372036854775808 is past int64's maximum`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lake, catalog := lastVersion(t, "lakes-0.3", "06_deletes")
			b := tamper(t, catalog, `UPDATE ducklake_data_file SET partial_file_info = '`+tc.info+`' WHERE data_file_id = (SELECT min(data_file_id) FROM ducklake_data_file)`)
			rep, err := Catalogs(context.Background(), catalog, b, Options{DataPath: filepath.Join(lake, "data"), Engines: readerDBs})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !regexp.MustCompile(`data file \S+ of main\.del at snapshot \d+ in `).MatchString(err.Error()) {
					t.Fatalf("want an error naming the data file and %s, got %v", tc.err, err)
				}
				return
			}
			if !tc.refused {
				if err != nil {
					t.Fatalf("want equivalent, got %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "unreadable", "unparsable-partial-file-info") {
				t.Fatalf("want an unreadable difference (unparsable-partial-file-info), got %v", err)
			}
		})
	}
	for _, tc := range []struct {
		info       string
		partialMax bool
		parses     bool
	}{
		{"1:10|3:20", false, true},
		{"partial_max:7", true, true},
		{"partial_max:7", false, false}, // DuckDB 1.3 reads it as a split list
		{"", true, false},
		{"partial_max:", true, false},
		{"1:10|", false, false},
		{"-1:10", false, false},
		{"9223372036854775808:1", false, true}, // as std::stoull does
		{"18446744073709551616:1", false, false},
	} {
		if got := partialInfoParses(tc.info, tc.partialMax); got != tc.parses {
			t.Errorf("partialInfoParses(%q, %t) = %t, want %t", tc.info, tc.partialMax, got, tc.parses)
		}
	}
}

// TestCatalogsNullRequiredField: a catalog with NULL where DuckLake's
// writers always write a value (formats.CheckRequired; here the fields the
// proof's reader named as unreadable values of a row before, and a
// table's begin_snapshot it read past) is not opened: beside one that
// reads, it is a "catalog" difference naming the table, the column and
// the row (not equivalent); on both sides, the catalogs cannot be
// compared. Compare's command reports such a catalog as invalid input
// (cmd/fdl-formats, TestNullRequiredFieldExits).
func TestCatalogsNullRequiredField(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, stmt, want string }{
		{"NULL next_catalog_id", `UPDATE ducklake_snapshot SET next_catalog_id = NULL WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`, "ducklake_snapshot.next_catalog_id is NULL in the row snapshot_id="},
		{"NULL next_file_id", `UPDATE ducklake_snapshot SET next_file_id = NULL WHERE snapshot_id = (SELECT max(snapshot_id) FROM ducklake_snapshot)`, "ducklake_snapshot.next_file_id is NULL in the row snapshot_id="},
		{"NULL table begin_snapshot", `UPDATE ducklake_table SET begin_snapshot = NULL WHERE table_id = (SELECT min(table_id) FROM ducklake_table)`, "ducklake_table.begin_snapshot is NULL in the row table_id="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lake, catalog := lastVersion(t, "lakes", "06_deletes")
			data := filepath.Join(lake, "data")
			b := tamper(t, catalog, tc.stmt)
			rep, err := Catalogs(ctx, catalog, b, Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrNotEquivalent) || !hasDifference(rep, "catalog", "B cannot be read while A can") || !hasDifference(rep, "catalog", tc.want) {
				t.Errorf("B alone: %v, want a catalog difference naming %q", err, tc.want)
			}
			_, err = Catalogs(ctx, b, tamper(t, catalog, tc.stmt), Options{DataPath: data, Engines: readerDBs})
			if !errors.Is(err, ErrIncomparable) || errors.Is(err, ErrNotEquivalent) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("both: %v, want could not compare naming %q", err, tc.want)
			}
		})
	}
}

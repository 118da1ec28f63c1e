package repo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fdl-formats/fdl-formats/internal/faults"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestBackfillLogsNameCells reads the JSON logs of a small backfill: one
// cell written (1.1) and one that fails in its conversion (0.4, an error
// injected where the converter publishes its rewritten delete files). Its
// "converted" lines named only the run's private copy of the frozen
// catalog (/tmp/fdl-backfill-*/frozen-*/N-ducklake.duckdb), no version,
// and "cell failed" named that copy where the report names the repository's
// file. Now every line about a cell names the version, the format and the
// cell's key, and a private path is left only in <key>_local (and the
// converter's output, a work file).
func TestBackfillLogsNameCells(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves a catalog")
	}
	ctx := context.Background()
	st := copyLake(t, testlakes.Lake(t, "lakes", "24_deletion_vectors"))
	root := st.Root()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := Backfill(ctx, st, Options{Formats: []string{"1.1"}, Logger: log}); err != nil {
		t.Fatalf("backfill 1.1: %v", err)
	}
	opts := Options{Formats: []string{"0.4"}, Logger: log}
	opts.Convert.RewriteDeletes = true
	rep, err := Backfill(faults.With(ctx, func(p faults.Point) error {
		if p.Name == "convert/publish" {
			return fmt.Errorf("injected at %s", p.Path)
		}
		return nil
	}), st, opts)
	if !errors.Is(err, ErrBackfillIncomplete) || rep == nil || len(rep.Results) != 1 || rep.Results[0].Step != "convert" {
		t.Fatalf("backfill 0.4 = %v, want its cell failed at convert", err)
	}
	id := rep.Results[0].Version
	frozen := filepath.Join(root, "versions", id, "ducklake.duckdb")
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		msg, _ := m["msg"].(string)
		for k, v := range m {
			if s, ok := v.(string); ok && strings.Contains(s, backfillWorkPrefix) && !strings.HasSuffix(k, "_local") && k != "output" {
				t.Errorf("%s names a private copy in %s: %s", msg, k, line)
			}
		}
		key, _ := m["key"].(string)
		if _, aboutCell := m["to_version"]; !aboutCell && key == "" {
			continue // the run's lines (warnings, transfer, content passes)
		}
		seen[msg]++
		format := strings.TrimSuffix(filepath.Base(key), ".duckdb")
		if m["version"] != id || key != "versions/"+id+"/catalogs/"+format+".duckdb" || (format != "1.1" && format != "0.4") {
			t.Errorf("a cell's line does not name its version, format and file: %s", line)
		}
		switch msg {
		case "converted":
			if m["to_version"] != "1.1" || m["catalog"] != frozen || !strings.Contains(m["catalog_local"].(string), backfillWorkPrefix) {
				t.Errorf("converted: want to_version 1.1, catalog %s and its private copy in catalog_local: %s", frozen, line)
			}
		case "cell failed":
			if m["to_version"] != "0.4" || m["step"] != "convert" || !strings.Contains(m["error"].(string), "convert "+frozen+" to 0.4: injected") {
				t.Errorf("cell failed: want 0.4 at convert, the error naming %s: %s", frozen, line)
			}
		}
	}
	if seen["converted"] != 1 || seen["cell failed"] != 1 || seen["cell done"] != 1 {
		t.Errorf("lines about cells %v, want one converted, one cell failed and one cell done\n%s", seen, buf.String())
	}
}

// TestBackfillGroupLogsNameEachCell: a version's formats are converted in
// one pass (convert.Catalogs); every "converted" line named the key of the
// pass's first cell (key=.../0.4.duckdb beside to_version=1.1, trial 2
// F2.5). Each line names its own cell now.
func TestBackfillGroupLogsNameEachCell(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("converts and proves a catalog")
	}
	st := copyLake(t, testlakes.Lake(t, "lakes", "06_deletes"))
	var buf bytes.Buffer
	// "converted" is a DEBUG line (the cell's line at INFO is the CLI's).
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := Backfill(context.Background(), st, Options{Formats: []string{"0.4", "1.1"}, Jobs: 1, Logger: log}); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	converted := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] != "converted" {
			continue
		}
		to, _ := m["to_version"].(string)
		key, _ := m["key"].(string)
		converted[to]++
		if !strings.HasSuffix(key, "/catalogs/"+to+".duckdb") {
			t.Errorf("converted to %s names key %s: %s", to, key, line)
		}
	}
	if converted["0.4"] == 0 || converted["1.1"] == 0 {
		t.Fatalf("converted lines %v, want both formats\n%s", converted, buf.String())
	}
}

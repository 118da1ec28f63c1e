package convert

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
)

// heldGate is a ReadGate that holds every file back until asked for it,
// recording what was asked, and fails when err is set.
type heldGate struct {
	mu    sync.Mutex
	asked []string
	err   error
}

func (g *heldGate) Readable(_ context.Context, paths []string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, paths...)
	return g.err
}

func (g *heldGate) Ready(string) bool { return false }

// TestGateBeforeFooterReads: a footer check asks the gate for each data
// file it reads from the data folder (no stand-ins given) before reading
// it, reaching the same verdict; a gate that cannot make a file readable
// fails the conversion.
func TestGateBeforeFooterReads(t *testing.T) {
	src, data, _ := unmappedLake(t)
	alone := unmappedRefusal(t, src, Options{DataPath: data})
	g := &heldGate{}
	if got := unmappedRefusal(t, src, Options{DataPath: data, Gate: g}); got != alone {
		t.Errorf("refusal with a gate\n%s\nwant\n%s", got, alone)
	}
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		p := query(t, src, "SELECT path FROM c.ducklake_data_file WHERE data_file_id = "+id)[0][0]
		if !slices.Contains(g.asked, p) {
			t.Errorf("gate not asked for data file %s (%s); asked %v", id, p, g.asked)
		}
	}

	failing := &heldGate{err: errors.New("copy cannot be downloaded again")}
	_, err := Catalog(context.Background(), src, filepath.Join(t.TempDir(), "out.duckdb"), formats.V0_4, Options{DataPath: data, Gate: failing})
	if err == nil || !strings.Contains(err.Error(), failing.err.Error()) {
		t.Errorf("error %v, want the gate's", err)
	}
}

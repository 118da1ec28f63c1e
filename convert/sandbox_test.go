package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fdl-formats/fdl-formats/formats"
	"github.com/fdl-formats/fdl-formats/internal/sandboxtest"
	"github.com/fdl-formats/fdl-formats/internal/testlakes"
)

// TestConversionSandbox: a conversion's database, asked through its own
// connection (as a slip in our SQL would ask), opens no file outside its
// source catalog, data folder, delete files' folder and outputs' folders
// (or, with Engines bounded to a run's folders, outside those), writes
// none there, and cannot turn its sandbox off; the conversion then writes
// its output as before. Before the sandbox, each of these statements ran.
func TestConversionSandbox(t *testing.T) {
	ctx := context.Background()
	lake := filepath.Join(testlakes.Dir(t, "lakes"), "06_deletes")
	vs := versionCatalogs(t, lake)
	src := vs[len(vs)-1]
	data := filepath.Join(lake, "data")
	outside, secret := sandboxtest.Outside(t)
	bounded := NewEngines(1)
	defer bounded.Close()
	for _, tc := range []struct {
		name    string
		engines *Engines
	}{{"own reach", nil}, {"a run's folders", bounded}} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			bounded.Within(lake, out)
			dst := filepath.Join(out, "0.4.duckdb")
			p, closeDB, err := prepare(ctx, src, []string{dst}, Options{DataPath: data, TempDir: out, Engines: tc.engines})
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			sandboxtest.Refused(t, "a conversion's", func(q string) error {
				_, err := p.conn.ExecContext(ctx, q)
				return err
			}, outside, secret, "")
			if _, err := p.convert(ctx, dst, formats.V0_4, nil); err != nil {
				t.Fatalf("convert in the sandbox: %v", err)
			}
			if _, err := os.Stat(dst); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDetectSandbox: Detect's database reaches the catalog only.
func TestDetectSandbox(t *testing.T) {
	lake := filepath.Join(testlakes.Dir(t, "lakes"), "06_deletes")
	vs := versionCatalogs(t, lake)
	if v, err := Detect(context.Background(), vs[0]); err != nil || v == nil {
		t.Fatalf("Detect in the sandbox: %v, %v", v, err)
	}
}

// fixtureDirs are the folders of the tests' catalogs, data and outputs:
// temporary folders and the unpacked conformance set.
func fixtureDirs(t *testing.T) []string {
	return []string{os.TempDir(), filepath.Dir(filepath.Dir(testlakes.Dir(t, "lakes")))}
}

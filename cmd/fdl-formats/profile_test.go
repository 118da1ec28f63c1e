package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfileEnv: $FDL_FORMATS_CPU_PROFILE makes a run write a CPU
// profile (gzipped, as runtime/pprof writes it) to the file it names; a
// file that cannot be created is a usage error naming the variable.
func TestCPUProfileEnv(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpu.pprof")
	t.Setenv(cpuProfileEnv, p)
	var errOut bytes.Buffer
	if code := runMain(newApp(), []string{"fdl-formats", "version"}, &errOut, interruptGrace); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("no profile written: %d bytes, %v", len(b), err)
	}
	t.Setenv(cpuProfileEnv, filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	errOut.Reset()
	if code := runMain(newApp(), []string{"fdl-formats", "version"}, &errOut, interruptGrace); code != exitUsage || !strings.Contains(errOut.String(), "$"+cpuProfileEnv) {
		t.Errorf("exit %d, %q; want a usage error naming $%s", code, errOut.String(), cpuProfileEnv)
	}
}

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names the environment variable that makes a run write a
// CPU profile of itself (Go's, for go tool pprof) to the file it names:
// a tool of the project's measurements (docs/compare.md, "Benchmark"),
// not a flag of --help. DuckDB's work shows as the cgo calls of the
// statements that run it.
const cpuProfileEnv = "FDL_FORMATS_CPU_PROFILE"

// startCPUProfile starts the CPU profile getenv(cpuProfileEnv) names, if
// any, and returns what stops it and closes its file.
func startCPUProfile(getenv func(string) string) (stop func() error, err error) {
	path := getenv(cpuProfileEnv)
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("$%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("$%s %q: %w", cpuProfileEnv, path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("$%s %q: %w", cpuProfileEnv, path, err)
		}
		return nil
	}, nil
}

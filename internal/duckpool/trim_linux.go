//go:build linux && cgo

package duckpool

// #include <malloc.h>
import "C"

// trimHeap gives the free memory of the C heap's arenas back to the
// operating system: glibc's malloc_trim, which DuckDB's own allocator also
// calls (DuckDB's Linux builds link against glibc).
func trimHeap() { C.malloc_trim(0) }

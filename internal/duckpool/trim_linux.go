//go:build linux && cgo

package duckpool

/*
#include <stddef.h>
// glibc's malloc_trim; weak, so that a C library without it (musl) links
// and trimHeap does nothing there.
extern int malloc_trim(size_t pad) __attribute__((weak));
static void fdl_trim_heap(void) {
	if (malloc_trim) {
		malloc_trim(0);
	}
}
*/
import "C"

// trimHeap gives the free memory of the C heap's arenas back to the
// operating system (glibc's malloc_trim).
func trimHeap() { C.fdl_trim_heap() }

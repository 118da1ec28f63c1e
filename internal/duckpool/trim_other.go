//go:build !linux || !cgo

package duckpool

// trimHeap does nothing where the C library's heap is not glibc's.
func trimHeap() {}

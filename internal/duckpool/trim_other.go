//go:build !linux || !cgo

package duckpool

// trimHeap does nothing where the C heap is not glibc's.
func trimHeap() {}

// Package faults lets tests inject failures at named points of a run. The
// injector travels in the context, so the public types carry no test-only
// fields or options and nothing is global: without an injector, At does
// nothing. Only packages of this module can import it.
package faults

import "context"

// Point is a place in a run where a test may inject a failure.
type Point struct {
	// Name is "<package>/<step>", e.g. "backfill/compare", "local/link",
	// "convert/publish".
	Name string
	// Path is the local file the step is about, when there is one (the
	// converted catalog at "backfill/compare", the destination at
	// "convert/link").
	Path string
	// From is the temporary file about to become Path, at points that
	// publish one ("convert/link").
	From string
}

// Func decides what happens at a point: an error fails the step there.
type Func func(Point) error

type key struct{}

// With returns a context whose runs call f at every point.
func With(ctx context.Context, f Func) context.Context {
	return context.WithValue(ctx, key{}, f)
}

// At calls the context's injector, if any, at the point name.
func At(ctx context.Context, name, path string) error {
	return AtPoint(ctx, Point{Name: name, Path: path})
}

// AtPoint is At with every field of the point.
func AtPoint(ctx context.Context, p Point) error {
	f, _ := ctx.Value(key{}).(Func)
	if f == nil {
		return nil
	}
	return f(p)
}

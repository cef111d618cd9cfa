package engine

import "context"

// workKey is the context key of WithWork.
type workKey struct{}

// WithWork returns ctx carrying work as the context display.Context()
// returns to the cell, in place of ctx itself. The kernel uses it to stop
// a cell in two steps: cancelling work asks the cell's long work (a
// campaign, a check) to stop and return what it has; cancelling ctx stops
// the interpreted code.
func WithWork(ctx, work context.Context) context.Context {
	return context.WithValue(ctx, workKey{}, work)
}

// workOf returns the context display.Context() gives a cell run with ctx.
func workOf(ctx context.Context) context.Context {
	if w, ok := ctx.Value(workKey{}).(context.Context); ok {
		return w
	}
	return ctx
}

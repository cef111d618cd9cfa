//go:build linux && amd64

package supervisor

// RandomDrawn is how many bytes the nodes have drawn from the run's one
// random stream: an action that draws is ordered with every other that
// does (the bytes each gets depend on the order).
func (w *World) RandomDrawn() uint64 { return w.rand.drawn }

//go:build linux && amd64

package supervisor

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// TestHashCoversRandomStream: two worlds that differ only in how much of
// the random stream their nodes drew hash differently, since every later
// draw differs.
func TestHashCoversRandomStream(t *testing.T) {
	w := &World{rand: newRandStream(1), net: netsim.New()}
	before, err := w.Hash(HashGlobals, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := w.Hash(HashGlobals, nil)
	var b [8]byte
	w.rand.Read(b[:])
	after, _ := w.Hash(HashGlobals, nil)
	if before != again || before == after {
		t.Errorf("hash before a draw %x, again %x, after %x: want equal, then different", before[:4], again[:4], after[:4])
	}
}

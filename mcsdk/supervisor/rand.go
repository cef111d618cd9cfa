//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"math/rand/v2"
)

// randStream is the run's one source of random bytes: ChaCha8 keyed by the
// seed, so every byte a node draws is a function of the seed and of the
// order of draws (which the scheduler fixes).
type randStream struct {
	c     *rand.ChaCha8
	drawn uint64 // bytes read so far
}

func newRandStream(seed uint64) *randStream {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], seed)
	copy(key[8:], "weft random stream v1..")
	return &randStream{c: rand.NewChaCha8(key)}
}

func (r *randStream) Read(p []byte) {
	r.drawn += uint64(len(p))
	r.c.Read(p)
}

//go:build linux && amd64

package supervisor

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// sigState is the signal state one node contributes to the world hash
// (hashSignals): weft's own bookkeeping and, per thread, the alternate
// stack and the kernel's sets.
type sigState struct {
	node    nodeSignals
	alts    []vkernel.AltStack
	kernels []vkernel.ThreadSig
}

func (s *sigState) digest() [32]byte {
	h := sha256.New()
	put := func(v uint64) { h.Write(binary.LittleEndian.AppendUint64(nil, v)) }
	s.node.hash(&s.node.timers, put)
	for i := range s.alts {
		s.alts[i].Hash(put)
		s.kernels[i].Hash(put)
	}
	var d [32]byte
	copy(d[:], h.Sum(nil))
	return d
}

// randSigState draws a signal state; mutate changes exactly one field of
// one (field k of the list every state has).
func randSigState(r *rand.Rand) *sigState {
	s := &sigState{}
	rt := func() vkernel.SigTimer {
		return vkernel.SigTimer{Clock: r.Uint64N(3), NodeTimer: nodeTimer{Deadline: r.Int64N(1e9) + 1, Interval: r.Int64N(1e6)}, Notify: int(r.Uint64N(3)),
			Signo: int(r.Uint64N(64)) + 1, Value: r.Uint64(), Tid: r.Int64N(5000), Overrun: int(r.Uint64N(4)), LastOverrun: int(r.Uint64N(4))}
	}
	s.node.timers.Real = rt()
	for range r.IntN(3) + 1 {
		t := rt()
		s.node.timers.Posix = append(s.node.timers.Posix, &t)
	}
	s.node.actions = vkernel.SigActions{}
	for range r.IntN(3) + 1 {
		s.node.actions[r.IntN(64)+1] = vkernel.SigAction{Handler: r.Uint64(), Flags: r.Uint64(), Restorer: r.Uint64(), Mask: r.Uint64()}
	}
	for range r.IntN(3) + 1 {
		s.alts = append(s.alts, vkernel.AltStack{SP: r.Uint64(), Size: r.Uint64(), Flags: uint32(r.Uint64N(2)) << 31})
		s.kernels = append(s.kernels, vkernel.ThreadSig{Pending: vkernel.SigSet(r.Uint64()), Shared: vkernel.SigSet(r.Uint64()), Blocked: vkernel.SigSet(r.Uint64()), Ignored: vkernel.SigSet(r.Uint64()), Caught: vkernel.SigSet(r.Uint64())})
	}
	return s
}

func (s *sigState) clone() *sigState {
	c := &sigState{node: s.node, alts: append([]vkernel.AltStack(nil), s.alts...), kernels: append([]vkernel.ThreadSig(nil), s.kernels...)}
	c.node.timers.Posix = nil
	for _, t := range s.node.timers.Posix {
		tc := *t
		c.node.timers.Posix = append(c.node.timers.Posix, &tc)
	}
	c.node.actions = vkernel.SigActions{}
	for k, v := range s.node.actions {
		c.node.actions[k] = v
	}
	return c
}

// mutations each change one piece of the state.
var sigMutations = []func(s *sigState, r *rand.Rand){
	func(s *sigState, _ *rand.Rand) { s.node.timers.Real.Deadline += 7 },
	func(s *sigState, _ *rand.Rand) { s.node.timers.Real.Interval++ },
	func(s *sigState, r *rand.Rand) { s.node.timers.Posix[r.IntN(len(s.node.timers.Posix))].Signo += 1 },
	func(s *sigState, r *rand.Rand) { s.node.timers.Posix[r.IntN(len(s.node.timers.Posix))].Value ^= 1 },
	func(s *sigState, r *rand.Rand) { s.node.timers.Posix[r.IntN(len(s.node.timers.Posix))].Tid++ },
	func(s *sigState, r *rand.Rand) { s.node.timers.Posix[r.IntN(len(s.node.timers.Posix))].Overrun++ },
	func(s *sigState, r *rand.Rand) { s.node.timers.Posix[r.IntN(len(s.node.timers.Posix))].Notify ^= 4 },
	func(s *sigState, r *rand.Rand) { s.node.timers.Posix[r.IntN(len(s.node.timers.Posix))] = nil },
	func(s *sigState, _ *rand.Rand) { s.node.timers.Add(&vkernel.SigTimer{}) },
	func(s *sigState, _ *rand.Rand) {
		for k, a := range s.node.actions {
			a.Flags ^= 1
			s.node.actions[k] = a
			return
		}
	},
	func(s *sigState, _ *rand.Rand) { s.node.actions[65] = vkernel.SigAction{} },
	func(s *sigState, r *rand.Rand) { s.alts[r.IntN(len(s.alts))].SP++ },
	func(s *sigState, r *rand.Rand) { s.alts[r.IntN(len(s.alts))].Flags ^= vkernel.SSAutodisarm },
	func(s *sigState, r *rand.Rand) {
		s.kernels[r.IntN(len(s.kernels))].Pending ^= vkernel.SigBit(r.IntN(64) + 1)
	},
	func(s *sigState, r *rand.Rand) {
		s.kernels[r.IntN(len(s.kernels))].Shared ^= vkernel.SigBit(r.IntN(64) + 1)
	},
	func(s *sigState, r *rand.Rand) {
		s.kernels[r.IntN(len(s.kernels))].Blocked ^= vkernel.SigBit(r.IntN(64) + 1)
	},
	func(s *sigState, r *rand.Rand) {
		s.kernels[r.IntN(len(s.kernels))].Ignored ^= vkernel.SigBit(r.IntN(64) + 1)
	},
	func(s *sigState, r *rand.Rand) {
		s.kernels[r.IntN(len(s.kernels))].Caught ^= vkernel.SigBit(r.IntN(64) + 1)
	},
}

// TestSignalHashProperty checks, over random signal states, that equal
// states hash equal (also when rebuilt, e.g. map order) and that
// changing any one piece of the state changes the hash.
func TestSignalHashProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		s := randSigState(r)
		if s.digest() != s.clone().digest() {
			t.Fatalf("equal states hash differently: %+v", s)
		}
		k := i % len(sigMutations)
		m := s.clone()
		sigMutations[k](m, r)
		if s.digest() == m.digest() {
			t.Fatalf("mutation %d did not change the hash: %+v", k, s)
		}
	}
}

// TestLiveFrom checks where memory hashing starts in a mapping: above the
// lowest stack pointer in it less the red zone, word-aligned, never below
// the mapping; the whole mapping when no thread's stack is in it.
func TestLiveFrom(t *testing.T) {
	cases := []struct {
		lo, hi uint64
		sps    []uint64
		want   uint64
	}{
		{0x1000, 0x9000, nil, 0x1000},
		{0x1000, 0x9000, []uint64{0xa000}, 0x1000},
		{0x1000, 0x9000, []uint64{0x8000}, 0x8000 - 128},
		{0x1000, 0x9000, []uint64{0x8003}, (0x8003 - 128) &^ 7},
		{0x1000, 0x9000, []uint64{0x8000, 0x5000, 0xa000}, 0x5000 - 128},
		{0x1000, 0x9000, []uint64{0x1010}, 0x1000},
	}
	for _, c := range cases {
		if got := liveFrom(c.lo, c.hi, c.sps); got != c.want {
			t.Errorf("liveFrom(%#x, %#x, %#x) = %#x, want %#x", c.lo, c.hi, c.sps, got, c.want)
		}
	}
}

package history

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/weft-mc/weft/mcsdk/workload"
)

// linearHistory builds a linearizable history of n operations shaped like
// the bundled workloads (targets/quorum/register.model: a register with
// reads and writes of a few values; targets/paxos/paxos.model: a kv map of
// two keys with gets and puts): clients clients, each one operation at a
// time, every operation spanning a few steps so that clients overlap. It
// is the history of a sequential object whose operations take effect at a
// random step within their interval, so it is linearizable by
// construction; the checker must find a linearization.
func linearHistory(kind workload.Kind, n, clients int, seed uint64) []workload.Op {
	r := rand.New(rand.NewPCG(seed, 1))
	state := map[string]int64{}
	type running struct {
		op     workload.Op
		effect int // the step at which it takes effect
	}
	busy := make([]*running, clients)
	var out []workload.Op
	seq := make([]int, clients)
	for step := 1; len(out) < n || countBusy(busy) > 0; step++ {
		for c := range busy {
			if busy[c] == nil && len(out)+countBusy(busy) < n && r.IntN(2) == 0 {
				call := workload.Call{Client: c, Seq: seq[c], Value: int64(1 + r.IntN(3))}
				seq[c]++
				if kind == workload.KV {
					call.Key = strconv.Itoa(r.IntN(2))
					call.Op = []string{"get", "put"}[r.IntN(2)]
				} else {
					call.Op = []string{"read", "write"}[r.IntN(2)]
				}
				busy[c] = &running{op: workload.Op{Call: call, CallStep: step}, effect: step + r.IntN(4)}
			}
			b := busy[c]
			if b == nil {
				continue
			}
			if step == b.effect {
				if workload.Reads(b.op.Call.Op) {
					if v, ok := state[b.op.Call.Key]; ok || kind == workload.Register {
						b.op.Values = []int64{v}
					}
				} else {
					state[b.op.Call.Key] = b.op.Call.Value
				}
			}
			if step >= b.effect && r.IntN(2) == 0 {
				b.op.Outcome, b.op.ReturnStep = workload.Ok, step
				out = append(out, b.op)
				busy[c] = nil
			}
		}
	}
	return out
}

func countBusy[T any](b []*T) int {
	n := 0
	for _, x := range b {
		if x != nil {
			n++
		}
	}
	return n
}

func TestLinearHistory(t *testing.T) {
	for _, kind := range []workload.Kind{workload.Register, workload.KV} {
		ops := linearHistory(kind, 1000, 3, 1)
		r, err := Check(kind, ops)
		if err != nil || !r.Ok || r.Ops != 1000 {
			t.Fatalf("%s: %v %+v", kind, err, r)
		}
	}
}

// BenchmarkCheck measures Porcupine's checking time for linearizable
// histories of 100, 1,000 and 10,000 operations of 3 clients.
func BenchmarkCheck(b *testing.B) {
	for _, kind := range []workload.Kind{workload.Register, workload.KV} {
		for _, n := range []int{100, 1000, 10000} {
			ops := linearHistory(kind, n, 3, 7)
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				for b.Loop() {
					r, err := Check(kind, ops)
					if err != nil || !r.Ok {
						b.Fatalf("%v %+v", err, r)
					}
				}
			})
		}
	}
}

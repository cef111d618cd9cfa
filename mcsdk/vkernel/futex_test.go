package vkernel

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFutexQueues runs scripts of waits, wakes, requeues and removals on
// one table and checks each answer and the queues after it (futex(2):
// waiters are woken in arrival order, a bitset wake takes only waiters
// whose bitset meets its own, a count below one wakes one, FUTEX_REQUEUE
// moves the waiters it does not wake behind the second word's).
//
// Steps: "wait KEY ID [BITS]", "wake KEY NR [BITS]" -> woken ids,
// "requeue KEY NWAKE NREQ KEY2" -> woken ids and moved count,
// "remove ID" -> whether it waited; each is followed by the queues as
// KEY:ID,ID;... in key order.
func TestFutexQueues(t *testing.T) {
	cases := []struct {
		name  string
		steps []string // command => answer => queues
	}{
		{"FIFO wakes", []string{
			"wait 16 3 => - => 16:3",
			"wait 16 1 => - => 16:3,1",
			"wait 16 2 => - => 16:3,1,2",
			"wake 16 2 => [3 1] => 16:2",
			"wake 16 5 => [2] => ",
			"wake 16 1 => [] => ",
		}},
		{"a count below one wakes one", []string{
			"wait 8 1 => - => 8:1", "wait 8 2 => - => 8:1,2",
			"wake 8 0 => [1] => 8:2",
			"wake 8 -1 => [2] => ",
		}},
		{"keys are apart", []string{
			"wait 8 1 => - => 8:1", "wait 16 2 => - => 8:1;16:2",
			"wake 16 9 => [2] => 8:1",
		}},
		{"bitsets", []string{
			"wait 8 1 0x1 => - => 8:1", "wait 8 2 0x2 => - => 8:1,2", "wait 8 3 0x3 => - => 8:1,2,3",
			"wake 8 9 0x2 => [2 3] => 8:1",
			"wake 8 9 0x4 => [] => 8:1",
			"wake 8 9 0xffffffff => [1] => ",
		}},
		{"requeue wakes some, moves some, leaves the rest", []string{
			"wait 8 1 => - => 8:1", "wait 8 2 => - => 8:1,2", "wait 8 3 => - => 8:1,2,3", "wait 8 4 => - => 8:1,2,3,4",
			"wait 24 9 => - => 8:1,2,3,4;24:9",
			"requeue 8 1 2 24 => [1] 2 => 8:4;24:9,2,3",
			"requeue 8 0 5 24 => [] 1 => 24:9,2,3,4",
			"wake 24 9 => [9 2 3 4] => ",
		}},
		{"removal on a timeout, a signal or an exit", []string{
			"wait 8 1 => - => 8:1", "wait 8 2 => - => 8:1,2", "wait 16 3 => - => 8:1,2;16:3",
			"remove 1 => true => 8:2;16:3",
			"remove 3 => true => 8:2",
			"remove 3 => false => 8:2",
		}},
	}
	for _, tc := range cases {
		f := NewFutexes()
		for _, s := range tc.steps {
			parts := strings.Split(s, " => ")
			if got := futexStep(f, parts[0]); got != parts[1] {
				t.Errorf("%s: %s: %s, want %s", tc.name, parts[0], got, parts[1])
			}
			if got := queues(f); got != parts[2] {
				t.Errorf("%s: after %s the queues are %q, want %q", tc.name, parts[0], got, parts[2])
			}
		}
	}
}

func futexStep(f *Futexes, cmd string) string {
	var a, b, c, d int64
	bits := uint32(FutexBitsetAll)
	switch w := strings.Fields(cmd); w[0] {
	case "wait":
		fmt.Sscan(strings.Join(w[1:], " "), &a, &b, &bits)
		f.Wait(uint64(a), int(b), bits)
		return "-"
	case "wake":
		fmt.Sscan(strings.Join(w[1:], " "), &a, &b, &bits)
		return fmt.Sprint(orEmpty(f.Wake(uint64(a), int(b), bits)))
	case "requeue":
		fmt.Sscan(strings.Join(w[1:], " "), &a, &b, &c, &d)
		woken, moved := f.Requeue(uint64(a), int(b), int(c), uint64(d))
		return fmt.Sprint(orEmpty(woken), " ", moved)
	case "remove":
		fmt.Sscan(w[1], &a)
		return fmt.Sprint(f.Remove(int(a)))
	}
	panic("vkernel test: unknown futex step " + cmd)
}

func orEmpty(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}

// queues shows f's queues through its hash input (keys in order, then
// their waiters), so that the test also checks what Hash writes.
func queues(f *Futexes) string {
	var words []uint64
	f.Hash(func(v uint64) { words = append(words, v) })
	var out []string
	for i := 0; i < len(words); {
		key := words[i]
		ids := f.Waiters(key)
		var s []string
		for j, id := range ids {
			if words[i+1+j] != uint64(id) {
				return fmt.Sprintf("hash input %v disagrees with the queue of %d", words, key)
			}
			s = append(s, fmt.Sprint(id))
		}
		out = append(out, fmt.Sprintf("%d:%s", key, strings.Join(s, ",")))
		i += 1 + len(ids)
	}
	return strings.Join(out, ";")
}

// TestFutexNil checks that a node that never waited has no waiter to
// wake, move or remove, and hashes nothing.
func TestFutexNil(t *testing.T) {
	var f *Futexes
	woken, moved := f.Requeue(1, 1, 1, 2)
	if f.Wake(1, 1, FutexBitsetAll) != nil || woken != nil || moved != 0 || f.Remove(1) || f.Waiters(1) != nil {
		t.Error("a nil table answered")
	}
	f.Hash(func(uint64) { t.Error("a nil table hashed") })
}

// TestFutexOp checks FUTEX_WAKE_OP's encoding against futex(2): each
// operation and comparison, the 12-bit signed arguments, the shifted
// argument (FUTEX_OP_OPARG_SHIFT), and ENOSYS for unknown codes.
func TestFutexOp(t *testing.T) {
	enc := func(op, cmp, oparg, cmparg uint32) uint32 {
		return op<<28 | cmp<<24 | (oparg&0xfff)<<12 | cmparg&0xfff
	}
	neg := func(v int32) uint32 { return uint32(v) }
	cases := []struct {
		name     string
		enc, old uint32
		want     uint32
		pass     bool
		err      error
	}{
		{"SET, EQ passes", enc(0, 0, 7, 5), 5, 7, true, nil},
		{"SET, EQ fails", enc(0, 0, 7, 5), 4, 7, false, nil},
		{"ADD, NE", enc(1, 1, 3, 5), 10, 13, true, nil},
		{"ADD a negative argument", enc(1, 1, neg(-1), 0), 10, 9, true, nil},
		{"OR, LT", enc(2, 2, 0x30, 1), 0, 0x30, true, nil},
		{"ANDN, LE", enc(3, 3, 0x1, 1), 3, 2, false, nil},
		{"XOR, GT", enc(4, 4, 0xff, 0), 0x0f, 0xf0, true, nil},
		{"GE on a negative old value", enc(0, 5, 0, neg(-2)), neg(-3), 0, false, nil},
		{"LT is signed", enc(0, 2, 0, 0), neg(-1), 0, true, nil},
		{"OPARG_SHIFT: 1<<4", enc(8|2, 0, 4, 0), 0, 16, true, nil},
		{"OPARG_SHIFT takes the low 5 bits", enc(8, 0, 33, 0), 0, 2, true, nil},
		{"an unknown operation", enc(5, 0, 0, 0), 0, 0, false, ENOSYS},
		{"an unknown comparison", enc(0, 6, 0, 0), 0, 0, false, ENOSYS},
	}
	for _, c := range cases {
		v, pass, err := FutexOp(c.enc, c.old)
		if v != c.want || pass != c.pass || !errors.Is(err, c.err) || err != nil && c.err == nil {
			t.Errorf("%s: FutexOp(%#x, %d) = %d, %v, %v; want %d, %v, %v", c.name, c.enc, c.old, v, pass, err, c.want, c.pass, c.err)
		}
	}
}

package vkernel

import (
	"maps"
	"slices"
)

// Futexes are a node's futex wait queues (futex(2)): for each futex key
// (a word's address in one address space; the caller makes the keys, so
// that a process's threads share them and a forked child has its own)
// the waiters in arrival order, each an opaque id with the bitset it
// waits for. A nil *Futexes has no waiter.
type Futexes struct {
	q map[uint64][]futexWaiter
}

type futexWaiter struct {
	id   int
	bits uint32
}

// FutexBitsetAll is the bitset of FUTEX_WAIT and FUTEX_WAKE: every bit.
const FutexBitsetAll = 0xffffffff

// NewFutexes is a table with no waiter.
func NewFutexes() *Futexes { return &Futexes{q: map[uint64][]futexWaiter{}} }

// Wait queues waiter id on key, behind the waiters already there, until
// a wake whose bitset meets bits (not zero: the caller refuses a zero
// bitset with EINVAL).
func (f *Futexes) Wait(key uint64, id int, bits uint32) {
	f.q[key] = append(f.q[key], futexWaiter{id, bits})
}

// Wake takes off key up to nr waiters whose bitset meets bits, in
// arrival order (a count below one wakes one, as Linux does), and
// returns their ids in that order.
func (f *Futexes) Wake(key uint64, nr int, bits uint32) []int {
	if f == nil {
		return nil
	}
	var woken []int
	var keep []futexWaiter
	for _, w := range f.q[key] {
		if len(woken) < max(nr, 1) && w.bits&bits != 0 {
			woken = append(woken, w.id)
			continue
		}
		keep = append(keep, w)
	}
	f.set(key, keep)
	return woken
}

// Requeue is FUTEX_REQUEUE: it wakes up to nwake waiters on key (none
// for a count below one) and moves up to nreq of the others, in order,
// behind the waiters of key2; it returns the woken ids and how many
// moved.
func (f *Futexes) Requeue(key uint64, nwake, nreq int, key2 uint64) (woken []int, moved int) {
	if f == nil {
		return nil, 0
	}
	if nwake > 0 {
		woken = f.Wake(key, nwake, FutexBitsetAll)
	}
	q := f.q[key]
	k := min(max(nreq, 0), len(q))
	f.set(key, slices.Clone(q[k:]))
	if k > 0 {
		f.q[key2] = append(f.q[key2], q[:k]...)
	}
	return woken, k
}

// Remove takes waiter id off its queue (a timeout, a signal, the
// thread's end); it reports whether id was waiting.
func (f *Futexes) Remove(id int) bool {
	if f == nil {
		return false
	}
	for key, q := range f.q {
		if i := slices.IndexFunc(q, func(w futexWaiter) bool { return w.id == id }); i >= 0 {
			f.set(key, slices.Delete(slices.Clone(q), i, i+1))
			return true
		}
	}
	return false
}

// Waiters are the ids waiting on key, in arrival order.
func (f *Futexes) Waiters(key uint64) []int {
	if f == nil {
		return nil
	}
	var ids []int
	for _, w := range f.q[key] {
		ids = append(ids, w.id)
	}
	return ids
}

func (f *Futexes) set(key uint64, q []futexWaiter) {
	if len(q) == 0 {
		delete(f.q, key)
		return
	}
	f.q[key] = q
}

// Hash writes the queues for the world hash: by key in increasing
// order, the key and then each waiter's id in arrival order.
func (f *Futexes) Hash(put func(uint64)) {
	if f == nil {
		return
	}
	for _, key := range slices.Sorted(maps.Keys(f.q)) {
		put(key)
		for _, w := range f.q[key] {
			put(uint64(w.id))
		}
	}
}

// FutexOp is FUTEX_WAKE_OP's arithmetic (futex(2)): enc encodes an
// operation, its argument, a comparison and its argument; FutexOp
// returns the word's new value from its old one, and whether the old
// value passes the comparison (then the waiters of the second word are
// woken too). An unknown operation or comparison is ENOSYS.
//
//	enc = op<<28 | cmp<<24 | oparg<<12 | cmparg   (12-bit signed args)
//	op:  0 SET, 1 ADD, 2 OR, 3 ANDN, 4 XOR; op|8: oparg is 1<<oparg
//	cmp: 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE (signed, on the old value)
func FutexOp(enc, old uint32) (uint32, bool, error) {
	op, cmp := (enc>>28)&7, (enc>>24)&15
	oparg := signExtend12((enc >> 12) & 0xfff)
	cmparg := signExtend12(enc & 0xfff)
	if enc&(8<<28) != 0 {
		oparg = 1 << (uint32(oparg) & 31)
	}
	o := int32(old)
	var v int32
	switch op {
	case 0:
		v = oparg
	case 1:
		v = o + oparg
	case 2:
		v = o | oparg
	case 3:
		v = o &^ oparg
	case 4:
		v = o ^ oparg
	default:
		return 0, false, ENOSYS
	}
	var pass bool
	switch cmp {
	case 0:
		pass = o == cmparg
	case 1:
		pass = o != cmparg
	case 2:
		pass = o < cmparg
	case 3:
		pass = o <= cmparg
	case 4:
		pass = o > cmparg
	case 5:
		pass = o >= cmparg
	default:
		return 0, false, ENOSYS
	}
	return uint32(v), pass, nil
}

func signExtend12(v uint32) int32 { return int32(v<<20) >> 20 }

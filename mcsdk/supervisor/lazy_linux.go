//go:build linux && amd64

package supervisor

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Lazy restores. A world restored from a checkpoint gives a node its
// processes (forks of the frozen ones, their threads re-created, their
// descriptors' state and host files put back: materialise) only when
// something needs them: the node runs (runNode, resume, a retried call),
// a signal or a crash is applied to it, its memory or /proc files are
// read, or the world is checkpointed. A search restores every node of a
// world and runs one or two of them before the world ends: the others
// were forked, had their threads re-created and were torn down for
// nothing.
//
// What the world's hash reads of a node's processes, for a node not
// given them yet, is carried from the checkpoint (procSlot): the first
// restore of a checkpoint hashed with such a node gives it its processes
// there and then and records what the hash read of them (the memory
// digest in memSlot, the rest in procSlot); later restores write the
// records. A node given its processes during a hash has not run since
// the restore, and a restore leaves every node as the frozen processes
// are, the same for every restore of the checkpoint (hashMemory): what
// one restore's hash reads there, every other's would. With -tags
// weftverify every node is given its processes before a hash and the
// records are checked against what is read.
//
// The data directories are copied at the restore as before (one root for
// the world: datapool_linux.go).
//
// A checkpoint of a restored world shares, for each node still not
// given its processes, the frozen processes of the world's checkpoint
// (sharePending): they are what a freeze of the node forked from them
// would fork again, so the new checkpoint takes them, with what its
// freeze would have read of the node (the descriptions' state, its host
// files, the hash records, the memory base), from the old one, and
// counts itself among their holders (frozenProc.holders): the last
// holder's Close kills them.

// EagerRestore, set before a search, makes restores give every node its
// processes at once (as before lazy restores), for the comparison tests.
var EagerRestore bool

// lazyNodes are a restored world's nodes not given their processes yet.
type lazyNodes struct {
	cp      *Checkpoint
	pending []bool // per node: its processes are still the checkpoint's frozen ones only
	fill    []*procSlot
}

// procSlot is what a hash reads of a node's processes, besides the main
// process's memory digest (memSlot), recorded for the nodes of a
// checkpoint's restores not given processes yet: ok once recorded, in
// mode.
type procSlot struct {
	ok   bool
	mode HashMode
	regs map[int][]uint64          // per task: taskRegs
	ksig map[int]vkernel.ThreadSig // per task: readKernelSig (HashMemory)
	cwds []byte                    // hashCwds's bytes
	kids map[int][32]byte          // per child process: its memory digest (HashMemory)
}

func newProcSlot(mode HashMode) *procSlot {
	return &procSlot{mode: mode, regs: map[int][]uint64{}, ksig: map[int]vkernel.ThreadSig{}, kids: map[int][32]byte{}}
}

// pending reports whether node n has no processes of its own yet.
func (w *World) pending(n *node) bool {
	return w.lazy != nil && w.lazy.pending[n.id]
}

// carried is the record that stands for n's processes in a hash (nil:
// read them), filling the one being recorded.
func (w *World) carried(n *node) (use, fill *procSlot) {
	if w.recording != nil {
		return nil, w.recording[n.id]
	}
	if w.lazy == nil {
		return nil, nil
	}
	if f := w.lazy.fill[n.id]; f != nil {
		return nil, f
	}
	if w.lazy.pending[n.id] {
		return w.lazy.cp.procs[n.id], nil
	}
	return nil, nil
}

// prepareHash gives the processes to each node not given them whose
// hash in mode is not recorded yet (all of them with -tags weftverify),
// and marks its record as being filled.
func (w *World) prepareHash(mode HashMode) error {
	l := w.lazy
	if l == nil {
		return nil
	}
	for i, n := range w.nodes {
		if !l.pending[i] {
			continue
		}
		s := l.cp.procs[i]
		if s != nil && s.ok && s.mode == mode && (mode != HashMemory || l.cp.mem[i] != nil && l.cp.mem[i].ok) && !verifyDigests {
			continue
		}
		if err := w.materialise(n); err != nil {
			return err
		}
		l.fill[i] = newProcSlot(mode)
	}
	return nil
}

// sharePending decides which of w's nodes not given their processes yet
// a checkpoint of w shares with w's checkpoint (shared, per node), and
// gives the others their processes (materialise), as a checkpoint of a
// world with every node forked would (a freeze forks live processes).
// A node is shared when what its freeze would read is its checkpoint's
// (shareable). With no node shared it lets go of w's checkpoint.
func (w *World) sharePending() ([]bool, error) {
	shared := make([]bool, len(w.nodes))
	l := w.lazy
	if l == nil {
		return shared, nil
	}
	some := false
	for i, n := range w.nodes {
		if !l.pending[i] {
			continue
		}
		if w.shareable(n) {
			shared[i], some = true, true
			continue
		}
		if err := w.materialise(n); err != nil {
			return nil, err
		}
	}
	if !some {
		w.dropLazy()
	}
	return shared, nil
}

// shareable reports whether a checkpoint of w may take node n's frozen
// processes from w's checkpoint. A node not given its processes has not
// run since the restore, so given them now it would be as the restore
// leaves it: forks of the frozen processes, their threads as recorded,
// each served description's state the one recorded, its host files
// opened again at their recorded offsets in w's data directories; its
// freeze would read those back. It is shareable if each of its
// processes has its frozen one, each of its served descriptors has its
// recorded state (none came since), and each of its host files opens
// in w's data directories as its restore would open it (otherwise
// giving it its processes fails or refuses as before).
func (w *World) shareable(n *node) bool {
	cp := w.lazy.cp
	for _, m := range n.members() {
		if m.idx > 0 && (m.idx >= len(cp.kids[n.id]) || cp.kids[n.id][m.idx] == nil) {
			return false
		}
		st := cp.flags[procKey{n.id, m.idx}]
		restore := n.asMember(m.idx)
		ok := true
		for fd, v := range n.fds.All() {
			if _, rec := st[fd]; v.ours >= 0 && !rec {
				ok = false
			}
		}
		restore()
		if !ok {
			return false
		}
	}
	for _, f := range cp.files[n.id] {
		fd, err := w.openHostFile(f, cp.w.dataRoot)
		if err != nil {
			return false
		}
		unix.Close(fd)
	}
	return true
}

// sharedCheckpointable says why node n, shared (sharePending), cannot be
// copied by what weft keeps of it: its host processes are its
// checkpoint's, checked when it was taken (memberCheckpointable's
// shared memory and pending signals).
func (n *node) sharedCheckpointable() error {
	if err := n.checkShared(); err != nil {
		return err
	}
	for _, m := range n.members() {
		restore := n.asMember(m.idx)
		err := threadsCheckpointable(n, m.tasks)
		restore()
		if err != nil {
			return err
		}
	}
	return nil
}

// sharedFiles are the host files of node n, shared (sharePending): its
// checkpoint's, those in the checkpoint's data directories pointed at
// w's, as a restore opens them (openHostFile) and a freeze would read
// them; the new checkpoint points them at its own (relocate).
func (w *World) sharedFiles(n *node) []hostFile {
	cp := w.lazy.cp
	out := slices.Clone(cp.files[n.id])
	for k, f := range out {
		if cp.w.dataRoot != "" && strings.HasPrefix(f.path, cp.w.dataRoot+"/") {
			out[k].path = w.dataRoot + strings.TrimPrefix(f.path, cp.w.dataRoot)
		}
	}
	return out
}

// shareNode makes node i's frozen processes, with what the freeze and
// the hash record of them (descriptions' state, memory base, memory
// digest and hash records), old's too; the files are sharedFiles.
func (cp *Checkpoint) shareNode(old *Checkpoint, i int) {
	fp := old.frozen[i]
	fp.holders++
	cp.frozen[i] = fp
	if ks := old.kids[i]; ks != nil {
		cp.kids[i] = slices.Clone(ks)
		for _, k := range ks {
			if k != nil {
				k.holders++
			}
		}
	}
	for k, st := range old.flags {
		if k.node == i {
			cp.flags[k] = st // never written after the freeze
		}
	}
	cp.bases[i], cp.mem[i], cp.procs[i] = old.bases[i], old.mem[i], old.procs[i]
}

// recordHash records, for each node frozen, what a hash in the mode of
// the world's last hash reads of its processes (procSlot), from the live
// node just frozen: the frozen processes are forks of it as it is now,
// and a restore leaves a node as they are (hashMemory), so what this
// reads is what a restore's hash would. So is the main process's memory
// digest if the node kept it, or has its checkpoint's unrun (memMemo;
// Checkpoint.freeze keeps it across the freeze). A world never hashed,
// or a part that cannot be read, leaves the records to the first
// restore that hashes, as before. With -tags weftverify every restore's
// hash checks them (hashDone, hashMemory). A node shared has its
// checkpoint's records (shareNode).
func (cp *Checkpoint) recordHash(w *World, shared []bool) {
	if !w.hashed {
		return
	}
	mode := w.hashMode
	w.recording = make([]*procSlot, len(w.nodes))
	defer func() { w.recording = nil }()
	parts := map[string]bool{}
	for i, n := range w.nodes {
		if n.exited || cp.frozen[i] == nil || shared[i] {
			continue
		}
		w.recording[i] = newProcSlot(mode)
		for _, s := range []string{"tasks", "cwds", "signals", "procs"} { // the parts that read carried records
			parts[fmt.Sprintf("n%d.%s", i, s)] = true
		}
		if m := n.memo; mode == HashMemory && m.pid == n.memPid() && m.ran == n.cpuTime() && m.ran != 0 {
			switch {
			case m.ok:
				cp.mem[i] = &memSlot{ok: true, sum: m.sum, pages: m.pages}
			case m.slot != nil && m.slot.ok: // restored, unrun: its checkpoint's (hashMemory)
				cp.mem[i] = &memSlot{ok: true, sum: m.slot.sum, pages: m.slot.pages}
			}
		}
	}
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	failed := map[string]bool{}
	for _, p := range w.hashParts(mode, nil) {
		if parts[p.name] && p.write(h, put) != nil {
			failed[p.name[:strings.IndexByte(p.name, '.')]] = true
		}
	}
	for i, s := range w.recording {
		if s != nil && !failed[fmt.Sprintf("n%d", i)] {
			s.ok = true
			cp.procs[i] = s
		}
	}
}

// hashDone keeps the records a hash filled, or with -tags weftverify
// checks them against the kept ones.
func (w *World) hashDone(ok bool) error {
	l := w.lazy
	if l == nil {
		return nil
	}
	var err error
	for i, f := range l.fill {
		if f == nil {
			continue
		}
		l.fill[i] = nil
		if !ok {
			continue
		}
		f.ok = true
		if s := l.cp.procs[i]; s != nil && s.ok && s.mode == f.mode {
			if !reflect.DeepEqual(s, f) && err == nil {
				err = fmt.Errorf("weftverify: node %d's processes as a restore leaves them hash differently from its checkpoint's record", i)
			}
			continue
		}
		l.cp.procs[i] = f
	}
	return err
}

// need gives node n its processes if it has none yet, failing the run if
// that fails; it reports whether n may go on.
func (w *World) need(n *node) bool {
	if !w.pending(n) {
		return true
	}
	if err := w.materialise(n); err != nil {
		w.fail(n, "", err.Error())
		return false
	}
	return true
}

// materialise forks node n's processes from its checkpoint's frozen ones
// and puts them where a restore puts them (Checkpoint.start).
func (w *World) materialise(n *node) error {
	l := w.lazy
	if l == nil || !l.pending[n.id] {
		return nil
	}
	l.pending[n.id] = false
	l.cp.materialised++
	if err := l.cp.startNode(w, n); err != nil {
		return fmt.Errorf("checkpoint: node %d: %v", n.id, err)
	}
	return nil
}

// materialiseAll gives every node its processes and lets go of the
// checkpoint.
func (w *World) materialiseAll() error {
	if w.lazy == nil {
		return nil
	}
	for _, n := range w.nodes {
		if err := w.materialise(n); err != nil {
			return err
		}
	}
	w.dropLazy()
	return nil
}

// dropLazy lets go of the checkpoint the world's nodes were restored
// from (Checkpoint.hold).
func (w *World) dropLazy() {
	if w.lazy == nil {
		return
	}
	cp := w.lazy.cp
	w.lazy = nil
	cp.refs--
	if cp.refs == 0 && cp.closed {
		cp.shut()
	}
}

// NodeCounts says how many nodes the checkpoint's restores restored
// (live nodes with processes at the checkpoint) and how many of them
// were given their processes (the others ended with their worlds
// without needing them).
func (cp *Checkpoint) NodeCounts() (restored, materialised int) {
	return cp.restored, cp.materialised
}

// taskRegs is t.taskRegs, or a restore's record of them.
func (w *World) taskRegs(t *task) ([]uint64, error) {
	use, fill := w.carried(t.n)
	if use != nil {
		r, ok := use.regs[t.k]
		if !ok {
			return nil, fmt.Errorf("node %d: no recorded registers of %s", t.n.id, t.name())
		}
		return r, nil
	}
	r, err := t.taskRegs()
	if fill != nil && err == nil {
		fill.regs[t.k] = r
	}
	return r, err
}

// kernelSig is the kernel's signal state of task t (readKernelSig; the
// zero state if it cannot be read), or a restore's record of it.
func (w *World) kernelSig(t *task) vkernel.ThreadSig {
	use, fill := w.carried(t.n)
	if use != nil {
		return use.ksig[t.k]
	}
	k, _ := readKernelSig(t.n.pid, t.tid)
	if fill != nil {
		fill.ksig[t.k] = k
	}
	return k
}

// cwdsWriter is where hashCwds writes node n's bytes: h, and the record
// being filled; carried says they are a restore's record, written.
func (w *World) cwdsWriter(n *node, h io.Writer) (out io.Writer, carried bool) {
	use, fill := w.carried(n)
	if use != nil {
		h.Write(use.cwds)
		return nil, true
	}
	if fill != nil {
		return io.MultiWriter(h, (*appender)(&fill.cwds)), false
	}
	return h, false
}

// appender is a byte slice that Write appends to.
type appender []byte

func (a *appender) Write(b []byte) (int, error) {
	*a = append(*a, b...)
	return len(b), nil
}

// hashKidMemory writes the memory digest of node n's child process j
// (hashMemory), or a restore's record of it.
func (w *World) hashKidMemory(n *node, j int, h io.Writer) error {
	use, fill := w.carried(n)
	if use != nil {
		sum, ok := use.kids[j]
		if !ok {
			return fmt.Errorf("node %d: no recorded memory digest of process %d", n.id, j)
		}
		h.Write(sum[:])
		return nil
	}
	n.self = n.procs[j]
	defer func() { n.self = nil }()
	if fill == nil {
		return w.hashMemory(n, h)
	}
	var b sumWriter
	if err := w.hashMemory(n, &b); err != nil {
		return err
	}
	fill.kids[j] = b.sum
	h.Write(b.sum[:])
	return nil
}

// sumWriter keeps the 32 bytes hashMemory writes.
type sumWriter struct{ sum [32]byte }

func (s *sumWriter) Write(b []byte) (int, error) {
	copy(s.sum[:], b)
	return len(b), nil
}

// carriedMemory is the memory digest of a node not given its processes
// (hashMemory): its checkpoint's (prepareHash made sure it is known).
func (w *World) carriedMemory(n *node) ([32]byte, bool) {
	if n.self != nil || !w.pending(n) {
		return [32]byte{}, false
	}
	s := w.lazy.cp.mem[n.id]
	return s.sum, true
}

// memReadPid is the process through which node n's memory is read: its
// own (memPid), or while it has none yet its checkpoint's frozen main
// process, whose memory a restore leaves it (hashMemory); reading it
// changes nothing.
func (w *World) memReadPid(n *node) int {
	if w.pending(n) && n.self == nil {
		return w.lazy.cp.frozen[n.id].pid
	}
	return n.memPid()
}

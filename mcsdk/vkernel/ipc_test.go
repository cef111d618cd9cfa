package vkernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"testing"
)

var (
	root  = Cred{}
	alice = Cred{UID: 1000, GID: 1000}
	bob   = Cred{UID: 1001, GID: 1000}
	eve   = Cred{UID: 1002, GID: 1002}
)

// TestIPCGet runs shmget/semget/msgget's namespace rules in sequence on
// one namespace: keys, IPC_PRIVATE, IPC_CREAT|IPC_EXCL, permissions on
// an existing key, and ids made as Linux makes them (slot + seq·IPCMNI).
func TestIPCGet(t *testing.T) {
	p := NewIPC()
	steps := []struct {
		name   string
		c      Cred
		key    int32
		nsems  int
		flg    int
		wantID int
		err    error
	}{
		{"absent key without IPC_CREAT", root, 42, 1, 0o600, 0, ENOENT},
		{"create key 42", alice, 42, 2, IPCCreat | 0o640, 0, nil},
		{"same key again", alice, 42, 2, 0o600, 0, nil},
		{"same key, fewer sems", alice, 42, 1, 0, 0, nil},
		{"same key, more sems", alice, 42, 3, 0, 0, EINVAL},
		{"exclusive on an existing key", alice, 42, 1, IPCCreat | IPCExcl | 0o600, 0, EEXIST},
		{"group may read", bob, 42, 1, 0o040, 0, nil},
		{"group may not write", bob, 42, 1, 0o060, 0, EACCES},
		{"others get nothing", eve, 42, 1, 0o004, 0, EACCES},
		{"root bypasses the mode", root, 42, 1, 0o666, 0, nil},
		{"private set", alice, IPCPrivate, 1, 0o600, 1, nil},
		{"another private set", alice, IPCPrivate, 1, 0o600, 2, nil},
		{"nsems 0 on a new key", alice, 7, 0, IPCCreat, 0, EINVAL},
		{"nsems above SEMMSL", alice, 7, SemMSL + 1, IPCCreat, 0, EINVAL},
	}
	for _, s := range steps {
		id, err := p.SemGet(s.c, s.key, s.nsems, s.flg, 5)
		if err != s.err || (err == nil && id != s.wantID) {
			t.Errorf("%s: SemGet = %d, %v; want %d, %v", s.name, id, err, s.wantID, s.err)
		}
	}
	// Removing slot 1 and making a new set reuses the slot with the next sequence number.
	if _, _, err := p.SemCtl(alice, 1, 1, 0, IPCRmid, CtlArg{}, 6); err != nil {
		t.Fatal(err)
	}
	if id, _ := p.SemGet(alice, IPCPrivate, 1, 0o600, 6); id != 1+IPCMNI {
		t.Errorf("reused slot: id %d, want %d", id, 1+IPCMNI)
	}
	if _, _, err := p.SemCtl(alice, 1, 1, 0, GetVal, CtlArg{}, 6); err != EINVAL {
		t.Errorf("the old id after reuse: %v, want EINVAL", err)
	}
}

// TestSemOp runs semop sequences on one set of three semaphores: the
// all-or-nothing rule, IPC_NOWAIT, waits (ErrBlock) and their counts,
// ranges, and SEM_UNDO applied at exit.
func TestSemOp(t *testing.T) {
	p := NewIPC()
	id, err := p.SemGet(alice, 1, 3, IPCCreat|0o600, 0)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		c     Cred
		pid   int32
		ops   []SemBuf
		token uint64
		err   error
		vals  [3]int32
	}{
		{"post 0 and 1", alice, 100, []SemBuf{{0, 2, 0}, {1, 1, 0}}, 1, nil, [3]int32{2, 1, 0}},
		{"all or nothing", alice, 100, []SemBuf{{0, -1, 0}, {2, -1, IPCNoWait}}, 1, EAGAIN, [3]int32{2, 1, 0}},
		{"wait on 2", alice, 100, []SemBuf{{0, -1, 0}, {2, -1, 0}}, 7, ErrBlock, [3]int32{2, 1, 0}},
		{"wait for 1 to be zero", alice, 101, []SemBuf{{1, 0, 0}}, 8, ErrBlock, [3]int32{2, 1, 0}},
		{"same sem twice in one call", alice, 100, []SemBuf{{2, 3, 0}, {2, -2, 0}}, 2, nil, [3]int32{2, 1, 1}},
		{"the waiter's retry succeeds", alice, 100, []SemBuf{{0, -1, 0}, {2, -1, 0}}, 7, nil, [3]int32{1, 1, 0}},
		{"above SEMVMX", alice, 100, []SemBuf{{1, SemVMX, 0}}, 3, ERANGE, [3]int32{1, 1, 0}},
		{"sem_num out of range", alice, 100, []SemBuf{{3, 1, 0}}, 3, EFBIG, [3]int32{1, 1, 0}},
		{"no permission", eve, 100, []SemBuf{{0, 1, 0}}, 3, EACCES, [3]int32{1, 1, 0}},
		{"no ops", alice, 100, nil, 3, EINVAL, [3]int32{1, 1, 0}},
		{"undo by 102", alice, 102, []SemBuf{{1, -1, SemUndo}, {2, 5, SemUndo}}, 4, nil, [3]int32{1, 0, 5}},
	}
	for _, s := range steps {
		err := p.SemOp(s.c, s.pid, id, s.ops, 9, s.token)
		if err != s.err {
			t.Errorf("%s: SemOp = %v, want %v", s.name, err, s.err)
		}
		if got := semVals(t, p, id); got != s.vals {
			t.Errorf("%s: values %v, want %v", s.name, got, s.vals)
		}
	}
	// Token 8 still waits for semaphore 1 to reach zero.
	for _, c := range []struct{ cmd, num, want int }{{GetZCnt, 1, 1}, {GetNCnt, 1, 0}, {GetNCnt, 2, 0}, {GetPid, 2, 102}, {GetPid, 0, 100}} {
		if got, _, err := p.SemCtl(alice, 1, id, c.num, c.cmd, CtlArg{}, 9); err != nil || got != c.want {
			t.Errorf("semctl(%d, %d) = %d, %v; want %d", c.num, c.cmd, got, err, c.want)
		}
	}
	p.SemExit(102)
	if got := semVals(t, p, id); got != [3]int32{1, 1, 0} {
		t.Errorf("after 102's exit: %v, want [1 1 0]", got)
	}
	// The set's removal ends the parked wait with EIDRM; a fresh call gets EINVAL.
	if _, _, err := p.SemCtl(alice, 1, id, 0, IPCRmid, CtlArg{}, 10); err != nil {
		t.Fatal(err)
	}
	if err := p.SemOp(alice, 101, id, []SemBuf{{1, 0, 0}}, 10, 8); err != EIDRM {
		t.Errorf("parked wait after IPC_RMID: %v, want EIDRM", err)
	}
	if err := p.SemOp(alice, 101, id, []SemBuf{{1, 0, 0}}, 10, 8); err != EINVAL {
		t.Errorf("new call after IPC_RMID: %v, want EINVAL", err)
	}
}

// TestSemUndoClampAndSetVal: exit clamps at zero, and SETVAL clears every
// process's adjustment of that semaphore (as Linux does).
func TestSemUndoClampAndSetVal(t *testing.T) {
	p := NewIPC()
	id, _ := p.SemGet(root, IPCPrivate, 2, 0o600, 0)
	must(t, p.SemOp(root, 100, id, []SemBuf{{0, 3, SemUndo}, {1, 3, SemUndo}}, 0, 1))
	_, _, err := p.SemCtl(root, 1, id, 0, SetVal, CtlArg{Val: 1}, 0) // sem 0: undo cleared
	must(t, err)
	must(t, p.SemOp(root, 101, id, []SemBuf{{1, -2, 0}}, 0, 2)) // sem 1 = 1, 100's undo is -3
	p.SemExit(100)
	if got := semVals(t, p, id); got[0] != 1 || got[1] != 0 {
		t.Errorf("after exit: %v, want [1 0] (sem 0 kept by SETVAL, sem 1 clamped at 0)", got[:2])
	}
	if _, _, err := p.SemCtl(root, 1, id, 0, SetVal, CtlArg{Val: SemVMX + 1}, 0); err != ERANGE {
		t.Errorf("SETVAL above SEMVMX: %v, want ERANGE", err)
	}
	if _, _, err := p.SemCtl(root, 1, id, 0, SetAll, CtlArg{Vals: []uint16{4}}, 0); err != EINVAL {
		t.Errorf("SETALL with too few values: %v, want EINVAL", err)
	}
	_, _, err = p.SemCtl(root, 1, id, 0, SetAll, CtlArg{Vals: []uint16{4, 9}}, 0)
	must(t, err)
	_, out, _ := p.SemCtl(root, 1, id, 0, GetAll, CtlArg{}, 0)
	if !bytes.Equal(out, []byte{4, 0, 9, 0}) {
		t.Errorf("GETALL = %v, want [4 0 9 0]", out)
	}
}

// TestIPCCtl checks the control calls' stat layouts (struct
// ipc64_perm, semid64_ds, msqid64_ds, shmid64_ds on x86-64), IPC_SET's
// owner rule, *_STAT by index and IPC_INFO's highest index.
func TestIPCCtl(t *testing.T) {
	p := NewIPC()
	sid, _ := p.SemGet(alice, 0x5151, 4, IPCCreat|0o640, 11)
	qid, _ := p.MsgGet(alice, 0x5252, IPCCreat|0o600, 12)
	mid, _, _ := p.ShmGet(alice, 100, 0x5353, 10000, IPCCreat|0o600, 13)
	_, b, err := p.SemCtl(alice, 100, sid, 0, IPCStat, CtlArg{}, 14)
	must(t, err)
	le := binary.LittleEndian
	if len(b) != 104 || le.Uint32(b) != 0x5151 || le.Uint32(b[4:]) != 1000 || le.Uint16(b[20:]) != 0o640 || le.Uint64(b[64:]) != 11 || le.Uint64(b[80:]) != 4 {
		t.Errorf("semid64_ds = %v", b)
	}
	_, b, err = p.MsgCtl(alice, qid, IPCStat, CtlArg{}, 14)
	must(t, err)
	if len(b) != 120 || le.Uint32(b) != 0x5252 || le.Uint64(b[64:]) != 12 || le.Uint64(b[88:]) != MsgMNB {
		t.Errorf("msqid64_ds = %v", b)
	}
	_, b, _, err = p.ShmCtl(alice, mid, IPCStat, CtlArg{}, 14)
	must(t, err)
	if len(b) != 112 || le.Uint32(b) != 0x5353 || le.Uint64(b[48:]) != 10000 || le.Uint32(b[80:]) != 100 || le.Uint64(b[72:]) != 13 {
		t.Errorf("shmid64_ds = %v", b)
	}
	// IPC_SET: only the owner or creator; then the new owner's permissions apply.
	if _, _, err := p.SemCtl(eve, 1, sid, 0, IPCSet, CtlArg{UID: 1002, Mode: 0o600}, 15); err != EPERM {
		t.Errorf("IPC_SET by another user: %v, want EPERM", err)
	}
	if _, _, err := p.SemCtl(alice, 1, sid, 0, IPCSet, CtlArg{UID: 1002, GID: 1002, Mode: 0o600}, 15); err != nil {
		t.Errorf("IPC_SET by the creator: %v", err)
	}
	if _, _, err := p.SemCtl(eve, 1, sid, 0, GetVal, CtlArg{}, 15); err != nil {
		t.Errorf("GETVAL by the new owner: %v", err)
	}
	// SEM_STAT takes an index and returns the id; IPC_INFO returns the highest index.
	if got, _, err := p.SemCtl(root, 1, 0, 0, SemStat, CtlArg{}, 15); err != nil || got != sid {
		t.Errorf("SEM_STAT 0 = %d, %v; want %d", got, err, sid)
	}
	if got, b, err := p.MsgCtl(root, 0, IPCInfo, CtlArg{}, 15); err != nil || got != 0 || le.Uint32(b[8:]) != MsgMAX {
		t.Errorf("msg IPC_INFO = %d, %v, %v", got, b, err)
	}
	// msg_qbytes above MSGMNB needs root.
	if _, _, err := p.MsgCtl(alice, qid, IPCSet, CtlArg{UID: 1000, GID: 1000, Mode: 0o600, QBytes: MsgMNB + 1}, 16); err != EPERM {
		t.Errorf("raising msg_qbytes unprivileged: %v, want EPERM", err)
	}
}

// TestMsgQueue runs msgsnd/msgrcv sequences: msgtyp's selection rules,
// MSG_EXCEPT, MSG_NOERROR, E2BIG, MSG_COPY, and a full queue.
func TestMsgQueue(t *testing.T) {
	p := NewIPC()
	id, _ := p.MsgGet(root, IPCPrivate, 0o600, 0)
	for _, m := range []Msg{{3, []byte("c3")}, {1, []byte("a1")}, {2, []byte("b2-long")}, {1, []byte("d1")}} {
		must(t, p.MsgSnd(root, 100, id, m, 0, 1, 1))
	}
	steps := []struct {
		name   string
		size   int
		msgtyp int64
		flg    int
		want   string
		err    error
	}{
		{"copy index 2", 64, 2, MsgCopy | IPCNoWait, "b2-long", nil},
		{"copy without IPC_NOWAIT", 64, 2, MsgCopy, "", EINVAL},
		{"copy past the end", 64, 9, MsgCopy | IPCNoWait, "", ENOMSG},
		{"type 2 too long", 3, 2, 0, "", E2BIG},
		{"type 2 truncated", 3, 2, MsgNoError, "b2-", nil},
		{"lowest type up to 3", 64, -3, 0, "a1", nil},
		{"first not of type 3", 64, 3, MsgExcept, "d1", nil},
		{"first", 64, 0, 0, "c3", nil},
		{"empty, no wait", 64, 0, IPCNoWait, "", ENOMSG},
		{"empty, waits", 64, 0, 0, "", ErrBlock},
		{"negative size", -1, 0, 0, "", EINVAL},
	}
	for _, s := range steps {
		m, err := p.MsgRcv(root, 101, id, s.size, s.msgtyp, s.flg, 2, 5)
		if err != s.err || string(m.Text) != s.want {
			t.Errorf("%s: MsgRcv = %q, %v; want %q, %v", s.name, m.Text, err, s.want, s.err)
		}
	}
	p.Cancel(5)
	if err := p.MsgSnd(root, 100, id, Msg{0, nil}, 0, 3, 1); err != EINVAL {
		t.Errorf("type 0: %v, want EINVAL", err)
	}
	if err := p.MsgSnd(root, 100, id, Msg{1, make([]byte, MsgMAX+1)}, 0, 3, 1); err != EINVAL {
		t.Errorf("above MSGMAX: %v, want EINVAL", err)
	}
	big := Msg{1, make([]byte, MsgMAX)}
	must(t, p.MsgSnd(root, 100, id, big, 0, 3, 1))
	must(t, p.MsgSnd(root, 100, id, big, 0, 3, 1))
	if err := p.MsgSnd(root, 100, id, Msg{1, []byte("x")}, IPCNoWait, 3, 1); err != EAGAIN {
		t.Errorf("full queue, no wait: %v, want EAGAIN", err)
	}
	if err := p.MsgSnd(root, 100, id, Msg{1, []byte("x")}, 0, 3, 6); err != ErrBlock {
		t.Errorf("full queue: %v, want ErrBlock", err)
	}
	if _, err := p.MsgRcv(root, 101, id, MsgMAX, 0, 0, 4, 7); err != nil {
		t.Fatal(err)
	}
	if err := p.MsgSnd(root, 100, id, Msg{1, []byte("x")}, 0, 4, 6); err != nil {
		t.Errorf("retry after a receive: %v", err)
	}
}

// TestShmLifecycle: attach counts, fork, IPC_RMID while attached (the key
// is freed, the id stays attachable), removal at the last detach.
func TestShmLifecycle(t *testing.T) {
	p := NewIPC()
	id, created, err := p.ShmGet(alice, 100, 9, 8192, IPCCreat|0o600, 0)
	if err != nil || !created {
		t.Fatal(created, err)
	}
	if _, again, _ := p.ShmGet(alice, 100, 9, 4096, 0, 0); again {
		t.Error("an existing key reported created")
	}
	if _, _, err := p.ShmGet(alice, 100, 9, 8193, 0, 0); err != EINVAL {
		t.Errorf("larger size on an existing key: %v, want EINVAL", err)
	}
	if _, _, err := p.ShmGet(alice, 100, 10, 0, IPCCreat, 0); err != EINVAL {
		t.Errorf("size 0: %v, want EINVAL", err)
	}
	if _, err := p.ShmAt(eve, 101, id, ShmRdonly, 1); err != EACCES {
		t.Errorf("attach by another user: %v, want EACCES", err)
	}
	size, err := p.ShmAt(alice, 100, id, 0, 1)
	if err != nil || size != 8192 {
		t.Fatal(size, err)
	}
	p.ShmFork(id)
	_, _, gone, err := p.ShmCtl(alice, id, IPCRmid, CtlArg{}, 2)
	if err != nil || gone {
		t.Fatalf("IPC_RMID while attached: gone %v, %v", gone, err)
	}
	if _, _, err := p.ShmGet(alice, 100, 9, 1, 0, 0); err != ENOENT {
		t.Errorf("the key after IPC_RMID: %v, want ENOENT", err)
	}
	if p.ShmDt(100, id, 3) {
		t.Error("gone with one attachment left")
	}
	if !p.ShmDt(101, id, 3) {
		t.Error("not gone at the last detach")
	}
	if _, err := p.ShmAt(alice, 100, id, 0, 4); err != EINVAL {
		t.Errorf("attach after removal: %v, want EINVAL", err)
	}
}

// TestIPCHashAndClone: a clone hashes as the original and is independent
// of it; any change of state changes the hash.
func TestIPCHashAndClone(t *testing.T) {
	p := NewIPC()
	sid, _ := p.SemGet(root, 1, 2, IPCCreat|0o600, 0)
	qid, _ := p.MsgGet(root, 2, IPCCreat|0o600, 0)
	must(t, p.SemOp(root, 100, sid, []SemBuf{{0, 1, SemUndo}}, 0, 1))
	must(t, p.MsgSnd(root, 100, qid, Msg{1, []byte("hello")}, 0, 0, 1))
	q := p.Clone()
	if ipcHash(p) != ipcHash(q) {
		t.Fatal("a clone hashes differently")
	}
	for name, change := range map[string]func(*IPC){
		"semop":  func(x *IPC) { must(t, x.SemOp(root, 100, sid, []SemBuf{{1, 1, 0}}, 0, 1)) },
		"undo":   func(x *IPC) { x.SemExit(100) },
		"msgrcv": func(x *IPC) { _, err := x.MsgRcv(root, 100, qid, 64, 0, 0, 0, 1); must(t, err) },
		"shmget": func(x *IPC) { _, _, err := x.ShmGet(root, 100, 3, 1, IPCCreat, 0); must(t, err) },
	} {
		r := p.Clone()
		change(r)
		if ipcHash(r) == ipcHash(p) {
			t.Errorf("%s did not change the hash", name)
		}
		if ipcHash(p) != ipcHash(q) {
			t.Errorf("%s on a clone changed the original", name)
		}
	}
}

func ipcHash(p *IPC) [32]byte {
	h := sha256.New()
	var b [8]byte
	p.Hash(func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }, func(x []byte) { h.Write(x) })
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func semVals(t *testing.T, p *IPC, id int) [3]int32 {
	t.Helper()
	var out [3]int32
	n, _ := p.SemCount(id)
	for i := range min(n, 3) {
		v, _, err := p.SemCtl(root, 1, id, i, GetVal, CtlArg{}, 0)
		must(t, err)
		out[i] = int32(v)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

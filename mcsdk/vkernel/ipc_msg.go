package vkernel

import (
	"encoding/binary"
	"slices"
)

// Message queues (msgget(2), msgsnd(2), msgrcv(2), msgctl(2)). A send
// to a full queue and a receive that finds no message wait as a semop
// does (ErrBlock, retried with the same token) unless IPC_NOWAIT.

// Message queue constants (linux/msg.h).
const (
	MsgMAX     = 8192    // MSGMAX: a message's largest size
	MsgMNB     = 16384   // MSGMNB: a queue's default size limit, in bytes
	MsgMNI     = 32000   // MSGMNI: queues
	MsgNoError = 0o10000 // MSG_NOERROR: truncate a message too long
	MsgExcept  = 0o20000 // MSG_EXCEPT: the first message not of the type
	MsgCopy    = 0o40000 // MSG_COPY: copy the message at an index
	MsgStat    = 11
	MsgInfo    = 12
	MsgStatAny = 13
	msqidSize  = 120 // struct msqid64_ds
)

// Msg is one message: its type and text.
type Msg struct {
	Type int64
	Text []byte
}

type msgQueue struct {
	msgs                []Msg
	cbytes, qbytes      int
	lspid, lrpid        int32
	stime, rtime, ctime int64
}

func cloneMsg(q *msgQueue) *msgQueue {
	c := *q
	c.msgs = make([]Msg, len(q.msgs))
	for i, m := range q.msgs {
		c.msgs[i] = Msg{m.Type, slices.Clone(m.Text)}
	}
	return &c
}

// MsgGet implements msgget(2).
func (p *IPC) MsgGet(c Cred, key int32, flg int, now int64) (int, error) {
	mk := func() (*msgQueue, error) { return &msgQueue{qbytes: MsgMNB, ctime: now}, nil }
	id, _, err := p.msg.get(c, key, flg, MsgMNI, mk, func(*msgQueue) error { return nil })
	return id, err
}

// MsgSnd implements msgsnd(2) of m for process pid; token names the
// call across its retries.
func (p *IPC) MsgSnd(c Cred, pid int32, id int, m Msg, flg int, now int64, token uint64) error {
	if len(m.Text) > MsgMAX || m.Type < 1 {
		return EINVAL
	}
	e, err := p.msg.lookup(id)
	if werr := p.waited(token, err != nil); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	if !c.mayAccess(&e.perm, ipcWrite) {
		return EACCES
	}
	q := e.obj
	// msg_fits(): the bytes and the number of messages both within qbytes.
	if q.cbytes+len(m.Text) > q.qbytes || len(q.msgs)+1 > q.qbytes {
		if flg&IPCNoWait != 0 {
			return EAGAIN
		}
		p.wait[token] = ipcWait{id: id}
		return ErrBlock
	}
	q.msgs = append(q.msgs, Msg{m.Type, slices.Clone(m.Text)})
	q.cbytes += len(m.Text)
	q.lspid, q.stime = pid, now
	return nil
}

// MsgRcv implements msgrcv(2) for process pid: the message msgtyp and
// flg select (the first; the first of type msgtyp, or with MSG_EXCEPT
// the first of another type; for a negative msgtyp the first of the
// lowest type up to -msgtyp; with MSG_COPY a copy of the one at index
// msgtyp), its text cut to size with MSG_NOERROR (E2BIG without, and
// the message stays).
func (p *IPC) MsgRcv(c Cred, pid int32, id, size int, msgtyp int64, flg int, now int64, token uint64) (Msg, error) {
	if size < 0 {
		return Msg{}, EINVAL
	}
	if flg&MsgCopy != 0 && (flg&IPCNoWait == 0 || flg&MsgExcept != 0) {
		return Msg{}, EINVAL
	}
	e, err := p.msg.lookup(id)
	if werr := p.waited(token, err != nil); werr != nil {
		return Msg{}, werr
	}
	if err != nil {
		return Msg{}, err
	}
	if !c.mayAccess(&e.perm, ipcRead) {
		return Msg{}, EACCES
	}
	q := e.obj
	i := q.find(msgtyp, flg)
	if i < 0 {
		if flg&IPCNoWait != 0 {
			return Msg{}, ENOMSG
		}
		p.wait[token] = ipcWait{id: id}
		return Msg{}, ErrBlock
	}
	m := q.msgs[i]
	if len(m.Text) > size {
		if flg&MsgNoError == 0 {
			return Msg{}, E2BIG
		}
		m.Text = m.Text[:size]
	}
	m.Text = slices.Clone(m.Text)
	if flg&MsgCopy != 0 {
		return m, nil
	}
	q.cbytes -= len(q.msgs[i].Text)
	q.msgs = slices.Delete(q.msgs, i, i+1)
	q.lrpid, q.rtime = pid, now
	return m, nil
}

// find returns the index of the message msgtyp and flg select, -1 if
// none.
func (q *msgQueue) find(msgtyp int64, flg int) int {
	switch {
	case flg&MsgCopy != 0:
		if msgtyp < 0 || msgtyp >= int64(len(q.msgs)) {
			return -1
		}
		return int(msgtyp)
	case msgtyp == 0:
		if len(q.msgs) == 0 {
			return -1
		}
		return 0
	case msgtyp > 0:
		return slices.IndexFunc(q.msgs, func(m Msg) bool { return (m.Type == msgtyp) != (flg&MsgExcept != 0) })
	}
	best := -1
	for i, m := range q.msgs {
		if m.Type <= -msgtyp && (best < 0 || m.Type < q.msgs[best].Type) {
			best = i
		}
	}
	return best
}

// MsgCtl implements msgctl(2): its return value, and the bytes it
// writes at its argument's address (nil: none).
func (p *IPC) MsgCtl(c Cred, id, cmd int, arg CtlArg, now int64) (int, []byte, error) {
	switch cmd {
	case IPCInfo, MsgInfo:
		return p.msgInfo(cmd)
	case IPCStat, MsgStat, MsgStatAny:
		e, qid, err := p.msg.stat(c, id, cmd != IPCStat, cmd == MsgStatAny)
		if err != nil {
			return 0, nil, err
		}
		if cmd == IPCStat {
			qid = 0
		}
		return qid, msgStatBytes(e), nil
	case IPCRmid, IPCSet:
	default:
		return 0, nil, EINVAL
	}
	e, err := p.msg.lookup(id)
	if err != nil {
		return 0, nil, err
	}
	if cmd == IPCRmid {
		if !c.owns(&e.perm) {
			return 0, nil, EPERM
		}
		p.msg.remove(id)
		return 0, nil, nil
	}
	if arg.QBytes > MsgMNB && c.UID != 0 { // raising the limit needs CAP_SYS_RESOURCE
		return 0, nil, EPERM
	}
	if arg.QBytes > 1<<31-1 {
		return 0, nil, EINVAL
	}
	if err := p.msg.set(c, e, arg.UID, arg.GID, arg.Mode); err != nil {
		return 0, nil, err
	}
	e.obj.qbytes, e.obj.ctime = int(arg.QBytes), now
	return 0, nil, nil
}

// msgInfo is IPC_INFO's and MSG_INFO's struct msginfo.
func (p *IPC) msgInfo(cmd int) (int, []byte, error) {
	n, maxIndex := p.msg.inUse()
	pool, mp, tql := int32(MsgMNI*MsgMNB/1024), int32(MsgMNB), int32(MsgMNB) // MSGPOOL, MSGMAP, MSGTQL
	if cmd == MsgInfo {
		pool, mp, tql = int32(n), 0, 0
		p.msg.each(func(_ int, e *ipcEntry[msgQueue]) { mp += int32(len(e.obj.msgs)); tql += int32(e.obj.cbytes) })
	}
	out := make([]byte, 32)
	le := binary.LittleEndian
	for i, v := range []int32{pool, mp, MsgMAX, MsgMNB, MsgMNI, 16, tql} { // 16: MSGSSZ
		le.PutUint32(out[4*i:], uint32(v))
	}
	le.PutUint16(out[28:], 0xffff) // MSGSEG
	return maxIndex, out, nil
}

// msgStatBytes is struct msqid64_ds.
func msgStatBytes(e *ipcEntry[msgQueue]) []byte {
	b := make([]byte, msqidSize)
	putPerm(b, &e.perm)
	le, q := binary.LittleEndian, e.obj
	for i, v := range []int64{q.stime, q.rtime, q.ctime, int64(q.cbytes), int64(len(q.msgs)), int64(q.qbytes)} {
		le.PutUint64(b[48+8*i:], uint64(v))
	}
	le.PutUint32(b[96:], uint32(q.lspid))
	le.PutUint32(b[100:], uint32(q.lrpid))
	return b
}

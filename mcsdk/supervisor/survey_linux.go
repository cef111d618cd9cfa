//go:build linux && amd64

package supervisor

import (
	"cmp"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// survey counts, per node and syscall, the notified calls and how they
// were answered (Config.Survey). A parked call is counted once, when it is
// finally answered, however often it was retried.
type survey struct {
	uses map[surveyKey]*SyscallUse
}

type surveyKey struct{ node, nr int }

func newSurvey() *survey { return &survey{uses: map[surveyKey]*SyscallUse{}} }

// use returns the row of node's calls of nr, creating it.
func (s *survey) use(node, nr int) *SyscallUse {
	k := surveyKey{node, nr}
	u := s.uses[k]
	if u == nil {
		e := lookup(nr)
		u = &SyscallUse{Node: node, Name: e.name, Nr: nr, Decision: e.decision.String(), Note: e.note}
		s.uses[k] = u
	}
	return u
}

// record counts one dispatched call of c answered with r. Parked calls
// are not counted yet.
func (s *survey) record(c *call, r result) {
	if s == nil || r.kind == rPark {
		return
	}
	u := s.use(c.n.id, int(c.req.Data.Nr))
	u.Count++
	switch {
	case r.kind == rFail:
		u.Failed++
		u.Note = r.msg
	case r.kind == rContinue:
		u.Kernel++
	case r.kind == rReturn && r.errno != 0:
		name := unix.ErrnoName(r.errno)
		if name == "" {
			name = r.errno.Error()
		}
		u.Errors = addErrno(u.Errors, name)
	default:
		u.Served++
	}
}

func addErrno(es []ErrnoN, name string) []ErrnoN {
	for i := range es {
		if es[i].Errno == name {
			es[i].N++
			return es
		}
	}
	es = append(es, ErrnoN{Errno: name, N: 1})
	slices.SortFunc(es, func(a, b ErrnoN) int { return cmp.Compare(a.Errno, b.Errno) })
	return es
}

// Syscalls returns the survey of the run so far (nil unless Config.Survey):
// one row per node and syscall, by node, then by descending count, then by
// name. Calls parked now are counted as Pending.
func (w *World) Syscalls() []SyscallUse {
	if w.survey == nil {
		return nil
	}
	rows := map[surveyKey]SyscallUse{}
	for k, u := range w.survey.uses {
		rows[k] = *u
	}
	for _, n := range w.nodes {
		if n.exited {
			continue
		}
		for _, t := range n.tasks {
			if t.call == nil || t.exited {
				continue
			}
			nr := int(t.call.req.Data.Nr)
			k := surveyKey{n.id, nr}
			u, ok := rows[k]
			if !ok {
				u = *w.survey.use(n.id, nr)
				delete(w.survey.uses, k) // a snapshot must not change the counts
			}
			u.Pending++
			rows[k] = u
		}
	}
	out := make([]SyscallUse, 0, len(rows))
	for _, u := range rows {
		u.Errors = slices.Clone(u.Errors)
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b SyscallUse) int {
		return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(b.Count+b.Pending, a.Count+a.Pending), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// filterBytesFor is the seccomp program for a node: the table's, or with
// all set the one that notifies every call (the survey of
// Config.NotifyAll, built afresh: it is rarely used).
func filterBytesFor(all, patchTSC bool) ([]byte, error) {
	if !all {
		return filterBytes(patchTSC)
	}
	prog, err := buildFilterAllowing(nil, false)
	if err != nil {
		return nil, err
	}
	n := len(prog) * int(unsafe.Sizeof(unix.SockFilter{}))
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), n)...), nil
}

package vkernel

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeFile is a watched file in the epoll tests: its poll mask and its
// wake-up counts as the test sets them, or an epoll instance.
type fakeFile struct {
	mask    uint32
	in, out uint64
	ep      *Epoll
}

func (f *fakeFile) Description() any      { return f }
func (f *fakeFile) EpollInstance() *Epoll { return f.ep }

// fakeProbe reports the fake files' masks and wake-ups, kernel
// descriptors' masks by number, and a nested instance readable while it
// has a ready entry.
type fakeProbe struct{ kernel map[int]uint32 }

func (p fakeProbe) Events(e *EpollEntry) uint32 {
	f, _ := e.File().(*fakeFile)
	switch {
	case f == nil:
		return p.kernel[e.Fd()]
	case f.ep != nil && len(f.ep.Collect(1, false, p)) > 0:
		return PollIn | PollRdNorm
	case f.ep != nil:
		return 0
	}
	return f.mask
}

func (p fakeProbe) Wake(e *EpollEntry) [2]uint64 {
	f, _ := e.File().(*fakeFile)
	switch {
	case f == nil:
		return [2]uint64{uint64(p.kernel[e.Fd()]), 0}
	case f.ep != nil:
		return [2]uint64{uint64(len(f.ep.Collect(1<<20, false, p))), 0}
	}
	return e.WakeOf(f.in, f.out)
}

// epollBits names event bits and flags in the scripts, in output order.
var epollBits = []struct {
	name string
	bit  uint32
}{
	{"in", PollIn}, {"pri", PollPri}, {"out", PollOut}, {"err", PollErr}, {"hup", PollHup},
	{"rdnorm", PollRdNorm}, {"wrnorm", PollWrNorm}, {"rdhup", PollRdHup},
	{"excl", EpollExclusive}, {"wakeup", EpollWakeup}, {"oneshot", EpollOneshot}, {"et", EpollET},
}

func parseEvents(t *testing.T, s string) uint32 {
	var ev uint32
	for _, name := range strings.Split(s, "|") {
		i := slices.IndexFunc(epollBits, func(b struct {
			name string
			bit  uint32
		}) bool {
			return b.name == name
		})
		if i < 0 && name != "0" {
			t.Fatalf("unknown event %q", name)
		}
		if i >= 0 {
			ev |= epollBits[i].bit
		}
	}
	return ev
}

func formatEvents(ev uint32) string {
	var names []string
	for _, b := range epollBits {
		if ev&b.bit != 0 {
			names = append(names, b.name)
		}
	}
	return strings.Join(names, "|")
}

// epollScript runs one TestEpoll case: instances by name ("ep" is made
// first), files by name (made when first named, "-" a kernel
// descriptor), kernel descriptors' masks by number.
type epollScript struct {
	t      *testing.T
	eps    map[string]*Epoll
	files  map[string]*fakeFile
	kernel map[int]uint32
}

func (s *epollScript) file(name string) EpollFile {
	if name == "-" {
		return nil
	}
	if ep, ok := s.eps[name]; ok {
		if f, ok := s.files[name]; ok {
			return f
		}
		s.files[name] = &fakeFile{ep: ep}
	}
	if s.files[name] == nil {
		s.files[name] = &fakeFile{}
	}
	return s.files[name]
}

func (s *epollScript) num(a string) int {
	n, err := strconv.Atoi(a)
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

// run runs one line, "[@instance] command args", and returns its
// answer: "ok", an errno's name, or the events a wait reports
// ("data:events ...", "none").
func (s *epollScript) run(line string) string {
	f := strings.Fields(line)
	ep := s.eps["ep"]
	if strings.HasPrefix(f[0], "@") {
		ep, f = s.eps[f[0][1:]], f[1:]
	}
	answer := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return "ok"
	}
	switch f[0] {
	case "epoll": // epoll NAME: an instance (new unless it exists), watchable as file NAME
		if s.eps[f[1]] == nil {
			s.eps[f[1]] = NewEpoll()
		}
		s.file(f[1])
	case "add", "mod":
		op := map[string]int{"add": EpollCtlAdd, "mod": EpollCtlMod}[f[0]]
		ev := EpollEvent{Events: parseEvents(s.t, f[3]), Data: uint64(s.num(f[4]))}
		return answer(ep.Ctl(op, s.num(f[1]), s.file(f[2]), ev))
	case "del":
		return answer(ep.Ctl(EpollCtlDel, s.num(f[1]), s.file(f[2]), EpollEvent{}))
	case "op": // op N FD FILE: an unknown operation
		return answer(ep.Ctl(s.num(f[1]), s.num(f[2]), s.file(f[3]), EpollEvent{}))
	case "mask": // mask FILE EVENTS: what the file reports now, without a wake-up
		s.file(f[1]).(*fakeFile).mask = parseEvents(s.t, f[2])
	case "data": // data FILE: new data, a wake-up of its readers; it becomes readable
		ff := s.file(f[1]).(*fakeFile)
		ff.in++
		ff.mask |= PollIn | PollRdNorm
	case "room": // room FILE: a reader made room, a wake-up of its writers
		ff := s.file(f[1]).(*fakeFile)
		ff.out++
		ff.mask |= PollOut | PollWrNorm
	case "kernel": // kernel FD EVENTS: a kernel descriptor's mask
		s.kernel[s.num(f[1])] = parseEvents(s.t, f[2])
	case "close": // close FD FILE last|kept
		ep.Forget(s.num(f[1]), s.file(f[2]), f[3] == "last")
	case "wait", "peek":
		evs := ep.Collect(s.num(f[1]), f[0] == "wait", fakeProbe{s.kernel})
		var out []string
		for _, e := range evs {
			out = append(out, fmt.Sprintf("%d:%s", e.Data, formatEvents(e.Events)))
		}
		if len(out) == 0 {
			return "none"
		}
		return strings.Join(out, " ")
	default:
		s.t.Fatalf("unknown command %q", line)
	}
	return "ok"
}

// TestEpoll runs scripts of epoll_ctl calls, changes of the watched
// files and waits, and checks each answer against epoll(7) and
// epoll_ctl(2). Each step is "command => answer".
func TestEpoll(t *testing.T) {
	cases := []struct {
		name  string
		steps []string
	}{
		{"level-triggered: reported while ready, in every wait", []string{
			"add 3 a in 1 => ok",
			"wait 8 => none",
			"data a => ok",
			"wait 8 => 1:in",
			"wait 8 => 1:in",
			"mask a 0 => ok",
			"wait 8 => none",
		}},
		{"only the asked events, and ERR and HUP always", []string{
			"add 3 a out 1 => ok",
			"data a => ok",
			"wait 8 => none",
			"mask a in|out|hup|err => ok",
			"wait 8 => 1:out|err|hup",
		}},
		{"edge-triggered: once per wake-up; new data re-arms a readable file, draining does not", []string{
			"add 3 a in|et 1 => ok",
			"wait 8 => none",
			"data a => ok",
			"wait 8 => 1:in",
			"wait 8 => none", // still readable, no new wake-up
			"data a => ok",
			"wait 8 => 1:in", // more data while readable: reported again
			"mask a 0 => ok",
			"wait 8 => none",
		}},
		{"edge-triggered for output: a wake-up of readers does not re-arm it", []string{
			"room a => ok",
			"add 3 a out|et 1 => ok",
			"wait 8 => 1:out", // a new entry reports what is ready once
			"data a => ok",
			"wait 8 => none",
			"room a => ok",
			"wait 8 => 1:out",
		}},
		{"a peek does not consume an edge", []string{
			"add 3 a in|et 1 => ok",
			"data a => ok",
			"peek 8 => 1:in",
			"peek 8 => 1:in",
			"wait 8 => 1:in",
			"peek 8 => none",
		}},
		{"oneshot: disarmed after one report, even on new data, until MOD", []string{
			"add 3 a in|oneshot 7 => ok",
			"data a => ok",
			"wait 8 => 7:in",
			"wait 8 => none",
			"data a => ok",
			"wait 8 => none",
			"mod 3 a in|oneshot 8 => ok",
			"wait 8 => 8:in",
			"wait 8 => none",
		}},
		{"MOD re-arms an edge-triggered entry", []string{
			"add 3 a in|et 1 => ok",
			"data a => ok",
			"wait 8 => 1:in",
			"wait 8 => none",
			"mod 3 a in|et 2 => ok",
			"wait 8 => 2:in",
		}},
		{"ADD twice is EEXIST; DEL or MOD of an unwatched fd is ENOENT; an unknown op EINVAL", []string{
			"add 3 a in 1 => ok",
			"add 3 a out 2 => EEXIST",
			"del 4 b => ENOENT",
			"mod 4 b in 1 => ENOENT",
			"op 9 3 a => EINVAL",
			"del 3 a => ok",
			"del 3 a => ENOENT",
			"add 3 a in 3 => ok",
		}},
		{"a short events array does not starve later entries", []string{
			"add 3 a in 1 => ok",
			"add 4 b in 2 => ok",
			"add 5 c in 3 => ok",
			"data a => ok", "data b => ok", "data c => ok",
			"wait 1 => 1:in",
			"wait 1 => 2:in",
			"wait 2 => 3:in 1:in",
			"wait 8 => 2:in 3:in 1:in",
		}},
		{"the entry survives the close of one of two descriptors of its file", []string{
			"add 3 a in 1 => ok",
			"data a => ok",
			"close 3 a kept => ok", // fd 4 (a dup, or a forked child's 3) still has the file
			"wait 8 => 1:in",
			"del 3 a => ENOENT",  // no longer reachable through epoll_ctl
			"add 3 b in 2 => ok", // another file at the number: a second entry
			"data b => ok",
			"wait 8 => 1:in 2:in",
			"close 4 a last => ok", // the file's last descriptor: its entry goes
			"wait 8 => 2:in",
			"close 3 b last => ok",
			"wait 8 => none",
		}},
		{"one file at two numbers is two entries", []string{
			"add 3 a in 1 => ok",
			"add 5 a in 2 => ok",
			"data a => ok",
			"wait 8 => 1:in 2:in",
			"close 3 a kept => ok",
			"wait 8 => 1:in 2:in", // the closed descriptor's entry is still reported
			"del 5 a => ok",
			"wait 8 => 1:in",
		}},
		{"kernel descriptors: watched by number, reported by their mask", []string{
			"add 0 - in 1 => ok",
			"add 0 - in 2 => EEXIST",
			"wait 8 => none",
			"kernel 0 in => ok",
			"wait 8 => 1:in",
			"close 0 - last => ok",
			"wait 8 => none",
			"del 0 - => ENOENT",
		}},
		{"EPOLLEXCLUSIVE: only with IN, OUT, ERR, HUP, WAKEUP, ET; never in MOD", []string{
			"add 3 a in|excl 1 => ok",
			"mod 3 a in 1 => EINVAL",
			"add 4 b in|excl|oneshot 2 => EINVAL",
			"add 4 b in|rdhup|excl 2 => EINVAL",
			"add 4 b in|hup|et|wakeup|excl 2 => ok",
			"add 5 c in 3 => ok",
			"mod 5 c in|excl 3 => EINVAL",
			"epoll e2 => ok",
			"add 6 e2 in|excl 4 => EINVAL",
		}},
		{"nested instances: readable while a watched entry is ready; cycles are ELOOP", []string{
			"epoll e2 => ok",
			"epoll ep => ok", // ep's own file, to watch it from e2
			"add 3 e2 in 1 => ok",
			"@e2 add 4 a in 9 => ok",
			"wait 8 => none",
			"data a => ok",
			"wait 8 => 1:in",
			"@e2 wait 8 => 9:in",
			"@e2 add 5 ep in 2 => ELOOP",
			"add 6 ep in 2 => ELOOP", // the instance itself, by another descriptor
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &epollScript{t: t, eps: map[string]*Epoll{"ep": NewEpoll()}, files: map[string]*fakeFile{}, kernel: map[int]uint32{}}
			for i, step := range c.steps {
				line, want, _ := strings.Cut(step, " => ")
				if got := s.run(line); got != want {
					t.Fatalf("step %d %q: %s, want %s", i+1, line, got, want)
				}
			}
		})
	}
}

// TestEpollEventEncoding checks struct epoll_event's packed x86-64
// layout: a little-endian 32-bit mask, then 64 bits of data.
func TestEpollEventEncoding(t *testing.T) {
	evs := []EpollEvent{{Events: PollIn | EpollET, Data: 0x0102030405060708}, {Events: PollOut, Data: 9}}
	b := EncodeEpollEvents(evs)
	want := []byte{1, 0, 0, 0x80, 8, 7, 6, 5, 4, 3, 2, 1, 4, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0}
	if !slices.Equal(b, want) {
		t.Fatalf("encoded % x, want % x", b, want)
	}
	for i, ev := range evs {
		if got := DecodeEpollEvent(b[i*EpollEventSize:]); got != ev {
			t.Errorf("decoded %+v, want %+v", got, ev)
		}
	}
}

// epollHashState is an instance holding one entry of each shape: a
// level-triggered one, an edge-triggered one already evaluated, a
// one-shot one, and a kernel descriptor's.
func epollHashState() (*Epoll, []*fakeFile) {
	files := []*fakeFile{{}, {in: 1}, {}}
	ep := NewEpoll()
	ep.Ctl(EpollCtlAdd, 3, files[0], EpollEvent{Events: PollIn, Data: 1})
	ep.Ctl(EpollCtlAdd, 5, files[1], EpollEvent{Events: PollIn | EpollET, Data: 2})
	ep.Ctl(EpollCtlAdd, 6, files[2], EpollEvent{Events: PollIn | EpollOneshot, Data: 3})
	ep.Ctl(EpollCtlAdd, 0, nil, EpollEvent{Events: PollIn, Data: 4})
	ep.Collect(8, true, fakeProbe{})
	return ep, files
}

func epollHash(ep *Epoll, files []*fakeFile) []uint64 {
	var got []uint64
	ep.Hash(func(v uint64) { got = append(got, v) }, func(o any) uint64 {
		return uint64(10 + slices.Index(files, o.(*fakeFile)))
	})
	return got
}

// TestEpollHash pins what an instance writes to the world hash, in
// order: the entry count, then per entry in ready order its fd, its
// description's number (none for a kernel descriptor), events, data,
// the bits disarmed|fresh<<1|closed<<2|kernel<<3 and its seen wake key
// (the supervisor's hash wrote these before the move). Then it changes
// one piece of state at a time and requires the words to change.
func TestEpollHash(t *testing.T) {
	const et = EpollET
	want := []uint64{4,
		3, 10, PollIn, 1, 2, 0, 0,
		5, 11, PollIn | et, 2, 0, 1, 0,
		6, 12, PollIn | EpollOneshot, 3, 2, 0, 0,
		0, PollIn, 4, 2 | 8, 0, 0,
	}
	base := epollHash(epollHashState())
	if !slices.Equal(base, want) {
		t.Fatalf("hash input %v, want %v", base, want)
	}
	mutations := []struct {
		name string
		f    func(*Epoll, []*fakeFile)
	}{
		{"events", func(ep *Epoll, f []*fakeFile) { ep.Ctl(EpollCtlMod, 3, f[0], EpollEvent{Events: PollOut, Data: 1}) }},
		{"data", func(ep *Epoll, f []*fakeFile) { ep.Ctl(EpollCtlMod, 3, f[0], EpollEvent{Events: PollIn, Data: 5}) }},
		{"disarmed", func(ep *Epoll, _ []*fakeFile) { ep.order[2].disarmed = true }},
		{"fresh", func(ep *Epoll, _ []*fakeFile) { ep.order[1].fresh = true }},
		{"closed", func(ep *Epoll, f []*fakeFile) { ep.Forget(3, f[0], false) }},
		{"seen (readers)", func(ep *Epoll, _ []*fakeFile) { ep.order[1].seen[0]++ }},
		{"seen (writers)", func(ep *Epoll, _ []*fakeFile) { ep.order[1].seen[1]++ }},
		{"watched description", func(ep *Epoll, f []*fakeFile) { ep.order[0].file = f[2] }},
		{"ready order", func(ep *Epoll, _ []*fakeFile) { ep.order[0], ep.order[1] = ep.order[1], ep.order[0] }},
		{"entry removed", func(ep *Epoll, _ []*fakeFile) { ep.Ctl(EpollCtlDel, 0, nil, EpollEvent{}) }},
	}
	for _, m := range mutations {
		ep, files := epollHashState()
		m.f(ep, files)
		if slices.Equal(epollHash(ep, files), base) {
			t.Errorf("%s: the hash input did not change", m.name)
		}
	}
}

// TestEpollCtlErrnos checks that Ctl's refusals are Errnos the
// supervisor returns as they are.
func TestEpollCtlErrnos(t *testing.T) {
	ep := NewEpoll()
	var e Errno
	if err := ep.Ctl(EpollCtlDel, 3, nil, EpollEvent{}); !errors.As(err, &e) || e != ENOENT {
		t.Errorf("DEL of an unwatched fd: %v, want ENOENT", err)
	}
}

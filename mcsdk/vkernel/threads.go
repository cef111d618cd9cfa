package vkernel

// Thread ends and process ends (exit(2), exit_group(2), kernel/exit.c):
// a process is its thread group; exit(2) ends one thread, exit_group(2)
// and a fatal signal every thread. Which thread's end ends the process
// is decided here; the supervisor (the edge) collects the host threads
// accordingly.
//
// The process's wait status is exit_group's code (the first caller's:
// do_group_exit keeps the group_exit_code already set) or the fatal
// signal's, and otherwise, when every thread left by exit(2), the exit
// code of the last one to end, whichever thread that is (the procend
// probe shows it on Linux 6.18, the leader ending first or last). The
// edge takes the status from the host's report of the leader, which is
// the kernel's own.

// ThreadEnd is what exit(2) by one thread means for its process.
type ThreadEnd uint8

const (
	// ThreadReleased: a thread other than the leader, with other threads
	// still alive: exit_notify releases it at once (a non-leader is
	// autoreaped) and the process lives on.
	ThreadReleased ThreadEnd = iota
	// LeaderZombie: the leader, with other threads still alive: it stays
	// a zombie thread, and its process alive, until the group is empty
	// (delay_group_leader). Nobody can collect it before: neither its
	// parent nor its tracer (wait_consider_task skips it), so the edge
	// must not wait for it.
	LeaderZombie
	// GroupDead: the last live thread: the process ends (do_exit's
	// group_dead). Its leader, this thread or a zombie already, reports
	// the process's end once every other thread is released.
	GroupDead
)

// String names the end.
func (e ThreadEnd) String() string {
	switch e {
	case ThreadReleased:
		return "released"
	case LeaderZombie:
		return "leader zombie"
	case GroupDead:
		return "group dead"
	}
	return "unknown"
}

// ExitThread decides exit(2) by one thread of a process: leader says
// whether it is the process's leader (its tid is the pid), othersAlive
// how many of the process's other threads have not ended (a zombie
// leader has ended).
func ExitThread(leader bool, othersAlive int) ThreadEnd {
	switch {
	case othersAlive <= 0:
		return GroupDead
	case leader:
		return LeaderZombie
	}
	return ThreadReleased
}

package vkernel

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
)

// TaskStatus is what the supervisor reads of a thread's kernel status
// file, /proc/PID/task/TID/status (proc(5)): its credentials, capability
// sets, file creation mask and signal sets. A line the file lacks leaves
// its fields zero (HasIDs and HasUmask say whether those lines were
// there).
type TaskStatus struct {
	UID, GID [4]uint32 // real, effective, saved set, file-system
	HasIDs   bool      // the Uid and Gid lines were read
	Groups   []uint32  // supplementary groups

	CapInh, CapPrm, CapEff uint64

	Umask    uint32
	HasUmask bool // Linux writes Umask since 4.7

	Sig ThreadSig
}

// ParseTaskStatus parses a status file's text. Lines it does not use are
// skipped; a line it uses whose value does not parse (a set that is not
// hex, a Uid line without four decimal ids) is an error naming the line.
func ParseTaskStatus(status []byte) (TaskStatus, error) {
	var s TaskStatus
	sigs := map[string]*SigSet{"SigPnd": &s.Sig.Pending, "ShdPnd": &s.Sig.Shared, "SigBlk": &s.Sig.Blocked, "SigIgn": &s.Sig.Ignored, "SigCgt": &s.Sig.Caught}
	caps := map[string]*uint64{"CapInh": &s.CapInh, "CapPrm": &s.CapPrm, "CapEff": &s.CapEff}
	ids := map[string]*[4]uint32{"Uid": &s.UID, "Gid": &s.GID}
	seenIDs := 0
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		key, val, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		k := string(key)
		val = bytes.TrimSpace(val)
		bad := func(err error) (TaskStatus, error) { return s, fmt.Errorf("/proc status %s: %v", k, err) }
		if p := sigs[k]; p != nil {
			v, err := strconv.ParseUint(string(val), 16, 64)
			if err != nil {
				return bad(err)
			}
			*p = SigSet(v)
			continue
		}
		if p := caps[k]; p != nil {
			v, err := strconv.ParseUint(string(val), 16, 64)
			if err != nil {
				return bad(err)
			}
			*p = v
			continue
		}
		if p := ids[k]; p != nil {
			f := bytes.Fields(val)
			if len(f) != 4 {
				return bad(fmt.Errorf("%d ids, want 4 (real, effective, saved, file-system)", len(f)))
			}
			for i := range f {
				v, err := strconv.ParseUint(string(f[i]), 10, 32)
				if err != nil {
					return bad(err)
				}
				p[i] = uint32(v)
			}
			seenIDs++
			continue
		}
		switch k {
		case "Groups":
			s.Groups = nil
			for _, g := range bytes.Fields(val) {
				v, err := strconv.ParseUint(string(g), 10, 32)
				if err != nil {
					return bad(err)
				}
				s.Groups = append(s.Groups, uint32(v))
			}
		case "Umask":
			v, err := strconv.ParseUint(string(val), 8, 32)
			if err != nil {
				return bad(err)
			}
			s.Umask, s.HasUmask = uint32(v), true
		}
	}
	s.HasIDs = seenIDs == 2
	return s, sc.Err()
}

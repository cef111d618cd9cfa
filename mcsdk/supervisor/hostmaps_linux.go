//go:build linux && amd64

package supervisor

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A process's mappings as the host kernel lists them in /proc/PID/maps:
// weft reads them to patch a node's code (tscpatch_linux.go), to hide the
// [vvar] pages (vvar_linux.go) and to show a node its own maps
// (sys_procfs.go's ownMaps, through vkernel's renderers).

// mapping is one line of /proc/PID/maps.
type mapping struct {
	start, end uint64
	perms      string
	offset     string // as the kernel prints it
	off        int64  // the same, parsed
	ino        uint64
	name       string
}

// readMaps reads process pid's mappings.
func readMaps(pid int) ([]mapping, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	var ms []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		var m mapping
		m.start, _ = strconv.ParseUint(lo, 16, 64)
		m.end, _ = strconv.ParseUint(hi, 16, 64)
		m.perms, m.offset = f[1], f[2]
		m.off, _ = strconv.ParseInt(f[2], 16, 64)
		m.ino, _ = strconv.ParseUint(f[4], 10, 64)
		if len(f) > 5 {
			m.name = strings.Join(f[5:], " ")
		}
		ms = append(ms, m)
	}
	return ms, nil
}

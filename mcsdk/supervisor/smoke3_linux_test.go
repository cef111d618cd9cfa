//go:build linux

package supervisor

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestSmokeMapDiff(t *testing.T) {
	specs := []NodeSpec{
		{Path: "/tmp/repl", Args: []string{"0", "2", "7000"}},
		{Path: "/tmp/repl", Args: []string{"1", "2", "7000"}},
	}
	var dumps []map[string][]byte
	for i := 0; i < 2; i++ {
		w, err := Start(Config{Nodes: specs, BasePort: 7000})
		if err != nil {
			t.Fatal(err)
		}
		n := w.nodes[0]
		maps, _ := os.ReadFile(fmt.Sprintf("/proc/%d/maps", n.pid))
		d := map[string][]byte{}
		for _, line := range strings.Split(string(maps), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || f[1][1] != 'w' || strings.Contains(line, "ld-linux") {
				continue
			}
			var lo, hi uint64
			fmt.Sscanf(f[0], "%x-%x", &lo, &hi)
			buf := make([]byte, hi-lo)
			readMem(n.pid, uintptr(lo), buf)
			d[line] = buf
		}
		dumps = append(dumps, d)
		w.Close()
	}
	for k, a := range dumps[0] {
		b, ok := dumps[1][k]
		if !ok {
			t.Logf("mapping only in run 1: %s", k)
			continue
		}
		for i := range a {
			if a[i] != b[i] {
				j := i &^ 7; t.Logf("%s: differs at +%#x: %x vs %x", k, i, a[j:j+16], b[j:j+16])
				break
			}
		}
	}
}

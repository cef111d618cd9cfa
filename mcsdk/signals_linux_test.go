//go:build linux

package mcsdk_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestSignalTimerRecordingReplays runs nodes ended by an alarm in seeded
// runs: the node's own (SIGALRM's default action kills it; its event is
// timer 0.-1, as recordings always held it), and a forked child's, which
// kills the child and not the node (the child's own ITIMER_REAL, whose
// event names the child's place in the process table: timer
// 0.-4294967297; the node then exits with 100 + SIGALRM). The verdict
// says so, the signal timer's event is the last recorded choice (with
// two processes, the runs of their threads come before it), two runs
// record the same bytes, and the recording replays.
func TestSignalTimerRecordingReplays(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "signals")
	if out, err := exec.Command("cc", "-O1", "-pthread", "-o", bin, "supervisor/testdata/signals.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		mode, why, choice string
	}{
		{"alarmkill", "node 0 was killed by SIGALRM", "timer 0.-1"},
		{"childalarm", "node 0 exited with status 114", "timer 0.-4294967297"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			src := "[target]\nnodes = 1\nbinary = \"signals\"\nargs = [\"" + tc.mode + "\"]\n[invariants]\nup = \"all i in nodes : alive(i)\"\n"
			if err := os.WriteFile(filepath.Join(dir, tc.mode+".model"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(filepath.Join(dir, tc.mode+".model"))
			if err != nil {
				t.Fatal(err)
			}
			var recs [2][]byte
			for k := range recs {
				r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: 4})
				if err != nil {
					t.Fatal(err)
				}
				if r.Verdict != mcsdk.Violated || r.FirstViolation == nil || !strings.Contains(r.FirstViolation.Why, tc.why) {
					t.Fatalf("verdict %s %+v, want violated: %s", r.Verdict, r.FirstViolation, tc.why)
				}
				if len(r.Choices) == 0 || r.Choices[len(r.Choices)-1].Action != tc.choice {
					t.Errorf("choices %v, want the ITIMER_REAL event %s last", r.Choices, tc.choice)
				}
				if recs[k], err = r.Recording(m).Bytes(); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(recs[0], recs[1]) {
				t.Fatal("two runs recorded different bytes")
			}
			rec, err := weftlog.Decode(recs[0])
			if err != nil {
				t.Fatal(err)
			}
			res, div, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{})
			if err != nil || div != nil || res.Verdict != mcsdk.Violated {
				t.Fatalf("replay: %v %v %v", err, div, res)
			}
		})
	}
}

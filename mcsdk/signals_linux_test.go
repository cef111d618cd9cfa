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

// TestSignalTimerRecordingReplays runs a node killed by its own alarm
// (SIGALRM's default action) in a seeded run: the verdict names the
// signal, the signal timer's event is a recorded choice (timer 0.-1),
// two runs record the same bytes, and the recording replays.
func TestSignalTimerRecordingReplays(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "signals")
	if out, err := exec.Command("cc", "-O1", "-pthread", "-o", bin, "supervisor/testdata/signals.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	src := "[target]\nnodes = 1\nbinary = \"signals\"\nargs = [\"alarmkill\"]\n[invariants]\nup = \"all i in nodes : alive(i)\"\n"
	if err := os.WriteFile(filepath.Join(dir, "sig.model"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(filepath.Join(dir, "sig.model"))
	if err != nil {
		t.Fatal(err)
	}
	var recs [2][]byte
	for k := range recs {
		r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != mcsdk.Violated || r.FirstViolation == nil || !strings.Contains(r.FirstViolation.Why, "node 0 was killed by SIGALRM") {
			t.Fatalf("verdict %s %+v, want violated by SIGALRM", r.Verdict, r.FirstViolation)
		}
		if len(r.Choices) != 1 || r.Choices[0].Action != "timer 0.-1" {
			t.Errorf("choices %v, want the ITIMER_REAL event", r.Choices)
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
}

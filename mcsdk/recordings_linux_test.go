//go:build linux

package mcsdk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestStoredRecordingsReplay: every recording shipped in targets/ (the
// shrunk violations the targets' READMEs trace) replays with today's weft,
// every observation verified, to the verdict it records. A change of the
// engine that alters what a run does must come with the recordings made
// again.
func TestStoredRecordingsReplay(t *testing.T) {
	paths, err := filepath.Glob("../targets/*/*.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	nested, err := filepath.Glob("../targets/*/*/*.weftlog") // targets/raft/kv
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, nested...)
	if len(paths) < 5 {
		t.Fatalf("found %d stored recordings, want at least paxos, zab, humming and raft's two", len(paths))
	}
	for _, p := range paths {
		t.Run(filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := weftlog.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			m := loadTarget(t, strings.TrimPrefix(filepath.ToSlash(rec.Header.Model), "targets/"))
			res, div, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{})
			if err != nil || div != nil {
				t.Fatalf("replay: %v %v", err, div)
			}
			if string(res.Verdict) != rec.Verdict.Verdict || strings.Join(res.Violated, ",") != strings.Join(rec.Verdict.Violated, ",") {
				t.Errorf("replayed %s %v, the recording says %s %v", res.Verdict, res.Violated, rec.Verdict.Verdict, rec.Verdict.Violated)
			}
		})
	}
}

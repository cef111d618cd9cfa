package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// dataset16 writes a 16-mask dataset over 4 seeds: seed s is violated
// unless check s is on.
func dataset16(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "attr")
	m := dataset.Manifest{CampaignID: "c", ModelHash: "h", Seeds: []dataset.SeedRange{{Lo: 0, Hi: 4}}}
	for mask := range 16 {
		m.Variants = append(m.Variants, dataset.Variant{Name: chordcheck.MaskVariant(mask), BinaryHash: "b"})
	}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for mask := range 16 {
		for s := int64(0); s < 4; s++ {
			v := dataset.Holds
			if mask&(1<<s) == 0 {
				v = dataset.Violated
			}
			if err := w.Write(dataset.Row{CampaignID: "c", RunID: "run1", ModelHash: "h", BinaryHash: "b", Variant: chordcheck.MaskVariant(mask), Seed: s, Verdict: v}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRun(t *testing.T) {
	dir := dataset16(t)
	for _, tc := range []struct {
		args []string
		want string // in stdout, or in the error if wantErr
		err  bool
	}{
		{[]string{dir}, "| c15 (level 2) | SRUG | 0 | 4 | 0 |", false},
		{[]string{"--json", dir}, `"variant": "c15"`, false},
		{[]string{dir, "--json"}, `"ordered": false`, false}, // flags after the argument
		{nil, "want one dataset directory", true},
		{[]string{dir, dir}, "want one dataset directory", true},
		{[]string{filepath.Join(dir, "nosuch")}, "nosuch", true},
	} {
		var out, errOut bytes.Buffer
		err := run(tc.args, &out, &errOut)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
		if strings.Contains(strings.Join(tc.args, " "), "--json") {
			var v map[string]any
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Errorf("%v: not JSON: %v", tc.args, err)
			}
		}
	}
}

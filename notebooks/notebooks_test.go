// Package notebooks holds weft's notebooks; its test executes each one top
// to bottom under weft's kernel with Debian's real Jupyter client.
package notebooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const python = "/usr/bin/python3" // Debian's, with python3-nbclient

// TestNotebooksExecute runs every notebook with nbclient and fails on any
// error output. The Chord campaign runs WEFT_NOTEBOOK_SEEDS seeds (6 here;
// 500 reproduces the report).
func TestNotebooksExecute(t *testing.T) {
	if out, err := exec.Command(python, "-c", "import nbclient, nbformat").CombinedOutput(); err != nil {
		msg := "needs " + python + " with python3-nbclient (scripts/setup.sh): " + string(out)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	weft := filepath.Join(tmp, "weft")
	if out, err := exec.Command("go", "build", "-o", weft, "../cmd/weft").CombinedOutput(); err != nil {
		t.Fatalf("building weft: %v\n%s", err, out)
	}
	prefix := filepath.Join(tmp, "jupyter")
	if out, err := exec.Command(weft, "kernel", "install", "--prefix", prefix, "--name", "weft").CombinedOutput(); err != nil {
		t.Fatalf("installing the kernel: %v\n%s", err, out)
	}
	books, _ := filepath.Glob("*.ipynb")
	if len(books) < 3 {
		t.Fatalf("found %d notebooks, want 01, 02 and 03", len(books))
	}
	for _, nb := range books {
		t.Run(strings.TrimSuffix(nb, ".ipynb"), func(t *testing.T) {
			cmd := exec.Command(python, "testdata/execute.py", "weft", nb, root, filepath.Join(tmp, nb))
			cmd.Env = append(os.Environ(),
				"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
				"WEFT_NOTEBOOK_SEEDS=6",
				"WEFT_NOTEBOOK_ATTRIBUTION_SEEDS=3", // 19 variants: keep it small
				"WEFT_DATASETS="+filepath.Join(tmp, "datasets"),
				"WEFT_CACHE="+filepath.Join(tmp, "cache"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", nb, err, out)
			}
			t.Logf("%s", out)
		})
	}
	// The Chord notebook ran the CI-sized campaign, twice, where the test
	// told it to (its parameters reach the kernel through the environment).
	for _, run := range []string{"run1", "run2"} {
		if _, err := os.Stat(filepath.Join(tmp, "datasets", "chord-6-"+run, "manifest.json")); err != nil {
			t.Errorf("notebook 02 did not write datasets/chord-6-%s under WEFT_DATASETS: %v", run, err)
		}
	}
	// Its outputs include the paired comparison and the seeds that are
	// invalid in fix1 only.
	done, err := os.ReadFile(filepath.Join(tmp, "02-chord-liveness-discipline.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	// and the attribution sections (issue 21).
	for _, want := range []string{"Paired by seed", "fix1 vs fix2: ", "seeds invalid in fix1 but valid in fix2",
		"The 16 variants (3 seeds each", "Levels 0 > 1 > 2 by the intention-to-treat outcome", "Perfect failure detection (chord-perfect.model)",
		`data-weft-chart=\"effects\"`} {
		if !strings.Contains(string(done), want) {
			t.Errorf("executed notebook 02 lacks %q", want)
		}
	}
	// The Paxos notebook traced the bug's violation, the correct variant on
	// the same seed, and embedded Porcupine's visualisation.
	paxos, err := os.ReadFile(filepath.Join(tmp, "04-paxos.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bug, seed 119: violated [agreement] at step 35", "correct, seed 119: holds",
		"exact one-sided 95% upper bound", "linearizable (4 operations)", "&lt;title&gt;Porcupine&lt;/title&gt;"} {
		if !strings.Contains(string(paxos), want) {
			t.Errorf("executed notebook 04 lacks %q", want)
		}
	}
}

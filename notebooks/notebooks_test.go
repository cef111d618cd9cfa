// Package notebooks holds weft's notebooks; its test executes each one top
// to bottom under weft's kernel with Debian's real Jupyter client.
package notebooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/analysis/charts/browsertest"
)

const python = "/usr/bin/python3" // Debian's, with python3-nbclient

// notebookLimit is how long one notebook may take on its defaults (issue
// 41: they open the shipped datasets instead of recomputing them).
const notebookLimit = 10 * time.Minute

// TestNotebooksExecute runs every notebook with nbclient, on its default
// settings (WEFT_NOTEBOOK_SEEDS unset: the shipped datasets of
// datasets/shipped), each within notebookLimit, and fails on any error
// output.
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
	// scripts/test.sh builds weft once for every package that runs it
	// (WEFT_TEST_BIN, from this tree); alone, the test builds its own.
	weft := os.Getenv("WEFT_TEST_BIN")
	if weft == "" {
		weft = filepath.Join(tmp, "weft")
		if out, err := exec.Command("go", "build", "-o", weft, "../cmd/weft").CombinedOutput(); err != nil {
			t.Fatalf("building weft: %v\n%s", err, out)
		}
	}
	prefix := filepath.Join(tmp, "jupyter")
	if out, err := exec.Command(weft, "kernel", "install", "--prefix", prefix, "--name", "weft").CombinedOutput(); err != nil {
		t.Fatalf("installing the kernel: %v\n%s", err, out)
	}
	books, _ := filepath.Glob("*.ipynb")
	if len(books) < 4 {
		t.Fatalf("found %d notebooks, want 01, 02, 03 and 04", len(books))
	}
	for _, nb := range books {
		t.Run(strings.TrimSuffix(nb, ".ipynb"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), notebookLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, python, "testdata/execute.py", "weft", nb, root, filepath.Join(tmp, nb))
			cmd.WaitDelay = time.Minute
			cmd.Env = append(defaultEnv(),
				"JUPYTER_PATH="+filepath.Join(prefix, "share", "jupyter"),
				"WEFT_DATASETS="+filepath.Join(tmp, "datasets"), // used only by a full rerun
				"WEFT_CACHE="+filepath.Join(tmp, "cache"))
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("%s did not finish within %s on its defaults\n%s", nb, notebookLimit, out)
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", nb, err, out)
			}
			t.Logf("%s: %s in %s", nb, strings.TrimSpace(string(out)), time.Since(start).Round(time.Second))
		})
	}
	renderInBrowser(t, tmp, books)
	// The kernel tour shows what issue 18 asks for: rows as an HTML table,
	// gonum, go-echarts drawn offline, %go get with earlier state, Display,
	// stderr as a stream and a redefined struct.
	outs := outputs(t, filepath.Join(tmp, "04-go-kernel.ipynb"))
	for _, want := range []string{"text/html:<table>", "<th>Variant</th>", "of 80 rows",
		"stdout:half p-values", "combined p = ", `data-weft-chart="echarts"`,
		"stdout:github.com/cespare/xxhash/v2 compiled, ready to import", "stdout:campaign id ", "text/html:<b>x</b>",
		"stderr:x\n", "text/plain:{2 holds}", "shell sees WEFT_TOUR=1"} {
		if !strings.Contains(outs, want) {
			t.Errorf("executed notebook 04 lacks %q", want)
		}
	}
	// The Chord notebook opened the shipped 3 × 500 campaign, reran 20
	// seeds of each variant with the same verdicts, and wrote no dataset
	// (a full rerun would go to WEFT_DATASETS).
	if ents, err := os.ReadDir(filepath.Join(tmp, "datasets")); err == nil && len(ents) > 0 {
		t.Errorf("a notebook on its defaults wrote %d datasets under WEFT_DATASETS", len(ents))
	}
	// Its outputs include the paired comparison and the seeds that are
	// invalid in fix1 only.
	done, err := os.ReadFile(filepath.Join(tmp, "02-chord-liveness-discipline.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	// and the attribution sections (issue 21).
	for _, want := range []string{"datasets/shipped/chord-500: the shipped dataset, seeds 0–499",
		"identical verdict (and step count) for all 60 seed × variant pairs rerun: true", "Paired by seed", "fix1 vs fix2: ",
		"seeds invalid in fix1 but valid in fix2", "datasets/shipped/chord-attribution-100: the shipped dataset",
		"The 16 variants (100 seeds each", "Levels 0 > 1 > 2 by the intention-to-treat outcome", "Perfect failure detection (chord-perfect.model)",
		`data-weft-chart=\"effects\"`} {
		if !strings.Contains(string(done), want) {
			t.Errorf("executed notebook 02 lacks %q", want)
		}
	}
	// The Paxos notebook traced the bug's violation, the correct variant on
	// the same seed, and embedded Porcupine's visualisation.
	paxos, err := os.ReadFile(filepath.Join(tmp, "05-paxos.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bug, seed 119: violated [agreement] at step 35", "correct, seed 119: holds",
		"exact one-sided 95% upper bound", "linearizable (4 operations)", "&lt;title&gt;Porcupine&lt;/title&gt;"} {
		if !strings.Contains(string(paxos), want) {
			t.Errorf("executed notebook 04 lacks %q", want)
		}
	}
	// The consensus notebooks (issue 17) showed one seed's clock faults,
	// ran both variants, traced the bug's violation, found the correct
	// variant holding on the same seed, and replayed the shrunk recording.
	for _, c := range []struct{ nb, seed, inv string }{
		{"06-zab.ipynb", "1", "prefix"},
		{"07-humming.ipynb", "83", "one_value_per_version"},
	} {
		done, err := os.ReadFile(filepath.Join(tmp, c.nb))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"clock      n0 offset ", "rate ", "correct, seed " + c.seed + ": holds",
			"bug, seed " + c.seed + ": violated [" + c.inv + "]", "replayed: violated [" + c.inv + "], divergence: <nil>",
			"exact one-sided 95% upper bound", "&lt;title&gt;Porcupine&lt;/title&gt;"} {
			if !strings.Contains(string(done), want) {
				t.Errorf("executed notebook %s lacks %q", c.nb, want)
			}
		}
	}
	// The Raft notebook (issue 17, etcd's raft) traced persist-late's lost
	// committed entry on seed 42, replayed its shrunk recording, and read
	// lease-unsafe's stale read (seed 21: node 0 answers key 21 with the old
	// 1) from its shrunk recording.
	raft, err := os.ReadFile(filepath.Join(tmp, "08-raft.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"clock      n0 offset ", "correct, seed 42: holds", "correct, seed 42 again: holds", "persist-late, seed 42: violated [lost_committed] at step 2007",
		"lease-unsafe, seed 21: violated [linearizable] at step 30955", "return    n0 c0 get 21 → 1",
		"replayed: violated [lost_committed], divergence: <nil>", "exact one-sided 95% upper bound", "&lt;title&gt;Porcupine&lt;/title&gt;"} {
		if !strings.Contains(string(raft), want) {
			t.Errorf("executed notebook 08-raft lacks %q", want)
		}
	}
	// The etcd notebook (issue 37): Debian's etcd, one seed's faults and
	// Porcupine's verdict, the shipped 100-seed campaign counted, the rates'
	// bound, one seed run twice with identical recordings, and Porcupine's
	// visualisation.
	etcd, err := os.ReadFile(filepath.Join(tmp, "09-etcd.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"porcupine  linearizable: linearizable (", "etcd, seed 1: holds after ", "datasets/shipped/etcd-100: the shipped dataset, seeds 0–99",
		"100 runs: ", "Porcupine linearizable:", "exact one-sided 95% upper bound", "seed 1 twice: recordings of ", "identical: true",
		"&lt;title&gt;Porcupine&lt;/title&gt;"} {
		if !strings.Contains(string(etcd), want) {
			t.Errorf("executed notebook 09-etcd lacks %q", want)
		}
	}
}

// defaultEnv is the test's environment without the notebooks' settings,
// so that every notebook runs on its defaults.
func defaultEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WEFT_NOTEBOOK_") && !strings.HasPrefix(kv, "WEFT_DATASETS=") {
			env = append(env, kv)
		}
	}
	return env
}

// renderInBrowser converts each executed notebook in dir to HTML with
// Debian's nbconvert (template basic: outputs only, no network assets) and
// opens it in headless Chromium, offline: every chart must paint a
// non-empty canvas, with no console error and no network request. A
// notebook without charts must still load cleanly.
func renderInBrowser(t *testing.T, dir string, books []string) {
	t.Helper()
	chromium, err := browsertest.Chromium()
	if err != nil {
		t.Fatalf("needs Chromium (scripts/setup.sh): %v", err)
	}
	ctx := context.Background()
	b, err := browsertest.Launch(ctx, browsertest.Options{Chromium: chromium, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, nb := range books {
		name := strings.TrimSuffix(nb, ".ipynb")
		out, err := exec.Command(python, "-m", "nbconvert", "--to", "html", "--template", "basic",
			"--output-dir", dir, "--output", name+"-basic", filepath.Join(dir, nb)).CombinedOutput()
		if err != nil {
			t.Fatalf("nbconvert %s: %v\n%s", nb, err, out)
		}
		body, err := os.ReadFile(filepath.Join(dir, name+"-basic.html"))
		if err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(dir, name+".html")
		html := "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + name + "</title></head><body>\n" +
			string(body) + "\n</body></html>\n"
		if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := b.Open(ctx, page)
		if err != nil {
			t.Fatal(err)
		}
		charted := strings.Contains(string(body), "data-weft-chart")
		for _, p := range res.Problems() {
			if p == "no chart containers found" && !charted {
				continue
			}
			t.Errorf("%s in Chromium: %s", nb, p)
		}
		t.Logf("%s: %d charts painted in Chromium", nb, len(res.Containers))
	}
}

// outputs returns a notebook's outputs, one per line, as "stream:text" or
// "mime:data" (lines of multi-line values joined).
func outputs(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			Outputs []struct {
				Name string          `json:"name"`
				Text json.RawMessage `json:"text"`
				Data map[string]json.RawMessage
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			if o.Name != "" {
				sb.WriteString(o.Name + ":" + joined(o.Text) + "\n")
			}
			for mime, v := range o.Data {
				sb.WriteString(mime + ":" + joined(v) + "\n")
			}
		}
	}
	return sb.String()
}

// joined decodes a notebook string: one string or a list of lines.
func joined(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	if json.Unmarshal(raw, &lines) == nil {
		return strings.Join(lines, "")
	}
	return string(raw)
}

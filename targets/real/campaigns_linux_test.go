//go:build linux

package ladder

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// campaign is one of issue 37's linearizability campaigns: a model
// outside targets/real whose Porcupine invariant checks the clients'
// history (targets/etcd, targets/zookeeper).
type campaign struct {
	name  string
	model string // relative to targets/real
	needs []string
	env   []string
}

var campaigns = []campaign{
	{name: "etcd", model: "../etcd/etcd.model", needs: []string{"/usr/bin/etcd"}},
	{name: "zookeeper", model: "../zookeeper/zookeeper.model", needs: []string{"/usr/bin/java", "/usr/share/java/zookeeper.jar"},
		env: []string{tscTrap}},
}

// campaignSeeds is how many seeds TestCampaigns runs of each model: one,
// twice (every statement the test makes is about each seed: its two runs
// agree byte for byte, it holds, Porcupine checked its history), or two
// with WEFT_FULL=1; scripts/campaigns.sh runs the full campaigns (100 and
// 20 seeds).
func campaignSeeds() int {
	if os.Getenv("WEFT_FULL") == "1" {
		return 2
	}
	return 1
}

// campaignSummary is the part of weft campaign --json the test judges.
type campaignSummary struct {
	Variants []struct {
		Runs, Valid, Invalid, Violated, Errors int
	}
	Runs           int
	Compared       int
	Nondeterminism []string
}

// TestCampaigns runs a small campaign of each model with
// --check-determinism: every seed runs twice and the two recordings must
// be byte-identical; no run is an error or invalid; none is violated
// (etcd's ranges are linearizable by default, ZooKeeper's reads here are
// sync then getData); and every seed's verdict row names Porcupine's
// result on its history ("porcupine=linearizable: linearizable (N
// operations)", from weft export) with at least one operation checked.
func TestCampaigns(t *testing.T) {
	seeds := campaignSeeds()
	for _, c := range campaigns {
		t.Run(c.name, func(t *testing.T) {
			requirePrograms(t, c.needs)
			dir := t.TempDir()
			out := filepath.Join(dir, "dataset")
			cmd := exec.Command(weftBin, "campaign", "--json", "--check-determinism", "--seeds", fmt.Sprint(seeds), "--out", out, c.model)
			cmd.Env = append(os.Environ(), c.env...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			t.Logf("%d seeds, twice each, in %.0f s of wall time", seeds, time.Since(start).Seconds())
			var sum campaignSummary
			if jerr := json.Unmarshal(stdout.Bytes(), &sum); jerr != nil || err != nil {
				t.Fatalf("weft campaign: %v, %v\n%s\n%s", err, jerr, stdout.String(), stderr.String())
			}
			if len(sum.Variants) != 1 || sum.Runs != seeds || sum.Compared != seeds || len(sum.Nondeterminism) != 0 {
				t.Fatalf("summary %+v, want %d seeds compared, all identical", sum, seeds)
			}
			if v := sum.Variants[0]; v.Valid != seeds || v.Violated != 0 || v.Errors != 0 || v.Invalid != 0 {
				t.Errorf("verdicts %+v, want %d holds", v, seeds)
			}
			checkPorcupineDetails(t, out, seeds)
		})
	}
}

// checkPorcupineDetails exports the dataset's verdict rows and requires
// Porcupine's result, over at least one operation, in each row's detail.
func checkPorcupineDetails(t *testing.T, dataset string, seeds int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "verdicts.csv")
	if out, err := exec.Command(weftBin, "export", dataset, "--format", "csv", "-o", file).CombinedOutput(); err != nil {
		t.Fatalf("weft export: %v\n%s", err, out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != seeds+1 {
		t.Fatalf("%d rows (%v), want a header and %d", len(rows), err, seeds)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, row := range rows[1:] {
		detail := row[col["detail"]]
		const want = "porcupine=linearizable: linearizable ("
		i := strings.Index(detail, want)
		if row[col["verdict"]] != "holds" || i < 0 || strings.HasPrefix(detail[i+len(want):], "0 ") {
			t.Errorf("seed %s: %s, detail %q: want holds and Porcupine's result over some operations", row[col["seed"]], row[col["verdict"]], detail)
		}
	}
}

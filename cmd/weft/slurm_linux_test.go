//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-mc/weft/cmd/weft/internal/cluster"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// requireSlurm fails the test under CI=true when no Slurm cluster answers,
// and skips it loudly elsewhere. scripts/slurm-test-setup.sh (run by
// scripts/test.sh) starts one on this machine.
func requireSlurm(t *testing.T) (partition string) {
	t.Helper()
	why := ""
	if out, err := exec.Command("scontrol", "ping").CombinedOutput(); err != nil || !strings.Contains(string(out), "is UP") {
		why = fmt.Sprintf("slurmctld does not answer (scontrol ping: %v %s)", err, strings.TrimSpace(string(out)))
	} else if out, err := exec.Command("sinfo", "--noheader", "--format=%P %T").Output(); err != nil {
		why = fmt.Sprintf("sinfo: %v", err)
	} else {
		for line := range strings.Lines(string(out)) {
			f := strings.Fields(line)
			if len(f) == 2 && strings.HasSuffix(f[0], "*") && activeNode(f[1]) {
				partition = strings.TrimSuffix(f[0], "*")
			}
		}
		if partition == "" {
			why = "no default partition with a usable node: sinfo says\n" + string(out)
		}
	}
	if why == "" {
		return partition
	}
	why += "; start a single-node cluster with scripts/slurm-test-setup.sh (root)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	fmt.Fprintf(os.Stderr, "\n!!!!!! SKIPPING %s: %s\n\n", t.Name(), why)
	t.Skip(why)
	return ""
}

func activeNode(state string) bool {
	for _, s := range []string{"idle", "mixed", "allocated", "completing"} {
		if strings.HasPrefix(state, s) {
			return true
		}
	}
	return false
}

// weftJSON runs weft from the repository root and decodes its JSON output.
func weftJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	o, e, code := weft(t, args...)
	if code != 0 {
		t.Fatalf("weft %s: exit %d\n%s\n%s", strings.Join(args, " "), code, o, e)
	}
	if err := json.Unmarshal([]byte(o), v); err != nil {
		t.Fatalf("weft %s: %v\n%s", strings.Join(args, " "), err, o)
	}
}

// waitStatus polls `weft campaign --status dir` until done(st) or timeout.
func waitStatus(t *testing.T, dir string, timeout time.Duration, what string, done func(*cluster.Status) bool) *cluster.Status {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var st cluster.Status
		weftJSON(t, &st, "campaign", "--status", dir, "--json")
		if done(&st) {
			return &st
		}
		if time.Now().After(deadline) {
			logs, _ := filepath.Glob(filepath.Join(dir, "slurm", "logs", "*"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, b)
			}
			t.Fatalf("waiting %v for %s; status: %+v", timeout, what, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cancelCampaignJobs cancels every job of the campaign in dir and waits
// until Slurm has none running (the test's files are removed after).
func cancelCampaignJobs(t *testing.T, dir string) {
	c, err := cluster.ReadPlan(dir)
	if err != nil || c == nil {
		return
	}
	var ids []string
	for _, s := range c.Submitted {
		ids = append(ids, s.ArrayJob, s.MergeJob)
	}
	ids = slices.DeleteFunc(ids, func(s string) bool { return s == "" })
	exec.Command("scancel", ids...).Run()
	for range 100 {
		out, _ := exec.Command("squeue", "--noheader", "--jobs="+strings.Join(ids, ","), "--format=%i").Output()
		if strings.TrimSpace(string(out)) == "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// comparableRows reads a dataset as (variant, seed) → row, without the
// wall time, the only field that may differ between two runs of a seed.
func comparableRows(t *testing.T, dir string) map[string]dataset.Row {
	t.Helper()
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dataset.Row{}
	for _, r := range rows {
		k := fmt.Sprintf("%s/%d", r.Variant, r.Seed)
		if _, dup := out[k]; dup {
			t.Fatalf("%s: two rows for %s", dir, k)
		}
		r.WallTime = 0
		out[k] = r
	}
	return out
}

// sameRows fails unless two datasets agree seed by seed (verdicts,
// invariants, steps, states, times, details) and in their recordings.
func sameRows(t *testing.T, gotDir, wantDir string, wantRows int) {
	t.Helper()
	got, want := comparableRows(t, gotDir), comparableRows(t, wantDir)
	if len(got) != wantRows || len(want) != wantRows {
		t.Fatalf("%d rows in %s and %d in %s, want %d", len(got), gotDir, len(want), wantDir, wantRows)
	}
	violated := 0
	for k, w := range want {
		if g := got[k]; !reflect.DeepEqual(g, w) {
			t.Errorf("%s differs:\n got  %+v\n want %+v", k, g, w)
		}
		if w.Verdict == dataset.Violated {
			violated++
		}
	}
	if violated == 0 {
		t.Fatalf("no seed violated anything: the comparison would prove little")
	}
	if g, w := recordings(t, gotDir), recordings(t, wantDir); !reflect.DeepEqual(g, w) || len(w) != violated {
		t.Errorf("recordings differ: %d vs %d files (%d violated seeds)", len(g), len(w), violated)
	}
}

// TestSlurmCampaign runs a 3-shard election campaign on the real Slurm
// cluster, cancels shard 2 midway (scancel: SIGTERM to every process of the
// job, as a time limit does), checks that the merge job cannot run, reruns
// the submission (which must resubmit shard 2 alone, resuming its part),
// and expects the merged dataset to equal a local campaign seed by seed.
func TestSlurmCampaign(t *testing.T) {
	partition := requireSlurm(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "slurm")
	t.Cleanup(func() { cancelCampaignJobs(t, dir) })
	const seeds = 300 // bug variant only: 100 runs per shard, a verdict file every 64 rows or second
	submit := []string{"campaign", "targets/election/election.model", "--seeds", "300", "--variants", "bug",
		"--slurm", "--array-size", "3", "--partition", partition, "--time-limit", "15:00",
		"--sbatch-opt=--comment=weft-test", "--out", dir, "--json"}

	var first cluster.SubmitResult
	weftJSON(t, &first, submit...)
	if first.Submitted == nil || !slices.Equal(first.Submitted.Tasks, []int{1, 2, 3}) || first.Submitted.MergeJob == "" {
		t.Fatalf("first submission: %+v", first.Submitted)
	}
	task2 := first.Submitted.ArrayJob + "_2"

	// Midway: shard 2 running with verdicts on disk, not complete.
	st := waitStatus(t, dir, 3*time.Minute, "shard 2 to be midway", func(st *cluster.Status) bool {
		s := st.Shards[1]
		if s.State == cluster.StateDone {
			t.Fatalf("shard 2 finished before it could be cancelled: %+v", s)
		}
		return s.State == "running" && s.Rows > 0
	})
	t.Logf("cancelling %s with %d of %d rows", task2, st.Shards[1].Rows, st.Shards[1].Want)
	if out, err := exec.Command("scancel", task2).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v %s", task2, err, out)
	}
	st = waitStatus(t, dir, time.Minute, "shard 2 to stop", func(st *cluster.Status) bool {
		return st.Shards[1].State == cluster.StateIncomplete
	})
	kept := st.Shards[1].Rows
	if kept == 0 || kept >= st.Shards[1].Want {
		t.Fatalf("shard 2 after scancel: %+v, want a part with some but not all rows", st.Shards[1])
	}
	// Its merge job waits on a shard that failed: Slurm never runs it.
	waitReason(t, first.Submitted.MergeJob, "DependencyNeverSatisfied")

	var again cluster.SubmitResult
	weftJSON(t, &again, submit...)
	if again.Submitted == nil || !slices.Equal(again.Submitted.Tasks, []int{2}) {
		t.Fatalf("rerun submitted %+v, want shard 2 alone", again.Submitted)
	}
	if again.Cancelled != first.Submitted.MergeJob {
		t.Errorf("rerun cancelled merge job %q, want the stuck %s", again.Cancelled, first.Submitted.MergeJob)
	}
	waitStatus(t, dir, 5*time.Minute, "the merged dataset", func(st *cluster.Status) bool { return st.Merged })
	resumedLog(t, dir, again.Submitted.ArrayJob, kept)

	local := sharedCampaign(t, "targets/election/election.model", "--seeds", "300", "--variants", "bug", "-j", "2") // TestCampaignJobSignalResumes' reference too
	sameRows(t, filepath.Join(dir, "merged"), local, seeds)

	var done cluster.SubmitResult
	weftJSON(t, &done, submit...)
	if !done.Complete || done.Submitted != nil {
		t.Errorf("a rerun of a complete campaign: %+v, want complete and nothing submitted", done)
	}
}

// waitReason waits until squeue gives job the pending reason want.
func waitReason(t *testing.T, job, want string) {
	t.Helper()
	var got string
	for range 1200 { // slurmctld re-evaluates dependencies on its scheduling passes
		out, _ := exec.Command("squeue", "--noheader", "--jobs="+job, "--format=%r").Output()
		if got = strings.TrimSpace(string(out)); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("job %s: reason %q, want %q", job, got, want)
}

// resumedLog checks that the resubmitted shard 2 resumed its part, the
// kept rows, rather than starting over.
func resumedLog(t *testing.T, dir, arrayJob string, kept int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "slurm", "logs", "shard-2-job"+arrayJob+".out"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`dataset .*: (\d+) runs \((\d+) resumed\)`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("resubmitted shard 2 printed no summary; log:\n%s", b)
	}
	runs, _ := strconv.Atoi(m[1])
	resumed, _ := strconv.Atoi(m[2])
	if runs != 100 || resumed != kept {
		t.Fatalf("resubmitted shard 2: %d runs, %d resumed, want 100 with %d resumed; log:\n%s", runs, resumed, kept, b)
	}
}

// TestK8sIndexedJob parses the --emit k8s manifest with a real YAML parser
// (Python's), checks the fields Kubernetes and the supervisor need, then
// runs each index's container command with this weft and merges the
// parts as the manifest says: the result equals a local campaign.
func TestK8sIndexedJob(t *testing.T) {
	tmp := t.TempDir()
	dir, local := filepath.Join(tmp, "k8s"), filepath.Join(tmp, "local")
	o, e, code := weft(t, "campaign", "targets/election/election.model", "--seeds", "24", "--variants", "bug",
		"--array-size", "3", "--emit", "k8s", "--image", "registry.example/weft:1", "--out", dir)
	if code != 0 {
		t.Fatalf("--emit k8s: exit %d\n%s", code, e)
	}
	parse := exec.Command("python3", "-c", "import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)")
	parse.Stdin = strings.NewReader(o)
	js, err := parse.Output()
	if err != nil {
		t.Fatalf("python3 yaml: %v (install python3-yaml)\n%s", err, o)
	}
	var job k8sJob
	if err := json.Unmarshal(js, &job); err != nil {
		t.Fatal(err)
	}
	checkK8sJob(t, &job)

	path := filepath.Dir(weftBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	for i := range 3 {
		cmd := exec.Command("/bin/sh", job.Spec.Template.Spec.Containers[0].Command[1:]...)
		cmd.Dir, cmd.Env = "../..", append(os.Environ(), "PATH="+path, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("index %d: %v\n%s", i, err, out)
		}
	}
	merge := exec.Command("/bin/sh", "-c", job.Metadata.Annotations["weft.dev/merge"])
	merge.Env = append(os.Environ(), "PATH="+path)
	if out, err := merge.CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	if o, e, code := weft(t, "campaign", "targets/election/election.model", "--seeds", "24", "--variants", "bug", "--out", local); code != 0 {
		t.Fatalf("local campaign: exit %d\n%s\n%s", code, o, e)
	}
	sameRows(t, filepath.Join(dir, "merged"), local, 24)
}

// k8sJob holds the fields of a batch/v1 Job the test checks.
type k8sJob struct {
	APIVersion string `json:"apiVersion"`
	Kind       string
	Metadata   struct {
		Name        string
		Annotations map[string]string
	}
	Spec struct {
		CompletionMode       string
		Completions          int
		Parallelism          int
		BackoffLimitPerIndex int
		Template             struct {
			Spec struct {
				RestartPolicy string
				Containers    []struct {
					Image           string
					Command         []string
					SecurityContext struct {
						RunAsUser       *int
						Privileged      bool
						Capabilities    struct{ Add []string }
						SeccompProfile  struct{ Type string }
						AppArmorProfile struct{ Type string }
					}
					VolumeMounts []struct{ Name, MountPath string }
				}
				Volumes []struct {
					Name                  string
					PersistentVolumeClaim struct{ ClaimName string }
				}
			}
		}
	}
}

func checkK8sJob(t *testing.T, j *k8sJob) {
	t.Helper()
	s := j.Spec
	if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Metadata.Name != "weft-election" {
		t.Errorf("apiVersion %q kind %q name %q", j.APIVersion, j.Kind, j.Metadata.Name)
	}
	if s.CompletionMode != "Indexed" || s.Completions != 3 || s.Parallelism != 3 || s.BackoffLimitPerIndex < 1 {
		t.Errorf("spec: %+v", s)
	}
	p := s.Template.Spec
	if p.RestartPolicy != "Never" || len(p.Containers) != 1 {
		t.Fatalf("pod spec: %+v", p)
	}
	c := p.Containers[0]
	sc := c.SecurityContext
	if sc.RunAsUser == nil || *sc.RunAsUser != 0 || !slices.Contains(sc.Capabilities.Add, "SYS_PTRACE") ||
		sc.SeccompProfile.Type != "Unconfined" || sc.AppArmorProfile.Type != "Unconfined" {
		t.Errorf("securityContext: %+v", sc)
	}
	if c.Image != "registry.example/weft:1" || len(c.Command) != 3 || c.Command[0] != "/bin/sh" ||
		!strings.Contains(c.Command[2], `--shard="$((JOB_COMPLETION_INDEX + 1))/3"`) {
		t.Errorf("container: image %q command %q", c.Image, c.Command)
	}
	if len(c.VolumeMounts) != 1 || len(p.Volumes) != 1 || c.VolumeMounts[0].Name != p.Volumes[0].Name ||
		p.Volumes[0].PersistentVolumeClaim.ClaimName != "weft-datasets" {
		t.Errorf("volumes: %+v %+v", c.VolumeMounts, p.Volumes)
	}
}

// processTree returns every process below pid, parents first.
func processTree(pid int) []int {
	var out []int
	for queue := descendants(pid); len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, descendants(queue[0])...)
	}
	return out
}

// TestCampaignJobSignalResumes signals a campaign the way a batch system
// cancels a job (scancel, a time limit): SIGTERM to weft and to every
// process below it, nodes included, at once (nodes first). The runs in flight see their
// nodes die; none of those outcomes may be kept, so the resumed campaign
// equals an uninterrupted one seed by seed (three cuts, then a resume).
func TestCampaignJobSignalResumes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cut")
	// Enough seeds that three cuts, each after one more verdict file (at
	// most 64 rows), cannot reach the end however fast the runs are. The
	// uninterrupted reference is TestSlurmCampaign's local campaign.
	const seeds = 300
	args := []string{"campaign", "targets/election/election.model", "--seeds", fmt.Sprint(seeds), "--variants", "bug", "-j", "2"}
	ref := sharedCampaign(t, args[1:]...)
	for range 3 { // each cut usually catches a run in flight; three make it near certain
		signalJob(t, weftBin, append(args, "--out", out), out, seeds)
	}
	if o, e, code := weft(t, append(args, "--out", out)...); code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, o, e)
	}
	sameRows(t, out, ref, 300)
}

// signalJob starts weft with args (a campaign of `runs` runs), waits until
// it has written a verdict file more than dir held and has nodes running,
// then sends SIGTERM to
// every process below it and to weft (the nodes first: the worst order,
// in which a run sees its nodes die before weft hears of it).
func signalJob(t *testing.T, bin string, args []string, dir string, runs int) {
	t.Helper()
	before, _ := filepath.Glob(filepath.Join(dir, "verdicts-*.arrow"))
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../.."
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if files, _ := filepath.Glob(filepath.Join(dir, "verdicts-*.arrow")); len(files) > len(before) && len(processTree(cmd.Process.Pid)) > 0 {
			break
		}
	}
	pids := append(processTree(cmd.Process.Pid), cmd.Process.Pid)
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGTERM)
	}
	cmd.Wait()
	partial, err := dataset.ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("signalled %d processes; %d rows kept", len(pids), len(partial))
	if len(partial) >= runs {
		t.Fatal("the campaign finished before the signal: nothing was tested")
	}
}

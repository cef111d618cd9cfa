package cluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// slurmQueue maps the job ids Slurm prints ("12" for a job, "12_3" for
// task 3 of array job 12) to their state (PENDING, RUNNING, COMPLETED, …).
type slurmQueue map[string]string

// activeJobState reports whether a job in Slurm state s may still run: it
// is not in one of the final states of squeue(1)'s JOB STATE CODES.
func activeJobState(s string) bool {
	switch strings.ToUpper(s) {
	case "", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
		"BOOT_FAIL", "DEADLINE", "REVOKED", "SPECIAL_EXIT":
		return false
	}
	return true
}

// querySlurm asks squeue for the caller's jobs and, for the campaign's
// jobs squeue no longer lists, sacct when accounting is enabled.
func querySlurm(c *Campaign) (slurmQueue, error) {
	out, err := slurmCommand("squeue", "--noheader", "--array", "--me", "--states=all", "--format=%i|%T")
	if err != nil {
		return nil, err
	}
	q := slurmQueue{}
	parseJobStates(q, out)
	var ask []string
	for _, s := range c.Submitted {
		for _, k := range s.Tasks {
			if id := s.ArrayJob + "_" + strconv.Itoa(k); q[id] == "" {
				ask = append(ask, id)
			}
		}
		if q[s.MergeJob] == "" {
			ask = append(ask, s.MergeJob)
		}
	}
	if len(ask) > 0 {
		// Without accounting sacct fails ("accounting storage is
		// disabled"); squeue's answer is all there is then.
		if out, err := slurmCommand("sacct", "--noheader", "--parsable2", "--allocations", "--format=JobID,State", "--jobs="+strings.Join(ask, ",")); err == nil {
			parseJobStates(q, out)
		}
	}
	return q, nil
}

// parseJobStates adds "id|STATE …" lines to q, keeping states already known.
func parseJobStates(q slurmQueue, out string) {
	for line := range strings.Lines(out) {
		id, st, ok := strings.Cut(strings.TrimSpace(line), "|")
		if !ok || id == "" {
			continue
		}
		if f := strings.Fields(st); len(f) > 0 && q[id] == "" {
			q[id] = f[0] // sacct prints "CANCELLED by 0"
		}
	}
}

// slurmCommand runs one of Slurm's client commands and returns its output.
func slurmCommand(name string, args ...string) (string, error) {
	if _, err := exec.LookPath(name); err != nil {
		return "", fmt.Errorf("%s not found on PATH: Slurm's client commands are needed (Debian: slurm-client)", name)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// sbatch submits a batch script and returns its job id (sbatch --parsable
// prints "id" or "id;cluster").
func sbatch(args ...string) (string, error) {
	out, err := slurmCommand("sbatch", append([]string{"--parsable"}, args...)...)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("sbatch printed %q, want a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// compactRange writes sorted task numbers as sbatch --array wants them:
// [1 2 3 5] is "1-3,5".
func compactRange(ks []int) string {
	var parts []string
	for i := 0; i < len(ks); {
		j := i
		for j+1 < len(ks) && ks[j+1] == ks[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ks[i]))
		} else {
			parts = append(parts, strconv.Itoa(ks[i])+"-"+strconv.Itoa(ks[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// slurmScripts writes the shard and merge batch scripts into DIR/slurm.
func (c *Campaign) slurmScripts() (shard, merge string, err error) {
	dir := filepath.Join(c.Dir, "slurm")
	shard, merge = filepath.Join(dir, "shard.sh"), filepath.Join(dir, "merge.sh")
	shardText := "#!/bin/sh\n# weft campaign --slurm: one shard of the campaign in " + c.Dir + " per array task.\nset -eu\n" +
		`k="${SLURM_ARRAY_TASK_ID:?run this script as a Slurm array task}"` + "\ncd " + ShellQuote(c.Cwd) + "\nexec " +
		c.shardCommand(c.Weft, c.Model, c.Dir, "$k", "${SLURM_CPUS_PER_TASK:-1}") + "\n"
	parts := make([]string, c.Shards)
	for k := range parts {
		parts[k] = "part-" + strconv.Itoa(k+1)
	}
	mergeText := "#!/bin/sh\n# weft campaign --slurm: merges the shards into merged/, which appears only once complete.\nset -eu\n" +
		"cd " + ShellQuote(c.Dir) + "\nrm -rf merged.tmp\n" +
		shellJoin(append([]string{c.Weft, "merge", "-o", "merged.tmp"}, parts...)) + "\nrm -rf merged\nmv merged.tmp merged\n"
	if err := os.WriteFile(shard, []byte(shardText), 0o755); err != nil {
		return "", "", err
	}
	return shard, merge, os.WriteFile(merge, []byte(mergeText), 0o755)
}

// sbatchCommon returns the sbatch options every job of the campaign gets.
func (o *Options) sbatchCommon(c *Campaign, cwd string) []string {
	args := []string{"--job-name=" + c.Name, "--chdir=" + cwd}
	if o.partition != "" {
		args = append(args, "--partition="+o.partition)
	}
	if o.timeLimit != "" {
		args = append(args, "--time="+o.timeLimit)
	}
	return append(args, o.sbatchOpts...)
}

// SubmitResult is what `weft campaign --slurm --json` prints.
type SubmitResult struct {
	Dir       string       `json:"dir"`
	Shards    int          `json:"shards"`
	Submitted *submission  `json:"submitted,omitempty"` // nil: nothing needed submitting
	Cancelled string       `json:"cancelled_merge_job,omitempty"`
	States    []shardState `json:"states"`
	Complete  bool         `json:"complete"`
}

// submit sends the shards that are neither done nor queued to Slurm as
// one array job, then a merge job that waits for every queued shard.
func (o *Options) submit(c *Campaign) (int, error) {
	if err := c.absolute(); err != nil {
		return exitUsage, err
	}
	old, err := ReadPlan(c.Dir)
	if err != nil {
		return exitUsage, err
	}
	if old != nil {
		if err := sameCampaign(old, c); err != nil {
			return exitUsage, err
		}
		c.Submitted = old.Submitted
	}
	if err := os.MkdirAll(filepath.Join(c.Dir, "slurm", "logs"), 0o755); err != nil {
		return exitUsage, err
	}
	q, err := querySlurm(c)
	if err != nil {
		return exitUsage, err
	}
	states, err := c.states(q)
	if err != nil {
		return exitUsage, err
	}
	res := &SubmitResult{Dir: c.Dir, Shards: c.Shards, States: states, Complete: c.mergedDone()}
	if !res.Complete {
		if err := o.submitMissing(c, q, res); err != nil {
			return exitUsage, err
		}
	}
	if o.flag("json") == "true" {
		return exitHolds, printJSON(res)
	}
	printSubmit(res)
	return exitHolds, nil
}

// absolute makes the paths a job sees absolute: jobs may start elsewhere.
func (c *Campaign) absolute() (err error) {
	if c.Weft, err = os.Executable(); err != nil {
		return fmt.Errorf("finding the weft binary to submit: %w", err)
	}
	// The model path stays as given, relative to the submitting directory
	// where the shards start: recordings name it, and a shard's must be
	// byte-identical to a local campaign's.
	if c.Cwd, err = os.Getwd(); err != nil {
		return err
	}
	c.Dir, err = filepath.Abs(c.Dir)
	return err
}

// submitMissing submits the missing shards and a new merge job, and
// records them in the plan.
func (o *Options) submitMissing(c *Campaign, q slurmQueue, res *SubmitResult) error {
	var missing []int
	var waitFor []string
	for _, s := range res.States {
		switch s.State {
		case StateIncomplete, StateMissing:
			missing = append(missing, s.Shard)
		case StateDone:
		default:
			waitFor = append(waitFor, s.Job)
		}
	}
	lastMerge := ""
	if n := len(c.Submitted); n > 0 {
		lastMerge = c.Submitted[n-1].MergeJob
	}
	if len(missing) == 0 && activeJobState(q[lastMerge]) {
		return nil // every shard is done or queued, and the merge waits for them
	}
	shardScript, mergeScript, err := c.slurmScripts()
	if err != nil {
		return err
	}
	common := o.sbatchCommon(c, c.Cwd)
	sub := submission{At: time.Now().UTC()}
	if len(missing) > 0 {
		args := append(slices.Clone(common), "--array="+compactRange(missing), "--cpus-per-task="+strconv.Itoa(c.Jobs),
			"--output="+filepath.Join(c.Dir, "slurm", "logs", "shard-%a-job%A.out"), shardScript)
		if sub.ArrayJob, err = sbatch(args...); err != nil {
			return err
		}
		sub.Tasks = missing
		waitFor = append(waitFor, sub.ArrayJob)
		for _, k := range missing {
			res.States[k-1].State, res.States[k-1].Job, res.States[k-1].Slurm = StateSubmitted, sub.ArrayJob+"_"+strconv.Itoa(k), ""
		}
	}
	if activeJobState(q[lastMerge]) {
		// It waits on shards that failed: its dependency can never be met.
		if _, err := slurmCommand("scancel", lastMerge); err != nil {
			return err
		}
		res.Cancelled = lastMerge
	}
	args := append(slices.Clone(common), "--output="+filepath.Join(c.Dir, "slurm", "logs", "merge-job%j.out"))
	if len(waitFor) > 0 {
		args = append(args, "--dependency=afterok:"+strings.Join(waitFor, ":"))
	}
	sub.MergeJob, err = sbatch(append(args, mergeScript)...)
	if sub.ArrayJob != "" || sub.MergeJob != "" {
		c.Submitted = append(c.Submitted, sub)
		res.Submitted = &sub
		if perr := writePlan(c); perr != nil && err == nil {
			err = perr
		}
	}
	return err
}

func printSubmit(r *SubmitResult) {
	switch {
	case r.Complete:
		fmt.Printf("campaign %s is complete: %s\n", r.Dir, filepath.Join(r.Dir, "merged"))
		return
	case r.Submitted == nil:
		fmt.Printf("nothing to submit: every shard of %s is done or queued, and its merge job waits for them\n", r.Dir)
	case r.Submitted.ArrayJob != "":
		fmt.Printf("submitted shards %s of %d as Slurm array job %s; merge job %s runs after them\n",
			compactRange(r.Submitted.Tasks), r.Shards, r.Submitted.ArrayJob, r.Submitted.MergeJob)
	default:
		fmt.Printf("every shard is done or queued; submitted merge job %s\n", r.Submitted.MergeJob)
	}
	if r.Cancelled != "" {
		fmt.Printf("cancelled the earlier merge job %s (it waited on shards that did not finish)\n", r.Cancelled)
	}
	fmt.Printf("progress: weft campaign --status %s\nresult:   %s\n", ShellQuote(r.Dir), filepath.Join(r.Dir, "merged"))
}

// Status is what `weft campaign --status DIR --json` prints.
type Status struct {
	Dir      string       `json:"dir"`
	Shards   []shardState `json:"shards"`
	Done     int          `json:"done"`
	Merged   bool         `json:"merged"`
	MergeJob string       `json:"merge_job,omitempty"`
	MergeSt  string       `json:"merge_state,omitempty"`
	Warning  string       `json:"warning,omitempty"`
}

// showStatus prints which shards of the campaign in dir are done, queued
// (with Slurm's state), incomplete or missing.
func (o *Options) showStatus(dir string) (int, error) {
	c, err := ReadPlan(dir)
	if err != nil {
		return exitUsage, err
	}
	if c == nil {
		return exitUsage, fmt.Errorf("%s has no slurm/plan.json: it is not a campaign submitted with --slurm", dir)
	}
	c.Dir = dir
	st := Status{Dir: dir, Merged: c.mergedDone()}
	q, err := querySlurm(c)
	if err != nil {
		st.Warning = "Slurm not asked: " + err.Error()
		q = slurmQueue{}
	}
	if st.Shards, err = c.states(q); err != nil {
		return exitUsage, err
	}
	for _, s := range st.Shards {
		if s.State == StateDone {
			st.Done++
		}
	}
	if n := len(c.Submitted); n > 0 {
		st.MergeJob = c.Submitted[n-1].MergeJob
		st.MergeSt = strings.ToLower(q[st.MergeJob])
	}
	if o.flag("json") == "true" {
		return exitHolds, printJSON(st)
	}
	printStatus(&st)
	return exitHolds, nil
}

func printStatus(st *Status) {
	if st.Warning != "" {
		fmt.Fprintln(os.Stderr, "warning:", st.Warning)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "shard\tseeds\trows\tstate\tjob")
	for _, s := range st.Shards {
		rows := strconv.Itoa(s.Rows)
		if s.Want > 0 {
			rows += "/" + strconv.Itoa(s.Want)
		}
		job := s.Job
		if s.Slurm != "" && s.Slurm != s.State {
			job += " (" + s.Slurm + ")"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", s.Shard, s.Seeds, rows, s.State, job)
	}
	tw.Flush()
	merged := "not yet"
	if st.Merged {
		merged = filepath.Join(st.Dir, "merged")
	}
	if st.MergeJob != "" && !st.Merged {
		merged += fmt.Sprintf(" (merge job %s %s)", st.MergeJob, orUnknown(st.MergeSt))
	}
	fmt.Printf("%d of %d shards done; merged: %s\n", st.Done, len(st.Shards), merged)
}

func orUnknown(s string) string {
	if s == "" {
		return "no longer listed by Slurm"
	}
	return s
}

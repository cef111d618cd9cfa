// Package cluster runs a weft campaign on a cluster engine instead of on
// this machine: the flags of `weft campaign` that choose one (Options),
// Slurm array jobs with a dependent merge (slurm.go), a Kubernetes
// Indexed Job manifest (k8s.go) and the status of a campaign's shards.
package cluster

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
)

// A campaign on a cluster engine is laid out in its directory DIR as
//
//	DIR/part-K          the dataset of shard K of N (K counts from 1, as --shard K/N)
//	DIR/merged          the merged dataset, renamed into place once complete
//	DIR/slurm/plan.json what was submitted: the shard command and every job
//	DIR/slurm/*.sh      the batch scripts; DIR/slurm/logs the jobs' output
//
// Shard K is Slurm array task K (sbatch --array=1-N), so part-K, task K and
// --shard K/N always name the same seeds.

// Exit codes of the CLI contract (weft's main has the same).
const (
	exitHolds = 0 // the command succeeded
	exitUsage = 2 // usage or tool error
)

// Options are the flags of `weft campaign` that run it on a cluster
// engine rather than on this machine.
type Options struct {
	// Version is weft's, named in the manifests written.
	Version    string
	fs         *flag.FlagSet
	own        map[string]bool // the flag names declared here
	slurm      bool
	partition  string
	arraySize  int
	timeLimit  string
	sbatchOpts stringList
	status     string
	emit       string
	image      string
	claim      string
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// Declare adds the cluster flags to fs, the campaign command's flag set,
// whose other flags are later forwarded to every shard.
func (o *Options) Declare(fs *flag.FlagSet) {
	o.fs, o.own = fs, map[string]bool{}
	add := func(name string, def func()) { def(); o.own[name] = true }
	add("slurm", func() {
		fs.BoolVar(&o.slurm, "slurm", false, "submit the campaign to Slurm: an array job of --array-size shards (each asks for -j CPUs, default 1), then a dependent merge job into DIR/merged; rerunning resubmits only missing shards")
	})
	add("partition", func() {
		fs.StringVar(&o.partition, "partition", "", "Slurm `partition` (default: the cluster's default)")
	})
	add("array-size", func() {
		fs.IntVar(&o.arraySize, "array-size", 0, "number of shards, one array task (or Kubernetes index) each (default: min(seeds, 100))")
	})
	add("time-limit", func() {
		fs.StringVar(&o.timeLimit, "time-limit", "", "Slurm time limit of each shard, as sbatch --time (e.g. 2:00:00)")
	})
	add("sbatch-opt", func() {
		fs.Var(&o.sbatchOpts, "sbatch-opt", "extra sbatch `option` for every job, repeatable (e.g. --sbatch-opt=--account=lab)")
	})
	add("status", func() {
		fs.StringVar(&o.status, "status", "", "show which shards of the cluster campaign in `DIR` are done, running, pending or missing")
	})
	add("emit", func() {
		fs.StringVar(&o.emit, "emit", "", "write a manifest instead of running: k8s (a Kubernetes Indexed Job, on stdout)")
	})
	add("image", func() {
		fs.StringVar(&o.image, "image", "weft:latest", "container `image` with weft and the model (--emit k8s)")
	})
	add("claim", func() {
		fs.StringVar(&o.claim, "claim", "weft-datasets", "PersistentVolumeClaim mounted at /datasets for the shards' output (--emit k8s)")
	})
}

// Active reports whether any cluster flag was given: the campaign goes to
// (or asks) a cluster engine, or the flags are refused.
func (o *Options) Active() bool {
	set := false
	o.fs.Visit(func(f *flag.Flag) { set = set || o.own[f.Name] })
	return set
}

// stray returns a cluster flag given without the mode it belongs to.
func (o *Options) stray() string {
	bad := ""
	o.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "partition", "time-limit", "sbatch-opt":
			if !o.slurm {
				bad = "--" + f.Name + " needs --slurm"
			}
		case "image", "claim":
			if o.emit == "" {
				bad = "--" + f.Name + " needs --emit k8s"
			}
		case "array-size":
			if !o.slurm && o.emit == "" {
				bad = "--array-size needs --slurm or --emit k8s"
			}
		}
	})
	return bad
}

// Run carries out the cluster form of `weft campaign`.
func (o *Options) Run(args []string) (int, error) {
	switch {
	case o.status != "":
		if len(args) != 0 {
			return exitUsage, errors.New("--status DIR takes no MODEL")
		}
		return o.showStatus(o.status)
	case o.slurm && o.emit != "":
		return exitUsage, errors.New("--slurm and --emit are exclusive")
	case o.stray() != "":
		return exitUsage, errors.New(o.stray())
	case o.flag("shard") != "":
		return exitUsage, errors.New("--shard is chosen per task by --slurm and --emit; give --array-size instead")
	case o.emit != "" && o.emit != "k8s":
		return exitUsage, fmt.Errorf("--emit %q: want k8s", o.emit)
	}
	if len(args) != 1 {
		return exitUsage, errors.New("want exactly one MODEL")
	}
	c, err := o.plan(args[0])
	if err != nil {
		return exitUsage, err
	}
	if o.emit == "k8s" {
		return exitHolds, writeK8sJob(os.Stdout, c, o.image, o.claim, o.Version)
	}
	return o.submit(c)
}

// flag returns the value of the campaign flag name ("" if unknown).
func (o *Options) flag(name string) string {
	if f := o.fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// Campaign is one campaign split into shards for a cluster engine.
type Campaign struct {
	Model     string       `json:"model"` // the model file as given
	ModelHash string       `json:"model_hash"`
	Seeds     int          `json:"seeds"`
	FirstSeed int          `json:"first_seed"`
	Shards    int          `json:"shards"`
	Jobs      int          `json:"jobs"` // parallel runs (CPUs) per shard
	Args      []string     `json:"args"` // campaign flags forwarded to every shard
	Dir       string       `json:"dir"`  // the campaign directory
	Cwd       string       `json:"cwd"`  // where the shards start: the submitting directory
	Weft      string       `json:"weft"` // the weft binary the shards run
	Name      string       `json:"name"` // the job name
	Submitted []submission `json:"submitted,omitempty"`
}

// submission is one sbatch of shards and the merge job after them.
type submission struct {
	ArrayJob string    `json:"array_job,omitempty"`
	Tasks    []int     `json:"tasks,omitempty"`
	MergeJob string    `json:"merge_job"`
	At       time.Time `json:"at"`
}

// forwarded reports whether a campaign flag goes to every shard as given:
// not --out, --shard and --json (each shard gets its own), nor -j (the
// shard's CPU request) and --seeds (resolved first).
func forwarded(name string) bool {
	switch name {
	case "out", "shard", "json", "j", "seeds":
		return false
	}
	return true
}

// plan resolves the campaign's model, seeds, shards and forwarded flags.
func (o *Options) plan(modelPath string) (*Campaign, error) {
	m, err := model.Load(modelPath)
	if err != nil {
		return nil, err
	}
	c := &Campaign{Model: modelPath, ModelHash: m.Hash, Name: "weft-" + strings.TrimSuffix(baseName(modelPath), ".model")}
	if c.Seeds, err = strconv.Atoi(o.flag("seeds")); err != nil || c.Seeds == 0 {
		c.Seeds = m.Campaign.Seeds
	}
	if c.Seeds <= 0 {
		return nil, errors.New("no seeds: give --seeds or [campaign] seeds")
	}
	if c.Shards = o.arraySize; c.Shards == 0 {
		c.Shards = min(c.Seeds, 100)
	}
	if c.Shards < 1 || c.Shards > c.Seeds {
		return nil, fmt.Errorf("--array-size %d: want 1 to %d (the number of seeds)", c.Shards, c.Seeds)
	}
	c.FirstSeed, _ = strconv.Atoi(o.flag("first-seed"))
	if c.Jobs, err = strconv.Atoi(o.flag("j")); err != nil || c.Jobs <= 0 {
		c.Jobs = 1
	}
	c.Dir = o.flag("out")
	if c.Dir == "" {
		c.Dir = "datasets/" + strings.TrimSuffix(baseName(modelPath), ".model")
	}
	o.fs.Visit(func(f *flag.Flag) {
		if !o.own[f.Name] && forwarded(f.Name) {
			c.Args = append(c.Args, "--"+f.Name+"="+f.Value.String())
		}
	})
	c.Args = append(c.Args, "--seeds="+strconv.Itoa(c.Seeds))
	return c, nil
}

// partDir returns the dataset directory of shard k.
func (c *Campaign) partDir(k int) string {
	return filepath.Join(c.Dir, "part-"+strconv.Itoa(k))
}

// shardCommand returns the shell command that runs shard k of the
// campaign; k and jobs are shell expressions, expanded inside double quotes
// (e.g. "$k"), everything else is quoted.
func (c *Campaign) shardCommand(weft, model, dir, k, jobs string) string {
	fixed := shellJoin(append([]string{weft, "campaign", model}, c.Args...))
	return fmt.Sprintf(`%s --shard="%s/%d" --out=%s/part-"%s" -j="%s"`, fixed, k, c.Shards, ShellQuote(dir), k, jobs)
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.,:+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// ReadPlan reads DIR/slurm/plan.json (nil, nil when there is none).
func ReadPlan(dir string) (*Campaign, error) {
	data, err := os.ReadFile(filepath.Join(dir, "slurm", "plan.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Campaign
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "slurm", "plan.json"), err)
	}
	return &c, nil
}

// writePlan replaces DIR/slurm/plan.json atomically.
func writePlan(c *Campaign) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(c.Dir, "slurm", "plan.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sameCampaign refuses a rerun into DIR that would change what its shards
// run: their parts would not fit together.
func sameCampaign(old, c *Campaign) error {
	switch {
	case old.ModelHash != c.ModelHash:
		return fmt.Errorf("%s holds a campaign of another model (hash %.12s, this model %.12s): use another --out", c.Dir, old.ModelHash, c.ModelHash)
	case old.Shards != c.Shards:
		return fmt.Errorf("%s was split into %d shards, not %d: rerun with --array-size %d or use another --out", c.Dir, old.Shards, c.Shards, old.Shards)
	case !slices.Equal(old.Args, c.Args):
		return fmt.Errorf("%s was submitted with the campaign flags %q, now %q: use the same flags or another --out", c.Dir, old.Args, c.Args)
	}
	return nil
}

// shardState is what is known of one shard.
type shardState struct {
	Shard int    `json:"shard"`
	Seeds string `json:"seeds"` // "lo-hi" (half-open)
	Rows  int    `json:"rows"`
	Want  int    `json:"want"` // rows when complete (0: the part does not exist yet)
	// State is done, incomplete, missing, or Slurm's state in lower case
	// (pending, running, …) while Slurm has the shard queued.
	State string `json:"state"`
	Job   string `json:"job,omitempty"`         // the latest array task that ran the shard
	Slurm string `json:"slurm_state,omitempty"` // its last state known to Slurm
}

// Shard states other than Slurm's.
const (
	StateDone       = "done"       // the part holds every row
	StateIncomplete = "incomplete" // a part with missing rows, not queued
	StateMissing    = "missing"    // no part, not queued
	StateSubmitted  = "submitted"  // just submitted (in the output of --slurm)
)

// partRows returns the rows a part holds and the rows it holds when
// complete, from its manifest (0, 0 when the part does not exist).
func partRows(dir string) (rows, want int, err error) {
	if _, err := os.Stat(filepath.Join(dir, dataset.ManifestName)); errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	man, err := dataset.ReadManifest(dir)
	if err != nil {
		return 0, 0, err
	}
	seeds := 0
	for _, r := range man.Seeds {
		seeds += int(r.Hi - r.Lo)
	}
	want = len(man.Variants) * seeds * max(len(man.Runs), 1)
	done, err := dataset.Completed(dir)
	return len(done), want, err
}

// mergedDone reports whether DIR/merged exists (it is renamed into place
// only after weft merge succeeded).
func (c *Campaign) mergedDone() bool {
	_, err := os.Stat(filepath.Join(c.Dir, "merged", dataset.ManifestName))
	return err == nil
}

// states returns every shard's state, from its part and Slurm's queue q.
func (c *Campaign) states(q slurmQueue) ([]shardState, error) {
	out := make([]shardState, c.Shards)
	for k := 1; k <= c.Shards; k++ {
		lo, hi, _ := dataset.ShardRange(k, c.Shards, c.Seeds)
		s := shardState{Shard: k, Seeds: fmt.Sprintf("%d-%d", c.FirstSeed+lo, c.FirstSeed+hi), Job: c.lastTask(k)}
		var err error
		if s.Rows, s.Want, err = partRows(c.partDir(k)); err != nil {
			return nil, err
		}
		s.Slurm = strings.ToLower(q[s.Job])
		switch {
		case s.Want > 0 && s.Rows == s.Want:
			s.State = StateDone
		case activeJobState(s.Slurm):
			s.State = s.Slurm
		case s.Want > 0:
			s.State = StateIncomplete
		default:
			s.State = StateMissing
		}
		out[k-1] = s
	}
	return out, nil
}

// lastTask returns the latest array task submitted for shard k ("" if none).
func (c *Campaign) lastTask(k int) string {
	for i := len(c.Submitted) - 1; i >= 0; i-- {
		if s := c.Submitted[i]; s.ArrayJob != "" && slices.Contains(s.Tasks, k) {
			return s.ArrayJob + "_" + strconv.Itoa(k)
		}
	}
	return ""
}

// baseName is the last element of a slash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// printJSON writes v to stdout as indented JSON.
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

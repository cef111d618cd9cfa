package mcsdk

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/weft-mc/weft/mcsdk/model"
)

// SavedPath is a violating path saved by Check so it can be re-executed
// exactly: the choices, and the hashes that say what they apply to.
type SavedPath struct {
	Format     string `json:"format"` // "weft-path/1"
	Model      string `json:"model"`
	ModelHash  string `json:"model_hash"`
	Variant    string `json:"variant"`
	BinaryHash string `json:"binary_hash"`
	Invariant  string `json:"invariant"`
	// Threads is the check's thread schedule, "fixed" when the path was
	// found with one fixed schedule per node, "visible" when threads were
	// switched only at visible calls (it replays only so); empty:
	// every interleaving was a choice, and the path names its Run choices.
	Threads string   `json:"threads,omitempty"`
	Actions []string `json:"actions"`
}

// SavePath writes res's violating path to file.
func SavePath(file string, m *model.Model, res *CheckResult) error {
	if res.Violation == nil {
		return fmt.Errorf("no violation to save")
	}
	p := SavedPath{Format: "weft-path/1", Model: m.Path, ModelHash: m.Hash, Variant: res.Variant,
		BinaryHash: res.Binary.Hash, Invariant: res.Violation.Invariant}
	if res.Threads != "explore" {
		p.Threads = res.Threads // fixed or visible: it replays only so
	}
	for _, a := range res.Violation.Path {
		p.Actions = append(p.Actions, a.String())
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	// A device or pipe (e.g. /dev/null) is written in place: renaming over
	// it would replace the device with a regular file.
	if st, err := os.Stat(file); err == nil && !st.Mode().IsRegular() {
		return os.WriteFile(file, b, 0o644)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	_, err = writeVisualisation(file, res.Violation)
	return err
}

// LoadPath reads a saved path.
func LoadPath(file string) (*SavedPath, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var p SavedPath
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: not a weft path: %v", file, err)
	}
	if p.Format != "weft-path/1" {
		return nil, fmt.Errorf("%s: unsupported format %q (this weft reads weft-path/1)", file, p.Format)
	}
	return &p, nil
}

// ReplayPath re-executes a saved path against m and returns the verdict at
// its end. It refuses a model or binary that differs from the recorded
// hashes, since the path would then mean something else.
func ReplayPath(m *model.Model, p *SavedPath, reg model.Registry) (*CheckResult, error) {
	return ReplayPathOn(m, p, reg, Host{})
}

// ReplayPathOn is ReplayPath with nodes run as host says.
func ReplayPathOn(m *model.Model, p *SavedPath, reg model.Registry, host Host) (*CheckResult, error) {
	if m.Hash != p.ModelHash {
		return nil, fmt.Errorf("model %s changed since the path was saved (hash %.12s, recorded %.12s)", m.Path, m.Hash, p.ModelHash)
	}
	var pre map[string]FaultPrecondition
	if err := withChecks(m, host, &reg, &pre); err != nil {
		return nil, err
	}
	if reg != nil {
		if err := m.Bind(reg); err != nil {
			return nil, err
		}
	}
	threads, err := threadSchedule(p.Threads)
	if err != nil {
		return nil, err
	}
	sp := specsOf(m)
	t, err := newTarget(m, p.Variant, 0, 0, host)
	if err != nil {
		return nil, err
	}
	host.apply(&t.cfg)
	// The world Check explored: the same network order, data directories
	// and crash semantics.
	t.cfg.Bag = sp.net.Order == "bag"
	t.checkRunDirs(sp)
	t.cfg.LoseUnsynced = sp.faults.LoseUnsynced
	t.cfg.Threads = threads
	if t.bin.Hash != p.BinaryHash {
		return nil, fmt.Errorf("binary for variant %s changed since the path was saved (hash %.12s, recorded %.12s)", p.Variant, t.bin.Hash, p.BinaryHash)
	}
	res := &CheckResult{Model: m.Path, Variant: p.Variant, Binary: t.bin, Depth: len(p.Actions), Threads: threadsName(threads)}
	w, err := t.start()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	cw := checkWorld{World: w, clients: t.clients(), t: t}
	var path []Action
	var steps []string
	var last *model.State
	for i := 0; ; i++ {
		if f := w.Failure(); f != nil {
			res.Verdict, res.Failure = Error, f.Error()
			return res, nil
		}
		ob, err := t.observe(w, last)
		if err != nil {
			return nil, err
		}
		ob = ob.withHistory(cw.clients)
		last = &ob.state
		res.States++
		v, err := t.checkInvariants(w, ob)
		if err != nil {
			return nil, err
		}
		if v != nil {
			v.Path, v.Steps = path, steps
			for n := 0; n < m.Nodes; n++ {
				v.Output = append(v.Output, string(w.Output(n)))
			}
			res.Verdict, res.Violation = Violated, v
			return res, nil
		}
		if i == len(p.Actions) {
			break
		}
		a, err := ParseAction(p.Actions[i])
		if err != nil {
			return nil, err
		}
		enabled := false
		for _, e := range cw.Enabled() {
			enabled = enabled || e == a
		}
		if !enabled {
			return nil, fmt.Errorf("step %d: action %q is not enabled: the run diverged from the saved path", i+1, p.Actions[i])
		}
		steps = append(steps, t.describe(w, a))
		path = append(path, a)
		if err := cw.Apply(a); err != nil {
			if f := w.Failure(); f != nil {
				continue
			}
			return nil, err
		}
	}
	res.Verdict = Holds
	return res, nil
}

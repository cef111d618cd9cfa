package mcsdk

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// fillStructured sets the structured columns of row from res: the fault
// schedule, the network model, the message counts the events show and the
// first violation of each invariant.
func fillStructured(row *dataset.Row, res *RunResult) {
	row.Faults = faultSchedule(res)
	for _, p := range res.Params {
		switch p.Name {
		case "latency":
			row.Latency = p.Value
		case "order":
			row.Order = p.Value
		}
	}
	// Deliveries are in the events (data and connection requests, as the
	// scheduler counts sends; not FIN or RST); what else the network did,
	// the scheduler counted (a replayed run has no counts: null).
	var delivered int64
	for _, e := range res.Events {
		if e.Kind == "deliver" && e.Value != "FIN" && e.Value != "RST" {
			delivered++
		}
	}
	row.MessagesDelivered = &delivered
	refused := int64(res.RefusedWrites)
	row.RefusedWrites = &refused
	if res.workload {
		ops, indet := int64(res.Ops), int64(res.OpsIndeterminate)
		row.Ops, row.OpsIndeterminate = &ops, &indet
	}
	if c := res.Messages; c != nil {
		sent, dropped, dup, held := c.Sent, c.Dropped, c.Duplicated, c.Held
		row.MessagesSent, row.MessagesDropped, row.MessagesDuplicated, row.MessagesHeld = &sent, &dropped, &dup, &held
	}
	row.FirstViolations = firstViolations(res)
}

// faultSchedule lists the run's faults in time order: the drawn crashes
// and restarts (applied when the run performed them), the death notices
// it delivered, and the partitions.
func faultSchedule(res *RunResult) []dataset.Fault {
	used := make([]bool, len(res.Events))
	applied := func(kind string, node int, at int64) bool {
		for i, e := range res.Events {
			if !used[i] && e.Kind == kind && e.Node == node && e.T >= at {
				used[i] = true
				return true
			}
		}
		return false
	}
	var out []dataset.Fault
	for _, f := range res.Faults {
		if f.Kind != sched.Crash && f.Kind != sched.Restart {
			continue
		}
		out = append(out, dataset.Fault{Kind: f.Kind.String(), Node: f.Node, Peer: -1, At: us(f.AtUS),
			Applied: applied(f.Kind.String(), f.Node, f.AtUS)})
	}
	for _, e := range res.Events {
		if e.Kind == "notice" {
			out = append(out, dataset.Fault{Kind: "notice", Node: e.Node, Peer: e.Peer, At: us(e.T), Applied: true})
		}
	}
	for _, p := range res.Params {
		if p.Name != "partition" {
			continue
		}
		if f, ok := parsePartition(p.Value); ok {
			f.Applied = f.At < res.VirtualTime
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b dataset.Fault) int { return cmp.Compare(a.At, b.At) })
	return out
}

func us(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

// parsePartition reads the runner's partition parameter, "[[0 1] [2]]
// from 1.000ms to 2.500ms". The runner keeps its partitions private; until
// RunResult carries them, this text is their only record.
func parsePartition(s string) (dataset.Fault, bool) {
	f := dataset.Fault{Kind: "partition", Node: -1, Peer: -1}
	groups, times, ok := strings.Cut(s, " from ")
	from, to, ok2 := strings.Cut(times, " to ")
	if !ok || !ok2 {
		return f, false
	}
	for _, g := range strings.Split(strings.Trim(groups, "[] "), "] [") {
		var side []int32
		for _, n := range strings.Fields(g) {
			v, err := strconv.Atoi(n)
			if err != nil {
				return f, false
			}
			side = append(side, int32(v))
		}
		f.Sides = append(f.Sides, side)
	}
	a, err1 := strconv.ParseFloat(strings.TrimSuffix(from, "ms"), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSuffix(to, "ms"), 64)
	if err1 != nil || err2 != nil {
		return f, false
	}
	f.At, f.Until = us(int64(math.Round(a*1000))), us(int64(math.Round(b*1000)))
	return f, true
}

// firstViolations gives each violated invariant its first failure. A run
// that ended at its first violation saw every violated invariant fail
// there first; otherwise (check = "final") only the first one's time is
// known.
func firstViolations(res *RunResult) []dataset.InvariantViolation {
	if res.FirstViolationStep < 0 {
		return nil
	}
	step, at := int64(res.FirstViolationStep), res.FirstViolationTime
	var first string
	if res.FirstViolation != nil {
		first = res.FirstViolation.Invariant
	}
	names := slices.Clone(res.Violated)
	if first != "" && !slices.Contains(names, first) {
		names = append([]string{first}, names...)
	}
	var out []dataset.InvariantViolation
	for _, n := range names {
		v := dataset.InvariantViolation{Invariant: n}
		if n == first || res.FirstViolationStep == res.Steps {
			v.Step, v.At = &step, &at
		}
		out = append(out, v)
	}
	return out
}

// describeModel fills the manifest's model text and fault model.
func describeModel(man *dataset.Manifest, m *model.Model) error {
	text, err := os.ReadFile(m.Path)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(text); hex.EncodeToString(sum[:]) != m.Hash {
		return fmt.Errorf("%s changed since it was parsed (sha256 %x, parsed %.12s): rerun", m.Path, sum[:6], m.Hash)
	}
	man.ModelText = string(text)
	fm := map[string]any{}
	for _, sec := range []string{"faults", "network"} {
		if raw, ok := m.Raw(sec); ok {
			fm[sec] = raw
		}
	}
	b, err := json.Marshal(fm)
	if err != nil {
		return err
	}
	man.FaultModel = string(b)
	return nil
}

package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MergeResult tells what Merge did.
type MergeResult struct {
	Rows       int // rows written
	Duplicates int // identical duplicate rows dropped
	Recordings int // recordings copied
}

// Merge combines the datasets in (shards, machines, resumed runs) into the
// new dataset out, which must not exist or be an empty directory.
//
// It refuses inputs whose model hashes differ, or whose manifests give one
// variant different binary hashes, naming the datasets and hashes.
//
// Duplicates rule: a (variant, seed, run) present in several inputs is
// kept once, from the first input that has it, when every copy agrees on
// the outcome — model and binary hash, verdict, violated invariants, first
// violation step and time, steps, distinct states and virtual duration
// (wall time, campaign id, detail and recording path may differ). Copies
// that disagree mean the runs were not deterministic, or the datasets are
// not what they claim; Merge refuses them, naming the key and both inputs.
//
// Recordings referenced by kept rows are copied to the same relative path
// under out. On error, out is removed.
func Merge(out string, in ...string) (res MergeResult, err error) {
	if len(in) == 0 {
		return res, errors.New("dataset: nothing to merge")
	}
	// Open checks every input (manifest, checksums, files) before out
	// is created.
	mans := make([]Manifest, len(in))
	for i, dir := range in {
		d, err := Open(dir)
		if err != nil {
			return res, err
		}
		mans[i] = d.Manifests[0]
	}
	m, err := mergeManifests(in, mans)
	if err != nil {
		return res, err
	}
	if err := checkEmptyOut(out); err != nil {
		return res, err
	}
	w, err := Create(out, m)
	if err != nil {
		return res, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(out)
		}
	}()
	mg := &merger{out: out, in: in, w: w, seen: map[Key]seenRow{}}
	for i := range in {
		if err := mg.add(i); err != nil {
			w.Close()
			return mg.res, err
		}
	}
	if err := w.Close(); err != nil {
		return mg.res, err
	}
	sessions := m.Sessions
	m = w.Manifest()
	m.End = latestEnd(mans)
	m.Sessions = sessions // the inputs' work, not the merge's
	return mg.res, writeManifest(out, &m)
}

func checkEmptyOut(out string) error {
	ents, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("dataset: merge output %s exists and is not empty", out)
	}
	return nil
}

// mergeManifests checks the inputs agree and describes their union.
func mergeManifests(in []string, mans []Manifest) (Manifest, error) {
	m := Manifest{ModelPath: mans[0].ModelPath, ModelHash: mans[0].ModelHash, Start: mans[0].Start}
	binOf := map[string]int{} // variant -> input that named it first
	var ids, tools []string
	for i, x := range mans {
		if x.ModelHash != m.ModelHash {
			return m, fmt.Errorf("dataset: model hashes differ: %s has %s, %s has %s; refusing to merge datasets of different models",
				in[0], m.ModelHash, in[i], x.ModelHash)
		}
		for _, v := range x.Variants {
			j, ok := binOf[v.Name]
			if !ok {
				binOf[v.Name] = i
				m.Variants = append(m.Variants, v)
				continue
			}
			if h, _ := mans[j].binaryHash(v.Name); h != v.BinaryHash {
				return m, fmt.Errorf("dataset: variant %q has binary hash %s in %s but %s in %s; refusing to merge different builds",
					v.Name, h, in[j], v.BinaryHash, in[i])
			}
		}
		ids, tools = append(ids, x.CampaignID), append(tools, x.ToolVersion)
		m.Seeds = append(m.Seeds, x.Seeds...)
		m.Runs = append(m.Runs, x.Runs...)
		for _, s := range x.Sessions {
			if !slices.ContainsFunc(m.Sessions, func(o Session) bool { return o.Start.Equal(s.Start) && o.End.Equal(s.End) }) {
				m.Sessions = append(m.Sessions, s)
			}
		}
		if m.ModelText == "" {
			m.ModelText, m.FaultModel = x.ModelText, x.FaultModel
		}
		m.Machines = append(m.Machines, x.Machines...)
		if !x.Start.IsZero() && (m.Start.IsZero() || x.Start.Before(m.Start)) {
			m.Start = x.Start
		}
	}
	m.CampaignID = strings.Join(uniqueInOrder(ids), ",")
	m.ToolVersion = strings.Join(uniqueInOrder(tools), ",")
	m.Runs = uniqueInOrder(m.Runs)
	m.Machines = uniqueMachines(m.Machines)
	m.Seeds = normalizeSeeds(m.Seeds)
	for _, dir := range in {
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		m.MergedFrom = append(m.MergedFrom, abs)
	}
	return m, nil
}

func latestEnd(mans []Manifest) time.Time {
	var end time.Time
	for _, x := range mans {
		if x.End.After(end) {
			end = x.End
		}
	}
	return end
}

func uniqueInOrder(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func uniqueMachines(ms []Machine) []Machine {
	var out []Machine
	for _, m := range ms {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// normalizeSeeds sorts ranges and joins overlapping or adjacent ones.
func normalizeSeeds(rs []SeedRange) []SeedRange {
	rs = slices.Clone(rs)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	var out []SeedRange
	for _, r := range rs {
		if r.Hi <= r.Lo {
			continue
		}
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// merger copies rows and recordings from the inputs into the writer.
type merger struct {
	out  string
	in   []string
	w    *Writer
	seen map[Key]seenRow
	res  MergeResult
}

type seenRow struct {
	outcome uint64
	input   int
	verdict string
	steps   int64
}

func (mg *merger) add(i int) error {
	d, err := Open(mg.in[i])
	if err != nil {
		return err
	}
	r := d.NewReader(memory.DefaultAllocator, Filter{})
	defer r.Release()
	for r.Next() {
		rows, err := decodeRecord(r.RecordBatch())
		if err != nil {
			return err
		}
		for j := range rows {
			if err := mg.addRow(i, &rows[j]); err != nil {
				return err
			}
		}
	}
	return r.Err()
}

func (mg *merger) addRow(i int, row *Row) error {
	k, fp := row.Key(), outcome(row)
	if s, dup := mg.seen[k]; dup {
		if s.outcome != fp {
			return fmt.Errorf("dataset: %s differs between inputs: %s says %s after %d steps, %s says %s after %d steps; the runs are not deterministic or the datasets are not what they claim",
				k, mg.in[s.input], s.verdict, s.steps, mg.in[i], row.Verdict, row.Steps)
		}
		mg.res.Duplicates++
		return nil
	}
	mg.seen[k] = seenRow{outcome: fp, input: i, verdict: row.Verdict, steps: row.Steps}
	if row.RecordingPath != "" {
		if err := copyRecording(mg.in[i], mg.out, row.RecordingPath); err != nil {
			return err
		}
		mg.res.Recordings++
	}
	if err := mg.w.Write(*row); err != nil {
		return fmt.Errorf("%w (from %s)", err, mg.in[i])
	}
	mg.res.Rows++
	return nil
}

// outcome hashes the fields a deterministic rerun reproduces.
func outcome(r *Row) uint64 {
	h := fnv.New64a()
	opt := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	ft := "-"
	if r.FirstViolationTime != nil {
		ft = fmt.Sprint(toMicros(*r.FirstViolationTime))
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%q\x00%s\x00%s\x00%d\x00%d\x00%d", r.ModelHash, r.BinaryHash, r.Verdict,
		r.ViolatedInvariants, opt(r.FirstViolationStep), ft, r.Steps, r.DistinctStates, toMicros(r.VirtualDuration))
	return h.Sum64()
}

// copyRecording copies rel from dataset src to dataset dst. An existing
// destination must hold the same bytes.
func copyRecording(src, dst, rel string) error {
	clean := filepath.Clean(rel)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("dataset: recording path %q in %s is not inside the dataset", rel, src)
	}
	data, err := os.ReadFile(filepath.Join(src, clean))
	if err != nil {
		return fmt.Errorf("dataset: recording of %s: %w", src, err)
	}
	to := filepath.Join(dst, clean)
	if old, err := os.ReadFile(to); err == nil {
		if !bytes.Equal(old, data) {
			return fmt.Errorf("dataset: recording %s differs between inputs (%s is not the one already merged)", rel, filepath.Join(src, clean))
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return writeAtomic(filepath.Dir(to), filepath.Base(to), func(f *os.File) error {
		_, err := io.Copy(f, bytes.NewReader(data))
		return err
	})
}

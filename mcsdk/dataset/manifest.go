package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ManifestName is the manifest's file name inside a dataset directory.
const ManifestName = "manifest.json"

// ErrNewerVersion is wrapped by the errors reporting a dataset, manifest or
// file written by a newer format version than this package reads.
var ErrNewerVersion = errors.New("written by a newer weft; upgrade weft to read it")

// Manifest describes a dataset: what was run, where and when. It is stored
// as manifest.json and replaced atomically.
type Manifest struct {
	// FormatVersion is the dataset format version; Create sets it.
	FormatVersion int `json:"format_version"`
	// CampaignID identifies the campaign (a merged dataset joins its
	// inputs' ids with ",").
	CampaignID string `json:"campaign_id"`
	// ModelPath is the model file as given on the command line.
	ModelPath string `json:"model_path"`
	// ModelHash is the hex sha256 of the model file.
	ModelHash string `json:"model_hash"`
	// ModelText is the model file itself, so the dataset explains itself
	// when the file has changed or is elsewhere.
	ModelText string `json:"model_text,omitempty"`
	// FaultModel describes the faults and network the runs drew from (the
	// model's [faults] and [network] sections, as JSON).
	FaultModel string `json:"fault_model,omitempty"`
	// Variants lists every variant rows may name, with its binary's hash.
	Variants []Variant `json:"variants"`
	// Seeds are the seed ranges the campaign covers.
	Seeds []SeedRange `json:"seeds"`
	// Runs lists the run ids, when known in advance.
	Runs []string `json:"runs,omitempty"`
	// ToolVersion is the weft version that wrote the dataset.
	ToolVersion string `json:"tool_version"`
	// Start and End bound the campaign's wall-clock time. Create sets
	// Start when zero; Close sets End.
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitzero"`
	// Sessions are the spans during which a writer wrote the dataset (the
	// first campaign, then each resumption); see ComputeTime.
	Sessions []Session `json:"sessions,omitempty"`
	// Machines lists where the rows were produced (several after Merge).
	Machines []Machine `json:"machines"`
	// MergedFrom lists the input directories of a merged dataset.
	MergedFrom []string `json:"merged_from,omitempty"`
	// Files lists the verdict files with their row counts and sha256;
	// the writer adds each file after writing it. Readers read exactly
	// the listed files and refuse a dataset in which a listed file is
	// missing, differs from its checksum or holds another number of rows
	// (an interrupted copy, a flipped bit). Any other file is ignored: a
	// file written just before a crash, before the manifest named it,
	// is not part of the dataset (a resumed campaign reruns its rows).
	Files []FileEntry `json:"files,omitempty"`
	// Recordings lists, in a compacted dataset (see Compact), every
	// recording with its sha256 (Rows 0); VerifyRecordings checks them.
	// Campaign datasets leave it empty.
	Recordings []FileEntry `json:"recordings,omitempty"`
}

// FileEntry is one verdict file of a dataset.
type FileEntry struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
	// SHA256 is the hex sha256 of the file's bytes ("" only in datasets
	// written before checksums were recorded).
	SHA256 string `json:"sha256,omitempty"`
}

// Variant is one build of the model under test.
type Variant struct {
	Name       string `json:"name"`
	BinaryHash string `json:"binary_hash"`
	// CFlags are the variant's compiler flags, as the model gives them.
	CFlags string `json:"cflags,omitempty"`
}

// Session is one span of writing: from opening a writer to its last write
// or Close.
type Session struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitzero"`
	// Seeds are the seed ranges this session was asked to cover.
	Seeds []SeedRange `json:"seeds,omitempty"`
}

// ComputeTime is the time the dataset's writers were at work: the sum of
// its sessions, without the pauses between a campaign and its
// resumptions. Without sessions (older datasets) it is End − Start.
func (m *Manifest) ComputeTime() time.Duration {
	if len(m.Sessions) == 0 {
		if m.Start.IsZero() || m.End.IsZero() {
			return 0
		}
		return m.End.Sub(m.Start)
	}
	var d time.Duration
	for _, s := range m.Sessions {
		if !s.End.IsZero() && s.End.After(s.Start) {
			d += s.End.Sub(s.Start)
		}
	}
	return d
}

// SeedsText formats seed ranges as "0–49" or "0–39, 100–109".
func SeedsText(rs []SeedRange) string {
	var parts []string
	for _, r := range rs {
		if r.Hi-r.Lo == 1 {
			parts = append(parts, fmt.Sprint(r.Lo))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", r.Lo, r.Hi-1))
		}
	}
	return strings.Join(parts, ", ")
}

// SeedRange is the half-open seed interval [Lo, Hi).
type SeedRange struct {
	Lo int64 `json:"lo"`
	Hi int64 `json:"hi"`
}

// Machine describes the computer a campaign ran on.
type Machine struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
}

// HostMachine describes the machine this process runs on.
func HostMachine() Machine {
	h, err := os.Hostname()
	if err != nil {
		h = "unknown"
	}
	return Machine{Hostname: h, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
}

// VariantNames returns the names of m's variants in manifest order.
func (m *Manifest) VariantNames() []string {
	out := make([]string, len(m.Variants))
	for i, v := range m.Variants {
		out[i] = v.Name
	}
	return out
}

// binaryHash returns the recorded binary hash of variant name.
func (m *Manifest) binaryHash(name string) (string, bool) {
	for _, v := range m.Variants {
		if v.Name == name {
			return v.BinaryHash, true
		}
	}
	return "", false
}

func (m *Manifest) check() error {
	seen := map[string]bool{}
	for _, v := range m.Variants {
		if v.Name == "" {
			return errors.New("dataset: manifest has a variant without a name")
		}
		if seen[v.Name] {
			return fmt.Errorf("dataset: manifest lists variant %q twice", v.Name)
		}
		seen[v.Name] = true
	}
	if len(m.Variants) == 0 {
		return errors.New("dataset: manifest lists no variants")
	}
	return nil
}

// ReadManifest reads and checks dir's manifest.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return m, fmt.Errorf("dataset: %s is not a dataset (no %s)", dir, ManifestName)
		}
		return m, fmt.Errorf("dataset: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("dataset: %s: %w", path, err)
	}
	switch {
	case m.FormatVersion > Version:
		return m, fmt.Errorf("dataset: %s has format version %d, this weft reads up to %d: %w", path, m.FormatVersion, Version, ErrNewerVersion)
	case m.FormatVersion < 1:
		return m, fmt.Errorf("dataset: %s has no valid format_version", path)
	}
	if err := m.check(); err != nil {
		return m, fmt.Errorf("%w (%s)", err, path)
	}
	return m, nil
}

// writeManifest replaces dir's manifest atomically.
func writeManifest(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("dataset: encoding manifest: %w", err)
	}
	return writeAtomic(dir, ManifestName, func(f *os.File) error {
		_, err := f.Write(append(data, '\n'))
		return err
	})
}

// writeAtomic writes name in dir through write: to a hidden temporary file
// in dir, fsync'd, renamed over name, then dir is fsync'd. A crash leaves
// the old file or the new one, never a part.
func writeAtomic(dir, name string, write func(f *os.File) error) (err error) {
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes the file private; datasets are for sharing.
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if err = write(tmp); err != nil {
		return fmt.Errorf("dataset: writing %s: %w", filepath.Join(dir, name), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if err = os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("dataset: fsync %s: %w", dir, err)
	}
	return nil
}

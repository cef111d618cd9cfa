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
	Format     string   `json:"format"` // "weft-path/1"
	Model      string   `json:"model"`
	ModelHash  string   `json:"model_hash"`
	Variant    string   `json:"variant"`
	BinaryHash string   `json:"binary_hash"`
	Invariant  string   `json:"invariant"`
	Actions    []string `json:"actions"`
}

// SavePath writes res's violating path to file.
func SavePath(file string, m *model.Model, res *CheckResult) error {
	if res.Violation == nil {
		return fmt.Errorf("no violation to save")
	}
	p := SavedPath{Format: "weft-path/1", Model: m.Path, ModelHash: m.Hash, Variant: res.Variant,
		BinaryHash: res.Binary.Hash, Invariant: res.Violation.Invariant}
	for _, a := range res.Violation.Path {
		p.Actions = append(p.Actions, a.String())
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

package kernel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Spec is a kernelspec's kernel.json.
type Spec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      map[string]any    `json:"metadata"`
}

// NewSpec returns the kernelspec that starts exe as
// "exe kernel run -f {connection_file}".
func NewSpec(exe string) Spec {
	return Spec{
		Argv:          []string{exe, "kernel", "run", "-f", "{connection_file}"},
		DisplayName:   "Go (weft)",
		Language:      "go",
		InterruptMode: "message",
		Metadata:      map[string]any{"debugger": false},
	}
}

// SpecDir returns where a kernelspec named name goes: under
// prefix/share/jupyter/kernels when prefix is set, else in the user's
// Jupyter data directory ($JUPYTER_DATA_DIR, $XDG_DATA_HOME/jupyter or
// ~/.local/share/jupyter) as `jupyter kernelspec install --user` does.
func SpecDir(prefix, name string) (string, error) {
	if prefix != "" {
		return filepath.Join(prefix, "share", "jupyter", "kernels", name), nil
	}
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "kernels", name), nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "jupyter", "kernels", name), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("kernel: no home directory for --user install: %w", err)
	}
	return filepath.Join(home, ".local", "share", "jupyter", "kernels", name), nil
}

// Install writes spec as dir/kernel.json together with logo-32x32.png
// and logo-64x64.png.
func Install(dir string, spec Spec) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	for _, size := range []int{32, 64} {
		name := fmt.Sprintf("logo-%dx%d.png", size, size)
		if err := os.WriteFile(filepath.Join(dir, name), Logo(size), 0o644); err != nil {
			return err
		}
	}
	return nil
}

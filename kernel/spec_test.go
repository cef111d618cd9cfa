package kernel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestInstallWritesSpecAndLogos(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kernels", "weft")
	if err := Install(dir, NewSpec("/opt/weft")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	argv, _ := spec["argv"].([]any)
	if fmt.Sprint(argv) != "[/opt/weft kernel run -f {connection_file}]" || spec["display_name"] != "Go (weft)" ||
		spec["language"] != "go" || spec["interrupt_mode"] != "message" {
		t.Fatalf("kernel.json = %s", b)
	}
	for _, size := range []int{32, 64} {
		f, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("logo-%dx%d.png", size, size)))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(f))
		if err != nil || img.Bounds().Dx() != size || img.Bounds().Dy() != size {
			t.Fatalf("logo %d: %v %v", size, img.Bounds(), err)
		}
	}
}

func TestSpecDir(t *testing.T) {
	t.Setenv("JUPYTER_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", "/xdg")
	tests := []struct {
		prefix, env, want string
	}{
		{"/usr/local", "", "/usr/local/share/jupyter/kernels/weft"},
		{"", "/data", "/data/kernels/weft"},
		{"", "", "/xdg/jupyter/kernels/weft"},
	}
	for _, tc := range tests {
		t.Setenv("JUPYTER_DATA_DIR", tc.env)
		got, err := SpecDir(tc.prefix, "weft")
		if err != nil || got != tc.want {
			t.Errorf("SpecDir(%q) with JUPYTER_DATA_DIR=%q = %q %v, want %q", tc.prefix, tc.env, got, err, tc.want)
		}
	}
}

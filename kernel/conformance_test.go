package kernel_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestConformance runs the public Jupyter kernel conformance suite
// (Debian's python3-jupyter-kernel-test) against the installed kernel,
// with the Go samples of testdata/conformance.py. It fails, not skips,
// when the suite is not installed, and fails if any of its tests is
// skipped (a test without a sample proves nothing).
func TestConformance(t *testing.T) {
	if out, err := exec.Command(python, "-c", "import jupyter_kernel_test").CombinedOutput(); err != nil {
		t.Fatalf("needs Debian's python3-jupyter-kernel-test (scripts/setup.sh): %v\n%s", err, out)
	}
	_, jupyterPath := buildAndInstall(t, "weft-conformance")
	cmd := exec.Command(python, "-m", "unittest", "-v", "conformance")
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath, "JUPYTER_PLATFORM_DIRS=1",
		"WEFT_KERNEL_NAME=weft-conformance")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance suite failed: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "skipped") {
		t.Fatalf("conformance suite skipped tests:\n%s", out)
	}
	// The suite's 12 tests plus weft's 5.
	if m := regexp.MustCompile(`Ran (\d+) tests`).FindStringSubmatch(string(out)); m == nil || m[1] != "17" {
		t.Fatalf("want 17 tests run:\n%s", out)
	}
	t.Logf("%s", out)
}

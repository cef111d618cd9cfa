package kernel

import (
	osexec "os/exec"
	"strings"
	"testing"
)

// TestNoTargetCode: neither the CLI nor the kernel links a target's code.
// A target's Go checks are loaded from its model (mcsdk/gocheck) and its
// analyses are its own programs, so a user's target needs no rebuild of
// weft (issue 13).
func TestNoTargetCode(t *testing.T) {
	for _, pkg := range []string{"github.com/weft-mc/weft/cmd/weft", "github.com/weft-mc/weft/kernel/..."} {
		out, err := osexec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed only %d packages", pkg, len(deps))
		}
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/weft-mc/weft/targets/") {
				t.Errorf("%s depends on target code %s", pkg, d)
			}
		}
	}
}

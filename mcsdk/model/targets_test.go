package model

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestTargetModelsParse loads every model under targets/: each still
// parses as the model format grows. A prebuilt binary that scripts/test.sh
// builds may be missing; any other problem is an error.
func TestTargetModelsParse(t *testing.T) {
	n := 0
	err := filepath.WalkDir("../../targets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".model") {
			return err
		}
		n++
		if _, err := Load(path); err != nil {
			for _, e := range splitErrors(err) {
				if msg := e.Error(); !strings.Contains(msg, ": binary ") || !strings.HasSuffix(msg, " does not exist") {
					t.Errorf("%s: %v", path, e)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("%d models under targets/, want the 20 or more there are", n)
	}
}

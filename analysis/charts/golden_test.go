package charts

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.option.js from the current output")

// TestOptionsMatchGolden pins every chart's echarts option (and element id)
// byte for byte, so any change to what a chart draws is seen in review.
// Regenerate with: go test ./analysis/charts -run Golden -update
func TestOptionsMatchGolden(t *testing.T) {
	for _, c := range allCharts(t) {
		t.Run(c.Kind(), func(t *testing.T) {
			got := "// id " + c.ID() + "\n" + c.OptionJS() + "\n"
			path := filepath.Join("testdata", c.Kind()+".option.js")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s changed; if intended, rerun with -update and review the diff.\ngot:\n%s", path, got)
			}
		})
	}
}

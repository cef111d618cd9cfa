package charts_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/weft-mc/weft/analysis/charts"
)

// A chart's id depends only on what it shows, so it is the same on every run.
func ExampleRates() {
	c, err := charts.Rates("m4", []charts.RateBar{
		{Variant: "correct", Rate: 0, Lo: 0, Hi: 0.0362, K: 0, N: 100},
		{Variant: "bug", Rate: 0.31, Lo: 0.2264, Hi: 0.4085, K: 31, N: 100},
	})
	if err != nil {
		log.Fatal(err)
	}
	c.Title = "M4 register: violation rate (Wilson 95%)"
	fmt.Println(c.Kind(), c.ID())
	// Output: rates weft-m4-401fc3996c28
}

// A report page of its own design inlines echarts once in its head and
// places each chart's Element where it wants it.
func ExampleLibrary_Script() {
	lib, err := charts.LoadLibrary()
	if err != nil {
		log.Fatal(err) // echarts is installed by scripts/setup.sh
	}
	c, err := charts.Outcomes("seeds", []charts.Outcome{{Variant: "bug", Seed: 1, Verdict: charts.VerdictViolated}})
	if err != nil {
		log.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\">" + charts.CSPMeta + lib.Script() + "</head><body>")
	b.WriteString("<h2>Claim 1 holds</h2>")
	b.WriteString(c.Element())
	b.WriteString("</body></html>")
	if err := os.WriteFile("report.html", []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}

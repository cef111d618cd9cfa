package kernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// writeRows writes a real dataset of n rows (variants fixed and bug) into dir.
func writeRows(t *testing.T, dir string, n int) {
	t.Helper()
	m := dataset.Manifest{CampaignID: "c", ModelPath: "m.model", ModelHash: "abc", ToolVersion: "test",
		Seeds: []dataset.SeedRange{{Lo: 0, Hi: int64(n)}}, Runs: []string{"run1"},
		Variants: []dataset.Variant{{Name: "fixed", BinaryHash: "h1"}, {Name: "bug", BinaryHash: "h2"}}}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		r := dataset.Row{CampaignID: "c", RunID: "run1", ModelHash: "abc", BinaryHash: "h1", Variant: "fixed",
			Seed: int64(i), Verdict: dataset.Holds, Steps: 10, VirtualDuration: time.Second}
		if i%3 == 0 {
			ft := time.Duration(i) * time.Millisecond
			r.BinaryHash, r.Variant, r.Verdict, r.FirstViolationTime = "h2", "bug", dataset.Violated, &ft
			r.ViolatedInvariants = []string{"safe"}
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTables renders a cell's tabular last values as HTML tables with a
// text/plain fallback, a row limit and the total: slices of interpreted
// structs, maps, a dataset's rows, an Arrow table from
// dataset.Open(...).Table with arrow's default allocator, and its records.
func TestTables(t *testing.T) {
	dir := t.TempDir()
	writeRows(t, dir, 30)
	eng, err := engine.New(DefaultOptions().Engine)
	if err != nil {
		t.Fatal(err)
	}
	setup := `import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/weft-mc/weft/mcsdk/dataset"
)
d, err := dataset.Open("` + dir + `")
if err != nil { panic(err) }`
	if _, err := eng.Execute(context.Background(), setup, discard{}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, code string
		html       []string // substrings of the HTML
		text       string   // substring of the text/plain fallback
	}{
		{"slice of structs", "type R struct{ Name string; N int }\n[]R{{\"a\", 1}, {\"b\", 2}}",
			[]string{"<th>Name</th><th>N</th>", "<td>b</td><td>2</td>", "2 rows"}, "Name  N"},
		{"map", `map[string]int{"x": 1, "y": 2}`, []string{"<th>key</th><th>value</th>", "<td>y</td><td>2</td>"}, "x    1"},
		{"dataset rows", "rows, _ := d.Rows(dataset.Filter{})\nrows",
			[]string{"<th>Variant</th>", "<th>FirstViolationTime</th>", "<td>bug</td>", "20 of 30 rows"}, "(20 of 30 rows)"},
		{"arrow table", "tbl, err := d.Table(memory.DefaultAllocator, dataset.Filter{})\nif err != nil { panic(err) }\ntbl",
			[]string{"<th>variant</th>", "<th>first_violation_time</th>", "20 of 30 rows"}, "variant"},
		{"arrow record", "tr := array.NewTableReader(tbl, 5)\ntr.Next()\ntr.RecordBatch()",
			[]string{"<th>seed</th>", "5 rows"}, "seed"},
		{"explicit limit", "display.TableN(rows, 3)", []string{"3 of 30 rows"}, "(3 of 30 rows)"},
		{"stats summary", "import \"github.com/weft-mc/weft/analysis\"\ntab, _ := analysis.TableFromCounts([]analysis.Count{{\"bug\", 20, 100}, {\"fixed\", 2, 100}})\nsum, _ := analysis.Summarize(tab, analysis.SummaryOptions{})\nsum",
			[]string{"<table", "bug", "fixed"}, "bug"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := eng.Execute(context.Background(), c.code, discard{})
			if err != nil {
				t.Fatal(err)
			}
			h, _ := res.Data.Data[display.MIMETypeHTML].(string)
			for _, want := range c.html {
				if !strings.Contains(h, want) {
					t.Errorf("HTML lacks %q:\n%.1500s", want, h)
				}
			}
			if txt, _ := res.Data.Data[display.MIMETypeText].(string); !strings.Contains(txt, c.text) {
				t.Errorf("text/plain lacks %q:\n%.800s", c.text, txt)
			}
		})
	}
}

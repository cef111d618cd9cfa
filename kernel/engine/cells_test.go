package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestSplitCell(t *testing.T) {
	tests := []struct {
		src   string
		kinds []kind
		lines []int
	}{
		{"x := 1", []kind{stmtItem}, []int{1}},
		{"import \"fmt\"\nx := 1\nfmt.Println(x)", []kind{importItem, stmtItem, stmtItem}, []int{1, 2, 3}},
		{"type P struct {\n\tA int\n}\n\nP{1}", []kind{declItem, stmtItem}, []int{1, 5}},
		{"func f() {\n}\nvar v = 2; const c = 3", []kind{declItem, declItem, declItem}, []int{1, 3, 3}},
		{"// only a comment", nil, nil},
		{"for i := 0; i < 3; i++ {\n\tx++\n}", []kind{stmtItem}, []int{1}},
		{"x := `raw\nstring`", []kind{stmtItem}, []int{1}},
		{"if v := f(); v > 1 {\n} else if w := 2; w > v {\n}\nswitch x := 1; x {\n}", []kind{stmtItem, stmtItem}, []int{1, 4}},
		{"x := (", []kind{stmtItem}, []int{1}}, // unbalanced: returned whole
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			items := splitCell(tc.src)
			var kinds []kind
			var lines []int
			for _, it := range items {
				kinds = append(kinds, it.kind)
				lines = append(lines, it.line)
			}
			if !slices.Equal(kinds, tc.kinds) || !slices.Equal(lines, tc.lines) {
				t.Fatalf("kinds %v lines %v, want %v %v", kinds, lines, tc.kinds, tc.lines)
			}
		})
	}
}

func TestGroupsKeepLinesAndSplitImports(t *testing.T) {
	src := "import \"fmt\"\nimport \"os\"\nfunc f() {}\n\nimport \"strings\"\nx := 1\ny := 2"
	gs := groups(splitCell(src))
	var got []string
	for _, g := range gs {
		got = append(got, strings.ReplaceAll(g.source(), "\n", "|"))
	}
	want := []string{
		"import \"fmt\"|import \"os\"|func f() {}", // imports may open a declaration run
		"||||import \"strings\"",                   // an import after a declaration starts a new run
		"|||||x := 1|y := 2",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("groups\n%q\nwant\n%q", got, want)
	}
}

func TestReimportIsSkipped(t *testing.T) {
	e := newEngine(t)
	for i := 0; i < 2; i++ {
		if _, err := e.Execute(context.Background(), "import \"strings\"\nimport \"display\"\nimport d2 \"github.com/weft-mc/weft/kernel/display\"", newRecorder()); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	res, err := e.Execute(context.Background(), "strings.Repeat(\"a\", 2) + d2.ID(display.WithID(\"i\", display.HTML(\"\")))", newRecorder())
	if err != nil || res.Data.Data["text/plain"] != "aai" {
		t.Fatalf("%v %v", res.Data.Data, err)
	}
}

func TestErrorLinesMatchTheCell(t *testing.T) {
	e := newEngine(t)
	_, err := e.Execute(context.Background(), "a := 1\n\nb := a +\n\"s\"", newRecorder())
	if err == nil || !strings.Contains(err.Error(), "3:") {
		t.Fatalf("error %v should point at line 3", err)
	}
}

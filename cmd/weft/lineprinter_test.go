package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinePrinter checks the prefixes of node output: whole lines as
// written, a line split over writes joined, the rest printed at flush, and
// a line longer than maxLine printed in pieces of maxLine bytes as it
// arrives, so that weft holds less than maxLine of it (redteam
// hang-stdout).
func TestLinePrinter(t *testing.T) {
	long := strings.Repeat("x", 2*maxLine+5)
	for _, tc := range []struct {
		name   string
		writes []string
		before string // printed before flush
		want   string // after flush
	}{
		{"lines", []string{"a\nb\n"}, "n0| a\nn0| b\n", "n0| a\nn0| b\n"},
		{"split", []string{"a", "b\nc"}, "n0| ab\n", "n0| ab\nn0| c\n"},
		{"long", []string{long[:maxLine-1], long[maxLine-1:]},
			"n0| " + long[:maxLine] + "\nn0| " + long[maxLine:2*maxLine] + "\n",
			"n0| " + long[:maxLine] + "\nn0| " + long[maxLine:2*maxLine] + "\nn0| xxxxx\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := newLinePrinter(f, 1)
			for _, w := range tc.writes {
				p.write(0, []byte(w))
			}
			read := func() string {
				b, err := os.ReadFile(f.Name())
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if got := read(); got != tc.before {
				t.Errorf("before flush: %d bytes %.40q, want %d bytes %.40q", len(got), got, len(tc.before), tc.before)
			}
			if len(p.partial[0]) >= maxLine {
				t.Errorf("holds %d bytes of a line, want under %d", len(p.partial[0]), maxLine)
			}
			p.flush()
			if got := read(); got != tc.want {
				t.Errorf("after flush: %d bytes %.40q, want %d bytes %.40q", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

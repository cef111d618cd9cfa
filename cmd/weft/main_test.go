package main

import (
	"flag"
	"reflect"
	"testing"
)

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args    []string
		wantPos []string
		wantV   string
		wantJ   bool
	}{
		{[]string{"m.model"}, []string{"m.model"}, "", false},
		{[]string{"--variant", "bug", "m.model"}, []string{"m.model"}, "bug", false},
		{[]string{"m.model", "--variant", "bug"}, []string{"m.model"}, "bug", false},
		{[]string{"a", "--json", "b", "--variant=x"}, []string{"a", "b"}, "x", true},
		{[]string{"--json", "--", "--variant", "x"}, []string{"--variant", "x"}, "", true},
		{[]string{"a", "--", "bin", "-v"}, []string{"a", "bin", "-v"}, "", false},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		v := fs.String("variant", "", "")
		j := fs.Bool("json", false, "")
		pos, err := parseInterspersed(fs, tc.args)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !reflect.DeepEqual(pos, tc.wantPos) && !(len(pos) == 0 && len(tc.wantPos) == 0) {
			t.Errorf("%v: positional = %q, want %q", tc.args, pos, tc.wantPos)
		}
		if *v != tc.wantV || *j != tc.wantJ {
			t.Errorf("%v: variant=%q json=%v, want %q %v", tc.args, *v, *j, tc.wantV, tc.wantJ)
		}
	}
}

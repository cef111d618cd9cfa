//go:build linux

package mcsdk_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestDebianPrograms runs unmodified programs from Debian's archive as
// nodes: busybox httpd (a fork per connection, sendfile of the page) for
// the client's two GETs, and socat relaying a GET from one node to busybox
// httpd on the other (a fork per connection on both). Each reply's status
// line and the page are in the ghost log, the servers' own logs say what
// they did, every connection was served by a child, and two runs of a seed
// record the same bytes.
func TestDebianPrograms(t *testing.T) {
	tests := []struct {
		model   string
		replies []string // in the ghost log
		output  []string // in the nodes' output
		procs   string   // the "processes" run parameter
	}{
		{"httpd/httpd.model", []string{`line: "HTTP/1.1 200 OK"`, `line: "hello from busybox httpd under weft"`, `line: "HTTP/1.1 404 Not Found"`},
			[]string{"response:200", "response:404"}, "n0=3"},
		{"socat/socat.model", []string{`line: "HTTP/1.1 200 OK"`, `line: "hello from busybox httpd under weft"`},
			[]string{"response:200"}, "n0=2 n1=2"},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			m := loadTarget(t, tc.model)
			for _, seed := range []uint64{1, 2} {
				var recs [2][]byte
				var logs [2]string
				for k := range recs {
					var out bytes.Buffer
					r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed, OnOutput: func(_ int, b []byte) { out.Write(b) }})
					if err != nil {
						t.Fatal(err)
					}
					if r.Verdict != mcsdk.Holds {
						t.Fatalf("seed %d: %s %s\n%s", seed, r.Verdict, r.Detail, out.String())
					}
					var lines []string
					for _, v := range r.Final.Logs["replies"] {
						lines = append(lines, v.String())
					}
					logs[k] = strings.Join(lines, "\n")
					for _, want := range tc.replies {
						if !strings.Contains(logs[k], want) {
							t.Errorf("seed %d: replies lack %s:\n%s\nnode output:\n%s", seed, want, logs[k], out.String())
						}
					}
					for _, want := range tc.output {
						if !strings.Contains(out.String(), want) {
							t.Errorf("seed %d: the nodes' output lacks %q:\n%s", seed, want, out.String())
						}
					}
					procs := ""
					for _, p := range r.Params {
						if p.Name == "processes" {
							procs = p.Value
						}
					}
					if procs != tc.procs {
						t.Errorf("seed %d: processes %q, want %s (a server and a child per connection)", seed, procs, tc.procs)
					}
					if recs[k], err = r.Recording(m).Bytes(); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(recs[0], recs[1]) || logs[0] != logs[1] {
					t.Errorf("seed %d: two runs differ", seed)
				}
			}
		})
	}
}

// forkRaceModel writes a model for testdata/forkrace.c and loads it.
func forkRaceModel(t *testing.T) *model.Model {
	t.Helper()
	src, err := filepath.Abs("testdata/forkrace.c")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("[target]\nnodes = 1\nsource = %q\n[state]\norder = \"int32\"\n[invariants]\nparent_first = \"node[0].order != 1\"\n", src)
	path := filepath.Join(t.TempDir(), "forkrace.model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestForkRaceSeeded runs the fork race under seeds: which process goes
// first is drawn from the seed (both orders occur), and two runs of a seed
// record the same bytes.
func TestForkRaceSeeded(t *testing.T) {
	m := forkRaceModel(t)
	verdicts := map[mcsdk.Verdict]int{}
	for seed := uint64(1); seed <= 8; seed++ {
		var recs [2][]byte
		for k := range recs {
			r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			verdicts[r.Verdict]++
			if recs[k], err = r.Recording(m).Bytes(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(recs[0], recs[1]) {
			t.Errorf("seed %d: two runs recorded different bytes", seed)
		}
	}
	if verdicts[mcsdk.Holds] == 0 || verdicts[mcsdk.Violated] == 0 {
		t.Errorf("verdicts over 8 seeds %v: want both orders", verdicts)
	}
}

// TestCheckForkRace checks testdata/forkrace.c exhaustively: the child's
// write can come before the parent's, which only a Run choice between
// the two processes of the node shows; the counterexample is the same in
// a second check.
func TestCheckForkRace(t *testing.T) {
	m := forkRaceModel(t)
	var paths [2]string
	for k := range paths {
		r, err := mcsdk.Check(m, mcsdk.CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != mcsdk.Violated || r.Violation.Invariant != "parent_first" {
			t.Fatalf("verdict %s %v, want parent_first violated", r.Verdict, r.Violation)
		}
		paths[k] = fmt.Sprint(r.Violation.Path)
		runs := 0
		for _, a := range r.Violation.Path {
			if a.Kind == sched.Run && a.Task == 1 {
				runs++
			}
		}
		if runs == 0 {
			t.Errorf("the violation's path %v has no choice of the child process", r.Violation.Path)
		}
	}
	if paths[0] != paths[1] {
		t.Errorf("two checks found %s and %s", paths[0], paths[1])
	}
}

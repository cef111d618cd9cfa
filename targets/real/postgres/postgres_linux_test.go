//go:build linux

// Package postgres holds the model of Debian's unmodified postgresql-15
// under weft (postgres.model) and its test.
package postgres_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestPostgresSelectOne runs postgres.model: node 0 runs initdb and then
// postgres as the user postgres (user = "postgres": shared memory by
// shmget/shmat, SysV IPC served by weft, its run directory its own); node
// 1 runs psql -c 'SELECT 1' against it once it listens, and must print
// 1. Seeds 1 and 2, each twice: the same verdict, timeline and choices,
// and the same node output byte for byte but for one thing: the host path
// of the world's data root, which initdb's configuration probes print to
// /dev/null (weft captures a node's /dev/null output) because a node
// still sees its run directory's host path (getcwd is not virtual yet,
// issue 36 §5). It needs Debian's postgresql-15 and the
// postgres user (scripts/setup.sh installs them) and fails without them.
// dataRoot matches the host path of a world's data root (a temporary
// directory, new in every run).
var dataRoot = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/weft-data-[0-9]+`)

func TestPostgresSelectOne(t *testing.T) {
	if _, err := os.Stat("/usr/lib/postgresql/15/bin/postgres"); err != nil {
		t.Fatalf("postgresql-15 is not installed (apt-get install postgresql-15): %v", err)
	}
	m, err := model.Load("postgres.model")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2} {
		var runs [2]*mcsdk.RunResult
		var outs [2][2]bytes.Buffer
		var traces [2]bytes.Buffer // the scheduling traces, to say where two runs part
		for k := range runs {
			res, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed, Host: mcsdk.Host{Trace: &traces[k]}, OnOutput: func(node int, b []byte) { outs[k][node].Write(b) }})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			res.Wall, res.FirstReplyWall = 0, 0
			runs[k] = res
		}
		r := runs[0]
		if r.Verdict != mcsdk.Holds {
			t.Errorf("seed %d: verdict %s %v: %s\n%s", seed, r.Verdict, r.Violated, r.Detail, outs[0][0].String())
		}
		if got := outs[0][1].String(); got != "1\n" {
			t.Errorf("seed %d: psql printed %q, want \"1\\n\"; the server wrote:\n%s", seed, got, outs[0][0].String())
		}
		if r.Verdict != runs[1].Verdict || r.Detail != runs[1].Detail || !reflect.DeepEqual(r.Events, runs[1].Events) || !reflect.DeepEqual(r.Choices, runs[1].Choices) {
			t.Errorf("seed %d: two runs differ: %s %q / %s %q; events equal %v, choices equal %v (%d / %d)\n%s", seed, r.Verdict, r.Detail, runs[1].Verdict, runs[1].Detail,
				reflect.DeepEqual(r.Events, runs[1].Events), reflect.DeepEqual(r.Choices, runs[1].Choices), len(r.Choices), len(runs[1].Choices), firstDifference(traces[0].String(), traces[1].String()))
		}
		for node := range outs[0] {
			a, b := dataRoot.ReplaceAll(outs[0][node].Bytes(), nil), dataRoot.ReplaceAll(outs[1][node].Bytes(), nil)
			if !bytes.Equal(a, b) {
				t.Errorf("seed %d: node %d's output differs:\n%s\n----\n%s", seed, node, a, b)
			}
		}
	}
}

// firstDifference shows where two scheduling traces part: the first line
// that differs, with the lines before it, from each.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	if i == len(la) && i == len(lb) {
		return "the scheduling traces are equal"
	}
	from := max(0, i-8)
	show := func(l []string) string { return strings.Join(l[from:min(len(l), i+4)], "\n") }
	return fmt.Sprintf("the scheduling traces part at line %d:\n%s\n----\n%s", i+1, show(la), show(lb))
}

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"x\ny\n", "x\ny\n", "the scheduling traces are equal"},
		{"x\ny\nz", "x\nq\nz", "part at line 2:\nx\ny\nz\n----\nx\nq\nz"},
		{"x", "x\ny", "part at line 2:\nx\n----\nx\ny"},
	} {
		if got := firstDifference(c.a, c.b); !strings.Contains(got, c.want) {
			t.Errorf("firstDifference(%q, %q) = %q, want it to contain %q", c.a, c.b, got, c.want)
		}
	}
}

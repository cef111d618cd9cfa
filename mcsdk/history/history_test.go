package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/workload"
)

// op builds an operation of client c invoked at step call and completed
// at step ret (-1: no reply).
func op(c int, what string, v int64, call, ret int, out workload.Outcome, vals ...int64) workload.Op {
	call0 := workload.Call{Client: c, Op: what, Value: v}
	if k, rest, ok := strings.Cut(what, " "); ok { // "put x", "get x", "cas 5"
		call0.Op = k
		if k == "cas" {
			fmt.Sscan(rest, &call0.Old)
		} else {
			call0.Key = rest
		}
	}
	return workload.Op{Call: call0, Outcome: out, Values: vals, CallStep: call, ReturnStep: ret}
}

func TestCheck(t *testing.T) {
	ok, fail, ind := workload.Ok, workload.Failed, workload.Indeterminate
	tests := []struct {
		name      string
		kind      workload.Kind
		ops       []workload.Op
		want      bool
		unordered int
	}{
		{"register sequential", workload.Register, []workload.Op{op(0, "write", 5, 1, 2, ok), op(0, "read", 0, 3, 4, ok, 5)}, true, 0},
		{"register stale read", workload.Register, []workload.Op{op(0, "write", 5, 1, 2, ok), op(1, "write", 7, 3, 4, ok), op(1, "read", 0, 5, 6, ok, 5)}, false, 1},
		{"register concurrent writes", workload.Register, []workload.Op{op(0, "write", 5, 1, 6, ok), op(1, "write", 7, 2, 3, ok), op(1, "read", 0, 4, 5, ok, 5)}, true, 0},
		{"register indeterminate write may take effect", workload.Register, []workload.Op{op(0, "write", 5, 1, -1, ind), op(1, "read", 0, 4, 5, ok, 5), op(1, "read", 0, 6, 7, ok, 5)}, true, 0},
		{"register indeterminate write cannot undo", workload.Register, []workload.Op{op(0, "write", 5, 1, -1, ind), op(1, "read", 0, 4, 5, ok, 5), op(1, "read", 0, 6, 7, ok, 0)}, false, 1},
		{"register failed write takes no effect", workload.Register, []workload.Op{op(0, "write", 5, 1, 2, fail), op(0, "read", 0, 3, 4, ok, 0)}, true, 0},
		{"register failed write cannot be seen", workload.Register, []workload.Op{op(0, "write", 5, 1, 2, fail), op(0, "read", 0, 3, 4, ok, 5)}, false, 1},
		{"register initial read", workload.Register, []workload.Op{op(0, "read", 0, 1, 2, ok)}, true, 0},
		{"register cas", workload.Register, []workload.Op{op(0, "write", 5, 1, 2, ok), op(0, "cas 5", 7, 3, 4, ok), op(1, "cas 5", 9, 5, 6, fail), op(1, "read", 0, 7, 8, ok, 7)}, true, 0},
		{"register cas wrongly failed", workload.Register, []workload.Op{op(0, "write", 5, 1, 2, ok), op(0, "cas 5", 7, 3, 4, fail)}, false, 1},
		{"kv by key", workload.KV, []workload.Op{op(0, "put x", 1, 1, 2, ok), op(1, "append y", 2, 1, 2, ok), op(0, "append x", 3, 3, 4, ok), op(1, "get x", 0, 5, 6, ok, 1, 3), op(1, "get y", 0, 7, 8, ok, 2)}, true, 0},
		{"kv lost append", workload.KV, []workload.Op{op(0, "put x", 1, 1, 2, ok), op(0, "append x", 3, 3, 4, ok), op(1, "get x", 0, 5, 6, ok, 1)}, false, 1},
		{"set", workload.Set, []workload.Op{op(0, "add", 1, 1, 2, ok), op(1, "add", 2, 1, 3, ok), op(0, "read", 0, 4, 5, ok, 2, 1)}, true, 0},
		{"set lost add", workload.Set, []workload.Op{op(0, "add", 1, 1, 2, ok), op(1, "add", 2, 3, 4, ok), op(0, "read", 0, 5, 6, ok, 2)}, false, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Check(tc.kind, tc.ops)
			if err != nil {
				t.Fatal(err)
			}
			if r.Ok != tc.want {
				t.Fatalf("linearizable %v, want %v\n%s", r.Ok, tc.want, r.Text())
			}
			if !r.Ok && (len(r.Unordered) != tc.unordered || len(r.Prefix)+len(r.Unordered) == 0) {
				t.Fatalf("%d unordered, want %d\n%s", len(r.Unordered), tc.unordered, r.Text())
			}
			var html bytes.Buffer
			if err := r.WriteHTML(&html); err != nil || !strings.Contains(html.String(), "<html") {
				t.Fatalf("visualisation: %v (%d bytes)", err, html.Len())
			}
			// The same history gives the same text and page, byte for byte.
			again, _ := Check(tc.kind, tc.ops)
			var html2 bytes.Buffer
			again.WriteHTML(&html2)
			if again.Text() != r.Text() || !bytes.Equal(html.Bytes(), html2.Bytes()) {
				t.Fatalf("two checks of one history differ")
			}
		})
	}
}

func TestCheckText(t *testing.T) {
	ok := workload.Ok
	r, err := Check(workload.Register, []workload.Op{op(0, "write", 5, 1, 2, ok), op(1, "write", 7, 3, 4, ok), op(1, "read", 0, 5, 6, ok, 5)})
	if err != nil {
		t.Fatal(err)
	}
	want := `not linearizable: longest linearizable prefix (2 operations):
  c0 write 5 at n0 → ok   [step 1 (0.000ms), 2 (0.000ms)]
  c1 write 7 at n0 → ok   [step 3 (0.000ms), 4 (0.000ms)]
cannot be ordered after it (1 operations):
  c1 read at n0 → 5   [step 5 (0.000ms), 6 (0.000ms)]`
	if got := r.Text(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestModelUnknownKind(t *testing.T) {
	if _, err := Check("queue", nil); err == nil || !strings.Contains(err.Error(), "register, kv, set") {
		t.Fatalf("err %v", err)
	}
}

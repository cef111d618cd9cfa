package dataset

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// jsRows is the output of testdata/read_arrow.mjs.
type jsRows struct {
	NumRows int `json:"numRows"`
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	Rows []map[string]any `json:"rows"`
}

// needNode returns the node binary and the build/js directory holding
// apache-arrow. A missing tool fails the test when CI=true, else skips it.
func needNode(t *testing.T) string {
	t.Helper()
	missing := func(msg string) {
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (run scripts/setup.sh; fails when CI=true)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not on PATH")
	}
	js, _ := filepath.Abs("../../build/js/node_modules/apache-arrow/package.json")
	if _, err := os.Stat(js); err != nil && os.Getenv("NODE_PATH") == "" {
		missing("apache-arrow not installed in build/js and NODE_PATH unset")
	}
	return node
}

// jsTypes are the column types apache-arrow must see: the dictionaries and
// the list must arrive as such.
var jsTypes = []string{"Utf8", "Utf8", "Utf8", "Utf8", "Dictionary<Int32, Utf8>", "Int64",
	"Dictionary<Int8, Utf8>", "List<Utf8>", "Int64", "Duration<MICROSECOND>", "Int64", "Int64",
	"Duration<MICROSECOND>", "Duration<MICROSECOND>", "Utf8", "Utf8",
	"List<Struct<{kind:Utf8, node:Int32, peer:Int32, at_us:Int64, until_us:Int64, sides:List<List<Int32>>, applied:Bool}>>",
	"Utf8", "Utf8", "Int64", "Int64", "Int64", "Int64", "Int64",
	"List<Struct<{invariant:Utf8, step:Int64, at_us:Int64}>>", "Int64", "Int64", "Int64"}

// TestIndependentReader reads Arrow IPC files (an export of a multi-file
// dataset and of its compacted copy, and one verdict file as the writer
// left it) with the apache-arrow JavaScript implementation and compares
// every value.
func TestIndependentReader(t *testing.T) {
	node := needNode(t)
	rows := sampleRows(150, "run1")
	dir := writeDataset(t, testManifest(150), rows, FlushEvery(40))
	out := filepath.Join(t.TempDir(), "verdicts.arrow")
	if _, err := Export(out, FormatArrow, Filter{}, dir); err != nil {
		t.Fatal(err)
	}
	// A compacted dataset is ZSTD-compressed, which apache-arrow 18 for
	// JavaScript does not read; its export is not.
	writeRecordings(t, dir, rows)
	compact := filepath.Join(t.TempDir(), "compact")
	if _, err := Compact(compact, dir); err != nil {
		t.Fatal(err)
	}
	fromCompact := filepath.Join(t.TempDir(), "from-compact.arrow")
	if _, err := Export(fromCompact, FormatArrow, Filter{}, compact); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want []Row
	}{
		{"export", out, exportOrder(rows)},
		{"export of a compacted dataset", fromCompact, exportOrder(rows)},
		{"dataset file", filepath.Join(dir, fileName(2)), exportOrder(rows[40:80])},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkWithNode(t, node, tc.path, tc.want) })
	}
}

func checkWithNode(t *testing.T, node, path string, rows []Row) {
	cmd := exec.Command(node, "testdata/read_arrow.mjs", path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read_arrow.mjs: %v", err)
	}
	var got jsRows
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("parsing node output: %v\n%s", err, stdout)
	}
	if got.NumRows != len(rows) || len(got.Rows) != len(rows) {
		t.Fatalf("node read %d rows (%d listed), want %d", got.NumRows, len(got.Rows), len(rows))
	}
	for i, c := range got.Columns {
		if i >= len(jsTypes) || c.Name != fields()[i].Name || c.Type != jsTypes[i] {
			t.Errorf("column %d: node sees %s %s", i, c.Name, c.Type)
		}
	}
	for i := range rows {
		want := jsView(&rows[i])
		for col, w := range want {
			if g := got.Rows[i][col]; !equalJSON(g, w) {
				t.Fatalf("row %d column %s: node read %#v, want %#v", i, col, g, w)
			}
		}
	}
}

// jsView is how read_arrow.mjs prints r: 64-bit values as decimal strings,
// durations in microseconds, null for null.
func jsView(r *Row) map[string]any {
	s := func(v int64) string { return strconv.FormatInt(v, 10) }
	us := func(d time.Duration) string { return s(int64(d / time.Microsecond)) }
	list := []any{}
	for _, v := range r.ViolatedInvariants {
		list = append(list, v)
	}
	m := map[string]any{
		ColCampaignID: r.CampaignID, ColRunID: r.RunID, ColModelHash: r.ModelHash, ColBinaryHash: r.BinaryHash,
		ColVariant: r.Variant, ColSeed: s(r.Seed), ColVerdict: r.Verdict, ColViolatedInvariants: list,
		ColFirstViolationStep: nil, ColFirstViolationTime: nil, ColSteps: s(r.Steps),
		ColDistinctStates: s(r.DistinctStates), ColVirtualDuration: us(r.VirtualDuration),
		ColWallTime: us(r.WallTime), ColRecordingPath: nil, ColDetail: r.Detail,
	}
	if r.FirstViolationStep != nil {
		m[ColFirstViolationStep] = s(*r.FirstViolationStep)
	}
	if r.FirstViolationTime != nil {
		m[ColFirstViolationTime] = us(*r.FirstViolationTime)
	}
	if r.RecordingPath != "" {
		m[ColRecordingPath] = r.RecordingPath
	}
	m[ColLatency], m[ColMessagesSent], m[ColMessagesDropped] = nil, nil, nil
	if r.Latency != "" {
		m[ColLatency] = r.Latency
	}
	if r.MessagesSent != nil {
		m[ColMessagesSent] = s(*r.MessagesSent)
	}
	m[ColRefusedWrites], m[ColOps], m[ColOpsIndeterminate] = nil, nil, nil
	if r.Ops != nil {
		m[ColOps], m[ColOpsIndeterminate] = s(*r.Ops), s(*r.OpsIndeterminate)
	}
	if r.RefusedWrites != nil {
		m[ColRefusedWrites] = s(*r.RefusedWrites)
	}
	return m
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

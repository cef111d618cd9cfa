package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseDistribution(t *testing.T) {
	tests := []struct {
		in      string
		ok      bool
		lo, hi  int64 // bounds every draw must respect
		wantMin int64
	}{
		{"", true, 0, 0, 0},
		{"constant:500", true, 500, 500, 500},
		{"uniform:1000-60000", true, 1000, 60000, 1000},
		{"exponential:100", true, 0, 1 << 40, 0},
		{"normal:100,10", true, 0, 1 << 40, 0},
		{"uniform:5-1", false, 0, 0, 0},
		{"gauss:1", false, 0, 0, 0},
		{"constant:-3", false, 0, 0, 0},
		{"uniform:1", false, 0, 0, 0},
		{"1000", false, 0, 0, 0},
	}
	for _, tc := range tests {
		d, err := ParseDistribution(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 1000 {
			if v := d.Draw(r); v < tc.lo || v > tc.hi {
				t.Fatalf("%q drew %d outside [%d, %d]", tc.in, v, tc.lo, tc.hi)
			}
		}
	}
	// uniform:1000-60000 has mean 30500; 10,000 draws land within 1 %.
	d, _ := ParseDistribution("uniform:1000-60000")
	r := rand.New(rand.NewPCG(7, 7))
	var sum int64
	for range 10000 {
		sum += d.Draw(r)
	}
	if mean := float64(sum) / 10000; mean < 30500*0.99 || mean > 30500*1.01 {
		t.Errorf("uniform mean %.0f, want about 30500", mean)
	}
}

func TestParseSignedRange(t *testing.T) {
	tests := []struct {
		in     string
		ok     bool
		lo, hi int64
	}{
		{"", true, 0, 0},
		{"constant:-7", true, -7, -7},
		{"uniform:-50000-50000", true, -50000, 50000},
		{"uniform:-200--100", true, -200, -100},
		{"uniform:3-9", true, 3, 9},
		{"uniform: -5 - 5", true, -5, 5},
		{"uniform:9-3", false, 0, 0},
		{"uniform:-5", false, 0, 0},
		{"uniform:1.5-2", false, 0, 0},
		{"constant:100001", false, 0, 0},
		{"-5", false, 0, 0},
	}
	for _, tc := range tests {
		d, err := parseSignedRange(tc.in, 100000)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		if d.lo != tc.lo || d.hi != tc.hi {
			t.Errorf("%q: [%d, %d], want [%d, %d]", tc.in, d.lo, d.hi, tc.lo, tc.hi)
		}
		r := rand.New(rand.NewPCG(1, 2))
		seen := map[int64]bool{}
		for range 2000 {
			v := d.Draw(r)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("%q drew %d outside [%d, %d]", tc.in, v, tc.lo, tc.hi)
			}
			seen[v] = true
		}
		if tc.hi-tc.lo < 20 && len(seen) != int(tc.hi-tc.lo+1) {
			t.Errorf("%q: 2000 draws hit %d of the %d values", tc.in, len(seen), tc.hi-tc.lo+1)
		}
	}
}

// specBase is the part of every section case that is not under test
// (lines 1-8); a case's sections start on line 9.
const specBase = `[target]
nodes = 3
source = "repl.c"
[state]
ticks = "int32"
[invariants]
positive = "node[0].ticks >= 0"
trivial = "true"
`

// TestSpecErrorsArePositioned: every bad value of [network], [faults] and
// [campaign] is an error at file:line:col of the value (the element, in an
// array), and good sections are accepted.
func TestSpecErrorsArePositioned(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // exact errors after "testdata/spec.model:"; nil = accepted
	}{
		{"good", "[network]\nlatency = \"uniform:10-20\"\n[faults]\ncrashes = 1\nnodes = [0, 2]\n[campaign]\nrequired = [\"trivial\"]\nduration = 100\n", nil},
		{"latency", "[network]\nlatency = \"gauss:1\"\n", []string{`10:11: network.latency: "gauss:1": unknown distribution "gauss"`}},
		{"latency huge", "[network]\nlatency = \"constant:1e300\"\n", []string{`10:11: network.latency: "constant:1e300": "1e300" is not a number of µs between 0 and 1000000000000`}},
		{"uniform huge", "[network]\nlatency = \"uniform:0-1e19\"\n", []string{`10:11: network.latency: "uniform:0-1e19": "1e19" is not a number of µs between 0 and 1000000000000`}},
		{"drop", "[network]\norder = \"fifo\"\ndrop = 1.5\n", []string{"11:8: network.drop = 1.5: a probability is between 0 and 1"}},
		{"drop nan", "[network]\ndrop = nan\n", []string{"10:8: network.drop = NaN: a probability is between 0 and 1"}},
		{"order", "[network]\norder = \"lifo\"\n", []string{`10:9: network.order "lifo": want fifo or bag`}},
		{"network type", "[network]\ndrop = \"a lot\"\n", []string{"10:8: network.drop: incompatible types: TOML value has type string; destination has type float"}},
		{"network unknown key", "[network]\nlatncy = \"constant:1\"\n", []string{"10:1: unknown key latncy in [network]"}},
		{"crashes", "[faults]\ncrashes = -1\n", []string{"10:11: faults.crashes = -1: want 0 or more"}},
		{"crashes type", "[faults]\ncrashes = \"two\"\n", []string{"10:11: faults.crashes: incompatible types: TOML value has type string; destination has type integer"}},
		{"crashes overflow", "[faults]\ncrashes = 99999999999999999999\n", []string{"10:11: 99999999999999999999 is out of range for int64"}},
		{"nodes", "[faults]\nnodes = [0, 7, -1]\n", []string{
			"10:13: faults.nodes: no node 7 (the model has nodes 0..2)",
			"10:16: faults.nodes: no node -1 (the model has nodes 0..2)"}},
		{"restart_after", "[faults]\nrestart = true\nrestart_after = \"5\"\n", []string{`11:17: faults.restart_after: "5": want KIND:ARGS (constant:X, uniform:A-B, exponential:MEAN, normal:MEAN,SD)`}},
		{"from until", "[faults]\nfrom = 50\nuntil = 10\n", []string{"11:9: faults.until = 10 is before faults.from = 50"}},
		{"from negative", "[faults]\nfrom = -5\n", []string{"10:8: faults.from = -5: want a virtual time in µs between 0 and 1000000000000000"}},
		{"partition groups", "[faults]\n[[faults.partition]]\ngroups = [[0, 1], [1, 5]]\nfrom = 1\nuntil = 2\n", []string{
			"11:20: faults.partition[0].groups: node 1 is in two groups",
			"11:23: faults.partition[0].groups: no node 5 (the model has nodes 0..2)"}},
		{"partition negative", "[[faults.partition]]\ngroups = [[0], [1]]\nfrom = -1\nuntil = 5\n", []string{
			"11:8: faults.partition[0].from = -1: want a virtual time in µs between 0 and 1000000000000000"}},
		{"partition one group", "[[faults.partition]]\ngroups = [[0, 1, 2]]\nduration = \"constant:5\"\n", []string{"10:10: faults.partition[0].groups: want at least two groups"}},
		{"second partition", "[[faults.partition]]\ngroups = [[0], [1]]\nfrom = 1\nuntil = 2\n[[faults.partition]]\ngroups = [[0], [2]]\nfrom = 9\nuntil = 3\n", []string{
			"16:9: faults.partition[1].until = 3 must come after from = 9"}},
		{"partition duration", "[[faults.partition]]\ngroups = [[0], [1]]\nduration = \"uniform:9-1\"\n", []string{`11:12: faults.partition[0].duration: "uniform:9-1": upper bound below lower bound`}},
		{"partition type", "[[faults.partition]]\ngroups = [[0], [1]]\n[[faults.partition]]\ngroups = 3\n", []string{
			"12:10: faults.partition.groups: incompatible types: TOML value has type int64; destination has type slice"}},
		{"inline partition", "[faults]\npartition = [{groups = [[0], [1]], from = 4, until = 4}]\n", []string{"10:54: faults.partition[0].until = 4 must come after from = 4"}},
		{"required", "[campaign]\nrequired = [\"trivial\", \"postive\"]\n", []string{`10:24: campaign.required: no invariant "postive" (the model's invariants: positive, trivial)`}},
		{"duration", "[campaign]\nduration = -100\ntail = -1\n", []string{
			"10:12: campaign.duration = -100: want a virtual time in µs between 0 and 1000000000000000",
			"11:8: campaign.tail = -1: want a virtual time in µs between 0 and 1000000000000000"}},
		{"duration huge", "[campaign]\nduration = 9000000000000000000\n", []string{"10:12: campaign.duration = 9000000000000000000: want a virtual time in µs between 0 and 1000000000000000"}},
		{"duration plus tail", "[campaign]\nduration = 1000000000000000\ntail = 1\n", []string{"11:8: campaign.duration + campaign.tail = 1000000000000001: want at most 1000000000000000 µs"}},
		{"seeds", "[campaign]\nseeds = -3\n", []string{"10:9: campaign.seeds = -3: want between 0 and 10000000"}},
		{"seeds huge", "[campaign]\nseeds = 100000000000\n", []string{"10:9: campaign.seeds = 100000000000: want between 0 and 10000000"}},
		{"max_steps", "[campaign]\nmax_steps = -1\n", []string{"10:13: campaign.max_steps = -1: want 1 or more (0: the default, 1000000)"}},
		{"check", "[campaign]\ncheck = \"sometimes\"\n", []string{`10:9: campaign.check "sometimes": want always or final`}},
		{"campaign type", "[campaign]\nrequired = \"positive\"\n", []string{"10:12: campaign.required: incompatible types: TOML value has type string; destination has type slice"}},
		{"clocks good", "[faults]\nclock_offset = \"uniform:-50000-50000\"\nclock_drift_ppm = \"uniform:-200--100\"\nclock_jumps = 2\nclock_jump = \"constant:-3000\"\n", nil},
		{"clock_offset reversed", "[faults]\nclock_offset = \"uniform:50000--50000\"\n", []string{`10:16: faults.clock_offset: "uniform:50000--50000": upper bound below lower bound`}},
		{"clock_drift_ppm huge", "[faults]\nclock_drift_ppm = \"constant:2000000\"\n", []string{`10:19: faults.clock_drift_ppm: "constant:2000000": "2000000" is not an integer between -100000 and 100000`}},
		{"clock_offset kind", "[faults]\nclock_offset = \"normal:0,5\"\n", []string{`10:16: faults.clock_offset: "normal:0,5": unknown distribution "normal" (want constant:X or uniform:A-B)`}},
		{"clock_jumps", "[faults]\nclock_jumps = -1\n", []string{"10:15: faults.clock_jumps = -1: want between 0 and 10000"}},
		{"clock_jump alone", "[faults]\nclock_jump = \"constant:5\"\n", []string{"10:14: faults.clock_jump needs clock_jumps (how many steps to draw)"}},
		{"several sections", "[network]\norder = \"x\"\n[faults]\ncrashes = -2\n[campaign]\ncheck = \"x\"\n", []string{
			`10:9: network.order "x": want fifo or bag`,
			"12:11: faults.crashes = -2: want 0 or more",
			`14:9: campaign.check "x": want always or final`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("testdata/spec.model", []byte(specBase+tt.src))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted, want an error")
			}
			got := strings.Split(err.Error(), "\n")
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = "testdata/spec.model:" + w
			}
			if !slices.Equal(got, want) {
				t.Errorf("errors:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
			for _, e := range splitJoined(err) {
				var pe *Error
				if !errors.As(e, &pe) {
					t.Errorf("error %T is not a *Error: %v", e, e)
				}
			}
		})
	}
}

// splitJoined undoes errors.Join (one level deep and nested).
func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	return []error{err}
}

// FuzzSpecs: arbitrary fault sections (truncated TOML, wrong types, huge
// numbers) never panic the parser, and every error is a
// *Error with a position inside the file.
func FuzzSpecs(f *testing.F) {
	for _, s := range []string{
		"[network]\nlatency = \"uniform:10-20\"\ndrop = 0.5\n[faults]\ncrashes = 1\nnodes = [0, 2]\n",
		"[faults]\npartition = [{groups = [[0], [1]], from = 4, until = 5}]\n",
		"[[faults.partition]]\ngroups = [[0], [1, 2]]\nduration = \"exponential:100\"\n",
		"[campaign]\nrequired = [\"trivial\"]\nduration = 9223372036854775807\ntail = 9223372036854775807\n",
		"[campaign]\nseeds = -9223372036854775808\ncheck = 3\n",
		"[network]\nlatency = \"normal:1e400,5\"\n[faults]\nrestart_after = \"uniform:1",
		"[faults]\nnodes = [[0]]\ncrashes = [1]\nfrom = \"now\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sections string) {
		src := specBase + sections
		_, err := Parse("testdata/spec.model", []byte(src))
		if err == nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, e := range splitJoined(err) {
			var pe *Error
			if !errors.As(e, &pe) {
				t.Fatalf("error %T is not a *Error: %v", e, e)
			}
			if pe.Pos.Line < 1 || pe.Pos.Line > lines || pe.Pos.Col < 1 {
				t.Fatalf("position %s outside the file: %v", pe.Pos, e)
			}
		}
	})
}

// TestSectionsDecodedAtLoad: [network], [faults] and [campaign] are typed
// values of the loaded model, their distributions and precondition parsed
// and their defaults filled in, with nothing left to decode per run.
func TestSectionsDecodedAtLoad(t *testing.T) {
	tests := []struct {
		name, src string
		check     func(m *Model) string // "" when m is as wanted
	}{
		{"defaults", "", func(m *Model) string {
			switch {
			case m.Network.Delay.String() != "constant:0" || m.Faults.RestartDelay.String() != "constant:0":
				return "distributions not defaulted to constant:0"
			case !slices.Equal(m.Faults.Nodes, []int{0, 1, 2}):
				return fmt.Sprintf("faults.nodes %v, want every node", m.Faults.Nodes)
			case m.Campaign.MaxSteps != DefaultMaxSteps:
				return fmt.Sprintf("max_steps %d, want %d", m.Campaign.MaxSteps, DefaultMaxSteps)
			case m.Faults.NoticeDelay != nil || m.Faults.PreconditionExpr != nil || m.Faults.Clock.Any():
				return "a fault the model does not ask for"
			}
			return ""
		}},
		{"set", `[network]
order = "bag"
latency = "uniform:10-20"
[faults]
crashes = 1
nodes = [2]
notice = "DEAD {node}"
notice_latency = "constant:7"
precondition = "node[f].ticks >= 0"
clock_jumps = 2
[[faults.partition]]
groups = [[0], [1, 2]]
duration = "constant:30"
[campaign]
seeds = 12
check = "final"
required = ["trivial"]
max_steps = 99
`, func(m *Model) string {
			r := rand.New(rand.NewPCG(1, 2))
			switch {
			case m.Network.Order != "bag" || m.Network.Delay.String() != "uniform:10-20":
				return fmt.Sprintf("network %+v", m.Network)
			case !slices.Equal(m.Faults.Nodes, []int{2}) || m.Faults.NoticeDelay == nil || m.Faults.NoticeDelay.Draw(r) != 7:
				return fmt.Sprintf("faults %+v", m.Faults)
			case m.Faults.PreconditionExpr == nil || !m.Faults.Clock.Any() || m.Faults.Clock.Jumps != 2:
				return "precondition or clock faults not parsed"
			case len(m.Faults.Partition) != 1 || m.Faults.Partition[0].Length.Draw(r) != 30:
				return fmt.Sprintf("partitions %+v", m.Faults.Partition)
			case m.Campaign.Seeds != 12 || m.Campaign.Check != "final" || !slices.Equal(m.Campaign.Required, []string{"trivial"}) || m.Campaign.MaxSteps != 99:
				return fmt.Sprintf("campaign %+v", m.Campaign)
			}
			return ""
		}},
	}
	for _, tt := range tests {
		m, err := Parse("testdata/spec.model", []byte(specBase+tt.src))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if why := tt.check(m); why != "" {
			t.Errorf("%s: %s", tt.name, why)
		}
	}
}

//go:build linux

// Package ladder runs issue 37's ladder: unmodified Debian servers, each
// started by the real weft binary from its model in targets/real, asked a
// real protocol request, judged by the model's invariants (which name the
// correct reply), and run twice per seed with byte-identical results.
package ladder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rung is one program of the ladder.
type rung struct {
	name  string // the row's name: the program
	model string // relative to targets/real
	needs []string
	// pending, when set, says why the program does not serve yet: the row
	// is skipped and scripts/ladder.sh counts it as not serving.
	pending string
	// refusals the run may report (substrings of a refusal's text); any
	// other refusal fails the row.
	refusals []string
	env      []string // added to weft's environment
	// oneSeed runs only seed 1 (twice) unless WEFT_FULL=1: for a row whose
	// runs take minutes each.
	oneSeed bool
}

// rdtscNative is the refusal weft reports where it cannot patch a TSC
// read and this machine cannot trap it (branch cpuid's work): the run
// goes on, and the two runs of each seed must still agree. Since tsc16,
// a program linked with a library whose rdtsc bytes the sweep cannot
// decode (libcrypto, libgcrypt, libgnutls: memcached, redis, node,
// nginx, tarantool) stays patched on such a machine, and the refusal
// names that library alone.
const rdtscNative = "rdtsc"

// cpuNative is the refusal weft reports where it cannot give a node the
// virtual CPU (vkernel/cpu.go) everywhere: code it cannot decode holds a
// CPU-identity instruction's bytes (cpuid, lsl), or the program traps the
// TSC (a library with undecodable rdtsc bytes: libcrypto), so weft does
// not follow the libraries it maps. weft records it and the run goes on.
const cpuNative = "cpuid"

// tscTrap makes weft trap the TSC from the start, for JIT runtimes
// whose code weft cannot patch (the JVM's code cache is writable and
// executable).
const tscTrap = "WEFT_TSC=trap"

// ladder is the table scripts/ladder.sh runs. Postgres is another
// helper's (SysV IPC and users: branch postgres).
var ladder = []rung{
	{name: "memcached", model: "memcached/memcached.model", needs: []string{"/usr/bin/memcached"}, refusals: []string{rdtscNative, cpuNative}},
	{name: "redis-sentinel", model: "redis-sentinel/sentinel.model", needs: []string{"/usr/bin/redis-server", "/usr/bin/redis-sentinel"}, refusals: []string{rdtscNative, cpuNative}},
	{name: "python3", model: "python3/http.model", needs: []string{"/usr/bin/python3.11"}, refusals: []string{rdtscNative, cpuNative}},
	{name: "node", model: "node/http.model", needs: []string{"/usr/bin/node"}, refusals: []string{rdtscNative, cpuNative}},
	{name: "etcd", model: "etcd/etcd.model", needs: []string{"/usr/bin/etcd"}},
	{name: "nats", model: "nats/nats.model", needs: []string{"/usr/sbin/nats-server"}},
	{name: "nginx", model: "nginx/nginx.model", needs: []string{"/usr/sbin/nginx"}, refusals: []string{rdtscNative, cpuNative}},
	{name: "postgres", model: "postgres/postgres.model", needs: []string{"/usr/lib/postgresql/15/bin/postgres", "/usr/bin/psql"}, refusals: []string{rdtscNative, cpuNative}},
	{name: "zookeeper", model: "zookeeper/zookeeper.model", needs: []string{"/usr/bin/java", "/usr/share/java/zookeeper.jar"},
		env: []string{tscTrap}, refusals: []string{rdtscNative, cpuNative}},
	{name: "rabbitmq", model: "rabbitmq/rabbitmq.model", needs: []string{"/usr/lib/rabbitmq/lib/rabbitmq_server-3.10.8/sbin/rabbitmq-server", "/usr/bin/amqp-consume"},
		env: []string{tscTrap}, refusals: []string{rdtscNative, cpuNative}, oneSeed: true},
	{name: "tarantool", model: "tarantool/tarantool.model", needs: []string{"/usr/bin/tarantool"}, refusals: []string{rdtscNative, cpuNative}},
}

// weftBin is the weft binary the rows run, built once by TestMain.
var weftBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weft-ladder")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	weftBin = filepath.Join(dir, "weft")
	// scripts/test.sh builds weft once for every package that runs it
	// (WEFT_TEST_BIN, from this tree); alone, the test builds its own.
	if bin := os.Getenv("WEFT_TEST_BIN"); bin != "" {
		weftBin = bin
	} else if out, err := exec.Command("go", "build", "-o", weftBin, "../../cmd/weft").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building weft: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestLadder runs every program of the ladder under weft on seeds 1 and
// 2 (a oneSeed row seed 1 only, unless WEFT_FULL=1), twice each: each
// run must hold (the model's invariants demand the correct reply to the client's request, checked after quiescence) with
// no refusal beyond the row's, and both runs of a seed must print the
// same result (weft run --json: verdict, steps, virtual time, choices,
// messages, final state, syscalls and refusals; the wall time aside).
// A missing program fails the row when CI=true (scripts/setup.sh installs
// them), else skips it. Each run's wall time is logged: the program's
// start-up and request, under weft.
func TestLadder(t *testing.T) {
	for _, r := range ladder {
		t.Run(r.name, func(t *testing.T) {
			if r.pending != "" {
				t.Skip("pending: " + r.pending)
			}
			requirePrograms(t, r.needs)
			seeds := []int{1, 2}
			if r.oneSeed && os.Getenv("WEFT_FULL") != "1" {
				seeds = seeds[:1]
			}
			for _, seed := range seeds {
				first := runSeed(t, r, seed)
				second := runSeed(t, r, seed)
				if !bytes.Equal(first, second) {
					t.Errorf("seed %d: two runs differ:\n%s", seed, firstDifference(first, second))
				}
			}
		})
	}
}

// requirePrograms fails (CI=true) or skips the row when a program is
// missing.
func requirePrograms(t *testing.T, paths []string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing (scripts/setup.sh installs it): %v", p, err)
			}
			t.Skipf("%s is missing (scripts/setup.sh installs it)", p)
		}
	}
}

// runResult is the part of weft run --json the ladder judges.
type runResult struct {
	Verdict        string
	Detail         string
	Wall           int64
	FirstReplyWall int64 // ns from the run's start to the first reply
	Refusals       []struct {
		Node                     int
		Call, What, Answer, Rule string
	}
}

// runSeed runs the row's model once on seed and checks its verdict and
// refusals; it returns the JSON result with the wall time zeroed.
func runSeed(t *testing.T, r rung, seed int) []byte {
	t.Helper()
	cmd := exec.Command(weftBin, "run", "--json", "--seed", fmt.Sprint(seed), r.model)
	cmd.Env = append(os.Environ(), r.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var res runResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		t.Fatalf("seed %d: weft run: %v, %v\n%s", seed, err, jerr, stderr.String())
	}
	// Where a run's wall time goes: up to the first reply (the program's
	// start-up and the request; FirstReplyWall), the rest of the run
	// (RunResult.Wall, from the run's start), and what the weft process
	// spends outside it (building, loading, exiting).
	t.Logf("seed %d: %s in %.1f s of wall time (first reply at %.1f s, weft's run %.1f s)", seed, res.Verdict, wall.Seconds(),
		time.Duration(res.FirstReplyWall).Seconds(), time.Duration(res.Wall).Seconds())
	if res.Verdict != "holds" || err != nil {
		t.Fatalf("seed %d: %s (%v): %s\n%s", seed, res.Verdict, err, res.Detail, stderr.String())
	}
	for _, f := range res.Refusals {
		text := fmt.Sprintf("n%d %s %s: %s; %s", f.Node, f.Call, f.What, f.Answer, f.Rule)
		if !allowed(text, r.refusals) {
			t.Errorf("seed %d: refused %s", seed, text)
		}
	}
	var generic map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	delete(generic, "Wall")
	delete(generic, "FirstReplyWall") // the host's too
	b, err := json.MarshalIndent(generic, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// allowed reports whether a refusal's text contains one of the row's
// allowed substrings.
func allowed(text string, subs []string) bool {
	for _, s := range subs {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// firstDifference shows the first line at which a and b differ.
func firstDifference(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}

//go:build linux

package mcsdk_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// redisGaps are the engine gaps that stop Debian's redis-server under weft
// today, in the order a run meets them (targets/redis/README.md): other
// parts of the engine are being built for them. A run that ends on any
// other error is a failure of this test.
var redisGaps = []string{
	"unsupported or failed syscall setitimer",                    // signal timers
	"setsockopt level 6 option 4 is not modelled",                // TCP_KEEPIDLE
	"unsupported or failed syscall clone: child processes",       // the fork of the full sync
	"unsupported or failed syscall fork: child processes",        // the same, by another call
	"unsupported or failed syscall setsockopt: setsockopt level", // other TCP keep-alive options
}

// TestRedisReplication runs targets/redis (an unmodified redis-server
// primary and replica, a client writing k twice, state read by GET k and
// INFO replication) on a few seeds, twice each. Today each run must end
// at one of the known engine gaps, identically both times; once the
// engine serves redis it must hold, with the replica's k equal to the
// primary's (a write's value) and identical recordings.
func TestRedisReplication(t *testing.T) {
	m := loadTarget(t, "redis/redis.model")
	for _, seed := range []uint64{1, 2, 3} {
		var runs [2]*mcsdk.RunResult
		for k := range runs {
			res, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			res.Wall = 0
			runs[k] = res
		}
		res := runs[0]
		if res.Verdict != runs[1].Verdict || res.Detail != runs[1].Detail || !reflect.DeepEqual(res.Events, runs[1].Events) || !reflect.DeepEqual(res.Choices, runs[1].Choices) {
			t.Errorf("seed %d: two runs differ: %s %q / %s %q", seed, res.Verdict, res.Detail, runs[1].Verdict, runs[1].Detail)
		}
		switch res.Verdict {
		case mcsdk.Error:
			known := false
			for _, g := range redisGaps {
				known = known || strings.Contains(res.Detail, g)
			}
			if !known {
				t.Errorf("seed %d: redis stopped at an unknown gap: %s", seed, res.Detail)
			}
		case mcsdk.Holds:
			p, r := res.Final.Nodes[0].Vars["val"].String(), res.Final.Nodes[1].Vars["val"].String()
			if p != `"5"` && p != `"7"` || p != r {
				t.Errorf("seed %d: holds with primary k = %s, replica k = %s: want one written value on both", seed, p, r)
			}
		default:
			t.Errorf("seed %d: verdict %s %v: %s", seed, res.Verdict, res.Violated, res.Detail)
		}
	}
}

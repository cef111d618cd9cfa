//go:build linux

package mcsdk_test

import (
	"reflect"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestRedisReplication runs targets/redis (an unmodified redis-server
// primary and replica, a client writing k twice, the replica crashing once
// and restarting, state read by GET k and INFO replication) on seeds 1–3,
// twice each. Every run must hold, with the replica's k equal to the
// primary's (a written value) after quiescence, and both runs of a seed
// must be identical (verdict, detail, timeline, choices). Seed 3 used to
// spin forever after the primary's diskless-sync fork (TestProcs/rdbchild).
func TestRedisReplication(t *testing.T) {
	m := loadTarget(t, "redis/redis.model")
	for _, seed := range []uint64{1, 2, 3} {
		checkRedisSeed(t, m, seed)
	}
}

// TestRedisReplicationTenSeeds is the same on seeds 1–10, and requires the
// replica's crash and restart in at least one of them (a full resync after
// a restart is what the model is about).
func TestRedisReplicationTenSeeds(t *testing.T) {
	m := loadTarget(t, "redis/redis.model")
	restarts := 0
	for seed := uint64(1); seed <= 10; seed++ {
		for _, f := range checkRedisSeed(t, m, seed).Faults {
			if f.Kind == sched.Restart && f.Node == 1 {
				restarts++
			}
		}
	}
	if restarts == 0 {
		t.Errorf("no seed of 1–10 restarted the replica: the model's fault is never exercised")
	}
}

// checkRedisSeed runs one seed twice and checks the verdict and the final
// values; it returns the first run.
func checkRedisSeed(t *testing.T, m *model.Model, seed uint64) *mcsdk.RunResult {
	t.Helper()
	var runs [2]*mcsdk.RunResult
	for k := range runs {
		res, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		res.Wall, res.FirstReplyWall = 0, 0
		runs[k] = res
	}
	res := runs[0]
	if res.Verdict != runs[1].Verdict || res.Detail != runs[1].Detail || !reflect.DeepEqual(res.Events, runs[1].Events) || !reflect.DeepEqual(res.Choices, runs[1].Choices) {
		t.Errorf("seed %d: two runs differ: %s %q / %s %q", seed, res.Verdict, res.Detail, runs[1].Verdict, runs[1].Detail)
	}
	if res.Verdict != mcsdk.Holds {
		t.Errorf("seed %d: verdict %s %v: %s", seed, res.Verdict, res.Violated, res.Detail)
		return res
	}
	p, r := res.Final.Nodes[0].Vars["val"].String(), res.Final.Nodes[1].Vars["val"].String()
	if p != `"5"` && p != `"7"` || p != r {
		t.Errorf("seed %d: holds with primary k = %s, replica k = %s: want one written value on both", seed, p, r)
	}
	if l := res.Final.Nodes[1].Vars["link"].String(); l != `"up"` {
		t.Errorf("seed %d: the replica's master_link_status is %s, want \"up\"", seed, l)
	}
	return res
}

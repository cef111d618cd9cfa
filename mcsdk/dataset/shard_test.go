package dataset

import "testing"

func TestShardRange(t *testing.T) {
	tests := []struct {
		k, n, seeds int
		lo, hi      int
		ok          bool
	}{
		{1, 1, 10, 0, 10, true},
		{1, 4, 10, 0, 2, true},
		{2, 4, 10, 2, 5, true},
		{3, 4, 10, 5, 7, true},
		{4, 4, 10, 7, 10, true},
		{3, 5, 2, 0, 1, true}, // more shards than seeds: some are empty
		{1, 5, 2, 0, 0, true},
		{2, 2, 0, 0, 0, true},
		{0, 4, 10, 0, 0, false},
		{5, 4, 10, 0, 0, false},
		{1, 0, 10, 0, 0, false},
		{1, 1, -1, 0, 0, false},
	}
	for _, tc := range tests {
		lo, hi, err := ShardRange(tc.k, tc.n, tc.seeds)
		if (err == nil) != tc.ok || lo != tc.lo || hi != tc.hi {
			t.Errorf("ShardRange(%d, %d, %d) = %d, %d, %v; want %d, %d, ok=%v", tc.k, tc.n, tc.seeds, lo, hi, err, tc.lo, tc.hi, tc.ok)
		}
	}
}

// TestShardsPartition checks the shards of many splits tile the seeds
// exactly, with sizes differing by at most one.
func TestShardsPartition(t *testing.T) {
	for _, seeds := range []int{0, 1, 7, 100, 1001} {
		for n := 1; n <= 9; n++ {
			next, minSize, maxSize := 0, seeds, 0
			for k := 1; k <= n; k++ {
				lo, hi, err := ShardRange(k, n, seeds)
				if err != nil || lo != next || hi < lo {
					t.Fatalf("seeds %d, shard %d/%d = [%d, %d) %v, want to start at %d", seeds, k, n, lo, hi, err, next)
				}
				next = hi
				minSize, maxSize = min(minSize, hi-lo), max(maxSize, hi-lo)
			}
			if next != seeds || maxSize-minSize > 1 {
				t.Errorf("seeds %d over %d shards: cover [0, %d), sizes %d..%d", seeds, n, next, minSize, maxSize)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		k, n int
		ok   bool
	}{
		{"1/4", 1, 4, true}, {"4/4", 4, 4, true}, {" 2 / 3 ", 2, 3, true},
		{"0/4", 0, 0, false}, {"5/4", 0, 0, false}, {"1/0", 0, 0, false},
		{"1", 0, 0, false}, {"a/b", 0, 0, false}, {"", 0, 0, false}, {"1/2/3", 0, 0, false},
	}
	for _, tc := range tests {
		k, n, err := ParseShard(tc.in)
		if k != tc.k || n != tc.n || (err == nil) != tc.ok {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, k, n, err)
		}
	}
}

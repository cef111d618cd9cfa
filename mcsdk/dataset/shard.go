package dataset

import (
	"fmt"
	"strconv"
	"strings"
)

// ShardRange returns the seeds [lo, hi) that shard k of n runs when a
// campaign's seeds 0..seeds-1 are split over n machines (k counts from 1,
// as in --shard 1/4 … 4/4). The shards are contiguous, disjoint, cover
// every seed, and their sizes differ by at most one:
//
//	lo = (k-1)·seeds/n,  hi = k·seeds/n   (integer division)
func ShardRange(k, n, seeds int) (lo, hi int, err error) {
	switch {
	case n < 1:
		return 0, 0, fmt.Errorf("dataset: shard count %d, want at least 1", n)
	case k < 1 || k > n:
		return 0, 0, fmt.Errorf("dataset: shard %d of %d, want 1 to %d", k, n, n)
	case seeds < 0:
		return 0, 0, fmt.Errorf("dataset: %d seeds, want 0 or more", seeds)
	}
	at := func(i int) int { return int(int64(i) * int64(seeds) / int64(n)) }
	return at(k - 1), at(k), nil
}

// ParseShard parses a --shard value "K/N" (1 ≤ K ≤ N).
func ParseShard(s string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(s, "/")
	if ok {
		k, err = strconv.Atoi(strings.TrimSpace(ks))
		if err == nil {
			n, err = strconv.Atoi(strings.TrimSpace(ns))
		}
	}
	if !ok || err != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("dataset: shard %q, want K/N with 1 ≤ K ≤ N (e.g. 2/4)", s)
	}
	return k, n, nil
}

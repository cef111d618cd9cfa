#!/usr/bin/env bash
# Benchmarks, side by side in one run: supervised vs native syscalls and
# messages, a Go request/response round trip and a Go binary's start-up
# (targets: net TCP under weft vs native loopback), exhaustive-check
# throughput, campaign throughput, datasets,
# Porcupine linearizability checking (100/1,000/10,000-op histories),
# kernel start-up. Prints the ratios. Run scripts/setup.sh first.
#   scripts/bench.sh            all benchmarks, 5 iterations each
#   scripts/bench.sh -count 3   extra flags go to go test
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench . -benchtime 5x "$@" \
  ./mcsdk/supervisor/ ./mcsdk/ ./mcsdk/dataset/ ./mcsdk/history/ ./kernel/ 2>&1 | tee build/bench.txt
echo
echo "ratios (supervised/native; goal for a delivered message: ≤ 1.5 × 17 µs):"
grep -E "ratio|goal|speedup" build/bench.txt | sed 's/^/  /'

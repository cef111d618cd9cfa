#!/usr/bin/env bash
# Issue 14's Go program: SEEDS seeds (default 100) of targets/gothreads, each
# run twice with its recordings compared byte for byte (--check-determinism),
# and at least 4 OS threads in every run as `weft trace` reports them.
#   scripts/gothreads-determinism.sh [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-100}
go build -o bin/weft ./cmd/weft
go build -o targets/gothreads/gothreads ./targets/gothreads
out=build/gothreads-$seeds
rm -rf "$out"
bin/weft campaign targets/gothreads/gothreads.model --seeds "$seeds" --check-determinism --record all --out "$out"
few=0
for rec in "$out"/recordings/*.weftlog; do
  n=$(bin/weft trace "$rec" | sed -n 's/^# threads n0=\([0-9]*\).*/\1/p')
  if [ -z "$n" ] || [ "$n" -lt 4 ]; then
    echo "$rec: ${n:-no} threads (want at least 4)" >&2
    few=$((few + 1))
  fi
done
runs=$(ls "$out"/recordings/*.weftlog | wc -l)
if [ "$runs" -ne "$seeds" ] || [ "$few" -ne 0 ]; then
  echo "FAILED: $runs recordings for $seeds seeds, $few runs with fewer than 4 threads" >&2
  exit 1
fi
echo "$seeds seeds: every run twice byte-identical, at least 4 OS threads in each"

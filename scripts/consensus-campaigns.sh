#!/usr/bin/env bash
# The consensus campaigns (issue 17): every variant of ZAB and Humming
# Consensus over SEEDS seeds (crashes, restarts, partitions, lost unsynced
# writes, clock faults), twice, then the seed-by-seed comparison of the two
# runs, the statistics and the report section.
#   scripts/consensus-campaigns.sh [SEEDS] [TARGETS]   (default 500, "zab humming")
# Results go to datasets/TARGET-SEEDS-run1 and -run2, the reports (both
# runs, with the consensus section of targets/consensus/section) to
# build/TARGET-report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-500}
targets=${2:-zab humming}
go build -o bin/weft ./cmd/weft
mkdir -p build
for t in $targets; do
  for run in run1 run2; do
    out=datasets/$t-$seeds-$run
    rm -rf "$out"
    start=$(date +%s.%N)
    bin/weft campaign "targets/$t/$t.model" --seeds "$seeds" --run "$run" --out "$out"
    end=$(date +%s.%N)
    echo "$t $run: wall time $(echo "$end - $start" | bc) s on $(nproc) cores"
    bin/weft export "$out" --format csv -o "build/$t-$run.csv"
  done
  if diff <(cut -d, -f5-13 "build/$t-run1.csv" | sort) <(cut -d, -f5-13 "build/$t-run2.csv" | sort) >/dev/null; then
    echo "$t: identical verdict for every seed in both runs"
  else
    echo "$t: VERDICTS DIFFER between the two runs" >&2
    exit 1
  fi
  bin/weft stats "datasets/$t-$seeds-run1" "datasets/$t-$seeds-run2"
  go run ./targets/consensus/section -o "build/$t-section.html" "datasets/$t-$seeds-run1"
  bin/weft report "datasets/$t-$seeds-run1" "datasets/$t-$seeds-run2" --section "build/$t-section.html" \
    --claim "rate(bug) > 0%" --claim "rate(correct) <= 1%" -o "build/$t-report.html"
  echo "report: build/$t-report.html"
done

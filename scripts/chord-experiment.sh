#!/usr/bin/env bash
# The Chord liveness-discipline experiment (issue 8): the 3 × 500 campaign,
# twice, with the wall time of each, then the seed-by-seed comparison and
# the statistics. Results go to datasets/chord-SEEDS-run1 and -run2.
#   scripts/chord-experiment.sh [SEEDS]     (default 500)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-500}
go build -o bin/weft ./cmd/weft
for run in run1 run2; do
  out=datasets/chord-$seeds-$run
  rm -rf "$out"
  start=$(date +%s.%N)
  bin/weft campaign targets/chord/chord.model --seeds "$seeds" --variants orig,fix1,fix2 --run "$run" --out "$out"
  end=$(date +%s.%N)
  echo "$run: wall time $(echo "$end - $start" | bc) s on $(nproc) cores"
done
echo "== seed-by-seed comparison of run1 and run2"
for run in run1 run2; do
  bin/weft export datasets/chord-$seeds-$run --format csv -o build/chord-$run.csv
done
if diff <(cut -d, -f5-13 build/chord-run1.csv | sort) <(cut -d, -f5-13 build/chord-run2.csv | sort) >/dev/null; then
  echo "identical verdict for every seed"
else
  echo "VERDICTS DIFFER between the two runs" >&2
  exit 1
fi
echo "== statistics (both runs: drift must be exactly zero)"
bin/weft stats datasets/chord-$seeds-run1 datasets/chord-$seeds-run2

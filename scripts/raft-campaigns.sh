#!/usr/bin/env bash
# The Raft campaigns (issue 17): each variant of targets/raft (etcd's raft
# v3.7.0; one model per variant) over SEEDS seeds with its faults (crashes,
# restarts, partitions, lost unsynced writes, clock offsets, drift and
# jumps), twice, then the seed-by-seed comparison of the two runs, the
# statistics and the report with its Raft section.
#   scripts/raft-campaigns.sh [SEEDS] [VARIANTS]   (default 500, "correct persist-late lease-unsafe")
# A lease-unsafe run is 4.7 s of virtual time (etcd's timing, kv -tick=100ms):
# about 25 s of wall time on 2 shared cores, so its 500 seeds twice take hours
# (targets/raft/README.md ran it as "scripts/raft-campaigns.sh 40 lease-unsafe").
# Results go to datasets/raft-VARIANT-SEEDS-run1 and -run2, the verdicts to
# build/raft-VARIANT-run1.csv and -run2.csv, the report (every run, with the
# section of targets/consensus/section: one table for the per-variant
# models, the claims, the run-twice comparison, each bug variant's shrunk
# trace) to build/raft-report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-500}
variants=${2:-correct persist-late lease-unsafe}
go build -o bin/weft ./cmd/weft
(cd targets/raft && CGO_ENABLED=0 go build -trimpath -o kv/kv ./kv)
mkdir -p build
for v in $variants; do
  for run in run1 run2; do
    out=datasets/raft-$v-$seeds-$run
    rm -rf "$out"
    start=$(date +%s.%N)
    bin/weft campaign "targets/raft/kv/raft-$v.model" --seeds "$seeds" --first-seed 1 --run "$run" --out "$out"
    end=$(date +%s.%N)
    echo "raft-$v $run: wall time $(echo "$end - $start" | bc) s on $(nproc) cores"
    bin/weft export "$out" --format csv -o "build/raft-$v-$run.csv"
  done
  # Columns 5-13: variant, seed, verdict, invariants, first step and time, steps, states, virtual time.
  if diff <(cut -d, -f5-13 "build/raft-$v-run1.csv" | sort) <(cut -d, -f5-13 "build/raft-$v-run2.csv" | sort) >/dev/null; then
    echo "raft-$v: identical verdict for every seed in both runs"
  else
    echo "raft-$v: VERDICTS DIFFER between the two runs" >&2
    exit 1
  fi
  bin/weft stats "datasets/raft-$v-$seeds-run1" "datasets/raft-$v-$seeds-run2"
  # Column 7 is the verdict: correct must violate nothing on any seed (issue 17).
  if [[ $v == correct ]] && cut -d, -f7 "build/raft-$v-run1.csv" | tail -n +2 | grep -qE '^(violated|error)$'; then
    echo "raft-correct: a seed violated an invariant or ended in error" >&2
    exit 1
  fi
done
sets=()
runs=()
for v in $variants; do
  sets+=("datasets/raft-$v-$seeds-run1")
  runs+=("datasets/raft-$v-$seeds-run1" "datasets/raft-$v-$seeds-run2")
done
go run ./targets/consensus/section -o build/raft-section.html "${sets[@]}"
# Every Raft dataset's only variant is "default" (one model per variant):
# the claims are the section's, by the variant each model's name gives.
bin/weft report "${runs[@]}" --section build/raft-section.html --no-default-claim -o build/raft-report.html
echo "report: build/raft-report.html"

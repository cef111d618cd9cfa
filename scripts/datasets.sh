#!/usr/bin/env bash
# Regenerates the datasets shipped in datasets/shipped (the evidence the
# notebooks and weft report open) from the current models.
#   scripts/datasets.sh [NAME...]      (default: every dataset below)
# Each campaign runs into build/datasets-work/NAME (WEFT_DATASETS_WORK sets
# where) with weft campaign's progress bar and ETA; rerunning resumes where
# an interrupted run stopped. Then each is compacted into
# datasets/shipped/NAME: one ZSTD-compressed Arrow IPC file, the recordings
# of the runs that did not hold, every file with its sha256 in
# manifest.json. The campaigns are deterministic: the same model, variant
# and seed give the same row (but its campaign id and wall time) and the
# same recording, byte for byte; go test ./notebooks -run
# TestShippedDatasets checks a sample of each dataset against the models.
#
# The shipped sizes fit a few minutes of 2 cores per dataset (datasets/
# README.md lists them); the full sizes of the write-ups (chord's
# attribution and perfect-detection campaigns 500 seeds, zab and humming
# 2 × 500, raft 500 of each of its three models) are the notebooks'
# WEFT_NOTEBOOK_SEEDS away. etcd-100 runs every seed twice and compares
# the recordings (--check-determinism); it is scripts/campaigns.sh's etcd
# campaign, which may be compacted instead of run again.
set -euo pipefail
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
cd "$(dirname "$0")/.."
work=${WEFT_DATASETS_WORK:-build/datasets-work}
# name, model, seeds, first seed, variants (- for all)
specs=(
  "chord-500 targets/chord/chord.model 500 0 -"
  "chord-attribution-100 targets/chord/chord-attribution.model 100 0 -"
  "chord-perfect-100 targets/chord/chord-perfect.model 100 0 orig,fix1,fix2"
  "paxos-2000 targets/paxos/paxos.model 2000 0 -"
  "zab-200 targets/zab/zab.model 200 0 -"
  "humming-200 targets/humming/humming.model 200 0 -"
  "raft-correct-40 targets/raft/kv/raft-correct.model 40 1 -"
  "raft-persist-late-60 targets/raft/kv/raft-persist-late.model 60 1 -"
  "raft-lease-unsafe-25 targets/raft/kv/raft-lease-unsafe.model 25 1 -"
  "etcd-100 targets/etcd/etcd.model 100 0 - --check-determinism"
)
want=" $* "
go build -o bin/weft ./cmd/weft
(cd targets/raft && CGO_ENABLED=0 go build -trimpath -o kv/kv ./kv)
mkdir -p "$work"
selected=()
for spec in "${specs[@]}"; do
  read -r name _ <<<"$spec"
  if [[ $# -eq 0 || $want == *" $name "* ]]; then
    selected+=("$spec")
  fi
done
if [[ ${#selected[@]} -eq 0 ]]; then
  echo "datasets.sh: no dataset named $*; known: $(printf '%s\n' "${specs[@]}" | cut -d' ' -f1 | tr '\n' ' ')" >&2
  exit 2
fi
i=0
for spec in "${selected[@]}"; do
  read -r name model seeds first variants flags <<<"$spec"
  i=$((i + 1))
  echo "[$i/${#selected[@]}] $name: $model, seeds $first..$((first + seeds - 1))" >&2
  args=(campaign "$model" --seeds "$seeds" --first-seed "$first" --out "$work/$name")
  [[ $variants == - ]] || args+=(--variants "$variants")
  [[ -z ${flags:-} ]] || args+=($flags)
  start=$(date +%s)
  bin/weft "${args[@]}"
  echo "[$i/${#selected[@]}] $name: $(($(date +%s) - start)) s" >&2
done
for spec in "${selected[@]}"; do
  read -r name _ <<<"$spec"
  rm -rf "datasets/shipped/$name"
  go run ./scripts/compact "$work/$name" "datasets/shipped/$name"
done
du -sb datasets/shipped/* datasets/shipped

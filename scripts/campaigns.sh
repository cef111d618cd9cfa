#!/usr/bin/env bash
# Issue 37's linearizability campaigns on unmodified Debian servers, in
# full: etcd 3.4 (targets/etcd/etcd.model, 100 seeds) and ZooKeeper 3.8
# (targets/zookeeper/zookeeper.model, 20 seeds, WEFT_TSC=trap), each seed
# run twice and its recordings compared (--check-determinism). Datasets go
# to datasets/campaigns/ (rerunning resumes an interrupted campaign: the
# seeds already kept are not compared again). Prints each campaign's
# summary, its wall seconds per seed, and Porcupine's results counted over
# the verdict rows. TestCampaigns (targets/real) runs the small versions.
#   scripts/campaigns.sh [etcd|zookeeper]...   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/weft ./cmd/weft
out=datasets/campaigns
mkdir -p "$out"
run() { # name model seeds [env...]
  local name=$1 model=$2 seeds=$3
  shift 3
  local start=$SECONDS
  echo "== $name: $seeds seeds of $model, twice each"
  env "$@" bin/weft campaign --check-determinism --seeds "$seeds" --out "$out/$name" "$model" 2>&1 | tr '\r' '\n' | grep -v '^[0-9]*/[0-9]* runs' || true
  echo "$name: $(( (SECONDS - start) / seeds )) s of wall time per seed (both runs)"
  bin/weft export "$out/$name" --format csv -o "$out/$name.csv" >/dev/null
  echo "$name: Porcupine's results over $(($(wc -l <"$out/$name.csv") - 1)) rows:"
  grep -o 'porcupine=[^;"]*' "$out/$name.csv" | sed 's/ ([0-9]* operations)//' | sort | uniq -c
}
for c in "${@:-etcd zookeeper}"; do
  for name in $c; do
    case $name in
    etcd) run etcd targets/etcd/etcd.model 100 ;;
    zookeeper) run zookeeper targets/zookeeper/zookeeper.model 20 WEFT_TSC=trap ;;
    *) echo "campaigns.sh: unknown campaign $name (etcd, zookeeper)" >&2; exit 2 ;;
    esac
  done
done

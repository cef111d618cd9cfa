#!/usr/bin/env bash
# The Go quorum service (targets/goquorum) is deterministic: a campaign of
# SEEDS seeds (default 200) of the fixed and the bug model, run twice,
# gives identical verdict rows (every column but wall time, campaign and
# recording path) and byte-identical recordings of every run.
# usage: scripts/goquorum-determinism.sh [SEEDS]   (TestGoQuorumSeeded: 20)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-200}
weft=${WEFT:-build/weft}
go build -o "$weft" ./cmd/weft
go build -o targets/goquorum/goquorum ./targets/goquorum
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Columns compared: all but campaign_id, wall_time_us and recording_path.
cols='2-13,16-'
status=0
for m in goquorum goquorum-bug; do
	for k in 1 2; do
		"$weft" campaign "targets/goquorum/$m.model" --seeds "$seeds" --record all --out "$out/$m-$k" >/dev/null
		"$weft" export "$out/$m-$k" --format csv -o "$out/$m-$k.csv" >/dev/null
		cut -d, -f"$cols" "$out/$m-$k.csv" | sort >"$out/$m-$k.rows"
	done
	if ! cmp -s "$out/$m-1.rows" "$out/$m-2.rows"; then
		echo "$m: the verdict rows differ:" >&2
		diff "$out/$m-1.rows" "$out/$m-2.rows" | head >&2
		status=1
	fi
	if ! diff -r "$out/$m-1/recordings" "$out/$m-2/recordings" >/dev/null; then
		echo "$m: the recordings differ" >&2
		status=1
	fi
	n=$(ls "$out/$m-1/recordings" | wc -l)
	v=$(grep -c ',violated,' "$out/$m-1.csv" || true)
	echo "$m: $seeds seeds twice, $n recordings byte-identical, verdict rows identical, $v violated"
done
exit $status

#!/usr/bin/env bash
# weft's vDSO changes no run: a campaign of MODEL over SEEDS seeds with the
# vDSO (the default) and without it (WEFT_NO_VDSO=1: every clock read an
# intercepted syscall) gives identical verdict rows (every column but
# campaign, wall time and recording path) and byte-identical recordings.
# Exits 1 if they differ. TestVDSO and TestVDSOGo are its CI version.
#   scripts/vdso-equivalence.sh [MODEL] [SEEDS]
#   (default: targets/goquorum/goquorum-bug.model, 200 seeds)
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-targets/goquorum/goquorum-bug.model}
seeds=${2:-200}
go build -o bin/weft ./cmd/weft
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for k in vdso novdso; do
	start=$(date +%s.%N)
	WEFT_NO_VDSO=$([ $k = novdso ] && echo 1) bin/weft campaign "$model" --seeds "$seeds" --record all --out "$out/$k" >/dev/null
	end=$(date +%s.%N)
	bin/weft export "$out/$k" --format csv -o "$out/$k.csv" >/dev/null
	cut -d, -f2-13,16- "$out/$k.csv" | sort >"$out/$k.rows"
	echo "$k: $seeds seeds in $(echo "$end - $start" | bc) s, $(grep -c ',violated,' "$out/$k.csv" || true) violated"
done
status=0
if cmp -s "$out/vdso.rows" "$out/novdso.rows"; then
	echo "verdict rows identical"
else
	echo "the verdict rows differ:" >&2
	diff "$out/vdso.rows" "$out/novdso.rows" | head >&2
	status=1
fi
if diff -r "$out/vdso/recordings" "$out/novdso/recordings" >/dev/null; then
	echo "recordings byte-identical ($(ls "$out/vdso/recordings" | wc -l))"
else
	echo "the recordings differ" >&2
	status=1
fi
exit $status

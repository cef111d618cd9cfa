#!/usr/bin/env bash
# A speed-up changes no run: a campaign of MODEL over SEEDS seeds by
# default and with the speed-up switched off gives identical verdict rows
# (every column but campaign, wall time and recording path) and
# byte-identical recordings. Exits 1 if they differ.
#   scripts/equivalence.sh vdso [MODEL] [SEEDS]   weft's vDSO against
#       WEFT_NO_VDSO=1 (every clock read an intercepted syscall); CI: TestVDSO, TestVDSOGo
#   scripts/equivalence.sh tsc [MODEL] [SEEDS]    patched TSC reads against
#       WEFT_TSC=trap (PR_SET_TSC); CI: TestTSCPatch
#   (default: targets/goquorum/goquorum-bug.model, 200 seeds)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: scripts/equivalence.sh vdso|tsc [MODEL] [SEEDS]}
model=${2:-targets/goquorum/goquorum-bug.model}
seeds=${3:-200}
case $what in
vdso) off=(WEFT_NO_VDSO=1) ;;
tsc) off=(WEFT_TSC=trap) ;;
*) echo "equivalence.sh: vdso or tsc, not $what" >&2; exit 2 ;;
esac
go build -o bin/weft ./cmd/weft
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for k in on off; do
	start=$(date +%s.%N)
	env $([ $k = off ] && echo "${off[@]}") bin/weft campaign "$model" --seeds "$seeds" --record all --out "$out/$k" >/dev/null
	end=$(date +%s.%N)
	bin/weft export "$out/$k" --format csv -o "$out/$k.csv" >/dev/null
	cut -d, -f2-13,16- "$out/$k.csv" | sort >"$out/$k.rows"
	echo "$what $k: $seeds seeds in $(echo "$end - $start" | bc) s, $(grep -c ',violated,' "$out/$k.csv" || true) violated"
done
status=0
if cmp -s "$out/on.rows" "$out/off.rows"; then
	echo "verdict rows identical"
else
	echo "the verdict rows differ:" >&2
	diff "$out/on.rows" "$out/off.rows" | head >&2
	status=1
fi
if diff -r "$out/on/recordings" "$out/off/recordings" >/dev/null; then
	echo "recordings byte-identical ($(ls "$out/on/recordings" | wc -l))"
else
	echo "the recordings differ" >&2
	status=1
fi
exit $status

#!/usr/bin/env bash
# The Go quorum service (targets/goquorum) checked exhaustively, issue 15's
# Must show: with one fixed thread schedule per node (--threads fixed: the
# Go runtime's threads run round-robin at syscalls; the world's choices —
# client requests, deliveries, timers — are all explored), the bug model
# violates acked_on_majority (exit 1) and the fixed model holds (exit 0),
# both within DEPTH (default: the models' environment.depth, 12), under the
# globals abstraction (declared globals, threads, network, clocks).
# TestGoQuorumCheck runs the same path to depth 6 (bug) and 4 (fixed).
# usage: scripts/goquorum-check.sh [DEPTH]
set -uo pipefail
cd "$(dirname "$0")/.."
weft=${WEFT:-build/weft}
go build -o "$weft" ./cmd/weft || exit 2
go build -o targets/goquorum/goquorum ./targets/goquorum || exit 2
depth=()
[ $# -ge 1 ] && depth=(--depth "$1")
status=0
for m in goquorum-bug:1 goquorum:0; do
	name=${m%:*} want=${m#*:}
	start=$(date +%s)
	"$weft" check "targets/goquorum/$name.model" --threads fixed --abstraction globals "${depth[@]}" --save /dev/null
	got=$?
	echo "$name: exit $got (want $want) in $(($(date +%s) - start)) s"
	[ "$got" = "$want" ] || status=1
done
exit $status

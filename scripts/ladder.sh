#!/usr/bin/env bash
# Issue 37's ladder: runs targets/real's table (TestLadder: each program
# under the real weft binary, a real protocol request, seeds 1 and 2 twice
# each) and prints one line per program, then "ladder: N of 11 serve".
# A row that is pending, or whose program is missing outside CI, does
# not serve.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -count=1 -timeout 60m -v -run '^TestLadder$' ./targets/real/ >"$log" 2>&1
grep -E '^\s+ladder_linux_test.go:[0-9]+: (seed|pending)' "$log" || true
echo "program          result"
awk '/^    --- (PASS|FAIL|SKIP): TestLadder\//{
  split($3, a, "/"); r = $2 == "PASS:" ? "serves" : ($2 == "SKIP:" ? "does not serve (skipped)" : "does not serve (fails)")
  printf "%-16s %s %s\n", a[2], r, $4 }' "$log"
if grep -q '^FAIL\|panic:' "$log"; then grep -E '^\s+ladder_linux_test.go:[0-9]+:' "$log" | grep -v ': seed [12]: holds' | head -40; fi
serve=$(grep -cE '^    --- PASS: TestLadder/' "$log")
echo "ladder: $serve of 11 serve"

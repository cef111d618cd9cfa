#!/usr/bin/env bash
# Issue 37's ladder: runs targets/real's table (TestLadder: each program
# under the real weft binary, a real protocol request, seeds 1 and 2 twice
# each) and prints each program's result and its runs' wall times, then
# "ladder: N of 11 serve". A row that is pending, or whose program is
# missing outside CI, does not serve.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
go test -count=1 -timeout 60m -v -run '^TestLadder$' ./targets/real/ >"$log" 2>&1
# Per program: its result line, then what its runs logged (wall times,
# why it is pending, the first difference between two runs, a failure).
awk '
/^=== RUN   TestLadder\//     { split($3, a, "/"); prog = a[2]; next }
/^    ladder_linux_test.go:/ { sub(/^    ladder_linux_test.go:[0-9]+: /, ""); lines[prog] = lines[prog] "    " $0 "\n"; last = prog; next }
/^        /                  { if (last != "") lines[last] = lines[last] "    " $0 "\n"; next }
/^    --- (PASS|FAIL|SKIP): TestLadder\// {
  split($3, a, "/"); p = a[2]
  r = $2 == "PASS:" ? "serves" : ($2 == "SKIP:" ? "does not serve (pending or missing)" : "does not serve (fails)")
  printf "%-16s %s %s\n%s", p, r, $4, lines[p]; last = ""
}' "$log"
grep -E '^(FAIL|ok|panic:)|build failed' "$log" | head -5
serve=$(grep -cE '^    --- PASS: TestLadder/' "$log")
echo "ladder: $serve of 11 serve"

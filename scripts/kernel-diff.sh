#!/usr/bin/env bash
# Differential test of the Go kernel: runs each program of
# kernel/testdata/diff (or those named) with `go run` and in the kernel
# through jupyter_client, compares the outputs exactly, and ends with
# `kernel differential: N of M identical (R refused, W different)`.
# Exits non-zero unless every case is identical (a refusal, a different
# output or a program go run cannot run fails it). KDIFF_JOBS=N runs N cases at once (2).
#   scripts/kernel-diff.sh [CASE...]      (CASE: a name such as mod_uuid)
# Needs the go command, the Go module proxy and Debian's python3-jupyter-client.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
# WEFT_TEST_BIN: a weft built from this tree already (scripts/test.sh's,
# or the kernel tests' shared one); without it, build one.
weft=${WEFT_TEST_BIN:-}
if [[ -z $weft ]]; then
	weft=$work/weft
	go build -o "$weft" ./cmd/weft
fi
"$weft" kernel install --prefix "$work" --name weft-kdiff >/dev/null
cases=()
if [[ $# -gt 0 ]]; then
	for c in "$@"; do cases+=("kernel/testdata/diff/${c%.go}.go"); done
else
	cases=(kernel/testdata/diff/*.go)
fi
echo "kernel-diff: ${#cases[@]} programs" >&2
JUPYTER_PATH="$work/share/jupyter" JUPYTER_PLATFORM_DIRS=1 WEFT_GOPATH="$work/gopath" \
	/usr/bin/python3 kernel/testdata/kdiff.py weft-kdiff "${cases[@]}"

#!/usr/bin/env bash
# Regenerates kernel/symbols: yaegi symbol tables for weft's display package
# and for whichever of weft's notebook-facing packages exist and compile
# (mcsdk, mcsdk/model, mcsdk/dataset, mcsdk/weftlog, analysis, analysis/charts). Run from anywhere:
#   kernel/gen_symbols.sh          (or: go generate ./kernel/symbols)
# Prints the packages bound. The generated files are committed.
# WEFT_SYMBOLS="kernel/display analysis" limits the run to those packages
# (the tables of all others are removed: list every package you want).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/kernel/symbols"
mod=github.com/weft-mc/weft
candidates=(${WEFT_SYMBOLS:-kernel/display mcsdk mcsdk/model mcsdk/dataset mcsdk/weftlog analysis analysis/charts report targets/chord/chordcheck})
rm -f ./github_com-weft-mc-weft-*.go
bound=()
for p in "${candidates[@]}"; do
	if [[ ! -d $root/$p ]] || ! ls "$root/$p"/*.go >/dev/null 2>&1; then
		echo "skip $mod/$p: no Go files" >&2
		continue
	fi
	if ! (cd "$root" && go build "./$p" 2>/dev/null); then
		echo "skip $mod/$p: does not compile" >&2
		continue
	fi
	go run github.com/traefik/yaegi/cmd/yaegi extract -name symbols "$mod/$p"
	bound+=("$mod/$p")
done
gofmt -w ./github_com-weft-mc-weft-*.go
if ! (cd "$root" && go build ./kernel/symbols); then
	echo "generated symbols do not compile" >&2
	exit 1
fi
printf 'bound %s\n' "${bound[@]}"

#!/usr/bin/env bash
# Regenerates kernel/symbols: yaegi symbol tables for weft's display package
# and for whichever of weft's notebook-facing packages exist and compile
# (mcsdk, mcsdk/model, mcsdk/dataset, mcsdk/weftlog, analysis, analysis/charts). Run from anywhere:
#   kernel/gen_symbols.sh          (or: go generate ./kernel/symbols)
# Also binds the third-party packages listed in extra below.
# Prints the packages bound. The generated files are committed.
# WEFT_SYMBOLS="kernel/display analysis" limits the run to those packages
# (the tables of all others are removed: list every package you want).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/kernel/symbols"
mod=github.com/weft-mc/weft
candidates=(${WEFT_SYMBOLS:-kernel/display mcsdk mcsdk/model mcsdk/dataset mcsdk/weftlog analysis analysis/charts report})
rm -f ./github_com-weft-mc-weft-*.go
bound=()
# Third-party packages notebooks use, bound so that they import without
# %go get (their versions are weft's go.mod's). WEFT_SYMBOLS_EXTRA=""
# skips them.
extra=(${WEFT_SYMBOLS_EXTRA-gonum.org/v1/gonum/stat gonum.org/v1/gonum/stat/distuv gonum.org/v1/gonum/mat
	gonum.org/v1/gonum/floats gonum.org/v1/gonum/optimize
	github.com/apache/arrow-go/v18/arrow github.com/apache/arrow-go/v18/arrow/array
	github.com/apache/arrow-go/v18/arrow/memory github.com/apache/arrow-go/v18/arrow/ipc
	github.com/apache/arrow-go/v18/arrow/compute
	github.com/go-echarts/go-echarts/v2/charts github.com/go-echarts/go-echarts/v2/opts
	github.com/go-echarts/go-echarts/v2/components github.com/go-echarts/go-echarts/v2/types})
if [[ -n ${WEFT_SYMBOLS_EXTRA-x} ]]; then
	rm -f ./gonum_org-*.go ./github_com-apache-*.go ./github_com-go-echarts-*.go
fi
for p in "${extra[@]}"; do
	go run github.com/traefik/yaegi/cmd/yaegi extract -name symbols "$p"
	bound+=("$p")
done
# arrow's array package names arrow's internal json package, an alias of
# goccy/go-json (the default build), which kernel/symbols may not import.
sed -i 's|"github.com/apache/arrow-go/v18/internal/json"|json "github.com/goccy/go-json"|' \
	./github_com-apache-arrow-go-v18-arrow-array.go 2>/dev/null || true
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
gofmt -w ./*.go
if ! (cd "$root" && go build ./kernel/symbols); then
	echo "generated symbols do not compile" >&2
	exit 1
fi
printf 'bound %s\n' "${bound[@]}"

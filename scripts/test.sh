#!/usr/bin/env bash
# Runs every test: vet, formatting, and the Go test suite (which drives real
# processes under seccomp, the real Jupyter client, Node's Arrow reader and
# headless Chromium). Run scripts/setup.sh once first.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [[ -n $unformatted ]]; then echo "gofmt needed: $unformatted" >&2; exit 1; fi
go vet ./...
mkdir -p build
go test -count=1 -timeout 14m ./... 2>&1 | tee build/test.log

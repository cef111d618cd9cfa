#!/usr/bin/env bash
# Issue 21, the Chord experiment beyond the seed, in one command: the 16
# CHORD_CHECKS masks over the same seeds (chord-attribution.model), the three
# levels under perfect failure detection (chord-perfect.model), then the
# analysis — the 16-variant table, main effects and interactions, the
# intention-to-treat comparison of the levels, the cause of every invalid run
# from its recording — and the chart (build/chord-attribution.html).
#   scripts/chord-attribution.sh [SEEDS]     (default 500; datasets are resumed)
# WEFT_DATASETS sets where the datasets go (default datasets/).
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-500}
mkdir -p bin build
go build -o bin/weft ./cmd/weft
go build -o bin/chord-attribution ./targets/chord/attribution
base=${WEFT_DATASETS:-datasets}
attr=$base/chord-attribution-$seeds
perfect=$base/chord-perfect-$seeds
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
bin/weft campaign targets/chord/chord-attribution.model --seeds "$seeds" --out "$attr"
mid=$(date +%s.%N)
bin/weft campaign targets/chord/chord-perfect.model --seeds "$seeds" --variants orig,fix1,fix2 --out "$perfect"
end=$(date +%s.%N)
echo "wall time: 16 masks $(echo "$mid - $start" | bc) s, perfect detection $(echo "$end - $mid" | bc) s, on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
bin/chord-attribution --perfect "$perfect" --chart build/chord-attribution.html --section build/chord-attribution-section.html "$attr" | tee build/chord-attribution.md
# The same analysis as a section of the campaign's report:
#   bin/weft report "$attr" --section build/chord-attribution-section.html -o build/chord-attribution-report.html

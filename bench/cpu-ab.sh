#!/bin/sh
# Bundles bench/lib/cpu-workload.ts from commit REV (default HEAD; its tree extracted into .cache/, out of
# tsc's way) and from the working tree into
# bench/out/cpu-base.mjs and bench/out/cpu-new.mjs, then measures both in one process (bench/cpu.ts --ab).
#   sh bench/cpu-ab.sh [REV] [calls]
set -e
cd "$(dirname "$0")/.."
REV=${1:-HEAD}
BASE=.cache/cpu-ab-base
rm -rf "$BASE" && mkdir -p "$BASE"
git archive "$REV" src bench | tar -x -C "$BASE"
cp bench/lib/cpu-workload.ts "$BASE/bench/lib/cpu-workload.ts"
ESB="npx esbuild --bundle --platform=node --format=esm --target=node20 --log-level=warning"
$ESB "$BASE/bench/lib/cpu-workload.ts" --outfile=bench/out/cpu-base.mjs
$ESB bench/lib/cpu-workload.ts --outfile=bench/out/cpu-new.mjs
nice -n 10 npx tsx bench/cpu.ts --ab bench/out/cpu-base.mjs bench/out/cpu-new.mjs ${2:-200000}

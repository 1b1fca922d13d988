#!/bin/sh
# Instructions per guard.check (MODE=observe: per observe) of commit REV and of the working tree,
# counted by valgrind (cachegrind, no cache simulation) under node --predictable
# --predictable-gc-schedule with fixed seeds. Per call = (I(N2) - I(N1)) / (N2 - N1), so loading the
# ontology and warming up cancel out. Major GC runs atomically (--no-incremental-marking
# --no-concurrent-marking --no-memory-reducer): V8 schedules incremental marking steps by time, and
# that was what made runs of one build at different times differ by up to ~10% (per-function counts of
# two such runs differed only in marking, compaction and the write barrier's marking path). With it
# the count of one build is the same whenever it runs (two runs 20 s apart: 4,540,222,971 and
# 4,540,211,004 instructions, 0.0003%). The two builds still run side by side. It counts work (GC
# included), not stalls or cache misses, and a change that moves V8's inlining moves it too. Four
# valgrind runs, two at a time: minutes under load.
#   sh bench/icount-ab.sh [REV] [N1 N2]
set -e
cd "$(dirname "$0")/.."
REV=${1:-HEAD}
MODE=${MODE:-check}
if [ "$MODE" = observe ]; then N1=${2:-2000}; N2=${3:-6000}; else N1=${2:-10000}; N2=${3:-30000}; fi
BASE=.cache/icount-base
rm -rf "$BASE" && mkdir -p "$BASE" bench/out
git archive "$REV" src bench | tar -x -C "$BASE"
cp bench/lib/cpu-workload.ts bench/lib/icount-run.ts "$BASE/bench/lib/"
ESB="npx esbuild --bundle --platform=node --format=esm --target=node20 --log-level=warning"
$ESB "$BASE/bench/lib/icount-run.ts" --outfile=bench/out/icount-base.mjs
$ESB bench/lib/icount-run.ts --outfile=bench/out/icount-new.mjs
# Per bundle and N: the total, and the total without V8's optimising compilers (functions in
# v8::internal::compiler:: or maglev::, i.e. TurboFan and Maglev at work). Their work is a one-time
# cost that still runs between N1 and N2 (5,000-18,000 instructions per check at N 3000->9000) and
# moves with any change to the code they compile, so the steady figure is the one to compare.
count() { # bundle n -> "total steady"
  nice -n 10 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$1.$2.cg" --smc-check=all-non-file \
    node --predictable --predictable-gc-schedule --no-incremental-marking --no-concurrent-marking --no-memory-reducer --hash-seed=1 --random-seed=1 "$1" "$2" "$MODE" >/dev/null 2>&1
  awk '/^fn=/ { c = ($0 ~ /v8::internal::compiler::|maglev::/) } /^[0-9]/ { t += $2; if (c) j += $2 } END { printf "%.0f %.0f\n", t, t - j }' "$1.$2.cg"
  rm -f "$1.$2.cg"
}
for n in "$N1" "$N2"; do
  count bench/out/icount-base.mjs "$n" > "bench/out/icount-base.$n" & count bench/out/icount-new.mjs "$n" > "bench/out/icount-new.$n" & wait
done
per() { # build field -> instructions per call
  echo $(( ($(cut -d' ' -f"$2" bench/out/icount-$1.$N2) - $(cut -d' ' -f"$2" bench/out/icount-$1.$N1)) / (N2 - N1) ))
}
B=$(per base 1); N=$(per new 1); BS=$(per base 2); NS=$(per new 2)
echo "instructions per $MODE: $REV $B, tree $N ($(( (N - B) * 1000 / B )) per mille)"
echo "without the optimising compilers: $REV $BS, tree $NS ($(( (NS - BS) * 1000 / BS )) per mille)"

#!/bin/sh
# How a campaign of short real traces scales with cores (docs/performance.md, "Campaigns").
#
# Writes RUNS traces of about 5 KB (the repository's MCP, A2A and AG-UI examples, each copy with its
# own timestamps) and a manifest of one entry per run under target/campaign-scaling, then times
# `oatf evaluate --manifest` at 1, 2, 4, ... threads (RAYON_NUM_THREADS) in interleaved rounds,
# next to the floor (read every trace and parse each line into a serde_json::Value, on one thread
# and on the most threads), and prints each time, the ratio to the floor and the efficiency
# (time at 1 thread / (J x time at J threads)). Then, when perf is installed, each format's serial
# share at the most threads (`paired campaign serial`: the main thread's part of the CPU time, and the
# efficiency Amdahl's law allows with it on 16 cores).
#
#   crates/oatf-bench/scripts/campaign-scaling.sh [RUNS] [JOBS] [ROUNDS] [FORMAT]
#   crates/oatf-bench/scripts/campaign-scaling.sh 106672 1,2,4,8,16 5 csv
#
# Defaults: 100000 runs, 1,2,4,8,16 and every core the machine has, 5 rounds, csv.
set -eu
cd "$(dirname "$0")/../../.."
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
runs=${1:-100000}
jobs=${2:-}
rounds=${3:-5}
format=${4:-csv}
if [ -z "$jobs" ]; then
    jobs=1
    for j in 2 4 8 16 32 64; do
        if [ "$j" -le "$cores" ]; then jobs="$jobs,$j"; fi
    done
    case ",$jobs," in *",$cores,"*) ;; *) jobs="$jobs,$cores" ;; esac
fi
cargo build --release -p oatf-cli -p oatf-bench
target/release/paired campaign --runs "$runs" --jobs "$jobs" --rounds "$rounds" \
    --format "$format" --dir target/campaign-scaling
if command -v perf >/dev/null 2>&1; then
    target/release/paired campaign serial --runs "$runs" --jobs "$jobs" --dir target/campaign-scaling
else
    echo "perf is not installed: the serial shares (paired campaign serial) were not measured"
fi

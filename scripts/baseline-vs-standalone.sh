#!/usr/bin/env bash
# The torch baseline of `kbench run` against standalone libtorch, in one session (docs/baseline.md): first
# build/release/torch_threads (at::exp_out / at::add_out alone, every thread count, with libgomp's default
# spin count and with kbench's short one), then `kbench run --impl torch` over the same shapes with a fresh
# tuning cache, so that the baseline's setting is tuned in this run; its table shows the setting picked and
# its latency.
#
# Usage: scripts/baseline-vs-standalone.sh [build directory = build/release]
set -euo pipefail
build=${1:-build/release}
for program in kbench torch_threads; do
  [[ -x "$build/$program" ]] || { echo "no $build/$program: build the release preset first" >&2; exit 2; }
done
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
date -u +"%Y-%m-%d %H:%M UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
GOMP_SPINCOUNT=300000 "$build/torch_threads"
GOMP_SPINCOUNT=10000 "$build/torch_threads"
env -u GOMP_SPINCOUNT KBENCH_CACHE_DIR="$cache" "$build/kbench" run --backend cpu --impl torch \
  --kernel exp --num-shapes 6
env -u GOMP_SPINCOUNT KBENCH_CACHE_DIR="$cache" "$build/kbench" run --backend cpu --impl torch \
  --kernel add --num-shapes 5

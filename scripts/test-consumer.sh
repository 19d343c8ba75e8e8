#!/usr/bin/env bash
# Installs a kbench build into a scratch prefix, then builds examples/embed against it with find_package(kbench)
# and runs it: the test that the installed package is usable by a project of its own.
# Usage: scripts/test-consumer.sh BUILD_DIR SCRATCH_DIR
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$repo/examples/embed" -B "$scratch/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/build" >/dev/null
output=$("$scratch/build/time_my_function")
echo "$output"
# The program prints the three measures and exits 1 when the sync check failed.
grep -q 'wall .* ms | throughput .* ms | device .* ms | capture [0-9]*/[0-9]* | sync verified' <<<"$output"

#!/usr/bin/env bash
# Sets up kbench on a fresh machine and runs its main job: installs the Debian packages, builds the release
# preset, lists the devices found, and measures every implementation of the exp kernel on 104857600 elements
# (wall latency, throughput, device time, capture and sync check), appending the v3 JSON to results/measure.json.
# Extra arguments go to `kbench measure` (e.g. --inject-sync-fault both, --backend opencl).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target kbench
mkdir -p results
./build/release/kbench devices
./build/release/kbench measure --kernel exp --shape 104857600 --json results/measure.json "$@"

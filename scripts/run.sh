#!/usr/bin/env bash
# Sets up kbench on a fresh machine and runs its main job: installs the Debian packages, builds the release
# preset, lists the devices found, and runs the suite (`kbench run`: every kernel x shape checked against torch
# and timed against the torch baseline on the best backend here), appending v3 JSON to results/run.json.
# Extra arguments go to `kbench run` (e.g. --backend cpu, --kernel exp,softmax_two_pass, --num-shapes 2).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target kbench
mkdir -p results
./build/release/kbench devices
./build/release/kbench run --output results/run.json "$@"

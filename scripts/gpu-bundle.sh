#!/usr/bin/env bash
# Builds the `gpu` preset (cuda backend, no libtorch, OpenCL or database clients, static C++ runtime) and
# copies what a GPU machine needs into build/gpu-bundle: kbench, its GPU test program and gpu-check.sh. The bundle needs only the NVIDIA driver (libcuda, loaded at run time) and NVRTC (the CUDA
# toolkit's libnvrtc.so.13, about 105 MiB, so not carried: NVIDIA's pip toolkit has no static NVRTC).
# Prints the bundle's size and the shared libraries each program needs.
#
# Usage: scripts/gpu-bundle.sh   then copy build/gpu-bundle to the GPU machine and run gpu-check.sh in it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bundle=build/gpu-bundle
cmake --preset gpu >/dev/null
cmake --build --preset gpu -j "$(nproc)"
rm -rf "$bundle"
mkdir -p "$bundle"
cp build/gpu/kbench build/gpu/tests/kbench_gpu_tests scripts/gpu-check.sh "$bundle/"
strip "$bundle/kbench" "$bundle/kbench_gpu_tests"

echo "gpu-bundle: $bundle"
du -b "$bundle"/* | awk '{printf "  %-40s %6.1f MiB\n", $2, $1 / 1048576}'
du -sb "$bundle" | awk '{printf "  total %.1f MiB\n", $1 / 1048576}'
for program in kbench kbench_gpu_tests; do
  echo "gpu-bundle: shared libraries of $program:"
  ldd "$bundle/$program" | sed 's/ (0x[0-9a-f]*)//; s/^/ /'
done

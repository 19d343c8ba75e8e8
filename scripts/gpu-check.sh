#!/usr/bin/env bash
# gpu-check: on a machine with an NVIDIA GPU, builds kbench with the cuda backend, runs the GPU tests and
# prints the `kbench measure` table for exp (with and without an injected sync fault) and for add [1024,1024]
# without and with --flush-cache. Everything goes to stdout, and to $OUT/gpu-check.log too when $OUT is set.
#
# Usage: scripts/gpu-check.sh            (BUILD_DIR=build/gpu by default; JOBS=all cores by default)
# Needs: the NVIDIA driver and the CUDA toolkit (nvcc + NVRTC); cmake/ninja/g++ and the Debian packages of
# scripts/install-deps.sh (installed by it when cmake or g++ is missing).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build/gpu}
JOBS=${JOBS:-$(nproc)}
SHAPE=104857600

if [[ -n ${OUT:-} ]]; then
  mkdir -p "$OUT"
  exec > >(tee "$OUT/gpu-check.log") 2>&1
fi

banner() { printf '\n==== gpu-check: %s ====\n' "$*"; }
failures=()
# Runs a step that must succeed for the check to pass, but goes on after a failure so that every figure
# still gets printed.
must() {
  local rc=0
  "$@" || rc=$?
  if ((rc != 0)); then
    echo "gpu-check: FAILED (exit status $rc): $*"
    failures+=("$*")
  fi
}

banner "machine"
date -u +%Y-%m-%dT%H:%M:%SZ
uname -a
echo "cores: $(nproc)"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv || nvidia-smi || true
else
  echo "nvidia-smi not found"
fi

banner "dependencies"
if ! command -v cmake >/dev/null || ! command -v g++ >/dev/null; then
  echo "cmake or g++ missing: running scripts/install-deps.sh"
  scripts/install-deps.sh
fi
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if ! command -v nvcc >/dev/null; then
  echo "gpu-check: no CUDA toolkit (nvcc) found; the cuda backend cannot be built" >&2
  exit 1
fi
cmake --version | head -n1
g++ --version | head -n1
nvcc --version | tail -n2

banner "configure ($BUILD_DIR, -DKBENCH_WITH_CUDA=ON)"
cmake --preset release -B "$BUILD_DIR" -DKBENCH_WITH_CUDA=ON

banner "build kbench and kbench_gpu_tests (-j$JOBS)"
cmake --build "$BUILD_DIR" -j"$JOBS" --target kbench kbench_gpu_tests

banner "GPU tests"
test_log=$(mktemp)
must bash -c "set -o pipefail; '$BUILD_DIR/tests/kbench_gpu_tests' --gtest_color=no | tee '$test_log'"
# On a GPU machine only the no-GPU test may skip: a skip of any other means the GPU was not found.
skipped=$(grep -c '^\[  SKIPPED \] CudaBackend\.[A-Za-z]* (' "$test_log" || true)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && ((skipped > 1)); then
  echo "gpu-check: FAILED: nvidia-smi sees a GPU but $skipped GPU tests skipped"
  failures+=("GPU tests skipped on a GPU machine")
fi
rm -f "$test_log"

banner "kbench devices"
must "$BUILD_DIR/kbench" devices

banner "kbench measure --kernel exp --shape $SHAPE"
must "$BUILD_DIR/kbench" measure --kernel exp --shape "$SHAPE"

banner "kbench measure --kernel exp --shape $SHAPE --inject-sync-fault both (must be flagged invalid)"
rc=0
"$BUILD_DIR/kbench" measure --kernel exp --shape "$SHAPE" --inject-sync-fault both || rc=$?
echo "gpu-check: exit status $rc with the injected fault (a non-zero status is how kbench may flag it)"

# add [1024,1024] moves 12 MiB, which the GPU's L2 holds: with --flush-cache (a memset of twice the L2
# before every wall-latency sample) its device time should rise towards what DRAM gives.
banner "kbench measure --kernel add --shape [1024,1024] --backend cuda, without and with --flush-cache"
must "$BUILD_DIR/kbench" measure --kernel add --shape "[1024,1024]" --backend cuda
must "$BUILD_DIR/kbench" measure --kernel add --shape "[1024,1024]" --backend cuda --flush-cache

banner "summary"
if ((${#failures[@]})); then
  printf 'gpu-check: %d step(s) failed:\n' "${#failures[@]}"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
echo "gpu-check: all steps passed"

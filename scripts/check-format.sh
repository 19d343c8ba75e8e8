#!/usr/bin/env bash
# Fails when a C++ file differs from clang-format's output (.clang-format at the root). Fix with:
#   git ls-files '*.cpp' '*.hpp' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' 2>/dev/null || find . -name '*.[ch]pp' -not -path './build/*')
if ((${#files[@]} == 0)); then exit 0; fi
if ! clang-format --dry-run --Werror "${files[@]}" 2>/tmp/kbench-format.log; then
  head -40 /tmp/kbench-format.log
  echo "check-format: run 'git ls-files \"*.cpp\" \"*.hpp\" | xargs clang-format -i'" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"

#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint, which checks their run: scripts
# with shellcheck. Both are installed by scripts/install-deps.sh (actionlint into .venv/). Exits non-zero when
# actionlint reports anything, and when actionlint or shellcheck is missing: a lint that silently did not run
# would pass any workflow. Run by ctest as workflows_actionlint (label lint).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

actionlint=.venv/bin/actionlint
if [[ ! -x $actionlint ]]; then
  echo "lint-workflows: $actionlint not found; run scripts/install-deps.sh" >&2
  exit 1
fi
if ! command -v shellcheck >/dev/null; then
  echo "lint-workflows: shellcheck not found; run scripts/install-deps.sh" >&2
  exit 1
fi
shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if ((${#workflows[@]} == 0)); then
  echo "lint-workflows: no workflows in .github/workflows" >&2
  exit 1
fi

report=$("$actionlint" -no-color "${workflows[@]}" 2>&1)
status=$?
if [[ $status -ne 0 || -n $report ]]; then
  printf '%s\n' "$report"
  echo "lint-workflows: actionlint reported the above (exit status $status)" >&2
  exit 1
fi
echo "lint-workflows: ${#workflows[@]} workflows clean ($("$actionlint" -version | head -n 1))"

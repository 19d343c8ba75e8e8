#!/usr/bin/env python3
"""Fails when a file of kbench includes a header of a layer above its own (docs/architecture.md), or a
`detail/` header of another layer.

Each file's layer follows from its folder; each include's layer from the header's folder. A layer may include
its own headers and those of the layers it stands on, never one above it or beside it; a layer's `detail/`
headers are its internals, included only from within that layer (tests aside).
Usage: scripts/check-layers.py [REPO_ROOT]   (exit status 1 and one line per upward include when any is found)
"""
import pathlib
import re
import sys

# The layers each layer may include, its own among them (docs/architecture.md draws the same graph).
ALLOWED = {
    "core": {"core"},
    "umbrella": {"core", "backends"},  # kbench/kbench.hpp: the core and the backends, for library users
    "backends": {"core", "backends"},
    "io": {"core", "io"},
    "tune": {"core", "io", "tune"},
    "suite": {"core", "backends", "io", "tune", "suite"},
    "history": {"core", "io", "history"},
    "report": {"core", "backends", "io", "tune", "suite", "history", "report"},
    "spec": {"core", "backends", "io", "tune", "suite", "spec"},
    "cli": {"core", "umbrella", "backends", "io", "tune", "suite", "history", "report", "spec", "cli"},
    "python": {"core", "umbrella", "backends", "io", "tune", "suite", "history", "report", "python"},
}
UMBRELLA = "include/kbench/kbench.hpp"
LAYER_FOLDERS = ("backends", "io", "tune", "suite", "history", "report", "spec")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)


def layer_of_source(rel: pathlib.PurePosixPath) -> str | None:
    """The layer of a file of the repository, or None for files outside the layered library (tests, bench)."""
    parts = rel.parts
    if rel.as_posix() == UMBRELLA:
        return "umbrella"
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "kbench":
        return parts[2] if parts[2] in LAYER_FOLDERS else "core"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1] if parts[1] in LAYER_FOLDERS or parts[1] == "core" else None
    if parts[0] == "kernels":
        return "suite"
    if parts[0] == "apps":
        return "cli"
    if parts[0] == "python":
        return "python"
    return None


def layer_of_include(path: str, quoted: bool, including: pathlib.PurePosixPath) -> str | None:
    """The layer of an included kbench header, or None for a header of another library."""
    parts = pathlib.PurePosixPath(path).parts
    if path == UMBRELLA.removeprefix("include/"):
        return "umbrella"
    if parts[0] == "kbench":
        return parts[1] if len(parts) > 2 and parts[1] in LAYER_FOLDERS else "core"
    if quoted and including.parts[0] == "src" and parts[0] in LAYER_FOLDERS + ("core",):
        return parts[0]  # a private header of src/, named from src/
    return None  # relative to the including file: the same folder, so the same layer


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    problems = []
    checked = 0
    for folder in ("include", "src", "kernels", "apps", "python"):
        for file in sorted((root / folder).rglob("*")):
            if file.suffix not in (".hpp", ".cpp", ".h", ".in"):
                continue
            rel = pathlib.PurePosixPath(file.relative_to(root).as_posix())
            layer = layer_of_source(rel)
            if layer is None:
                continue
            checked += 1
            text = file.read_text(encoding="utf-8")
            for match in INCLUDE.finditer(text):
                target = layer_of_include(match.group(2), match.group(1) == '"', rel)
                line = text.count("\n", 0, match.start()) + 1
                if target is not None and target not in ALLOWED[layer]:
                    problems.append(f"{rel}:{line}: {layer} includes {match.group(2)} ({target}), a layer above it")
                elif target is not None and target != layer and "detail" in pathlib.PurePosixPath(match.group(2)).parts:
                    problems.append(f"{rel}:{line}: {layer} includes {match.group(2)}, an internal header of {target}")
    for p in problems:
        print(p)
    print(f"check-layers: {checked} files, {len(problems)} includes across layers that are not allowed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

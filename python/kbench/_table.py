"""The pipe tables kbench prints (as the kbench tool's text_table does)."""

from __future__ import annotations

from collections.abc import Sequence


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a table whose columns are as wide as their widest cell."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(), "-|-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return lines

"""Results files: the PyTorch benchmark hub's v3 JSON, written as ``kbench measure --output`` and
``kbench run --output`` write it (a list of records, appended to atomically)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from . import _kbench

__all__ = ["append_records", "check_appendable"]


def check_appendable(path: str | os.PathLike[str]) -> None:
    """Raises RuntimeError saying why when ``path`` exists and is not a list of v3 records: check before
    measuring, so that a file kbench did not write is never overwritten (append_records checks again)."""
    _kbench.check_appendable(os.fspath(path))


def append_records(path: str | os.PathLike[str], records: Iterable[dict[str, Any]]) -> None:
    """Appends ``records`` (e.g. Measurement.to_records()) to the JSON list in ``path``, creating it if
    absent. The file is replaced atomically (written beside it, flushed, renamed); an existing file that is
    not a list of v3 records is left untouched and RuntimeError says why."""
    _kbench.append_records(os.fspath(path), json.dumps(list(records)))

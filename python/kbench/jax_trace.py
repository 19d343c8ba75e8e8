"""Device time of a JAX callable from JAX's own profiler (``jax.profiler.trace``), where the trace records
per-execution device events: the XLA ops of each execution carry its ``run_id`` (on this machine's XLA CPU
client with JAX 0.10; on TPU and GPU the ops are the device's own events). kbench times the calls one by one
inside the trace, each marked with a ``TraceAnnotation``, and gives each call the device time of the
executions that started within it: the union of their ops' intervals. A call with no such execution is not
captured. Where the trace has no per-execution events (JAX 0.4.35 on the CPU client records its executions
only as host calls), there is no device time, and kbench says so rather than estimating one.
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_MARK = "kbench-call-"
# (jax version, platform) whose trace had no per-execution device events, with why: not traced again in this
# process (starting and stopping a trace takes about half a second).
_WITHOUT_EVENTS: dict[tuple[str, str], str] = {}


@dataclass
class TracedDeviceTime:
    """Per-call device time [ms] of the calls traced, and how many of them had device events."""

    calls: int
    device_ms: list[float] = field(default_factory=list)  # one per captured call
    note: str = ""  # why there is none, when there is none

    @property
    def captured(self) -> int:
        return len(self.device_ms)


def _events(directory: str) -> list[dict[str, Any]]:
    events = []
    for path in glob.glob(os.path.join(directory, "**", "*.trace.json.gz"), recursive=True):
        with gzip.open(path) as f:
            events += [e for e in json.load(f).get("traceEvents", []) if e.get("ph") == "X"]
    return events


def _union_ms(intervals: list[tuple[float, float]]) -> float:
    """The length of the union of [start, end] intervals [us], in ms."""
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total / 1e3


def device_times(call: Callable[[], Any], wait: Callable[[Any], None], calls: int) -> TracedDeviceTime:
    """Runs ``call`` ``calls`` times inside a JAX profiler trace, each waited on with ``wait`` before the
    next, and reads each call's device time from the trace."""
    import jax

    where = (jax.__version__, jax.devices()[0].platform)
    if where in _WITHOUT_EVENTS:
        return TracedDeviceTime(calls, note=_WITHOUT_EVENTS[where])
    with tempfile.TemporaryDirectory(prefix="kbench-jax-trace-") as directory:
        with jax.profiler.trace(directory):
            for i in range(calls):
                with jax.profiler.TraceAnnotation(f"{_MARK}{i}"):
                    outputs = call()
                    wait(outputs)
                del outputs
        events = _events(directory)
    marks = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e["name"].startswith(_MARK))
    runs: dict[str, list[tuple[float, float]]] = {}
    for e in events:
        args = e.get("args") or {}
        if "hlo_op" in args and "run_id" in args:
            runs.setdefault(args["run_id"], []).append((e["ts"], e["ts"] + e["dur"]))
    result = TracedDeviceTime(calls)
    if len(marks) != calls:
        result.note = f"the trace holds {len(marks)} of the {calls} calls' marks: no device time"
        return result
    if not runs:
        result.note = (f"jax {jax.__version__} recorded no per-execution device events (XLA ops with a run_id) "
                       f"on {jax.devices()[0].platform}: no device time")
        _WITHOUT_EVENTS[where] = result.note
        return result
    per_call: list[list[tuple[float, float]]] = [[] for _ in marks]
    for intervals in runs.values():
        start = min(s for s, _ in intervals)
        for i, (mark_start, mark_end) in enumerate(marks):
            if mark_start <= start <= mark_end:
                per_call[i] += intervals
                break
    result.device_ms = [_union_ms(intervals) for intervals in per_call if intervals]
    return result

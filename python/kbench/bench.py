"""Timing any Python callable with kbench's protocol: every call synchronized on its outputs, every wait
checked (kbench.sync), the statistics of the C++ core."""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from . import _kbench
from ._table import text_table
from .sync import Synchronizer

__all__ = [
    "Stats",
    "Measurement",
    "BenchResult",
    "InvalidMeasurementError",
    "UnverifiedSyncWarning",
    "measure",
    "do_bench",
    "interleaved_bench",
    "compute_repeat",
]

RETURN_MODES = ("min", "max", "mean", "median", "all")


class InvalidMeasurementError(RuntimeError):
    """A wait returned before the work it waited for was complete: the timings measure dispatch, not the
    work, and kbench does not return them as a result."""


class UnverifiedSyncWarning(UserWarning):
    """The call returned outputs whose completion kbench cannot check (pass ``is_done=``)."""


@dataclass(frozen=True)
class Stats:
    """Statistics of a sample set [ms]: the median with its distribution-free 99% confidence interval,
    quartiles, and the relative spread (half the interquartile range over the median) that kbench prints
    beside a median."""

    count: int
    min: float
    max: float
    mean: float
    median: float
    stdev: float
    q1: float
    q3: float
    iqr: float
    median_ci_low: float
    median_ci_high: float
    cv: float
    relative_spread: float

    @classmethod
    def _from(cls, d: dict[str, Any]) -> Stats:
        return cls(**{f.name: d[f.name] for f in fields(cls)})

    def __str__(self) -> str:
        return "-" if self.count == 0 else f"{self.median:.4f} ±{100 * self.relative_spread:.1f}%"


def _name_of(fn: Callable[..., Any], name: str | None) -> str:
    return name if name is not None else getattr(fn, "__name__", type(fn).__name__)


def _check_positive(what: str, value: float, allow_zero: bool = False) -> None:
    ok = value >= 0 if allow_zero else value > 0
    if not ok or (isinstance(value, float) and not math.isfinite(value)):
        raise ValueError(f"{what} must be {'>= 0' if allow_zero else '> 0'} and finite, not {value!r}")


@dataclass(frozen=True)
class Measurement:
    """The three measures of one callable (wall latency, throughput, device time) with the capture and the
    sync check beside them. ``status`` is "ok", "INVALID" (a wait returned early or the window missed
    work) or "unverified" (kbench could not check that the work was complete)."""

    name: str
    sync: str  # the adapter: jax, torch-cuda, pyopencl, host, unknown, or "given" for sync=
    framework: str  # the outputs' adapter even when sync= is given (records name it as the backend)
    device_name: str  # where the outputs live, e.g. TFRT_CPU_0, an OpenCL device's name
    platform: str  # the framework and its version, e.g. "jax 0.4.35"
    wall: Stats
    throughput: Stats
    device: Stats
    wall_ms: list[float]
    throughput_ms: list[float]
    device_ms: list[float]
    calls_dispatched: int
    calls_captured: int
    result_sync_violations: int
    barrier_violations: int
    unverified_calls: int
    warnings: list[str] = field(default_factory=list)
    # What else ran while it was timed: quiet, reason, detail (kbench.ContentionProbe); empty when unknown.
    machine: dict[str, Any] = field(default_factory=dict)
    # Where the device time comes from: "events" (the framework's per-call timestamps: torch on cuda,
    # pyopencl), "jax.profiler" (a trace of device_calls_traced further calls: kbench.jax_trace), or "" (none;
    # device_note says why for JAX).
    device_source: str = ""
    device_calls_traced: int = 0
    device_note: str = ""

    @property
    def valid(self) -> bool:
        """Every sync waited and every call's work was complete when its timed window closed."""
        return (self.result_sync_violations == 0 and self.barrier_violations == 0 and
                self.calls_dispatched > 0 and self.calls_captured == self.calls_dispatched)

    @property
    def status(self) -> str:
        if not self.valid:
            return "INVALID"
        return "unverified" if self.unverified_calls > 0 else "ok"

    @property
    def sync_check(self) -> str:
        if self.unverified_calls > 0 and self.result_sync_violations == 0 and self.barrier_violations == 0:
            return "unverified"
        parts = []
        if self.result_sync_violations:
            parts.append(f"{self.result_sync_violations} early waits")
        if self.barrier_violations:
            parts.append(f"{self.barrier_violations} early barriers")
        return f"FAIL ({', '.join(parts)})" if parts else "ok"

    def to_records(self, shape: str = "", timestamp: int | None = None, **extra: Any) -> list[dict[str, Any]]:
        """The PyTorch benchmark hub's v3 records of this measurement, as ``kbench measure --output`` writes
        them: latency_ms, throughput_ms, device_ms (samples, median, cv, the median's 99% interval) and
        capture_ratio, each with the checks, and machine_disturbed (1 when other work took the CPUs while it
        was timed); the callable's name as the model, the framework as the
        backend. ``extra`` goes into every record's benchmark.extra_info. Write them with
        kbench.append_records."""
        context = {
            "kernel": self.name, "shape": shape, "backend": self.framework, "device": self.device_name,
            "platform": self.platform, "gpu": self.framework == "torch-cuda",
            "timestamp": int(time.time()) if timestamp is None else timestamp,
            "extra": {"status": self.status, "command": "python measure", "sync": self.sync,
                      **({"machine": "quiet" if self.machine["quiet"] else "disturbed",
                          "machine_detail": self.machine["detail"]} if self.machine else {}),
                      **extra},
        }
        samples = {
            "wall_ms": self.wall_ms, "throughput_ms": self.throughput_ms, "device_ms": self.device_ms,
            "calls_dispatched": self.calls_dispatched, "calls_captured": self.calls_captured,
            "result_sync_violations": self.result_sync_violations, "barrier_violations": self.barrier_violations,
            **({"machine": self.machine} if self.machine else {}),
        }
        return json.loads(_kbench.measurement_records(json.dumps(context), json.dumps(samples)))

    def __str__(self) -> str:
        overhead = "-" if self.device.count == 0 else f"{self.wall.median - self.device.median:.4f}"
        header = ["Callable", "Wall (ms)", "Throughput (ms)", "Device (ms)", "Overhead (ms)", "Capture",
                  "Sync check", "Status"]
        row = [self.name, str(self.wall), str(self.throughput), str(self.device), overhead,
               f"{self.calls_captured}/{self.calls_dispatched}", self.sync_check, self.status]
        lines = [
            f"kbench.measure: {self.name} (sync: {self.sync})",
            *text_table(header, [row]),
            "medians ±half their interquartile range; overhead = wall - device; capture = calls whose work "
            "had finished (with device timestamps where the framework gives them) when the timed window "
            "closed",
        ]
        if self.device_source == "jax.profiler":
            lines.append(f"device time: JAX's profiler, a trace of {self.device_calls_traced} more calls, "
                         f"{self.device.count} with device events")
        elif self.device_note:
            lines.append(f"device time: none ({self.device_note})")
        lines += [f"  ! {w}" for w in self.warnings]
        if self.unverified_calls:
            lines.append(f"  ! {self.unverified_calls} calls returned outputs whose completion kbench cannot "
                         "check: pass is_done= to verify them")
        if self.status == "INVALID":
            lines.append("these timings must not be trusted")
        return "\n".join(lines)


@dataclass(frozen=True)
class BenchResult:
    """Samples of one callable, each the synchronized wall latency of one call [ms]."""

    name: str
    samples_ms: list[float]
    stats: Stats
    sync_violations: int
    stopped_by_noise: bool
    unverified_calls: int

    def value(self, return_mode: str = "median") -> float | list[float]:
        """The statistic ``return_mode`` names (min, max, mean, median), or every sample (all)."""
        if return_mode == "all":
            return list(self.samples_ms)
        if return_mode not in RETURN_MODES:
            raise ValueError(f"unknown return_mode {return_mode!r} (valid: {', '.join(RETURN_MODES)})")
        return getattr(self.stats, return_mode)

    def quantiles(self, qs: Sequence[float]) -> list[float]:
        """Quantiles of the samples by linear interpolation (numpy's default)."""
        for q in qs:
            if not 0 <= q <= 1:
                raise ValueError(f"quantile {q!r} is outside [0, 1]")
        return list(_kbench.quantiles(self.samples_ms, list(qs)))


def _bench_result(d: dict[str, Any], unverified: int) -> BenchResult:
    return BenchResult(d["name"], list(d["samples_ms"]), Stats._from(d["stats"]), d["sync_violations"],
                       d["stopped_by_noise"], unverified)


def _raise_if_broken(result: BenchResult) -> None:
    if result.sync_violations:
        raise InvalidMeasurementError(
            f"{result.name}: {result.sync_violations} of {len(result.samples_ms)} waits returned before the "
            "work was complete: the samples time the dispatch, not the work")
    if result.unverified_calls:
        warnings.warn(f"{result.name}: {result.unverified_calls} calls returned outputs whose completion "
                      "kbench cannot check; the samples are unverified (pass is_done=)",
                      UnverifiedSyncWarning, stacklevel=3)


def measure(fn: Callable[[], Any], *, repeat: int = 0, target_ms: float = 100, warmup: int = 2,
            throughput_calls: int = 0, throughput_batches: int = 3, flush_cache: bool = False,
            sync: Callable[[], Any] | str = "auto", is_done: Callable[[Any], bool] | None = None,
            name: str | None = None, device_time: str = "auto") -> Measurement:
    """Measures ``fn()`` (no arguments: close over the inputs) three ways.

    - wall latency per call: sync -> start -> fn() -> sync on its outputs -> stop, ``repeat`` samples
      (0: as many as fill ``target_ms``);
    - throughput per batch: start -> ``throughput_calls`` calls -> device barrier -> stop, divided by the
      calls (0: ``repeat`` calls), ``throughput_batches`` batches;
    - device time per call, where the framework gives device timestamps (torch on cuda, pyopencl on a
      profiling queue), or, for JAX outputs (``device_time="auto"``; "none" skips it), from JAX's profiler:
      a trace of further calls, each given the device time of the executions it started (kbench.jax_trace);
      where the trace has no per-execution device events, none, and ``device_note`` says why.

    After every wait kbench asks the outputs' framework whether the work is complete; a wait that returned
    early makes the measurement INVALID (see kbench.sync for the adapters, ``sync=`` and ``is_done=``).
    ``flush_cache`` flushes the host's caches before every wall-latency sample. Never raises on a broken
    sync: the result says so. Print the result for kbench measure's table.
    """
    _check_positive("repeat", repeat, allow_zero=True)
    _check_positive("target_ms", target_ms)
    _check_positive("warmup", warmup, allow_zero=True)
    _check_positive("throughput_calls", throughput_calls, allow_zero=True)
    _check_positive("throughput_batches", throughput_batches, allow_zero=True)
    if device_time not in ("auto", "none"):
        raise ValueError(f"device_time must be 'auto' or 'none', not {device_time!r}")
    synchronizer = Synchronizer(fn, sync, is_done)
    d = _kbench.measure(_name_of(fn, name), synchronizer.target, synchronizer.barrier, repeat, target_ms, warmup,
                        throughput_calls, throughput_batches, flush_cache)
    device = {"device_source": "events" if d["device_ms"] else ""}
    if (not d["device_ms"] and device_time == "auto" and synchronizer.kind == "jax" and synchronizer.sync is None
            and d["valid"]):
        from . import jax_trace

        jax = sys.modules["jax"]
        traced = jax_trace.device_times(fn, jax.block_until_ready, max(1, min(len(d["wall_ms"]), 100)))
        device = {"device_source": "jax.profiler" if traced.device_ms else "",
                  "device_calls_traced": traced.calls, "device_note": traced.note}
        if traced.device_ms:
            d["device_ms"], d["device"] = traced.device_ms, _kbench.summarize(traced.device_ms)
            if d["device"]["median"] > d["wall"]["median"]:  # the profiler's own cost, inside the ops' events
                d["warnings"] = list(d["warnings"]) + [
                    f"device time {d['device']['median']:.4g} ms from the trace is above the wall latency "
                    f"{d['wall']['median']:.4g} ms: the traced calls ran under the profiler, whose cost falls "
                    "inside the ops' events here; read it as an upper bound"]
    return Measurement(
        name=d["name"], sync="given" if synchronizer.sync is not None else synchronizer.kind,
        framework=synchronizer.kind, device_name=synchronizer.device, platform=synchronizer.platform,
        wall=Stats._from(d["wall"]), throughput=Stats._from(d["throughput"]), device=Stats._from(d["device"]),
        wall_ms=list(d["wall_ms"]), throughput_ms=list(d["throughput_ms"]), device_ms=list(d["device_ms"]),
        calls_dispatched=d["calls_dispatched"], calls_captured=d["calls_captured"],
        result_sync_violations=d["result_sync_violations"], barrier_violations=d["barrier_violations"],
        unverified_calls=synchronizer.unverified_calls, warnings=list(d["warnings"]), machine=dict(d["machine"]),
        **device)


def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100, return_mode: str = "mean",
             quantiles: Sequence[float] | None = None, flush_cache: bool = False,
             sync: Callable[[], Any] | str = "auto", is_done: Callable[[Any], bool] | None = None,
             noise_stop: bool = False) -> float | list[float]:
    """Triton's ``do_bench`` with verified synchronization: ``warmup`` ms of warm-up calls, then
    synchronized calls filling ``rep`` ms (or, with ``noise_stop``, until the 99% interval of the median is
    within 0.5% of it: at least 10 samples and 50 ms, at most 10 s). Returns the ``return_mode`` statistic
    of the per-call times [ms] (min, max, mean, median; all: every sample), or the ``quantiles`` when given.

    Raises InvalidMeasurementError when a wait returned before the work was complete; warns
    (UnverifiedSyncWarning) when the outputs' completion cannot be checked.
    """
    _check_positive("warmup", warmup, allow_zero=True)
    _check_positive("rep", rep)
    if return_mode not in RETURN_MODES:
        raise ValueError(f"unknown return_mode {return_mode!r} (valid: {', '.join(RETURN_MODES)})")
    synchronizer = Synchronizer(fn, sync, is_done)
    stop = (10, 0.005, 50.0, 10000.0) if noise_stop else None
    d = _kbench.do_bench(getattr(fn, "__name__", "fn"), synchronizer.target, synchronizer.barrier, float(warmup),
                         float(rep), flush_cache, stop)
    result = _bench_result(d, synchronizer.unverified_calls)
    _raise_if_broken(result)
    if quantiles is not None:
        return result.quantiles(quantiles)
    return result.value(return_mode)


def interleaved_bench(fns: Sequence[Callable[[], Any]], repeat: int = 100, warmup: int = 1,
                      calls_per_turn: int = 1, sync: Callable[[], Any] | str = "auto",
                      is_done: Callable[[Any], bool] | None = None) -> list[BenchResult]:
    """Round-robin over ``fns`` (a, b, c, a, b, c, ...) for ``repeat`` rounds after ``warmup`` rounds, so
    that drift in the machine hits every callable alike; with ``calls_per_turn`` > 1 each keeps the turn for
    that many timed calls after one untimed call. One BenchResult per callable, in order: compare their
    medians as ratios. Every call is synchronized on its outputs and checked as in measure (``sync=`` and
    ``is_done=`` likewise); raises InvalidMeasurementError when any wait returned early."""
    if not fns:
        raise ValueError("interleaved_bench needs at least one callable")
    _check_positive("repeat", repeat)
    _check_positive("warmup", warmup, allow_zero=True)
    _check_positive("calls_per_turn", calls_per_turn)
    synchronizers = [Synchronizer(fn, sync, is_done) for fn in fns]
    targets = [(f"{i}:{getattr(fn, '__name__', 'fn')}", s.target, s.barrier)
               for i, (fn, s) in enumerate(zip(fns, synchronizers))]
    results = [_bench_result(d, s.unverified_calls)
               for d, s in zip(_kbench.interleaved_bench(targets, repeat, warmup, calls_per_turn), synchronizers)]
    for result in results:
        _raise_if_broken(result)
    return results


def compute_repeat(fn: Callable[[], Any], target_ms: float = 100, min_repeat: int = 10, max_repeat: int = 1000,
                   sync: Callable[[], Any] | str = "auto", is_done: Callable[[Any], bool] | None = None) -> int:
    """How many synchronized calls of ``fn`` fill ``target_ms``, from 5 timed calls (2 when they are
    long), clamped to [min_repeat, max_repeat]. Each call is synchronized on its outputs and checked as in
    measure (``sync=`` and ``is_done=`` likewise)."""
    _check_positive("target_ms", target_ms)
    _check_positive("min_repeat", min_repeat)
    if max_repeat < min_repeat:
        raise ValueError(f"max_repeat ({max_repeat}) is below min_repeat ({min_repeat})")
    synchronizer = Synchronizer(fn, sync, is_done)
    return _kbench.compute_repeat(getattr(fn, "__name__", "fn"), synchronizer.target, synchronizer.barrier,
                                  float(target_ms), min_repeat, max_repeat)

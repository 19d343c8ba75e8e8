"""The suite for Python kernels: kernels registered with shapes, seeded inputs, a baseline and tolerances,
each kernel x shape checked against its baseline and timed against it, interleaved, as ``kbench run`` does
for the built-in kernels. ``python -m kbench run`` (kbench.__main__) is its command line.

    import numpy as np, torch, jax, jax.numpy as jnp, kbench

    @kbench.kernel(shapes=[(1 << 20,), (1 << 24,)],
                   inputs=lambda shape, seed: [np.random.default_rng(seed).uniform(-4, 4, shape).astype(np.float32)],
                   prepare=jnp.asarray, baseline=torch.exp, baseline_prepare=torch.from_numpy,
                   bytes_moved=lambda shape: 8 * shape[0])
    def exp_jax(x):
        return jnp.exp(x) + 0  # whatever the kernel is

Inputs are NumPy arrays made from the shape and the seed; ``prepare`` turns each into the kernel's own input
type and ``baseline_prepare`` into the baseline's. Outputs are compared as NumPy arrays:
``|kernel - baseline| <= atol + rtol * |baseline|`` for every element, NaN only where the baseline has NaN.
"""

from __future__ import annotations

import functools
import json
import math
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _kbench
from .bench import BenchResult, Stats, _bench_result
from .sync import Synchronizer, outputs_of
from .tuning import ParameterSpec, TuneOptions, choose_config, parameters_of

__all__ = ["Kernel", "ShapeResult", "kernel", "registered", "clear_registry", "run_shape"]

Shape = tuple[int, ...]


@dataclass(frozen=True)
class Kernel:
    """A registered kernel (see kbench.kernel)."""

    name: str
    fn: Callable[..., Any]
    shapes: list[Shape]
    inputs: Callable[[Shape, int], Sequence[np.ndarray]]
    baseline: Callable[..., Any] | None
    prepare: Callable[[np.ndarray], Any]
    baseline_prepare: Callable[[np.ndarray], Any]
    atol: float
    rtol: float
    bytes_moved: Callable[[Shape], float] | None
    description: str
    params: list[ParameterSpec] = field(default_factory=list)  # tuning parameters (kbench.tuning)
    default: dict[str, Any] | None = None  # the config used untuned; None: each parameter's first value


_registry: dict[str, Kernel] = {}


def _identity(a: np.ndarray) -> np.ndarray:
    return a


def kernel(name: str | None = None, *, shapes: Sequence[Sequence[int]],
           inputs: Callable[[Shape, int], Sequence[np.ndarray]], baseline: Callable[..., Any] | None = None,
           prepare: Callable[[np.ndarray], Any] = _identity,
           baseline_prepare: Callable[[np.ndarray], Any] = _identity, atol: float = 1e-5, rtol: float = 1e-5,
           bytes_moved: Callable[[Shape], float] | None = None, description: str = "",
           params: dict[str, Sequence[Any]] | None = None,
           default: dict[str, Any] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers the decorated function as a kernel of the suite, under ``name`` (default: the function's).

    ``shapes``: the shapes to run, in order (``--num-shapes`` takes the first ones). ``inputs(shape, seed)``:
    the inputs as NumPy arrays, the same for the same seed. ``baseline``: what the kernel is checked and
    timed against (torch's own op, say), called with the inputs after ``baseline_prepare``; the kernel is
    called with them after ``prepare``. ``atol``/``rtol``: the tolerance of the check. ``bytes_moved(shape)``:
    bytes a call reads and writes, for the GB/s column. ``params``: tuning parameters, name -> values (ints,
    strings, or [False, True]), passed to the kernel as keyword arguments; ``default``: the config used
    untuned (default: each parameter's first value). ``python -m kbench run --effort quick`` tunes them.
    Returns the function unchanged."""
    parsed = [tuple(int(d) for d in s) for s in shapes]
    if not parsed or any(not s or min(s) < 1 for s in parsed):
        raise ValueError(f"shapes must be a non-empty list of shapes with positive sizes, not {shapes!r}")
    if atol < 0 or rtol < 0:
        raise ValueError(f"atol and rtol must be >= 0, not {atol!r} and {rtol!r}")
    specs = parameters_of(params or {})
    if default is not None:
        names = [spec[0] for spec in specs]
        if sorted(default) != sorted(names):
            raise ValueError(f"default {default!r} must name every parameter ({', '.join(names)})")
        for parameter in names:
            if default[parameter] not in list(params[parameter]):
                raise ValueError(f"default {parameter}={default[parameter]!r} is not one of "
                                 f"{list(params[parameter])!r}")

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        key = name or fn.__name__
        if key in _registry:
            raise ValueError(f"a kernel named {key!r} is already registered")
        _registry[key] = Kernel(key, fn, parsed, inputs, baseline, prepare, baseline_prepare, atol, rtol,
                                bytes_moved, description or (fn.__doc__ or "").strip().split("\n")[0], specs,
                                dict(default) if default else None)
        return fn

    return register


def registered() -> dict[str, Kernel]:
    """The registered kernels by name, in registration order."""
    return dict(_registry)


def clear_registry() -> None:
    """Forgets every registered kernel (for tests and for programs that load several suites)."""
    _registry.clear()


# The smallest speedup called faster or slower (kbench run's --min-effect default, stats.hpp).
MIN_EFFECT = 0.02


@dataclass(frozen=True)
class Speedup:
    """baseline median / kernel median, and the range it takes while each median ranges over its 99%
    confidence interval (both true medians lie in theirs with probability >= 98%), as kbench run computes
    it (suite/shape_result.hpp)."""

    ratio: float
    low: float
    high: float
    disturbed: bool = False  # timed while other work took the CPUs (ShapeResult.machine)
    min_effect: float = MIN_EFFECT

    @property
    def verdict(self) -> str:
        """"unreliable" when timed on a busy machine; "faster"/"slower" when the interval excludes 1 and the
        speedup is at least min_effect from 1; otherwise "same" (as kbench run)."""
        if self.disturbed:
            return "unreliable"
        if self.low > 1 and self.ratio >= 1 + self.min_effect:
            return "faster"
        if self.high < 1 and self.ratio <= 1 / (1 + self.min_effect):
            return "slower"
        return "same"

    @classmethod
    def of(cls, kernel: Stats, baseline: Stats, disturbed: bool = False, min_effect: float = MIN_EFFECT) -> Speedup:
        return cls(baseline.median / kernel.median, baseline.median_ci_low / kernel.median_ci_high,
                   baseline.median_ci_high / kernel.median_ci_low, disturbed, min_effect)


@dataclass
class ShapeResult:
    """One kernel x shape: its status (ok, wrong_result, error, invalid_sync), why when not ok, the accuracy
    against the baseline, and the interleaved timings."""

    kernel: str
    shape: Shape
    status: str = "ok"
    reason: str = ""
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    mismatches: int = 0
    elements: int = 0
    timing: BenchResult | None = None
    baseline_timing: BenchResult | None = None
    speedup: Speedup | None = None
    gb_per_s: float | None = None
    framework: str = ""
    device: str = ""
    platform: str = ""
    baseline_framework: str = ""
    baseline_device: str = ""
    baseline_platform: str = ""
    seconds: float = 0.0
    config: dict[str, Any] = field(default_factory=dict)  # the tuning parameters' values measured
    config_source: str = "untunable"  # untunable, default, cache_hit, tuned, cache_miss
    tuning_s: float = 0.0
    warnings: list[str] = field(default_factory=list)
    # What else ran while the shape was timed (kbench.ContentionProbe: quiet, reason, detail); empty: not timed.
    machine: dict[str, Any] = field(default_factory=dict)

    @property
    def disturbed(self) -> bool:
        return bool(self.machine) and not self.machine["quiet"]

    @property
    def shape_text(self) -> str:
        return "[" + ",".join(str(d) for d in self.shape) + "]"


def _to_numpy(value: Any) -> np.ndarray:
    detach = getattr(value, "detach", None)
    if detach is not None:  # a torch tensor
        return detach().cpu().numpy()
    return np.asarray(value)


def _compare(result: ShapeResult, outputs: Any, expected: Any, atol: float, rtol: float) -> None:
    got = [_to_numpy(v) for v in outputs_of(outputs)]
    want = [_to_numpy(v) for v in outputs_of(expected)]
    if len(got) != len(want):
        result.status, result.reason = "wrong_result", f"{len(got)} outputs, the baseline gives {len(want)}"
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            result.status = "wrong_result"
            result.reason = f"output {i} has shape {list(g.shape)}, the baseline's is {list(w.shape)}"
            return
        g64 = g.astype(np.float64, copy=False)
        w64 = w.astype(np.float64, copy=False)
        difference = np.abs(g64 - w64)
        both_nan = np.isnan(g64) & np.isnan(w64)
        bad = ~(difference <= atol + rtol * np.abs(w64)) & ~both_nan
        finite = np.isfinite(difference)
        if finite.any():
            result.max_abs_error = max(result.max_abs_error, float(difference[finite].max()))
            scale = np.abs(w64[finite])
            relative = np.divide(difference[finite], scale, out=np.zeros_like(scale), where=scale > 0)
            result.max_rel_error = max(result.max_rel_error, float(relative.max()))
        result.mismatches += int(bad.sum())
        result.elements += int(g.size)
    if result.mismatches:
        result.status = "wrong_result"
        result.reason = (f"{result.mismatches} of {result.elements} elements outside atol {atol:g} + rtol "
                         f"{rtol:g} (max abs error {result.max_abs_error:.3g})")


def _time_interleaved(targets: list[tuple[str, Synchronizer]], target_ms: float) -> list[BenchResult]:
    """Times the targets interleaved, as kbench run times a kernel and its baseline: the repeat count the
    quickest-filled of them gets from ``target_ms``, in turns of calls (each after an untimed call) when there
    are several. One BenchResult per target, in order."""
    repeat = min(_kbench.compute_repeat(n, s.call, s.barrier, float(target_ms), 10, 1000) for n, s in targets)
    calls_per_turn = _kbench.interleaved_calls_per_turn(target_ms / repeat, repeat) if len(targets) > 1 else 1
    timed = _kbench.interleaved_bench([(n, s.call, s.barrier) for n, s in targets], repeat, 1, calls_per_turn)
    return [_bench_result(d, s.unverified_calls) for d, (_, s) in zip(timed, targets)]


def _error_text(error: BaseException) -> str:
    last = traceback.format_exception_only(type(error), error)[-1].strip()
    return last[:500]


def run_shape(k: Kernel, shape: Shape, *, seed: int = 0, target_ms: float = 100,
              atol: float | None = None, rtol: float | None = None, tune: TuneOptions | None = None,
              progress: Callable[[str], None] = lambda text: None) -> ShapeResult:
    """Checks ``k`` at ``shape`` against its baseline, then times the two interleaved (turns of calls, each
    after an untimed one), every call synchronized on its outputs and checked. A kernel that raises is
    recorded as ``error``, a wrong result as ``wrong_result`` (never timed), a wait that returned early as
    ``invalid_sync``: the result says so and the suite goes on. A kernel with tuning parameters is measured
    at the tuning cache's config, or tuned first (``tune``; kbench.tuning), or at its default."""
    result = ShapeResult(k.name, shape)
    started = time.perf_counter()
    label = f"{k.name} {result.shape_text}"
    try:
        progress(f"{label}: making inputs")
        host = list(k.inputs(shape, seed))
        args = [k.prepare(a) for a in host]
        baseline_args = [k.baseline_prepare(a) for a in host] if k.baseline is not None else []
        tolerances = (k.atol if atol is None else atol, k.rtol if rtol is None else rtol)
        reference = k.baseline(*baseline_args) if k.baseline is not None else None
        fn = k.fn
        if k.params:
            choice = _choose(k, result, host, args, reference, tolerances, target_ms, tune or TuneOptions(),
                             lambda text: progress(f"{label}: {text}"))
            result.config, result.config_source, result.tuning_s = choice.config, choice.source, choice.tuning_s
            if choice.source == "cache_miss":
                result.status, result.reason = "cache_miss", choice.reason
                return result
            if choice.reason:
                result.warnings.append(choice.reason)
            fn = functools.partial(k.fn, **choice.config)
        progress(f"{label}: checking against the baseline" if k.baseline else f"{label}: running (no baseline)")
        outputs = fn(*args)
        if reference is not None:
            _compare(result, outputs, reference, *tolerances)
            if result.status != "ok":
                return result
        del outputs
        progress(f"{label}: timing")
        kernel_sync = Synchronizer(lambda: fn(*args))
        result.framework, result.device, result.platform = kernel_sync.kind, kernel_sync.device, kernel_sync.platform
        targets = [(k.name, kernel_sync)]
        if k.baseline is not None:
            baseline = k.baseline
            baseline_sync = Synchronizer(lambda: baseline(*baseline_args))
            result.baseline_framework = baseline_sync.kind
            result.baseline_device, result.baseline_platform = baseline_sync.device, baseline_sync.platform
            targets.append(("baseline", baseline_sync))
        probe = _kbench.ContentionProbe()  # what else runs while the two are timed
        benches = _time_interleaved(targets, target_ms)
        result.machine = probe.finish()
        result.timing = benches[0]
        result.baseline_timing = benches[1] if len(benches) > 1 else None
        broken = [b for b in benches if b.sync_violations]
        if broken:
            result.status = "invalid_sync"
            result.reason = "; ".join(f"{b.name}: {b.sync_violations} of {len(b.samples_ms)} waits returned "
                                      "before the work was complete" for b in broken)
            return result
        for b in benches:
            if b.unverified_calls:
                result.warnings.append(f"{b.name}: outputs whose completion kbench cannot check (unverified)")
        if result.baseline_timing is not None:
            result.speedup = Speedup.of(result.timing.stats, result.baseline_timing.stats, result.disturbed)
        if k.bytes_moved is not None:
            result.gb_per_s = k.bytes_moved(shape) / (result.timing.stats.median * 1e-3) / 1e9
    except KeyboardInterrupt:
        raise
    except Exception as error:  # a kernel that raises is recorded, and the suite goes on
        result.status, result.reason = "error", _error_text(error)
    finally:
        result.seconds = time.perf_counter() - started
    return result


def _choose(k: Kernel, result: ShapeResult, host: list[np.ndarray], args: list[Any], reference: Any,
            tolerances: tuple[float, float], target_ms: float, options: TuneOptions,
            progress: Callable[[str], None]):
    """The config to measure ``k`` with (kbench.tuning.choose_config), each candidate checked against the
    reference before it is timed."""
    default = k.default or {name: (labels[0] if kind == "enumeration" else False if kind == "boolean" else values[0])
                            for name, kind, values, labels in k.params}
    probe = Synchronizer(lambda: k.fn(*args, **default))  # the framework and device, for the cache key

    def evaluate(config: dict[str, Any]) -> tuple[str, float, str]:
        try:
            if reference is not None:
                check = ShapeResult(k.name, result.shape)
                _compare(check, k.fn(*args, **config), reference, *tolerances)
                if check.status != "ok":
                    return "wrong_result", math.nan, check.reason
            sync = Synchronizer(lambda: k.fn(*args, **config))
            d = _kbench.do_bench(k.name, sync.call, sync.barrier, 2.0, float(options.target_ms), False, None)
            if d["sync_violations"]:
                return "runtime_error", math.nan, f"{d['sync_violations']} waits returned before the work was complete"
            return "ok", d["stats"]["median"], ""
        except KeyboardInterrupt:
            raise
        except Exception as error:  # a config that raises is recorded and the search goes on
            return "runtime_error", math.nan, _error_text(error)

    def retime(configs: list[dict[str, Any]]) -> list[float]:
        targets = [(str(i), Synchronizer(lambda config=config: k.fn(*args, **config)))
                   for i, config in enumerate(configs)]
        return [math.inf if b.sync_violations else b.stats.median
                for b in _time_interleaved(targets, options.target_ms)]

    dtypes = ",".join(str(a.dtype) for a in host)
    return choose_config(k.name, k.fn, k.params, k.default, result.shape_text, dtypes, probe.kind, probe.device,
                         probe.platform, evaluate, retime, options, progress)


def shape_records(result: ShapeResult, timestamp: int, seed: int) -> list[dict[str, Any]]:
    """The v3 records of one kernel x shape, as kbench run writes them: per implementation its latency
    samples (median, its 99% interval), for the kernel also the accuracy, the speedup with its interval and
    the bandwidth; one accuracy record (0) where the shape failed before it was timed."""
    def context(impl: str, framework: str, device: str, platform: str) -> dict[str, Any]:
        config = json.dumps(result.config, sort_keys=True, separators=(",", ":")) if impl == "kbench" else "{}"
        return {"kernel": result.kernel, "shape": result.shape_text, "backend": framework or "python",
                "device": device, "platform": platform, "gpu": framework == "torch-cuda", "timestamp": timestamp,
                "config": config,
                "extra": {"status": result.status, "command": "python run", "impl": impl, "seed": seed,
                          **({"config_source": result.config_source} if impl == "kbench" else {}),
                          **({"reason": result.reason} if result.reason else {}),
                          **({"machine": "disturbed" if result.disturbed else "quiet",
                              "machine_detail": result.machine["detail"]} if result.machine else {})}}

    def record(ctx: dict[str, Any], metric: str, values: list[float], extra: dict[str, Any]) -> dict[str, Any]:
        return json.loads(_kbench.make_record(json.dumps(ctx), metric, values, json.dumps(extra)))

    kernel_ctx = context("kbench", result.framework, result.device, result.platform)
    records = []
    checked = result.elements > 0 or result.status == "wrong_result"
    if checked or result.status in ("error", "cache_miss"):  # failed before the check: accuracy 0, and why
        passed = checked and result.status != "wrong_result"
        records.append(record(kernel_ctx, "accuracy", [1.0 if passed else 0.0],
                              {"max_abs_error": result.max_abs_error, "max_rel_error": result.max_rel_error,
                               "mismatches": result.mismatches}))
    timings = [(kernel_ctx, result.timing)]
    if result.baseline_timing is not None:
        timings.append((context("baseline", result.baseline_framework, result.baseline_device,
                                result.baseline_platform), result.baseline_timing))
    for ctx, bench in timings:
        if bench is None:
            continue
        s = bench.stats
        records.append(record(ctx, "latency_ms", bench.samples_ms,
                              {"stat": "median", "median": s.median, "cv": s.cv, "ci99_low": s.median_ci_low,
                               "ci99_high": s.median_ci_high, "sync_violations": bench.sync_violations,
                               "unverified_calls": bench.unverified_calls}))
        if result.machine and result.machine["measured"]:  # a metric, so that the history keeps it
            records.append(record(ctx, "machine_disturbed", [1.0 if result.disturbed else 0.0],
                                  {"machine_detail": result.machine["detail"]}))
    if result.speedup is not None:
        sp = result.speedup
        records.append(record(kernel_ctx, "speedup", [sp.ratio],
                              {"low": sp.low, "high": sp.high, "verdict": sp.verdict}))
    if result.gb_per_s is not None:
        records.append(record(kernel_ctx, "bandwidth_gbps", [result.gb_per_s], {}))
    if result.config_source == "tuned":
        records.append(record(kernel_ctx, "autotune_s", [result.tuning_s], {}))
    return records

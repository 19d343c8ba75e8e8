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
type and ``baseline_prepare`` into the baseline's. Outputs are compared by the suite's rule, as a C++ kernel's are:
``|kernel - baseline| <= atol + rtol * |baseline|`` for every element, NaN only where the baseline has NaN.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _kbench
from .sync import Synchronizer, outputs_of
from .tuning import ParameterSpec, parameters_of

__all__ = ["Kernel", "kernel", "registered", "clear_registry"]

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


# --- what a worker does with a kernel (kbench.worker runs these; python -m kbench run never does) ---------


STATUS = _kbench.shape_statuses()  # the suite's statuses by identifier: their names are the engine's


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def default_config(k: Kernel) -> dict[str, Any]:
    """The config a tunable kernel runs untuned: its ``default``, else each parameter's first value."""
    if k.default:
        return dict(k.default)
    return {name: (labels[0] if kind == "enumeration" else False if kind == "boolean" else values[0])
            for name, kind, values, labels in k.params}


def _to_numpy(value: Any) -> np.ndarray:
    detach = getattr(value, "detach", None)
    if detach is not None:  # a torch tensor
        return detach().cpu().numpy()
    return np.asarray(value)


@dataclass
class Accuracy:
    """The outputs of a call against the baseline's: |got - want| <= atol + rtol |want| on every element, NaN
    only where the baseline has NaN."""

    passed: bool = True
    message: str = ""
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    mismatches: int = 0
    elements: int = 0


def compare(outputs: Any, expected: Any, atol: float, rtol: float) -> Accuracy:
    """The outputs against the baseline's by the suite's own rule (kbench::check_accuracy, through the
    binding): each output as float64, which holds every dtype's values (integers exactly up to 2^53)."""
    got = [np.ascontiguousarray(_to_numpy(v), dtype=np.float64) for v in outputs_of(outputs)]
    want = [np.ascontiguousarray(_to_numpy(v), dtype=np.float64) for v in outputs_of(expected)]
    return Accuracy(**_kbench.check_accuracy(got, want, atol, rtol))


def error_text(error: BaseException) -> str:
    last = traceback.format_exception_only(type(error), error)[-1].strip()
    return last[:500]


class Problem:
    """One kernel x shape's inputs in a worker: made once, for every request about that shape (the shape
    itself, each tuning config, the re-timing), with the baseline's outputs as the reference."""

    def __init__(self, k: Kernel, shape: Sequence[int], seed: int) -> None:
        self.kernel, self.shape, self.seed = k, tuple(shape), seed
        self.host = list(k.inputs(self.shape, seed))
        self.args = [k.prepare(a) for a in self.host]
        self.baseline_args = [k.baseline_prepare(a) for a in self.host] if k.baseline is not None else []
        self.reference = k.baseline(*self.baseline_args) if k.baseline is not None else None

    def call(self, config: dict[str, Any]) -> Callable[[], Any]:
        fn, args = self.kernel.fn, self.args
        return (lambda: fn(*args, **config)) if config else (lambda: fn(*args))

    def tolerances(self, atol: float | None, rtol: float | None) -> tuple[float, float]:
        return (self.kernel.atol if atol is None else atol, self.kernel.rtol if rtol is None else rtol)

    def probe(self, config: dict[str, Any]) -> dict[str, Any]:
        """What a tuning cache key needs of this shape: the framework, device and platform of the kernel's
        outputs, its input dtypes and a hash of its source."""
        sync = Synchronizer(self.call(config))
        return {"framework": sync.kind, "device": sync.device, "platform": sync.platform,
                "dtypes": ",".join(str(a.dtype) for a in self.host), "source_hash": source_hash(self.kernel.fn)}


def source_hash(fn: Callable[..., Any]) -> str:
    target = inspect.unwrap(getattr(fn, "__wrapped__", fn))
    try:
        text = inspect.getsource(target).encode()
    except (OSError, TypeError):
        code = getattr(target, "__code__", None)
        text = code.co_code if code is not None else repr(target).encode()
    return hashlib.sha256(text).hexdigest()


def _device(name: str, platform: str) -> dict[str, Any]:
    """A suite::shape_result's device: Python kernels run on the host process, whatever their framework
    drives; the framework itself is the backend label."""
    return {"backend": "cpu", "name": name, "vendor": "", "platform": platform, "driver_version": "",
            "max_work_group_size": 0, "global_memory_bytes": 0, "compute_units": os.cpu_count() or 0}


def _impl(impl: str, sync: Synchronizer | None, config: dict[str, Any], accuracy: Accuracy) -> dict[str, Any]:
    return {"impl": impl, "device": _device(sync.device if sync else "", sync.platform if sync else ""),
            "backend_label": sync.kind if sync else "python",
            "config": json.dumps(config, sort_keys=True, separators=(",", ":")), "baseline_form": "",
            "accurate": accuracy.passed, "max_abs_error": accuracy.max_abs_error,
            "max_rel_error": accuracy.max_rel_error, "mismatches": accuracy.mismatches, "latency_ms": [],
            "throughput_ms": [], "device_ms": [], "captured": 0, "dispatched": 0, "sync_violations": 0,
            "valid": False, "warnings": []}


def _interleaved(targets: list[tuple[str, Synchronizer]], target_ms: float) -> list[dict[str, Any]]:
    """The targets timed interleaved, as kbench run times a kernel and its baseline: the repeat count the
    quickest-filled of them gets from ``target_ms``, in turns of calls (each after an untimed call)."""
    repeat = min(_kbench.compute_repeat(n, s.target, s.barrier, float(target_ms), 10, 1000) for n, s in targets)
    calls_per_turn = _kbench.interleaved_calls_per_turn(target_ms / repeat, repeat) if len(targets) > 1 else 1
    return _kbench.interleaved_bench([(n, s.target, s.barrier) for n, s in targets], repeat, 1, calls_per_turn)


def run_shape(problem: Problem, config: dict[str, Any], target_ms: float, atol: float | None,
              rtol: float | None) -> dict[str, Any]:
    """One kernel x shape, as a C++ kernel's worker runs it (suite::run_shape): the kernel checked against
    its baseline, then both measured three ways (kbench.measure) and timed interleaved in turns of calls for
    the speedup, while the machine is watched. The JSON of a suite::shape_result: the verdict, the records
    and the table are made from it by the suite's engine, as for a C++ kernel."""
    k = problem.kernel
    started = time.perf_counter()
    result: dict[str, Any] = {"kernel": k.name, "shape": shape_text(problem.shape),
                              "shape_index": k.shapes.index(problem.shape), "status": STATUS["ok"], "reason": "",
                              "bytes_moved": float(k.bytes_moved(problem.shape)) if k.bytes_moved else 0.0,
                              "elapsed_s": 0.0}
    fn = problem.call(config)
    try:
        outputs = fn()
        accuracy = compare(outputs, problem.reference, *problem.tolerances(atol, rtol)) \
            if problem.reference is not None else Accuracy()
        del outputs
        kernel_sync = Synchronizer(fn)
        result["kbench"] = _impl("kbench", kernel_sync, config, accuracy)
        if not accuracy.passed:
            result["status"], result["reason"] = STATUS["wrong_result"], accuracy.message
            return result
        targets = [("kbench", kernel_sync)]
        if k.baseline is not None:
            baseline, baseline_args = k.baseline, problem.baseline_args
            baseline_sync = Synchronizer(lambda: baseline(*baseline_args))
            result["torch"] = _impl("baseline", baseline_sync, {}, Accuracy())
            targets.append(("baseline", baseline_sync))
        probe = _kbench.ContentionProbe()  # what else runs while they are measured and timed
        for name, sync in targets:
            measured = _kbench.measure(name, sync.target, sync.barrier, 0, target_ms / 2, 2, 0, 3, False)
            impl = result["kbench" if name == "kbench" else "torch"]
            impl.update(throughput_ms=list(measured["throughput_ms"]), device_ms=list(measured["device_ms"]),
                        captured=measured["calls_captured"], dispatched=measured["calls_dispatched"],
                        sync_violations=measured["result_sync_violations"] + measured["barrier_violations"],
                        valid=bool(measured["valid"]),
                        # the engine says itself when the measures disagree (suite::summarize_results)
                        warnings=[w for w in measured["warnings"] if not w.startswith("measures disagree")])
        timed = _interleaved(targets, target_ms)
        result["machine"] = json.loads(_kbench.finish_probe_json(probe))
        broken = []
        for (name, sync), bench in zip(targets, timed):
            impl = result["kbench" if name == "kbench" else "torch"]
            impl["latency_ms"] = list(bench["samples_ms"])
            impl["sync_violations"] += bench["sync_violations"]
            impl["valid"] = impl["valid"] and bench["sync_violations"] == 0
            if sync.unverified_calls:
                impl["warnings"].append("outputs whose completion kbench cannot check (unverified)")
            if not impl["valid"]:
                broken.append(f"{name}: {impl['sync_violations']} waits returned before the work was complete"
                              if impl["sync_violations"] else f"{name}: the timed window missed work")
        if broken:
            result["status"], result["reason"] = STATUS["invalid_timing"], "; ".join(broken)
    except KeyboardInterrupt:
        raise
    except Exception as error:  # a kernel that raises is recorded, and the suite goes on
        result["status"], result["reason"] = STATUS["runtime_error"], error_text(error)
    finally:
        result["elapsed_s"] = time.perf_counter() - started
    return result


def run_trial(problem: Problem, request: dict[str, Any], to_kwargs: Callable[[dict[str, int]], dict[str, Any]],
              atol: float | None, rtol: float | None) -> list[dict[str, Any]]:
    """One tuning trial sent by the suite's tuner (its trial_request; suite::choose_config decides which
    configs, in what order, and which wins), run as a C++ kernel's trial worker runs it: each config checked
    against the baseline first; ``time``: the candidate timed alone, then, if it came within
    ``retime_within`` of the incumbent's time, both timed interleaved (``retime_ms``); ``retime``: every
    config that passed timed interleaved (``time_ms`` with its 99% interval); ``compile``: the check only.
    One trial_outcome (JSON) per config, in order. ``to_kwargs`` turns a config of the engine (enum indices,
    booleans as 0/1) into the kernel's keyword arguments. Python kernels are timed in full: the C++ worker's
    early give-up and time limit are not applied here."""
    configs = request["configs"]
    outcomes = [{"config": c, "status": "ok", "time_ms": 0.0, "retime_ms": 0.0, "time_ci_low_ms": 0.0,
                 "time_ci_high_ms": 0.0, "samples": 0, "build_s": 0.0, "message": ""} for c in configs]
    synchronizers: dict[int, Synchronizer] = {}

    def fail(i: int, status: str, message: str) -> None:
        outcomes[i].update(status=status, message=message)

    def checked(i: int) -> bool:
        try:
            fn = problem.call(to_kwargs(configs[i]))
            if problem.reference is not None:
                accuracy = compare(fn(), problem.reference, *problem.tolerances(atol, rtol))
                if not accuracy.passed:
                    fail(i, "wrong_result", accuracy.message)
                    return False
            synchronizers[i] = Synchronizer(fn)
            return True
        except KeyboardInterrupt:
            raise
        except Exception as error:  # a config that raises is recorded and the search goes on
            fail(i, "runtime_error", error_text(error))
            return False

    def time_together(which: list[int], field: str) -> None:
        try:
            timed = _interleaved([(str(i), synchronizers[i]) for i in which], request["target_ms"])
        except KeyboardInterrupt:
            raise
        except Exception as error:
            for i in which:
                fail(i, "runtime_error", error_text(error))
            return
        for i, bench in zip(which, timed):
            if bench["sync_violations"]:
                fail(i, "runtime_error",
                     f"{bench['sync_violations']} waits returned before the work finished: timing invalid")
                continue
            stats = bench["stats"]
            outcomes[i][field] = stats["median"]
            if field == "time_ms":
                outcomes[i].update(time_ci_low_ms=stats["median_ci_low"], time_ci_high_ms=stats["median_ci_high"])
            outcomes[i]["samples"] += len(bench["samples_ms"])

    phase = request["phase"]
    if phase == "retime":
        passed = [i for i in range(len(configs)) if checked(i)]
        if passed:
            time_together(passed, "time_ms")
    elif phase == "time":
        if checked(0):
            time_together([0], "time_ms")
            incumbent_ms = request.get("incumbent_ms", 0.0)
            near = outcomes[0]["status"] == "ok" and incumbent_ms > 0 and \
                outcomes[0]["time_ms"] <= request["retime_within"] * incumbent_ms
            if len(configs) > 1 and near and checked(1):
                time_together([0, 1], "retime_ms")
    elif phase == "compile":
        for i in range(len(configs)):
            checked(i)
    else:
        raise ValueError(f"unknown trial phase {phase!r} (valid: compile, time, retime)")
    return outcomes

"""``python -m kbench run``: the suite for Python kernels. A front-end only: it parses the flags and prints.
The kernels run in worker processes (kbench.worker), started, timed out, killed and judged by the suite's
engine, as kbench run's C++ kernels are; the speedup, its verdict, the records and every default come from
that engine through kbench._kbench. Exit status 0 when every shape passed, 1 when one did not (its status
and why are in the table, the summary and the JSON), 2 on bad input, 128 + the signal after Ctrl-C (130) or
SIGTERM (143), once what was measured is written.

    python -m kbench run --module examples/python/jax_kernels.py --num-shapes 2 --output results.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import sys
import time
from typing import Any

from . import _kbench, records, tuning
from .suite import shape_text
from .worker import ANSWER_PREFIX

DEFAULTS = _kbench.timing_defaults()  # include/kbench/timing_budget.hpp, through the binding
STATUS = _kbench.shape_statuses()  # the suite's statuses by identifier (suite::shape_status)


class UsageError(Exception):
    """Bad input: exit status 2, with what is valid."""


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be > 0 and finite, not {text}")
    return value


def _tolerance(text: str) -> float:
    value = float(text)
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be >= 0 and finite, not {text}")
    return value


def parser() -> argparse.ArgumentParser:
    """The flags of ``python -m kbench run``; their defaults are kbench's (kbench._kbench.timing_defaults)."""
    top = argparse.ArgumentParser(prog="python -m kbench", description="kbench for Python kernels")
    commands = top.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="check every kernel x shape against its baseline and time it against it")
    run.add_argument("--module", action="append", required=True,
                     help="a .py file or an importable module that registers kernels (kbench.kernel); repeatable")
    run.add_argument("--kernel", "--kernels", default="", help="kernels to run, comma-separated (default: all)")
    shapes = run.add_mutually_exclusive_group()
    shapes.add_argument("--num-shapes", type=_positive_int, help="only the first N shapes of each kernel")
    shapes.add_argument("--shape-index", type=int, help="only shape I of each kernel")
    run.add_argument("--seed", type=int, default=0, help="seed of the inputs (default 0)")
    run.add_argument("--atol", type=_tolerance, help="absolute tolerance (default: each kernel's)")
    run.add_argument("--rtol", type=_tolerance, help="relative tolerance (default: each kernel's)")
    run.add_argument("--target-ms", type=_positive_float, default=DEFAULTS["target_ms"],
                     help="time budget each repeat count fills [ms] (default %(default)g)")
    run.add_argument("--min-effect", type=_tolerance, default=DEFAULTS["min_effect"],
                     help="the smallest speedup called faster or slower [fraction] (default %(default)g)")
    run.add_argument("--timeout-per-kernel", type=_positive_float, default=DEFAULTS["timeout_per_kernel_s"],
                     help="a kernel x shape whose worker runs longer is killed and marked timeout [s] "
                          "(default %(default)g)")
    run.add_argument("--effort", default="none", choices=["none", "quick", "full"],
                     help="tuning on a cache miss: none (the default config), quick, full (kbench tune's budgets)")
    run.add_argument("--strategy", help="search strategy (default: the effort's)")
    run.add_argument("--max-evals", type=_positive_int, help="configs evaluated per kernel x shape")
    run.add_argument("--time-budget", type=_positive_float, help="seconds of tuning per kernel x shape")
    run.add_argument("--tune-target-ms", type=_positive_float, default=DEFAULTS["tune_target_ms"],
                     help="time each config's timed calls fill [ms] (default %(default)g)")
    run.add_argument("--config-timeout", type=_positive_float, default=DEFAULTS["config_timeout_s"],
                     help="a tuning config whose worker runs longer is killed and marked timeout [s] "
                          "(default %(default)g)")
    run.add_argument("--assert-cache-hit", action="store_true",
                     help="a shape without a tuned config in the cache fails (also KBENCH_ASSERT_CACHE_HIT=1)")
    run.add_argument("--force-autotune", action="store_true", help="tune again, ignoring cached configs")
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the tuning cache")
    run.add_argument("--output", help="append v3 records to this JSON file")
    run.add_argument("--db", help="also store the records in this history database (sqlite:///path, postgresql://...)")
    run.add_argument("--commit", default="", help="commit recorded in the history (default: $GITHUB_SHA)")
    run.add_argument("--list", action="store_true", help="print the planned kernel x shape items, then exit")
    return top


class WorkerFailure(Exception):
    """A request the worker did not answer: its status (crashed, timeout, runtime_error, interrupted) and why."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


class KernelWorker:
    """The user's modules in a worker process (kbench.worker), served by the suite's engine: one worker at a
    time, replaced by a fresh one after it died or was killed."""

    def __init__(self, modules: list[str]) -> None:
        self.argv = [sys.executable, "-m", "kbench.worker"]
        for module in modules:
            self.argv += ["--module", module]
        self._served = _kbench.ServedWorker(self.argv, [], ANSWER_PREFIX)

    @property
    def workers_started(self) -> int:
        return self._served.workers_started

    def ask(self, request: dict[str, Any], timeout_s: float) -> Any:
        reply = self._served.request(json.dumps(request), timeout_s)
        outcome = reply["outcome"]
        if outcome == "answered":
            answer = json.loads(reply["answer"])
            if not answer["ok"]:
                raise WorkerFailure(STATUS["runtime_error"], answer["error"])
            return answer["answer"]
        errors = reply["errors"].strip().splitlines()
        last = f" ({errors[-1][:300]})" if errors and outcome == "died" and reply["signal"] else ""
        if outcome == "died" and reply["signal"]:
            raise WorkerFailure(STATUS["crashed"], reply["message"] + last)
        if outcome == "died" and reply["exit_code"] == 3:  # it could not import the user's modules
            raise UsageError("\n".join(errors[-12:]))
        status = {"timeout": STATUS["timeout"], "aborted": "interrupted"}.get(outcome, STATUS["crashed"])
        raise WorkerFailure(status, reply["message"])

    def stop(self, kill: bool = False) -> None:
        self._served.stop(kill)


def _plan(args: argparse.Namespace, kernels: dict[str, dict[str, Any]]) -> list[tuple[dict[str, Any], list[int]]]:
    if not kernels:
        raise UsageError(f"no kernels registered by {', '.join(args.module)} (decorate them with kbench.kernel)")
    names = [n for n in args.kernel.split(",") if n] or list(kernels)
    unknown = [n for n in names if n not in kernels]
    if unknown:
        raise UsageError(f"unknown kernel '{unknown[0]}' (valid: {', '.join(kernels)})")
    plan = []
    for name in names:
        k = kernels[name]
        if args.shape_index is not None:
            if not 0 <= args.shape_index < len(k["shapes"]):
                raise UsageError(f"--shape-index {args.shape_index} is out of range for {name} "
                                 f"(valid: 0 to {len(k['shapes']) - 1})")
            chosen = [k["shapes"][args.shape_index]]
        else:
            chosen = k["shapes"][: args.num_shapes] if args.num_shapes else k["shapes"]
        plan += [(k, s) for s in chosen]
    return plan


def _failed(k: dict[str, Any], shape: list[int], status: str, reason: str, elapsed_s: float) -> dict[str, Any]:
    """A suite::shape_result for a shape whose worker gave no result."""
    return {"kernel": k["name"], "shape": shape_text(shape), "shape_index": k["shapes"].index(shape),
            "status": status, "reason": reason, "bytes_moved": 0.0, "elapsed_s": elapsed_s}


def _tuning_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The tuning flags as the engine's tuning_request (None: the effort's or kbench's default)."""
    return {"strategy": args.strategy, "max_evals": args.max_evals, "time_budget_s": args.time_budget,
            "assert_cache_hit": args.assert_cache_hit, "force_autotune": args.force_autotune,
            "no_cache": args.no_cache, "config_timeout_s": args.config_timeout, "tune_target_ms": args.tune_target_ms}


def _choose_config(worker: KernelWorker, k: dict[str, Any], shape: list[int], args: argparse.Namespace,
                   progress) -> tuning.ConfigChoice:
    """The config a tunable kernel x shape is measured with, chosen by the suite's tuner, which runs every
    config in a trial worker of its own (kbench.worker --trials), each under --config-timeout."""
    specs = [tuple(spec) for spec in k["params"]]
    identity = {"kernel": k["name"], "shape": shape, "seed": args.seed, "atol": args.atol, "rtol": args.rtol}
    probe = worker.ask({"op": "probe", "config": k["default"], **identity}, args.config_timeout)
    key = {"kernel": k["name"], "shape": shape_text(shape), "dtype": probe["dtypes"], "backend": probe["framework"],
           "device": probe["device"], "driver": probe["platform"], "source_hash": probe["source_hash"]}
    trial_worker = worker.argv + ["--trials", json.dumps(identity)]
    return tuning.choose_config(specs, k["default"] if k["has_default"] else None, key, trial_worker,
                                _tuning_flags(args), args.effort, args.seed, progress)


def _run_item(worker: KernelWorker, k: dict[str, Any], shape: list[int], args: argparse.Namespace,
              progress) -> dict[str, Any]:
    started = time.perf_counter()
    config: dict[str, Any] = {}
    choice = None
    try:
        if k["params"]:
            choice = _choose_config(worker, k, shape, args, progress)
            if _kbench.workers_aborted():  # a second signal cut the search short: not a result
                return _failed(k, shape, "interrupted", "tuning interrupted", time.perf_counter() - started)
            if choice.source == "cache_miss":
                result = _failed(k, shape, STATUS["cache_miss"], choice.reason, time.perf_counter() - started)
                result["config_source"] = "cache_miss"
                return result
            config = choice.config
        progress("checking and timing")
        result = worker.ask({"op": "shape", "kernel": k["name"], "shape": shape, "seed": args.seed,
                             "config": config, "target_ms": args.target_ms, "atol": args.atol, "rtol": args.rtol},
                            args.timeout_per_kernel)
    except WorkerFailure as failure:
        result = _failed(k, shape, failure.status, failure.message, time.perf_counter() - started)
    if choice is not None:
        result.update(config_source=choice.source, tuning_s=choice.tuning_s, tuning_evaluations=choice.evaluated)
        if choice.reason:
            result["reason"] = "; ".join(r for r in (result.get("reason", ""), choice.reason) if r)
    else:
        result["config_source"] = "untunable"
    return result


def _report(results: list[dict[str, Any]], planned: int, seconds: float, min_effect: float) -> list[str]:
    """What kbench run says of the results (the engine's suite::summarize_results), the tuning line, and why
    each shape that is not ok is not, with the warnings of its measures."""
    summary = _kbench.render_results(json.dumps(results), planned, seconds, min_effect)
    lines = summary["text"].rstrip("\n").split("\n")
    tunable = [r for r in results if r.get("config_source", "untunable") != "untunable"]
    if tunable:
        tuned = [r for r in tunable if r["config_source"] in ("tuned", "no_valid_config")]
        lines.append(f"Configs: {len(tuned)} tuned ({sum(r.get('tuning_s', 0) for r in tuned):.1f} s tuning), "
                     f"{sum(r['config_source'] == 'cache_hit' for r in tunable)} from the tuning cache, "
                     f"{sum(r['config_source'] == 'cache_miss' for r in tunable)} cache misses, "
                     f"{sum(r['config_source'] == 'default' for r in tunable)} at the default; cache "
                     f"{_kbench.cache_default_directory()}")
    lines += [f"  ! {reason}" for reason in summary["reasons"]]
    for r in results:
        for impl in ("kbench", "torch"):
            lines += [f"  ! {r['kernel']} {r['shape']}: {r[impl]['impl']}: {w}" for w in (r.get(impl) or {}).get("warnings", [])]
    return lines


def run(args: argparse.Namespace) -> int:
    modules = []
    for module in args.module:
        path = pathlib.Path(module)
        if path.suffix == ".py" and not path.is_file():
            raise UsageError(f"--module {module}: no such file")
        modules.append(str(path.resolve()) if path.suffix == ".py" else module)
    if args.output:
        try:
            records.check_appendable(args.output)  # before anything runs: a foreign file is never overwritten
        except RuntimeError as error:
            raise UsageError(str(error)) from error
    if args.db:
        try:
            _kbench.history_add(args.db, "[]", "")  # opened first: a bad database is reported before anything runs
        except RuntimeError as error:
            raise UsageError(f"--db {args.db}: {error}") from error
    try:
        _kbench.check_tuning_flags(_tuning_flags(args), args.effort)  # kbench run's rules, before anything runs
    except RuntimeError as error:
        raise UsageError(str(error)) from error
    stop_signals = _kbench.StopSignals()  # Ctrl-C, SIGTERM, SIGHUP as kbench run takes them
    worker = KernelWorker(modules)
    try:
        try:
            kernels = {k["name"]: k for k in worker.ask({"op": "describe"}, args.timeout_per_kernel)["kernels"]}
        except WorkerFailure as failure:
            raise UsageError(f"--module {', '.join(args.module)}: the worker that imports it {failure.status}: "
                             f"{failure.message}") from failure
        plan = _plan(args, kernels)
        if args.list:
            for k, s in plan:
                print(f"{k['name']} {shape_text(s)}")
            return 0
        timestamp = int(time.time())
        started = time.perf_counter()
        results: list[dict[str, Any]] = []
        print(f"kbench run (python): {len(plan)} kernel x shape items, seed {args.seed}", flush=True)
        for i, (k, shape) in enumerate(plan, 1):
            if _kbench.stop_requested():
                break
            label = f"{k['name']} {shape_text(shape)}"

            def progress(text: str, i: int = i, label: str = label) -> None:
                print(f"[kbench] ({i}/{len(plan)}) {label}: {text}", file=sys.stderr, flush=True)

            result = _run_item(worker, k, shape, args, progress)
            if result["status"] == "interrupted":
                break  # a second signal: this shape is dropped, the ones before are written
            results.append(result)
            progress(f"{result['status']} ({result['elapsed_s']:.1f} s)")
        interrupted = _kbench.first_stop_signal()
        for line in _report(results, len(plan), time.perf_counter() - started, args.min_effect):
            print(line)
        all_records = [rec for r in results
                       for rec in json.loads(_kbench.shape_records(json.dumps(r), args.effort, timestamp,
                                                                   args.min_effect))]
        if args.output and all_records:
            records.append_records(args.output, all_records)
            print(f"wrote {len(all_records)} records to {args.output}")
        if args.db and all_records:
            added = _kbench.history_add(args.db, json.dumps(all_records),
                                        args.commit or os.environ.get("GITHUB_SHA", ""))
            print(f"stored {added['points_added']} points in {added['description']}")
        print(f"workers started: {worker.workers_started}", file=sys.stderr)
        if interrupted:
            return 128 + interrupted
        return 0 if len(results) == len(plan) and all(r["status"] == STATUS["ok"] for r in results) else 1
    finally:
        worker.stop(kill=bool(_kbench.stop_requested()))
        del stop_signals


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return run(args)
    except UsageError as error:
        print(f"kbench: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

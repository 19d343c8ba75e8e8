"""``python -m kbench run``: the suite for Python kernels, with kbench run's flags, progress line, summary
table, exit statuses (0 all passed, 1 a shape failed, 2 bad usage, 130 interrupted), v3 JSON and history.

    python -m kbench run --module examples/python/jax_kernels.py --num-shapes 2 --output results.json
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import pathlib
import sys
import time

from . import _kbench, records, suite, tuning
from ._table import text_table


class UsageError(Exception):
    """Bad input: exit status 2, with what is valid."""


def _load(module: str) -> None:
    path = pathlib.Path(module)
    if path.suffix == ".py":
        if not path.is_file():
            raise UsageError(f"--module {module}: no such file")
        spec = importlib.util.spec_from_file_location(f"kbench_user_{path.stem}", path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = loaded
        spec.loader.exec_module(loaded)
    else:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            raise UsageError(f"--module {module}: {error}") from error


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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kbench", description="kbench for Python kernels")
    commands = parser.add_subparsers(dest="command", required=True)
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
    run.add_argument("--target-ms", type=_positive_float, default=100.0,
                     help="time budget each repeat count fills [ms] (default 100)")
    run.add_argument("--effort", default="none", choices=["none", "quick", "full"],
                     help="tuning on a cache miss: none (the default config), quick (<= 50 configs or 120 s per "
                          "shape), full (<= 200 or 900 s)")
    run.add_argument("--strategy", help="search strategy (default: bayes_subspace)")
    run.add_argument("--max-evals", type=_positive_int, help="configs evaluated per kernel x shape")
    run.add_argument("--time-budget", type=_positive_float, help="seconds of tuning per kernel x shape")
    run.add_argument("--tune-target-ms", type=_positive_float, default=20.0,
                     help="time each config's timed calls fill [ms] (default 20)")
    run.add_argument("--assert-cache-hit", action="store_true",
                     help="a shape without a tuned config in the cache fails (also KBENCH_ASSERT_CACHE_HIT=1)")
    run.add_argument("--force-autotune", action="store_true", help="tune again, ignoring cached configs")
    run.add_argument("--no-cache", action="store_true", help="neither read nor write the tuning cache")
    run.add_argument("--output", help="append v3 records to this JSON file")
    run.add_argument("--db", help="also store the records in this history database (sqlite:///path, postgresql://...)")
    run.add_argument("--commit", default="", help="commit recorded in the history (default: $GITHUB_SHA)")
    run.add_argument("--list", action="store_true", help="print the planned kernel x shape items, then exit")
    return parser


def _plan(args: argparse.Namespace) -> list[tuple[suite.Kernel, tuple[int, ...]]]:
    kernels = suite.registered()
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
            if not 0 <= args.shape_index < len(k.shapes):
                raise UsageError(f"--shape-index {args.shape_index} is out of range for {name} "
                                 f"(valid: 0 to {len(k.shapes) - 1})")
            chosen = [k.shapes[args.shape_index]]
        else:
            chosen = k.shapes[: args.num_shapes] if args.num_shapes else k.shapes
        plan += [(k, s) for s in chosen]
    return plan


def _table(results: list[suite.ShapeResult]) -> str:
    header = ["Kernel", "Shape", "Status", "kbench (ms)", "baseline (ms)", "Speedup", "Interval", "GB/s"]
    rows = []
    for r in results:
        k = f"{r.timing.stats.median:.4f}" if r.timing else "-"
        b = f"{r.baseline_timing.stats.median:.4f}" if r.baseline_timing else "-"
        sp = r.speedup
        rows.append([r.kernel, r.shape_text, r.status, k, b, f"{sp.ratio:.2f}x" if sp else "-",
                     f"{sp.low:.2f}-{sp.high:.2f} {sp.verdict}" if sp else "-",
                     f"{r.gb_per_s:.1f}" if r.gb_per_s is not None else "-"])
    return "\n".join(text_table(header, rows))


def _summary(results: list[suite.ShapeResult], planned: int, seconds: float) -> list[str]:
    passed = [r for r in results if r.status == "ok"]
    ratios = [r.speedup.ratio for r in passed if r.speedup and not r.disturbed]  # a busy machine's ratio: no
    geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
    lines = [f"Total: {len(passed)}/{planned} shapes passed"
             + (f"; geometric-mean speedup {geomean:.2f}x over {len(ratios)} shapes" if geomean else "")
             + f"; wall time {seconds:.1f} s"]
    verdicts = [r.speedup.verdict for r in passed if r.speedup]
    if verdicts:
        lines.append(f"Against the baselines: {verdicts.count('faster')} faster, {verdicts.count('same')} same within "
                     f"noise, {verdicts.count('slower')} slower, {verdicts.count('unreliable')} unreliable (Interval: "
                     "the speedup while each median ranges over its 99% confidence interval, >= 98% together; "
                     f"faster/slower when it excludes 1 and the speedup is at least {100 * suite.MIN_EFFECT:g}% from 1; "
                     "unreliable when other work took more than "
                     f"{100 * _kbench.max_quiet_others_fraction:.0f}% of the CPUs while the shape was timed)")
    timed = [r for r in results if r.machine]
    disturbed = [r for r in timed if r.disturbed]
    if timed:
        lines.append(f"Machine: {len(disturbed)} of {len(timed)} timed shapes were disturbed by other work (below)"
                     if disturbed else "Machine: quiet while every shape was timed")
    tunable = [r for r in results if r.config_source != "untunable"]
    if tunable:
        tuned = [r for r in tunable if r.config_source == "tuned"]
        lines.append(f"Configs: {len(tuned)} tuned ({sum(r.tuning_s for r in tuned):.1f} s tuning), "
                     f"{sum(r.config_source == 'cache_hit' for r in tunable)} from the tuning cache, "
                     f"{sum(r.config_source == 'cache_miss' for r in tunable)} cache misses, "
                     f"{sum(r.config_source == 'default' for r in tunable)} at the default; cache "
                     f"{_kbench.cache_default_directory()}")
    for r in results:
        if r.status != "ok":
            lines.append(f"  ! {r.kernel} {r.shape_text}: {r.status}: {r.reason}")
        for w in r.warnings:
            lines.append(f"  ! {r.kernel} {r.shape_text}: {w}")
        if r.disturbed:
            lines.append(f"  ! {r.kernel} {r.shape_text}: timed on a busy machine: {r.machine['reason']}")
    return lines


def run(args: argparse.Namespace) -> int:
    for module in args.module:
        _load(module)
    plan = _plan(args)
    if args.list:
        for k, s in plan:
            print(f"{k.name} [{','.join(map(str, s))}]")
        return 0
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
    if args.strategy:
        try:
            tuning.check_strategy(args.strategy)
        except RuntimeError as error:
            raise UsageError(str(error)) from error
    options = tuning.TuneOptions(effort=args.effort, strategy=args.strategy, max_evals=args.max_evals,
                                 time_budget_s=args.time_budget,
                                 assert_cache_hit=args.assert_cache_hit or tuning.assert_cache_hit_from_environment(),
                                 force=args.force_autotune, use_cache=not args.no_cache,
                                 target_ms=args.tune_target_ms, seed=args.seed)
    timestamp = int(time.time())
    started = time.perf_counter()
    results: list[suite.ShapeResult] = []
    interrupted = False
    print(f"kbench run (python): {len(plan)} kernel x shape items, seed {args.seed}", flush=True)
    try:
        for i, (k, shape) in enumerate(plan, 1):
            def progress(text: str, i: int = i) -> None:
                print(f"[kbench] ({i}/{len(plan)}) {text}", file=sys.stderr, flush=True)

            results.append(suite.run_shape(k, shape, seed=args.seed, target_ms=args.target_ms, atol=args.atol,
                                           rtol=args.rtol, tune=options, progress=progress))
    except KeyboardInterrupt:
        interrupted = True  # keep what was measured: the table and the records below
        print("[kbench] interrupted: reporting the shapes measured so far", file=sys.stderr, flush=True)
    print(_table(results))
    for line in _summary(results, len(plan), time.perf_counter() - started):
        print(line)
    all_records = [rec for r in results for rec in suite.shape_records(r, timestamp, args.seed)]
    if args.output and all_records:
        records.append_records(args.output, all_records)
        print(f"wrote {len(all_records)} records to {args.output}")
    if args.db and all_records:
        added = _kbench.history_add(args.db, json.dumps(all_records),
                                    args.commit or os.environ.get("GITHUB_SHA", ""))
        print(f"stored {added['points_added']} points in {added['description']}")
    if interrupted:
        return 130
    return 0 if len(results) == len(plan) and all(r.status == "ok" for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return run(args)
    except UsageError as error:
        print(f"kbench: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

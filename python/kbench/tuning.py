"""Tuning a Python kernel's parameters with kbench's search strategies and its tuning cache, as ``kbench run
--effort`` tunes the built-in kernels: every config checked against the baseline before it may win, a
config that raises or returns a wrong result recorded with its status while the search goes on, the best
config cached under a key of everything it depends on, and ``--assert-cache-hit`` for the two-pass nightly
pattern (tune once, then measure from the cache and fail on a miss).
"""

from __future__ import annotations

import datetime
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import _kbench

__all__ = ["parameters_of", "TuneOptions", "ConfigChoice", "choose_config"]

_DEFAULTS = _kbench.timing_defaults()  # kbench's own (include/kbench/timing_budget.hpp), not copies
RETIME_WITHIN = _DEFAULTS["retime_within"]  # configs this close to the search's fastest are re-timed interleaved
RETIME_AT_MOST = _DEFAULTS["retime_top"]  # of them, the fastest this many (bounds the re-timing)

# (name, kind, integers, labels): the extension's description of one parameter.
ParameterSpec = tuple[str, str, list[int], list[str]]


def parameters_of(params: dict[str, Sequence[Any]]) -> list[ParameterSpec]:
    """kbench.kernel's ``params`` as tune parameters: a list of ints is an integers parameter, of strings an
    enumeration, ``[False, True]`` a boolean."""
    specs: list[ParameterSpec] = []
    for name, values in params.items():
        values = list(values)
        if not values:
            raise ValueError(f"parameter {name!r} has no values")
        if all(isinstance(v, bool) for v in values):
            if sorted(values) != [False, True]:
                raise ValueError(f"boolean parameter {name!r} must have the values [False, True], not {values!r}")
            specs.append((name, "boolean", [], []))
        elif all(isinstance(v, str) for v in values):
            specs.append((name, "enumeration", [], values))
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            specs.append((name, "integers", values, []))
        else:
            raise ValueError(f"parameter {name!r}: values must be all ints, all strings or [False, True], "
                             f"not {values!r}")
    return specs


def to_python(specs: list[ParameterSpec], config: dict[str, int]) -> dict[str, Any]:
    """A config of the C++ side (enum indices, booleans as 0/1) as the kernel's keyword arguments."""
    result: dict[str, Any] = {}
    for name, kind, _, labels in specs:
        value = config[name]
        result[name] = labels[value] if kind == "enumeration" else bool(value) if kind == "boolean" else value
    return result


def to_native(specs: list[ParameterSpec], config: dict[str, Any]) -> dict[str, int]:
    """The kernel's keyword arguments as a config of the C++ side."""
    result = {}
    for name, kind, _, labels in specs:
        value = config[name]
        result[name] = labels.index(value) if kind == "enumeration" else int(value)
    return result


@dataclass(frozen=True)
class TuneOptions:
    effort: str = "none"  # none: the default config (or the cache's); quick, full: tune on a cache miss
    strategy: str | None = None  # default: the effort's (bayes_subspace)
    max_evals: int | None = None
    time_budget_s: float | None = None
    assert_cache_hit: bool = False  # a shape without a tuned config in the cache fails
    force: bool = False  # tune again, ignoring cached configs (still writes)
    use_cache: bool = True
    cache_dir: str | None = None  # default: $KBENCH_CACHE_DIR, else ~/.cache/kbench
    target_ms: float = _DEFAULTS["tune_target_ms"]  # each config's timed calls fill this [ms]
    seed: int = 0


@dataclass
class ConfigChoice:
    config: dict[str, Any]  # the kernel's keyword arguments
    source: str  # default, cache_hit, tuned, or cache_miss (the shape fails)
    reason: str = ""
    tuning_s: float = 0.0
    evaluated: int = 0
    cache_file: str = ""


def choose_config(name: str, source_hash: str, specs: list[ParameterSpec], default: dict[str, Any] | None,
                  shape_text: str, dtypes: str, framework: str, device: str, platform: str,
                  evaluate: Callable[[dict[str, Any]], tuple[str, float, str]],
                  retime: Callable[[list[dict[str, Any]]], list[float]], options: TuneOptions,
                  progress: Callable[[str], None]) -> ConfigChoice:
    """The config to measure a kernel x shape with: the cache's best when it has one, else a search (quick or
    full effort) or the default (none). ``evaluate(config)`` checks and times one config: (status, median
    [ms], message). ``retime(configs)`` times configs interleaved and gives their medians [ms]: after the
    search, the configs within RETIME_WITHIN of the fastest and the default are timed again side by side, and
    the fastest there wins, so that the pick is not decided by drift between their separate timings."""
    native_default = to_native(specs, default) if default else None
    key = {"kernel": name, "shape": shape_text, "dtype": dtypes, "backend": framework, "device": device,
           "driver": platform, "source_hash": source_hash,
           "space_hash": _kbench.tune_space_hash(specs, native_default), "kbench_version": _kbench.kbench_version()}
    directory = options.cache_dir or _kbench.cache_default_directory()
    key_json = json.dumps(key)
    cached = None
    if options.use_cache and not options.force:
        entry_json, warnings = _kbench.cache_read(directory, key_json)
        for warning in warnings:
            progress(f"tuning cache: {warning}")
        if entry_json:
            cached = json.loads(entry_json)
    if cached and cached.get("complete") and cached.get("best") is not None:
        return ConfigChoice(to_python(specs, cached["best"]), "cache_hit",
                            cache_file=_kbench.cache_path(directory, key_json))
    if options.assert_cache_hit:
        return ConfigChoice({}, "cache_miss", "no tuned config in the tuning cache: "
                            + _kbench.cache_describe_miss(directory, key_json))
    default_config = default or to_python(specs, {n: 0 for n, *_ in specs})
    if options.effort == "none":
        return ConfigChoice(dict(default_config), "default")

    effort = _kbench.tune_effort(options.effort)
    strategy = options.strategy or effort["strategy"]
    max_evals = options.max_evals if options.max_evals is not None else effort["max_evals"]
    time_budget_s = options.time_budget_s if options.time_budget_s is not None else effort["time_budget_s"]
    messages: dict[str, str] = {}
    started = time.perf_counter()

    def evaluate_native(config: dict[str, int]) -> tuple[str, float]:
        python_config = to_python(specs, config)
        status, time_ms, message = evaluate(python_config)
        text = json.dumps(config, sort_keys=True)
        if message:
            messages[text] = message
        progress(f"tuning: config {text} {status}"
                 + (f" {time_ms:.4f} ms" if status == "ok" else f": {message}"))
        return status, time_ms

    result = _kbench.tune_search(specs, native_default, strategy, max_evals, time_budget_s, options.seed,
                                 evaluate_native)
    tuning_s = time.perf_counter() - started
    log = []
    for config, status, time_ms in result["log"]:
        item: dict[str, Any] = {"config": config, "status": status}
        if status == "ok":
            item["time_ms"] = time_ms
        message = messages.get(json.dumps(config, sort_keys=True))
        if message:
            item["message"] = message
        log.append(item)
    best = result["best"]
    best_time = min((e["time_ms"] for e in log if e["status"] == "ok"), default=0.0)
    passed = sorted((e for e in log if e["status"] == "ok"), key=lambda e: e["time_ms"])
    candidates = [e for e in passed if e["time_ms"] <= RETIME_WITHIN * best_time][:RETIME_AT_MOST]
    default_entry = next((e for e in passed if e["config"] == native_default), None) if native_default else None
    if default_entry is not None and default_entry not in candidates:
        candidates.append(default_entry)
    if len(candidates) > 1:
        progress(f"tuning: re-timing the {len(candidates)} configs within {RETIME_WITHIN}x of the best and the "
                 "default, interleaved")
        medians = retime([to_python(specs, e["config"]) for e in candidates])
        for e, median in zip(candidates, medians):
            if math.isfinite(median):  # inf: a wait returned early in the re-timing
                e["retime_ms"] = median
        winner, fastest = min(zip(candidates, medians), key=lambda pair: pair[1])
        if math.isfinite(fastest):
            best, best_time = winner["config"], fastest
    entry = {"format": "kbench-tuning-cache/1", "key": key, "strategy": result["strategy"], "seed": options.seed, "complete": True,
             "best": best, "best_time_ms": best_time, "log": log, "tuning_s": tuning_s,
             "updated_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    cache_file = ""
    if options.use_cache:
        _kbench.cache_write(directory, json.dumps(entry))
        cache_file = _kbench.cache_path(directory, key_json)
    if best is None:
        return ConfigChoice(dict(default_config), "tuned", "no config passed; measuring the default", tuning_s,
                            len(log), cache_file)
    return ConfigChoice(to_python(specs, best), "tuned", "", tuning_s, len(log), cache_file)


def check_strategy(name: str) -> None:
    """Raises RuntimeError listing the valid strategies when ``name`` is not one (by building it on a
    one-config space)."""
    _kbench.tune_search([("x", "integers", [1], [])], None, name, 1, 0.0, 0, lambda config: ("ok", 1.0))


def assert_cache_hit_from_environment() -> bool:
    """KBENCH_ASSERT_CACHE_HIT=1 asks for --assert-cache-hit, as it does of the kbench tool."""
    return os.environ.get("KBENCH_ASSERT_CACHE_HIT", "") not in ("", "0")

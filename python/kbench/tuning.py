"""Tuning a Python kernel's parameters with kbench's search strategies and its tuning cache, as ``kbench run
--effort`` tunes the built-in kernels: every config checked against the baseline before it may win, a
config that raises or returns a wrong result recorded with its status while the search goes on, the best
config cached under a key of everything it depends on, and ``--assert-cache-hit`` for the two-pass nightly
pattern (tune once, then measure from the cache and fail on a miss).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import _kbench

__all__ = ["parameters_of", "ConfigChoice", "choose_config"]

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


@dataclass
class ConfigChoice:
    config: dict[str, Any]  # the kernel's keyword arguments
    source: str  # the engine's config_source: default, cache_hit, tuned, no_valid_config, cache_miss (fails)
    reason: str = ""
    tuning_s: float = 0.0
    evaluated: int = 0
    cache_file: str = ""


def choose_config(specs: list[ParameterSpec], default: dict[str, Any] | None, key: dict[str, str],
                  trial_worker: list[str], flags: dict[str, Any], effort: str, seed: int,
                  progress: Callable[[str], None]) -> ConfigChoice:
    """The config to measure a kernel x shape with, chosen by the suite's tuner (suite::choose_config, as
    for a C++ kernel): the cache's best under ``key`` (the Python side's fields: kernel, shape, dtype,
    backend, device, driver, source_hash; the engine adds the space's hash and its version) when it has
    one, else a search of ``effort`` (none: the default config), each config run in a trial worker started
    with ``trial_worker``, re-timed and picked by the engine. ``flags``: the tuning flags (strategy,
    max_evals, time_budget_s, assert_cache_hit, force_autotune, no_cache, config_timeout_s,
    tune_target_ms, ...; None: the default)."""
    native_default = to_native(specs, default) if default else None
    chosen = _kbench.choose_config(specs, native_default, key, trial_worker, flags, effort, seed,
                                   "", progress)  # "": $KBENCH_CACHE_DIR, else ~/.cache/kbench
    for warning in chosen["warnings"]:
        progress(f"tuning: {warning}")
    reason = chosen["message"] if chosen["source"] == "cache_miss" else \
        "no config passed; measuring the default" if chosen["source"] == "no_valid_config" else ""
    return ConfigChoice(to_python(specs, chosen["chosen"]) if chosen["chosen"] else {}, chosen["source"], reason,
                        chosen["tuning_s"], chosen["evaluations"], chosen["cache_file"])

"""kbench run (C++) and python -m kbench run share one engine: the same defaults, read from the core's
headers through the binding; the same verdict for the same timings; the same records, field for field and
type for type."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from kbench import _kbench
from kbench.__main__ import parser

REPO = pathlib.Path(__file__).resolve().parents[2]
KBENCH = REPO / "build" / "release" / "kbench"  # scripts/test.sh builds it before the Python tests run


def test_python_run_flags_default_to_the_engines_timing_budget():
    defaults = _kbench.timing_defaults()
    args = parser().parse_args(["run", "--module", "m.py"])
    assert args.target_ms == defaults["target_ms"]
    assert args.tune_target_ms == defaults["tune_target_ms"]
    assert args.min_effect == defaults["min_effect"]
    assert args.timeout_per_kernel == defaults["timeout_per_kernel_s"]
    assert args.config_timeout == defaults["config_timeout_s"]
    # Re-timing and the final pick are the engine's (suite::choose_config): the front-end passes none of
    # their settings, only the flags a user gave, and the engine refuses what kbench run refuses.
    from kbench.__main__ import _tuning_flags
    flags = _tuning_flags(args)
    assert "retime_within" not in flags and "retime_top" not in flags
    assert flags["tune_target_ms"] == defaults["tune_target_ms"] and flags["strategy"] is None
    with pytest.raises(RuntimeError, match="--strategy needs --effort quick or full"):
        _kbench.check_tuning_flags({**flags, "strategy": "random"}, "none")
    with pytest.raises(RuntimeError, match="exclude each other"):
        _kbench.check_tuning_flags({**flags, "no_cache": True, "force_autotune": True}, "quick")


def cli_default(help_text, flag):
    match = re.search(rf"{re.escape(flag)} [^\n]*=(\S+)", help_text)
    assert match, f"no default shown for {flag} in kbench run --help"
    return float(match.group(1))


def test_kbench_run_shows_the_same_defaults():
    assert KBENCH.exists(), "build/release/kbench is built before the Python tests (scripts/test.sh)"
    help_text = subprocess.run([KBENCH, "run", "--help"], capture_output=True, text=True, check=True).stdout
    defaults = _kbench.timing_defaults()
    assert cli_default(help_text, "--target-ms") == defaults["target_ms"]
    assert cli_default(help_text, "--tune-target-ms") == defaults["tune_target_ms"]
    assert cli_default(help_text, "--min-effect") == defaults["min_effect"]
    assert cli_default(help_text, "--timeout-per-kernel") == defaults["timeout_per_kernel_s"]


@pytest.mark.parametrize("kernel_ms, baseline_ms, disturbed, verdict", [
    ([1.0, 1.01, 0.99] * 10, [2.0, 2.02, 1.98] * 10, False, "faster"),
    ([1.0, 1.01, 0.99] * 10, [0.5, 0.51, 0.49] * 10, False, "slower"),
    ([1.0, 1.01, 0.99] * 10, [1.01, 1.0, 1.02] * 10, False, "same"),  # told apart or not: under 2%
    ([1.0, 1.01, 0.99] * 10, [2.0, 2.02, 1.98] * 10, True, "unreliable"),
])
def test_the_verdict_is_the_engines(kernel_ms, baseline_ms, disturbed, verdict):
    s = _kbench.estimate_speedup(kernel_ms, baseline_ms, disturbed, _kbench.timing_defaults()["min_effect"])
    assert s["verdict"] == verdict and s["low"] <= s["ratio"] <= s["high"]


def schema(value, path=""):
    """(path, type) of every leaf; the extra_info maps by their keys only (what they hold varies by run)."""
    if path.endswith("extra_info"):
        return {(f"{path}.{key}", "str") for key in value}
    if isinstance(value, dict):
        return set().union(*(schema(v, f"{path}.{k}") for k, v in value.items())) if value else {(path, "dict")}
    if path.endswith("benchmark_values"):  # samples: none where a framework gives no device time
        return {(path, "list")}
    if isinstance(value, list):
        return {(path + "[]", type(v).__name__) for v in value if not isinstance(v, (dict, list))} | \
            set().union(set(), *(schema(v, path + "[]") for v in value if isinstance(v, (dict, list))))
    return {(path, "number" if isinstance(value, (int, float)) and not isinstance(value, bool) else
             type(value).__name__)}


# Fields that only C++ kernels have (the torch baseline's setting, the calibrated peak), or that either has
# only sometimes (a reason, measures that disagree).
OPTIONAL_FIELDS = {"benchmark.extra_info.baseline_form", "benchmark.extra_info.torch_threads",
                              "benchmark.extra_info.gomp_spincount", "benchmark.extra_info.torch_setting_source",
                              "benchmark.extra_info.measures", "metric.extra_info.peak_triad_gbps",
                              "metric.extra_info.from_cache", "benchmark.extra_info.reason"}


def test_both_front_ends_write_the_same_records_and_verdicts(tmp_path):
    env = dict(os.environ, KBENCH_CACHE_DIR=str(tmp_path / "cache"))
    cpp_output, python_output = tmp_path / "cpp.json", tmp_path / "python.json"
    subprocess.run([KBENCH, "run", "--kernel", "exp", "--shape-index", "0", "--backend", "cpu", "--target-ms", "20",
                    "--output", cpp_output], check=True, capture_output=True, env=env, timeout=600)
    module = tmp_path / "exp_kernel.py"
    module.write_text("import numpy as np, kbench\n"
                      "@kbench.kernel(shapes=[(1024,)], baseline=np.exp, bytes_moved=lambda s: 8.0 * s[0],\n"
                      "               inputs=lambda s, seed: [np.random.default_rng(seed).uniform(-2, 2, s)"
                      ".astype(np.float32)])\n"
                      "def exp(x):\n    return np.exp(x)\n")
    subprocess.run([sys.executable, "-m", "kbench", "run", "--module", module, "--target-ms", "20", "--output",
                    python_output], check=True, capture_output=True, env=env, cwd=REPO, timeout=600)
    cpp = [r for r in json.loads(cpp_output.read_text()) if r["benchmark"]["extra_info"]["impl"] == "kbench"]
    python = [r for r in json.loads(python_output.read_text()) if r["benchmark"]["extra_info"]["impl"] == "kbench"]
    cpp_metrics = {r["metric"]["name"]: r for r in cpp}
    python_metrics = {r["metric"]["name"]: r for r in python}
    assert {"accuracy", "latency_ms", "throughput_ms", "device_ms", "capture_ratio", "speedup",
            "bandwidth_gbps"} <= set(python_metrics) & set(cpp_metrics)
    for name in set(python_metrics) & set(cpp_metrics):
        def kept(record):
            return {p for p in schema(record) if p[0].lstrip(".") not in OPTIONAL_FIELDS}
        assert kept(python_metrics[name]) == kept(cpp_metrics[name]), name
    for records in (cpp, python):
        everything = json.loads((cpp_output if records is cpp else python_output).read_text())
        latency = {r["benchmark"]["extra_info"]["impl"]: r["metric"]["benchmark_values"] for r in everything
                   if r["metric"]["name"] == "latency_ms"}
        speedup = next(r for r in records if r["metric"]["name"] == "speedup")
        baseline = next(impl for impl in latency if impl != "kbench")
        disturbed = speedup["benchmark"]["extra_info"]["machine"] == "disturbed"
        engine = _kbench.estimate_speedup(latency["kbench"], latency[baseline], disturbed,
                                          float(speedup["metric"]["extra_info"]["min_effect"]))
        assert speedup["metric"]["extra_info"]["verdict"] == engine["verdict"]
        assert float(speedup["metric"]["benchmark_values"][0]) == pytest.approx(engine["ratio"])


def test_python_outputs_are_checked_by_the_engines_accuracy_rule():
    import numpy as np
    from kbench import suite

    # Integers beyond float32's precision keep their values (compared as float64 by kbench::check_accuracy).
    want = np.array([1 << 24 | 1, 7], dtype=np.int64)
    assert suite.compare(want.copy(), want, 0.0, 0.0).passed
    off = suite.compare(want - np.array([1, 0]), want, 0.0, 0.0)
    assert not off.passed and off.mismatches == 1 and off.elements == 2
    assert off.message.startswith("1 of 2 elements outside atol 0 + rtol 0")
    # float16 and several outputs; shapes must match, as the C++ rule says.
    half = np.linspace(-1, 1, 8, dtype=np.float16)
    assert suite.compare((half, want), (half.astype(np.float32), want), 1e-3, 1e-3).passed
    shaped = suite.compare(half.reshape(2, 4), half, 1e-3, 1e-3)
    assert not shaped.passed and "output 0 has shape [2,4], the reference's is [8]" in shaped.message
    # The engine's allowance for mismatching elements (tolerance::max_mismatch_fraction) applies as well.
    assert not _kbench.check_accuracy([np.zeros(4)], [np.array([0, 0, 0, 1.0])], 0.5, 0.0, 0.2)["passed"]
    assert _kbench.check_accuracy([np.zeros(4)], [np.array([0, 0, 0, 1.0])], 0.5, 0.0, 0.25)["passed"]

"""Tuning Python kernels with python -m kbench run --effort: kbench's strategies over the kernel's
parameters, every config checked before it may win, failing configs recorded, the tuning cache, and
--assert-cache-hit for the two-pass nightly pattern."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

KERNELS = '''
import time
import numpy as np
import kbench

def inputs(shape, seed):
    return [np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)]

@kbench.kernel(shapes=[(4096,), (8192,)], inputs=inputs, baseline=np.exp,
               params={"CHUNK": [256, 1024, 4096], "MODE": ["fast", "wrong", "boom"], "PAUSE": [False, True]},
               default={"CHUNK": 1024, "MODE": "fast", "PAUSE": True})
def chunked_exp(x, CHUNK, MODE, PAUSE):
    if MODE == "boom":
        raise MemoryError("this config does not fit")
    if PAUSE:
        time.sleep(0.002)  # the slow half of the space
    y = np.empty_like(x)
    for i in range(0, x.size, CHUNK):
        y[i:i + CHUNK] = np.exp(x[i:i + CHUNK])
    if MODE == "wrong":
        y[0] += 1
    return y
'''


@pytest.fixture
def setup(tmp_path):
    module = tmp_path / "tunable.py"
    module.write_text(KERNELS)
    env = dict(os.environ, KBENCH_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("KBENCH_ASSERT_CACHE_HIT", None)
    return module, env, tmp_path


def kbench_run(env, *args):
    return subprocess.run([sys.executable, "-m", "kbench", "run", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=REPO, env=env)


def cache_entries(tmp_path):
    return [json.loads(p.read_text()) for p in sorted((tmp_path / "cache" / "tuning").rglob("*.json"))]


def test_tuning_checks_every_config_records_failures_and_caches_the_best(setup):
    module, env, tmp_path = setup
    output = tmp_path / "results.json"
    r = kbench_run(env, "--module", module, "--num-shapes", 1, "--effort", "quick", "--max-evals", 18,
                   "--target-ms", 20, "--output", output)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Configs: 1 tuned" in r.stdout
    [entry] = cache_entries(tmp_path)
    assert entry["complete"] and len(entry["log"]) == 18  # the whole space: 3 x 3 x 2
    statuses = {}
    for item in entry["log"]:
        statuses.setdefault(item["status"], []).append(item)
    assert len(statuses["ok"]) == 6 and len(statuses["wrong_result"]) == 6 and len(statuses["runtime_error"]) == 6
    assert all("MemoryError: this config does not fit" in item["message"] for item in statuses["runtime_error"])
    assert all("outside atol" in item["message"] for item in statuses["wrong_result"])
    # The best is a correct config without the pause (MODE 0 = fast, PAUSE 0 = False).
    assert entry["best"]["MODE"] == 0 and entry["best"]["PAUSE"] == 0
    # The engine's final pick (suite::choose_config): the configs near the best and the default (it passed)
    # re-timed side by side; the fastest there wins, and its time there is the entry's.
    assert "re-timing the" in r.stderr and "(the default config)" in r.stderr
    retimed = {c: float(ms) for c, ms in re.findall(r"^\[kbench\].*?    (\{.*?\}) ([0-9.]+) ms \(99% interval",
                                                     r.stderr, re.M)}
    assert len(retimed) >= 2, r.stderr
    best = json.dumps(entry["best"], sort_keys=True, separators=(",", ":"))
    assert retimed[best] == min(retimed.values()) and entry["best_time_ms"] == pytest.approx(retimed[best], abs=6e-5)
    assert entry["key"]["kernel"] == "chunked_exp" and entry["key"]["shape"] == "[4096]"
    assert entry["key"]["dtype"] == "float32" and entry["key"]["backend"] == "host"
    records = json.loads(output.read_text())
    latency = next(rec for rec in records if rec["metric"]["name"] == "latency_ms"
                   and rec["benchmark"]["extra_info"]["impl"] == "kbench")
    assert latency["benchmark"]["extra_info"]["config_source"] == "tuned"
    assert json.loads(latency["benchmark"]["extra_info"]["config"])["MODE"] == "fast"
    assert any(rec["metric"]["name"] == "autotune_s" for rec in records)

    # The second pass of the nightly pattern: measured from the cache, nothing tuned.
    r = kbench_run(env, "--module", module, "--num-shapes", 1, "--assert-cache-hit", "--target-ms", 20)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 tuned" in r.stdout and "1 from the tuning cache" in r.stdout
    assert not re.search(r"config +\d+ \{", r.stderr)  # no config was evaluated


def test_a_cache_miss_fails_the_shape_when_a_hit_is_asserted(setup):
    module, env, tmp_path = setup
    r = kbench_run(env, "--module", module, "--shape-index", 1, "--assert-cache-hit")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cache miss" in r.stdout and "no cached entry for kernel 'chunked_exp'" in r.stdout
    env = dict(env, KBENCH_ASSERT_CACHE_HIT="1")
    r = kbench_run(env, "--module", module, "--shape-index", 1)
    assert r.returncode == 1 and "cache miss" in r.stdout


def test_untuned_runs_measure_the_default_config(setup):
    module, env, tmp_path = setup
    r = kbench_run(env, "--module", module, "--num-shapes", 1, "--target-ms", 20)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 at the default" in r.stdout
    assert not (tmp_path / "cache" / "tuning").exists()


def test_an_unknown_strategy_exits_two_listing_the_valid_ones(setup):
    module, env, _ = setup
    r = kbench_run(env, "--module", module, "--effort", "quick", "--strategy", "annealing")
    assert r.returncode == 2 and "bayes_subspace" in r.stderr, r.stderr


def test_bad_parameters_are_refused_at_registration():
    import kbench
    from kbench import suite

    with pytest.raises(ValueError, match="all ints, all strings"):
        kbench.kernel("bad_mix", shapes=[(4,)], inputs=lambda s, seed: [], params={"P": [1, "a"]})(lambda x: x)
    with pytest.raises(ValueError, match="is not one of"):
        kbench.kernel("bad_default", shapes=[(4,)], inputs=lambda s, seed: [], params={"P": [1, 2]},
                      default={"P": 3})(lambda x: x)
    suite.clear_registry()

"""python -m kbench run: the suite for Python kernels, run as a user runs it (a subprocess), on a module of
test kernels: a good one, a wrong one, one that raises, and the examples in the repository. The kernels run in
worker processes (tests/python/test_isolation.py: crashes, hangs, signals)."""

import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import framework

REPO = pathlib.Path(__file__).resolve().parents[2]

KERNELS = '''
import time
import numpy as np
import kbench

def inputs(shape, seed):
    return [np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)]

@kbench.kernel(shapes=[(256,), (4096,)], inputs=inputs, baseline=np.exp, bytes_moved=lambda s: 8.0 * s[0])
def good_exp(x):
    return np.exp(x)

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def wrong_exp(x):
    y = np.exp(x)
    y[7] += 1.0
    return y

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def raising_exp(x):
    raise FloatingPointError("this config overflows")

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def slow_exp(x):
    open(FLAG, "w").close()
    time.sleep(0.05)
    return np.exp(x)
'''


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "test_kernels.py"
    path.write_text(f"FLAG = {str(tmp_path / 'slow_started')!r}\n" + KERNELS)
    return path


def kbench_run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "kbench", "run", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


def test_every_status_is_reported_and_recorded_and_the_run_goes_on(module, tmp_path):
    output = tmp_path / "results.json"
    r = kbench_run("--module", module, "--kernel", "good_exp,wrong_exp,raising_exp", "--output", output,
                   "--target-ms", 20)
    assert r.returncode == 1, r.stdout + r.stderr
    rows = {tuple(c.strip() for c in line.split("|")[:3]) for line in r.stdout.splitlines() if "|" in line}
    assert ("good_exp", "[256]", "ok") in rows and ("good_exp", "[4096]", "ok") in rows
    assert ("wrong_exp", "[256]", "wrong result") in rows and ("raising_exp", "[256]", "runtime error") in rows
    assert "Total: 2/4 shapes passed" in r.stdout
    assert "1 of 256 elements outside atol" in r.stdout
    assert "FloatingPointError: this config overflows" in r.stdout
    assert "[kbench] (1/4) good_exp [256]: checking and timing" in r.stderr
    records = json.loads(output.read_text())
    by_kernel = {}
    for rec in records:
        by_kernel.setdefault(rec["model"]["name"], []).append(rec)
    good = [(rec["metric"]["name"], rec["benchmark"]["extra_info"]["impl"]) for rec in by_kernel["good_exp"]]
    assert good.count(("latency_ms", "kbench")) == 2 and good.count(("latency_ms", "baseline")) == 2
    assert good.count(("speedup", "kbench")) == 2 and good.count(("accuracy", "kbench")) == 2
    wrong = by_kernel["wrong_exp"]
    assert [rec["metric"]["name"] for rec in wrong] == ["accuracy"]  # a wrong result is never timed
    assert wrong[0]["metric"]["benchmark_values"] == [0.0] and wrong[0]["metric"]["extra_info"]["mismatches"] == "1"
    raising = by_kernel["raising_exp"][0]
    assert raising["benchmark"]["extra_info"]["status"] == "runtime error"
    assert "this config overflows" in raising["benchmark"]["extra_info"]["reason"]
    speedup = next(rec for rec in by_kernel["good_exp"] if rec["metric"]["name"] == "speedup")
    extra = speedup["metric"]["extra_info"]
    assert float(extra["interval_low"]) <= speedup["metric"]["benchmark_values"][0] <= float(extra["interval_high"])
    assert extra["verdict"] in ("faster", "same", "slower", "unreliable")
    # Whether the machine was busy while each shape was timed, as a metric the history keeps.
    marks = [rec for rec in by_kernel["good_exp"] if rec["metric"]["name"] == "machine_disturbed"]
    assert len(marks) == 4 and all(rec["metric"]["benchmark_values"][0] in (0.0, 1.0) for rec in marks)
    assert all(rec["benchmark"]["extra_info"]["machine"] in ("quiet", "disturbed") for rec in marks)


def test_the_examples_pass(tmp_path):
    framework("torch")  # the baseline of both examples
    for example in ("jax_kernels.py", "torch_kernels.py"):
        r = kbench_run("--module", REPO / "examples" / "python" / example, "--num-shapes", 1, "--target-ms", 20)
        assert r.returncode == 0, r.stdout + r.stderr
        assert ("Total: 3/3 shapes passed" if example == "jax_kernels.py" else "Total: 4/4 shapes passed") in r.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--kernel", "nosuch"], "unknown kernel 'nosuch' (valid: good_exp, wrong_exp, raising_exp, slow_exp)"),
        (["--shape-index", "5", "--kernel", "good_exp"], "out of range for good_exp (valid: 0 to 1)"),
        (["--num-shapes", "0"], "must be >= 1"),
        (["--target-ms", "nan"], "must be > 0 and finite"),
        (["--db", "mysql://nowhere"], "--db mysql://nowhere"),
    ],
)
def test_bad_input_exits_two_and_says_what_is_valid(module, args, message):
    r = kbench_run("--module", module, *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr


def test_a_file_kbench_did_not_write_is_refused_before_anything_runs(module, tmp_path):
    foreign = tmp_path / "notes.json"
    foreign.write_text("my notes, not JSON")
    r = kbench_run("--module", module, "--kernel", "good_exp", "--output", foreign)
    assert r.returncode == 2 and "refusing to overwrite" in r.stderr
    assert "timing" not in r.stderr
    assert foreign.read_text() == "my notes, not JSON"


def test_records_go_to_the_history_database(module, tmp_path):
    db = tmp_path / "history.db"
    r = kbench_run("--module", module, "--kernel", "good_exp", "--num-shapes", 1, "--db", f"sqlite:///{db}",
                   "--commit", "abc123", "--target-ms", 20)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stored" in r.stdout and str(db) in r.stdout
    with sqlite3.connect(db) as connection:
        tables = [row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")]
        assert tables
        counts = [connection.execute(f"select count(*) from {t}").fetchone()[0] for t in tables]
    assert sum(counts) > 0


def test_list_prints_the_plan(module):
    r = kbench_run("--module", module, "--kernel", "good_exp,wrong_exp", "--list")
    assert r.returncode == 0 and r.stdout.split() == ["good_exp", "[256]", "good_exp", "[4096]", "wrong_exp", "[256]"]


def test_ctrl_c_finishes_the_current_shape_and_keeps_what_was_measured(module, tmp_path):
    output = tmp_path / "results.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "kbench", "run", "--module", str(module), "--kernel", "good_exp,slow_exp",
         "--output", str(output), "--target-ms", "20"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    flag = tmp_path / "slow_started"
    deadline = time.monotonic() + 120
    while not flag.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert flag.exists(), "slow_exp never started"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stdout + stderr
    assert "interrupted" in stderr
    names = {rec["model"]["name"] for rec in json.loads(output.read_text())}
    assert names == {"good_exp", "slow_exp"}  # the shape being timed when Ctrl-C came was finished


def test_a_shape_timed_beside_cpu_hogs_is_marked_and_gets_no_verdict(module, tmp_path):
    """With a busy loop on every CPU the shape is disturbed: its verdict is unreliable, never faster or
    slower, the summary counts it, and its records say so."""
    output = tmp_path / "busy.json"
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.5)  # the hogs are running before the shape is timed
        r = kbench_run("--module", module, "--kernel", "good_exp", "--num-shapes", 1, "--target-ms", 50,
                       "--output", output)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Machine: 1 of 1 timed shapes were disturbed by other work" in r.stdout, r.stdout
    assert "0 faster, 0 same within noise, 0 slower, 1 unreliable" in r.stdout, r.stdout
    assert "good_exp [256]: timed on a busy machine: other processes used" in r.stdout, r.stdout
    records = json.loads(output.read_text())
    speedup = next(rec for rec in records if rec["metric"]["name"] == "speedup")
    assert speedup["metric"]["extra_info"]["verdict"] == "unreliable"
    marks = [rec["metric"]["benchmark_values"] for rec in records if rec["metric"]["name"] == "machine_disturbed"]
    assert marks == [[1.0], [1.0]]

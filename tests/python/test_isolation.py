"""python -m kbench run runs every Python kernel in a worker process, as kbench run runs its C++ kernels: a
kernel that segfaults, hangs past --timeout-per-kernel, raises or returns a wrong result is recorded with its
status and the run goes on; no worker outlives the run, whether it ends, is stopped by a signal or killed."""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]

KERNELS = '''
import ctypes
import pathlib
import time
import numpy as np
import kbench

def inputs(shape, seed):
    return [np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)]

def started(name):
    pathlib.Path(FLAGS, name).touch()

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def passes(x):
    return np.exp(x)

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def segfaults(x):
    ctypes.string_at(0)  # reads address 0: SIGSEGV in the worker

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def hangs(x):
    started("hangs")
    time.sleep(3600)

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def raises(x):
    raise ValueError("no such mode")

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def wrong(x):
    return np.exp(x) + 1

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp)
def slow(x):
    started("slow")
    time.sleep(0.02)
    return np.exp(x)

@kbench.kernel(shapes=[(4096,)], inputs=inputs, baseline=np.exp, params={"MODE": ["fast", "crash", "slow"]},
               default={"MODE": "fast"})
def tunable(x, MODE):
    if MODE == "crash":
        ctypes.string_at(0)
    if MODE == "slow":
        time.sleep(0.001)
    return np.exp(x)

@kbench.kernel(shapes=[(256,)], inputs=inputs, baseline=np.exp, params={"MODE": ["fast", "hang"]},
               default={"MODE": "fast"})
def tuned_hangs(x, MODE):
    if MODE == "hang":
        started("tuned_hangs")
        time.sleep(3600)
    return np.exp(x)
'''


def make_module(tmp_path):
    flags = tmp_path / "flags"
    flags.mkdir()
    path = tmp_path / "isolated_kernels.py"
    path.write_text(f"FLAGS = {str(flags)!r}\n" + KERNELS)
    return path, flags


def start(module, *args, env=None):
    return subprocess.Popen([sys.executable, "-m", "kbench", "run", "--module", str(module), *map(str, args)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def workers_of(module):
    """The pids of processes whose command line names the module: python -m kbench.worker --module it."""
    pids = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "kbench.worker" in cmdline and str(module) in cmdline:
            pids.append(int(entry.name))
    return pids


def wait_for(path, seconds=120):
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.exists(), f"{path.name} never started"


def no_workers_left(module, seconds=3.0):
    deadline = time.monotonic() + seconds
    while workers_of(module) and time.monotonic() < deadline:
        time.sleep(0.05)
    return workers_of(module) == []


def test_a_crash_a_hang_an_exception_and_a_wrong_result_are_recorded_and_the_run_goes_on(tmp_path):
    module, _ = make_module(tmp_path)
    output = tmp_path / "results.json"
    process = start(module, "--kernel", "segfaults,passes,hangs,raises,wrong", "--timeout-per-kernel", 5,
                    "--target-ms", 20, "--output", output)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 1, stdout + stderr
    rows = {line.split("|")[0].strip(): line.split("|")[2].strip() for line in stdout.splitlines()
            if "|" in line and not line.startswith("---")}
    assert rows == {"Kernel": "Status", "segfaults": "crashed", "passes": "ok", "hangs": "timeout",
                    "raises": "runtime error", "wrong": "wrong result"}, stdout
    assert "Total: 1/5 shapes passed" in stdout
    assert "segfaults [256]: crashed: worker died on signal 11 (Segmentation fault)" in stdout
    assert "hangs [256]: timeout: worker killed after the 5 s timeout" in stdout
    assert "raises [256]: runtime error: ValueError: no such mode" in stdout
    records = json.loads(output.read_text())
    status = {rec["model"]["name"]: rec["benchmark"]["extra_info"]["status"] for rec in records}
    assert status == {"segfaults": "crashed", "passes": "ok", "hangs": "timeout", "raises": "runtime error",
                      "wrong": "wrong result"}
    # The kernel that passed was measured after the crash, in a fresh worker; the modules were imported once per
    # worker (the first, then one after the crash and one after the hang), not once per shape.
    assert any(rec["model"]["name"] == "passes" and rec["metric"]["name"] == "speedup" for rec in records)
    assert "workers started: 3" in stderr
    assert no_workers_left(module)


def test_a_tuning_config_that_crashes_is_recorded_and_the_search_goes_on(tmp_path):
    module, _ = make_module(tmp_path)
    env = dict(os.environ, KBENCH_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("KBENCH_ASSERT_CACHE_HIT", None)
    process = start(module, "--kernel", "tunable", "--effort", "quick", "--max-evals", 3, "--target-ms", 20,
                    env=env)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stdout + stderr
    [entry] = [json.loads(p.read_text()) for p in (tmp_path / "cache" / "tuning").rglob("*.json")]
    by_mode = {item["config"]["MODE"]: item for item in entry["log"]}
    assert by_mode[1]["status"] == "runtime_error" and "signal 11" in by_mode[1]["message"]
    assert by_mode[0]["status"] == "ok" and by_mode[2]["status"] == "ok"
    assert entry["best"]["MODE"] in (0, 2) and entry["complete"]
    assert no_workers_left(module)


def test_sigterm_finishes_the_shape_being_timed_and_writes_what_was_measured(tmp_path):
    module, flags = make_module(tmp_path)
    output = tmp_path / "results.json"
    process = start(module, "--kernel", "passes,slow,wrong", "--target-ms", 200, "--output", output)
    wait_for(flags / "slow")
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stdout + stderr
    assert "Total: 2/2 shapes passed (interrupted: 1 of 3 shapes not run)" in stdout
    names = {rec["model"]["name"] for rec in json.loads(output.read_text())}
    assert names == {"passes", "slow"}
    assert no_workers_left(module)


def test_a_second_sigterm_kills_the_hanging_worker_at_once(tmp_path):
    module, flags = make_module(tmp_path)
    output = tmp_path / "results.json"
    process = start(module, "--kernel", "passes,hangs,wrong", "--target-ms", 20, "--output", output)
    wait_for(flags / "hangs")
    assert workers_of(module)
    process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)  # the hang's timeout is 600 s: the signal ended it
    assert process.returncode == 143, stdout + stderr
    assert "stopping now" in stderr
    names = {rec["model"]["name"] for rec in json.loads(output.read_text())}
    assert names == {"passes"}
    assert no_workers_left(module)


def test_two_sigterms_during_tuning_stop_it_and_keep_only_real_outcomes(tmp_path):
    module, flags = make_module(tmp_path)
    env = dict(os.environ, KBENCH_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("KBENCH_ASSERT_CACHE_HIT", None)
    output = tmp_path / "results.json"
    process = start(module, "--kernel", "tuned_hangs", "--effort", "quick", "--target-ms", 20, "--output", output,
                    env=env)
    wait_for(flags / "tuned_hangs")  # the hanging config runs in the engine's trial worker
    process.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)  # --config-timeout is 60 s: the signal ended it
    assert process.returncode == 143, stdout + stderr
    assert "tuning stopped: kbench was interrupted" in stderr and "1 of 1 shapes not run" in stdout
    assert not output.exists()
    # The checkpoint keeps what was really measured, stays incomplete, and has no false failure.
    for entry in (json.loads(p.read_text()) for p in (tmp_path / "cache").rglob("*.json")):
        assert not entry["complete"] and all(item["status"] == "ok" for item in entry["log"])
    assert no_workers_left(module)


def test_a_killed_run_leaves_no_worker(tmp_path):
    module, flags = make_module(tmp_path)
    process = start(module, "--kernel", "hangs")
    wait_for(flags / "hangs")
    assert workers_of(module)
    process.kill()  # SIGKILL: no handler runs in the parent; the worker sees its parent gone
    process.communicate(timeout=30)
    assert no_workers_left(module, seconds=5)


def test_a_module_that_cannot_be_imported_exits_two_with_its_error(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import kbench\nraise ImportError('needs a GPU library')\n")
    process = start(broken)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, stdout + stderr
    assert "needs a GPU library" in stderr

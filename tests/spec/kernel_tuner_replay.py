"""Kernel Tuner 1.5 replays a kbench search: `kbench tune --spec vector_add.toml --kt-cache F`, then Kernel
Tuner's simulation mode (brute force over the same space) reads F and finds the times kbench recorded, and
`kbench tune --simulate F` finds the same optimum.

Usage: .venv-kt/bin/python tests/spec/kernel_tuner_replay.py KBENCH_EXE REPO_ROOT (run by ctest)."""

import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import kernel_tuner
import numpy as np


def kbench(exe, args, env):
    run = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=600)
    output = run.stdout + run.stderr
    assert run.returncode == 0, f"kbench {' '.join(args)} exited {run.returncode}:\n{output}"
    return output


def main(exe, repo):
    example = pathlib.Path(repo) / "examples/specs/vector_add"
    with tempfile.TemporaryDirectory(prefix="kbench-kt-") as scratch:
        env = dict(os.environ, KBENCH_CACHE_DIR=str(pathlib.Path(scratch) / "cache"))
        cache_file = str(pathlib.Path(scratch) / "vector_add_kt.json")
        tuned = kbench(exe, ["tune", "--spec", str(example / "vector_add.toml"), "--backend", "opencl",
                             "--tune-target-ms", "10", "--kt-cache", cache_file], env)
        assert "Kernel Tuner cache: " in tuned, tuned
        with open(cache_file) as f:
            recorded = json.load(f)
        times = {int(k): v["time"] for k, v in recorded["cache"].items()}
        assert sorted(times) == [32, 64, 128, 256, 512, 1024], times

        # Kernel Tuner's own reader and simulation runner, over the spec's space in brute force.
        n = recorded["problem_size"][0]
        arguments = [np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32), np.int32(n)]
        results, _ = kernel_tuner.tune_kernel(
            "vector_add", (example / "vector_add.cl").read_text(), (n,), arguments,
            {"block_size_x": [32, 64, 128, 256, 512, 1024]}, simulation_mode=True, cache=cache_file,
            strategy="brute_force", lang="OpenCL", quiet=True)
        replayed = {r["block_size_x"]: r["time"] for r in results}
        assert replayed == times, f"Kernel Tuner replayed {replayed}, kbench recorded {times}"

        # kbench's simulation reads the same file and finds the same optimum.
        best = min(times, key=times.get)
        simulated = kbench(exe, ["tune", "--simulate", cache_file, "--strategy", "random", "--max-evals", "6",
                                 "--runs", "2"], env)
        optimum = re.search(r"Optimum: ([0-9.]+) ms \{\"block_size_x\":(\d+)\}", simulated)
        assert optimum is not None, simulated
        assert int(optimum.group(2)) == best, f"kbench's optimum {optimum.group(0)}, Kernel Tuner's {best}"
    print(f"Kernel Tuner {kernel_tuner.__version__} replayed the {len(times)} configs kbench recorded; "
          f"best block_size_x={best}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

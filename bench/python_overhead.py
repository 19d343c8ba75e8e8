"""Per-call harness overhead on an empty Python function, in one run (interleaved rounds): a bare
time.perf_counter loop, kbench.do_bench and kbench.measure (wall median) as they time a callable whose outputs
are host values now (the call made from C++, completion proved by the result's type), kbench's earlier path
(a Python CallHandle per call, waited on and checked from C++: what do_bench did before), and
torch.utils.benchmark.Timer. Prints the medians over the rounds of each harness's median time per call [us],
their spread, and the ratios to the bare loop.

Usage: .venv/bin/python bench/python_overhead.py [--rounds 7]
"""

import argparse
import os
import statistics
import time

import torch.utils.benchmark as torch_benchmark

import kbench
from kbench import _kbench
from kbench.sync import Synchronizer


def empty():
    return None


def bare_loop(samples=20000):
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        empty()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def kbench_do_bench():
    return kbench.do_bench(empty, warmup=10, rep=50, return_mode="median") * 1e3


def kbench_measure():
    return kbench.measure(empty, target_ms=50).wall.median * 1e3


def handle_per_call():
    s = Synchronizer(empty)
    return _kbench.do_bench("empty", s.call, s.barrier, 10.0, 50.0, False, None)["stats"]["median"] * 1e3


def torch_timer():
    timer = torch_benchmark.Timer(stmt="fn()", globals={"fn": empty})
    return timer.blocked_autorange(min_run_time=0.05).median * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    harnesses = {"bare perf_counter loop": bare_loop, "kbench.do_bench": kbench_do_bench,
                 "kbench.measure (wall)": kbench_measure, "a Python handle per call": handle_per_call,
                 "torch.utils.benchmark.Timer": torch_timer}
    results = {name: [] for name in harnesses}
    load_before = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, harness in harnesses.items():
            results[name].append(harness())
    load = max(load_before, os.getloadavg()[0])
    print(f"per-call time of an empty Python function [us], median over {args.rounds} interleaved rounds "
          f"(load average {load:.2f} on {os.cpu_count()} cpus{'; the machine was busy' if load > 0.5 else ''})")
    bare = statistics.median(results["bare perf_counter loop"])
    print(f"{'harness':<30} {'median':>8} {'min':>8} {'max':>8} {'/ bare':>8}")
    for name, values in results.items():
        median = statistics.median(values)
        print(f"{name:<30} {median:8.3f} {min(values):8.3f} {max(values):8.3f} {median / bare:8.2f}")
    print("the bare loop and kbench time one call per sample (kbench: synchronized on the result, its completion "
          "checked); torch's Timer times blocks of many calls and divides, so it shows the call alone")


if __name__ == "__main__":
    main()

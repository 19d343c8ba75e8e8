"""What running Python kernels in workers costs: the start-up of a `python -m kbench.worker` that imports a
module of kernels (paid once per worker: once per run, again only after a worker died or was killed), and the
round trip of one request to a running worker (paid per shape and per tuning config). A fresh process per
shape, as `kbench run` starts for its C++ kernels, would pay the start-up per shape instead.

Usage: .venv/bin/python bench/python_worker_startup.py [--module examples/python/jax_kernels.py] [--starts 5]
"""

import argparse
import json
import os
import statistics
import sys
import time

from kbench import _kbench
from kbench.worker import ANSWER_PREFIX


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="examples/python/jax_kernels.py")
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    argv = [sys.executable, "-m", "kbench.worker", "--module", os.path.abspath(args.module)]
    describe = json.dumps({"op": "describe"})
    starts = []
    for _ in range(args.starts):
        worker = _kbench.ServedWorker(argv, [], ANSWER_PREFIX)
        started = time.perf_counter()
        reply = worker.request(describe, 600)
        starts.append(time.perf_counter() - started)
        assert reply["outcome"] == "answered", reply
        worker.stop(False)
    worker = _kbench.ServedWorker(argv, [], ANSWER_PREFIX)
    worker.request(describe, 600)
    trips = []
    for _ in range(args.requests):
        started = time.perf_counter()
        worker.request(describe, 600)
        trips.append(time.perf_counter() - started)
    worker.stop(False)
    load = os.getloadavg()[0]
    print(f"{args.module}: worker start-up (start, import the module, first answer) median "
          f"{statistics.median(starts):.2f} s (min {min(starts):.2f}, max {max(starts):.2f}) over {args.starts} "
          f"starts; a request to a running worker median {1e3 * statistics.median(trips):.2f} ms "
          f"(min {1e3 * min(trips):.2f}, max {1e3 * max(trips):.2f}) over {args.requests}; load average "
          f"{load:.2f} on {os.cpu_count()} cpus{'; the machine was busy' if load > 0.5 else ''}")


if __name__ == "__main__":
    main()

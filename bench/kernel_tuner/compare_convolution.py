"""kbench tune against Kernel Tuner 1.5 on the convolution example, side by side on one OpenCL device (PoCL
here): the same kernel source, space, constraints and budget (configs evaluated) for each tool and strategy.
Each tool reports its best config, its time by the tool's own measure, the configs it evaluated and its wall
time; then the best configs of all runs are timed again by one measure (kbench measure, wall median),
alternating over rounds, so that the configs are compared on the same footing.

Usage (from the repository root, after scripts/install-deps.sh and a release build):
  .venv-kt/bin/python bench/kernel_tuner/compare_convolution.py [--budget 50] [--shape-index 1] [--rounds 3]
docs/specs.md gives the figures of a run."""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import tempfile
import time

import kernel_tuner
import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
SPEC = REPO / "examples/specs/convolution/convolution.toml"
SOURCE = REPO / "examples/specs/convolution/convolution.cl"
KBENCH = REPO / "build/release/kbench"
FILTER = 7
# The spec's space and constraints (examples/specs/convolution/convolution.toml), in Kernel Tuner's terms.
TUNE_PARAMS = {
    "block_size_x": [16, 32, 64, 128],
    "block_size_y": [1, 2, 4, 8, 16],
    "tile_size_x": [1, 2, 4],
    "tile_size_y": [1, 2, 4],
}
RESTRICTIONS = [
    "block_size_x * block_size_y <= 1024",
    "(block_size_y * tile_size_y + 6) * (block_size_x * tile_size_x + 6) * 4 <= 49152",
]
SHAPES = [(256, 256), (1024, 1024)]  # [height, width], the spec's shapes


def run(command, env=None):
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, command))} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def tune_with_kbench(strategy, budget, shape_index, cache_dir):
    env = dict(os.environ, KBENCH_CACHE_DIR=str(cache_dir))
    start = time.perf_counter()
    out = run([KBENCH, "tune", "--spec", SPEC, "--backend", "opencl", "--shape-index", str(shape_index),
               "--strategy", strategy, "--effort", "full", "--max-evals", str(budget), "--time-budget", "3600",
               "--force-autotune"], env)
    wall = time.perf_counter() - start
    best = re.search(r"Best: (\{.*?\}) ([0-9.]+) ms; (\d+) configs evaluated", out)
    if best is None:
        raise SystemExit(out)
    return {"tool": "kbench", "strategy": strategy, "best": json.loads(best.group(1)),
            "own_ms": float(best.group(2)), "evaluated": int(best.group(3)), "wall_s": wall}


def tune_with_kernel_tuner(strategy, budget, shape_index):
    height, width = SHAPES[shape_index]
    rng = np.random.default_rng(0)
    arguments = [
        np.zeros(height * width, np.float32),
        rng.standard_normal((height + FILTER - 1) * (width + FILTER - 1)).astype(np.float32),
        rng.uniform(0, 0.04, FILTER * FILTER).astype(np.float32),
        np.int32(height),
        np.int32(width),
    ]
    options = {"max_fevals": budget} if strategy != "brute_force" else {}
    start = time.perf_counter()
    results, _ = kernel_tuner.tune_kernel(
        "convolution", SOURCE.read_text(), (width, height), arguments, dict(TUNE_PARAMS),
        grid_div_x=["block_size_x", "tile_size_x"], grid_div_y=["block_size_y", "tile_size_y"],
        restrictions=RESTRICTIONS, strategy=strategy, strategy_options=options, lang="OpenCL", quiet=True)
    wall = time.perf_counter() - start
    timed = [r for r in results if isinstance(r.get("time"), float)]
    best = min(timed, key=lambda r: r["time"])
    return {"tool": "Kernel Tuner", "strategy": strategy, "best": {k: best[k] for k in TUNE_PARAMS},
            "own_ms": best["time"], "evaluated": len(results), "wall_s": wall}


def retime(configs, shape_index, rounds, cache_dir):
    """Wall medians [ms] of each config by kbench measure, the configs alternating within each round."""
    env = dict(os.environ, KBENCH_CACHE_DIR=str(cache_dir))
    samples = {json.dumps(c, sort_keys=True): [] for c in configs}
    for _ in range(rounds):
        for key in samples:
            out = run([KBENCH, "measure", "--spec", SPEC, "--backend", "opencl", "--shape-index", str(shape_index),
                       "--config", key, "--target-ms", "300"], env)
            wall = re.search(r"^opencl\s+\|\s+([0-9.]+) ", out, re.MULTILINE)
            if wall is None:
                raise SystemExit(out)
            samples[key].append(float(wall.group(1)))
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=50, help="configs each search may evaluate")
    parser.add_argument("--shape-index", type=int, default=1, choices=range(len(SHAPES)))
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of the final re-timing")
    args = parser.parse_args()
    print(f"convolution {list(SHAPES[args.shape_index])}, budget {args.budget} configs, kbench "
          f"{KBENCH}, Kernel Tuner {kernel_tuner.__version__}")
    with tempfile.TemporaryDirectory(prefix="kbench-vs-kt-") as scratch:
        runs = []
        for strategy in ["random", "bayes_subspace"]:
            runs.append(tune_with_kbench(strategy, args.budget, args.shape_index, pathlib.Path(scratch) / strategy))
            print(json.dumps(runs[-1]), flush=True)
        for strategy in ["random_sample", "bayes_opt"]:
            runs.append(tune_with_kernel_tuner(strategy, args.budget, args.shape_index))
            print(json.dumps(runs[-1]), flush=True)
        samples = retime([r["best"] for r in runs], args.shape_index, args.rounds, pathlib.Path(scratch) / "retime")
    print(f"\n{'tool':<13} {'strategy':<15} {'configs':>7} {'wall s':>7} {'own ms':>8}  "
          f"{'re-timed wall ms: median (min-max)':<36} best config")
    for r in runs:
        walls = samples[json.dumps(r["best"], sort_keys=True)]
        retimed = f"{statistics.median(walls):.3f} ({min(walls):.3f}-{max(walls):.3f})"
        print(f"{r['tool']:<13} {r['strategy']:<15} {r['evaluated']:>7} {r['wall_s']:>7.1f} {r['own_ms']:>8.3f}  "
              f"{retimed:<36} {json.dumps(r['best'])}")

if __name__ == "__main__":
    main()

"""kbench: verified timing of kernels and of any Python callable on asynchronous devices.

A launch on an accelerator returns before the device has finished; when the wait for the device returns
early, wall-clock timings measure only the dispatch. kbench synchronizes on every output a call returns,
checks after every wait that the work really is complete, and never returns a broken measurement as a good
one.

    import jax, jax.numpy as jnp, kbench
    f = jax.jit(lambda x: jnp.exp(x) + 1)
    x = jnp.ones(104_857_600, jnp.float32)
    print(kbench.measure(lambda: f(x)))                         # wall | throughput | device | capture | sync
    print(kbench.measure(lambda: f(x), sync=kbench.sync.noop))  # INVALID: an early-returning sync, caught
    t = kbench.do_bench(lambda: f(x), warmup=25, rep=100, return_mode="median")

See kbench.measure, kbench.do_bench, kbench.interleaved_bench, kbench.compute_repeat and kbench.sync.
"""

from . import sync
from .records import append_records, check_appendable
from .suite import kernel, registered
from .bench import (
    BenchResult,
    InvalidMeasurementError,
    Measurement,
    Stats,
    UnverifiedSyncWarning,
    compute_repeat,
    do_bench,
    interleaved_bench,
    measure,
)

__version__ = "0.1.0"

__all__ = [
    "append_records",
    "check_appendable",
    "BenchResult",
    "InvalidMeasurementError",
    "Measurement",
    "Stats",
    "UnverifiedSyncWarning",
    "compute_repeat",
    "do_bench",
    "interleaved_bench",
    "kernel",
    "measure",
    "registered",
    "sync",
]

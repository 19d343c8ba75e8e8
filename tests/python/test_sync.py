"""The sync adapters on real frameworks: each output type is waited on and checked, a sync that returns
early is caught, outputs outlive the wait, and what cannot be checked says "unverified"."""

import threading
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import framework

import kbench

# 10,485,760 floats: long enough (tens of ms here) that work dispatched asynchronously is still running when
# a wait that did not wait returns.
N = 10_485_760


@pytest.fixture(scope="module")
def jax_async():
    # exp(x) + 1: XLA's CPU client dispatches it asynchronously (a lone jitted exp it runs inline on this
    # CPU, so a no-op sync has nothing to miss there).
    f = jax.jit(lambda v: jnp.exp(v) + 1)
    x = jnp.ones(N, jnp.float32)
    f(x).block_until_ready()
    return lambda: f(x)


def test_jax_outputs_are_waited_on_and_checked(jax_async):
    m = kbench.measure(jax_async, repeat=10, throughput_batches=2, device_time="none")
    assert m.sync == "jax"
    assert m.status == "ok", str(m)
    assert m.calls_captured == m.calls_dispatched == 10 + 2 * 10
    assert m.device.count == 0  # no timestamps on a JAX array (its profiler's: the tests below)
    assert m.wall.median > 0 and m.throughput.median > 0


def test_noop_sync_on_jax_is_flagged_invalid(jax_async):
    m = kbench.measure(jax_async, repeat=10, throughput_batches=2, sync=kbench.sync.noop)
    assert m.status == "INVALID"
    assert m.result_sync_violations > 0 and m.barrier_violations > 0
    assert m.calls_captured < m.calls_dispatched
    assert "INVALID" in str(m) and "must not be trusted" in str(m)
    with pytest.raises(kbench.InvalidMeasurementError, match="returned before the work was complete"):
        kbench.do_bench(jax_async, warmup=1, rep=50, sync=kbench.sync.noop)


def test_every_output_in_a_nested_result_is_checked(jax_async):
    ready = jnp.zeros(4)
    ready.block_until_ready()
    # The unfinished array is the last leaf, inside a dict inside a tuple: checking only the first output
    # would call this measurement valid.
    m = kbench.measure(lambda: (ready, np.ones(3), {"a": [1.0, jax_async()]}), repeat=5,
                       throughput_batches=1, sync=kbench.sync.noop)
    assert m.status == "INVALID"
    m = kbench.measure(lambda: (ready, np.ones(3), {"a": [1.0, jax_async()]}), repeat=5, throughput_batches=1)
    assert m.status == "ok", str(m)


def test_torch_cpu_and_numpy_are_synchronous():
    torch = framework("torch")
    x = torch.rand(1 << 16)
    m = kbench.measure(lambda: torch.exp(x), repeat=20, throughput_batches=1)
    assert (m.sync, m.status) == ("host", "ok")
    a = np.random.default_rng(0).random(1 << 16)
    m = kbench.measure(lambda: np.exp(a), repeat=20, throughput_batches=1)
    assert (m.sync, m.status) == ("host", "ok")


EXP_SOURCE = """
__kernel void exp_kernel(__global const float* x, __global float* y) {
  size_t i = get_global_id(0);
  y[i] = exp(x[i]) + 1.0f;
}
"""


@pytest.fixture(scope="module")
def opencl_exp(opencl_queue):
    cl = framework("pyopencl")

    context = opencl_queue.context
    host = np.linspace(-4, 4, N, dtype=np.float32)
    mf = cl.mem_flags
    x = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host)
    y = cl.Buffer(context, mf.WRITE_ONLY, host.nbytes)
    program = cl.Program(context, EXP_SOURCE).build()
    kernel = program.exp_kernel
    return lambda: kernel(opencl_queue, (N,), None, x, y)


def test_pyopencl_events_are_waited_on_and_give_device_time(opencl_exp):
    m = kbench.measure(opencl_exp, repeat=10, throughput_batches=2)
    assert m.sync == "pyopencl"
    assert m.status == "ok", str(m)
    assert m.device.count == 10  # profiling timestamps of every wall-latency call
    assert 0 < m.device.median <= m.wall.median


def test_noop_sync_on_pyopencl_is_flagged_invalid(opencl_exp):
    m = kbench.measure(opencl_exp, repeat=10, throughput_batches=2, sync=kbench.sync.noop)
    assert m.status == "INVALID"
    assert m.result_sync_violations > 0 and m.barrier_violations > 0


class Opaque:
    """An output of a type kbench has no adapter for."""


def test_outputs_without_a_completion_check_are_unverified():
    m = kbench.measure(lambda: Opaque(), repeat=5, throughput_batches=1)
    assert m.status == "unverified" and m.sync_check == "unverified"
    assert "cannot check" in str(m)
    with pytest.warns(kbench.UnverifiedSyncWarning):
        kbench.do_bench(lambda: Opaque(), warmup=1, rep=5)
    m = kbench.measure(lambda: Opaque(), repeat=5, throughput_batches=1, is_done=lambda out: True)
    assert m.status == "ok"


class Work:
    """Work run by a Python thread: a device that needs the GIL to make progress."""

    def __init__(self, log, seconds=0.002):
        self.log = log
        self.done = threading.Event()
        log.append(("launch", id(self)))
        threading.Thread(target=self._run, args=(seconds,), daemon=True).start()

    def _run(self, seconds):
        time.sleep(seconds)
        self.done.set()

    def __del__(self):
        self.log.append(("freed", id(self)))


def test_outputs_outlive_the_wait_and_the_gil_is_released_while_kbench_waits():
    log = []
    last = []

    def launch():
        work = Work(log)
        last[:] = [work]
        return work

    def sync():
        log.append(("wait", None))
        for work in list(last):
            work.done.wait()

    m = kbench.measure(launch, repeat=10, throughput_batches=2, sync=sync, is_done=lambda w: w.done.is_set())
    assert m.status == "ok", str(m)
    # Every output is freed only after a wait that came after its launch (ids are reused once freed, so the
    # log is read in order).
    launched_at = {}
    freed = 0
    for position, (what, ident) in enumerate(log):
        if what == "launch":
            launched_at[ident] = position
        elif what == "freed":
            start = launched_at.pop(ident)
            assert ("wait", None) in log[start:position], log[start:position + 1]
            freed += 1
    assert freed >= 2 + 10 + 2 * 10

    # A sync that does not wait: kbench drains the work by polling its status, which only finishes if the
    # GIL is released while kbench sleeps between polls (the watchdog fails the test otherwise).
    m = kbench.measure(launch, repeat=5, throughput_batches=1, sync=kbench.sync.noop,
                       is_done=lambda w: w.done.is_set())
    assert m.status == "INVALID" and m.result_sync_violations > 0


JAX_VERSION = tuple(int(p) for p in jax.__version__.split(".")[:2])


@pytest.mark.skipif(JAX_VERSION < (0, 10), reason=f"jax {jax.__version__}'s CPU trace has no per-execution "
                    "device events (tested by the next test)")
def test_jax_device_time_comes_from_the_profilers_trace():
    f = jax.jit(lambda v: jnp.exp(v) + 1)
    x = jnp.ones(1 << 20, jnp.float32)
    m = kbench.measure(lambda: f(x), repeat=20, throughput_batches=1)
    assert m.status == "ok", str(m)
    assert m.device_source == "jax.profiler" and m.device_calls_traced == 20
    assert m.device.count == 20 and all(t > 0 for t in m.device_ms)  # every traced call had its execution
    assert "device time: JAX's profiler, a trace of 20 more calls, 20 with device events" in str(m)
    off = kbench.measure(lambda: f(x), repeat=5, throughput_batches=1, device_time="none")
    assert off.device.count == 0 and off.device_source == ""


@pytest.mark.skipif(JAX_VERSION >= (0, 10), reason=f"jax {jax.__version__}'s trace has device events (tested by "
                    "the test before)")
def test_jax_without_device_events_in_its_trace_gets_no_device_time():
    f = jax.jit(lambda v: jnp.exp(v) + 1)
    x = jnp.ones(1 << 16, jnp.float32)
    m = kbench.measure(lambda: f(x), repeat=10, throughput_batches=1)
    assert m.status == "ok" and m.device.count == 0 and m.device_source == ""
    assert "recorded no per-execution device events" in m.device_note
    assert "device time: none" in str(m)

"""Shared pieces of the Python tests: a watchdog, so that a wait that never returns fails the run instead of
hanging it, and the pyopencl context on PoCL."""

import faulthandler
import sys

import pytest


@pytest.fixture(autouse=True)
def watchdog():
    # A test that hangs (a wait that never returns, a GIL that is never released) dumps every thread's stack
    # and ends the run after 120 s.
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def framework(name):
    """The module `name`, or a skip that says so where this test environment lacks it: the second one
    (.venv-current: the newest JAX with NumPy 2) has no torch or pyopencl, which Debian builds against NumPy 1.24;
    the first (.venv) has them all, and runs every test."""
    return pytest.importorskip(name, reason=f"{name} is not installed in this test environment ({sys.prefix})")


@pytest.fixture(scope="session")
def opencl_queue():
    cl = framework("pyopencl")

    platforms = [p for p in cl.get_platforms() if "Portable Computing Language" in p.name]
    assert platforms, f"PoCL not found among the OpenCL platforms {[p.name for p in cl.get_platforms()]}"
    context = cl.Context(platforms[0].get_devices())
    return cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)

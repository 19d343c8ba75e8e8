"""Shared pieces of the Python tests: a watchdog, so that a wait that never returns fails the run instead of
hanging it, and the pyopencl context on PoCL."""

import faulthandler

import pytest


@pytest.fixture(autouse=True)
def watchdog():
    # A test that hangs (a wait that never returns, a GIL that is never released) dumps every thread's stack
    # and ends the run after 120 s.
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def opencl_queue():
    import pyopencl as cl

    platforms = [p for p in cl.get_platforms() if "Portable Computing Language" in p.name]
    assert platforms, f"PoCL not found among the OpenCL platforms {[p.name for p in cl.get_platforms()]}"
    context = cl.Context(platforms[0].get_devices())
    return cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)

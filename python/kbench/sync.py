"""Synchronization on what a call returns, and the check that each wait really waited.

kbench waits on every output a call returns (a torch tensor, a JAX array, pyopencl events and arrays, NumPy
arrays and plain values, in any nesting of tuples, lists, dicts or JAX pytrees), keeps the outputs alive
until the wait has returned, and then asks each output's framework whether the work is complete: that
status, not the wait, is the ground truth. The adapters, picked from the outputs' types:

============  =================================  ============================  ====================
outputs       wait                               completion check              device time
============  =================================  ============================  ====================
JAX arrays    ``jax.block_until_ready``          ``Array.is_ready()``          none
torch (cuda)  an event recorded after the call   ``torch.cuda.Event.query()``  events around the call
torch (cpu)   none: the call is synchronous      complete on return            none
pyopencl      ``pyopencl.wait_for_events``       the events' execution status  profiling timestamps
NumPy, plain  none: the call is synchronous      complete on return            none
============  =================================  ============================  ====================

Any other output can be neither waited on nor checked: a measurement of it is "unverified", never "ok",
unless ``is_done=`` says how to check it. ``sync=`` replaces the waits (and the device barrier) with a
callable of no arguments, for instance ``torch.cuda.synchronize``; the completion check stays, which is how
a sync that returns early is caught (``sync=kbench.sync.noop`` reproduces one).
"""

from __future__ import annotations

import functools
import platform
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["noop", "outputs_of", "CallHandle", "Synchronizer"]


def noop() -> None:
    """A sync that returns at once without waiting: the failure kbench exists to catch (it is what
    ``torch.accelerator.synchronize()`` did on TPU). Pass ``sync=kbench.sync.noop`` to see it flagged."""


def outputs_of(value: Any) -> list[Any]:
    """The leaves of a call's result: the values inside tuples, lists, dicts and (where JAX is imported)
    JAX pytrees. None contributes nothing."""
    jax = sys.modules.get("jax")
    if jax is not None:
        return list(jax.tree_util.tree_leaves(value))
    leaves: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        if isinstance(item, (tuple, list)):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        else:
            leaves.append(item)
    return leaves


_HOST_TYPES = (int, float, complex, bool, str, bytes)


def _host_types() -> tuple[type, ...]:
    """The types whose values are complete when a call returns them (NumPy's where it is imported)."""
    numpy = sys.modules.get("numpy")
    return _HOST_TYPES + ((numpy.ndarray, numpy.generic) if numpy is not None else ())


def _is_host_value(leaf: Any) -> bool:
    return isinstance(leaf, _host_types())


class CallHandle:
    """The work of one call, as kbench's C++ core sees it: ``wait()``, ``is_complete()``,
    ``interval_ns()`` and ``has_device_clock``. Holds the call's outputs until it is dropped, after the
    wait."""

    __slots__ = (
        "outputs",
        "verified",
        "has_device_clock",
        "_jax",
        "_cl_events",
        "_cuda_start",
        "_cuda_end",
        "_sync",
        "_is_done",
    )

    def __init__(self, outputs: Any, sync: Callable[[], Any] | None, is_done: Callable[[Any], bool] | None,
                 cuda_start: Any = None) -> None:
        self.outputs = outputs
        self._sync = sync
        self._is_done = is_done
        self._jax: list[Any] = []
        self._cl_events: list[Any] = []
        self._cuda_start = None
        self._cuda_end = None
        unknown = False
        cuda_seen = False
        jax = sys.modules.get("jax")
        torch = sys.modules.get("torch")
        cl = sys.modules.get("pyopencl")
        cl_array = sys.modules.get("pyopencl.array")
        for leaf in outputs_of(outputs):
            if _is_host_value(leaf):
                continue
            if jax is not None and isinstance(leaf, jax.Array):
                self._jax.append(leaf)
            elif torch is not None and isinstance(leaf, torch.Tensor):
                if leaf.device.type == "cuda":
                    cuda_seen = True
                elif leaf.device.type != "cpu":
                    unknown = True  # a device kbench has no completion check for
            elif cl is not None and isinstance(leaf, cl.Event):
                self._cl_events.append(leaf)
            elif cl_array is not None and isinstance(leaf, cl_array.Array):
                self._cl_events.extend(leaf.events)
            else:
                unknown = True
        if cuda_seen:
            self._cuda_end = torch.cuda.Event(enable_timing=cuda_start is not None)
            self._cuda_end.record()
            self._cuda_start = cuda_start
        self.verified = is_done is not None or not unknown
        self.has_device_clock = (self._cuda_start is not None) or (
            bool(self._cl_events) and all(_profiled(e) for e in self._cl_events))

    def wait(self) -> None:
        if self._sync is not None:
            self._sync()
            return
        if self._jax:
            sys.modules["jax"].block_until_ready(self._jax)
        if self._cl_events:
            sys.modules["pyopencl"].wait_for_events(self._cl_events)
        if self._cuda_end is not None:
            self._cuda_end.synchronize()

    def is_complete(self) -> bool:
        if self._is_done is not None:
            return bool(self._is_done(self.outputs))
        if not all(a.is_ready() for a in self._jax):
            return False
        if self._cl_events:
            complete = sys.modules["pyopencl"].command_execution_status.COMPLETE
            if not all(e.command_execution_status == complete for e in self._cl_events):
                return False
        return self._cuda_end is None or self._cuda_end.query()

    def interval_ns(self) -> tuple[int, int] | None:
        """The device's time for this call's work [ns] as (0, duration), or None."""
        if self._cuda_start is not None and self._cuda_end is not None:
            return (0, int(self._cuda_start.elapsed_time(self._cuda_end) * 1e6))
        if self._cl_events:
            try:
                total = sum(e.profile.end - e.profile.start for e in self._cl_events)
            except Exception:  # not complete yet, or a queue without profiling
                return None
            return (0, int(total))
        return None


def _profiled(event: Any) -> bool:
    cl = sys.modules["pyopencl"]
    try:
        return bool(event.command_queue.properties & cl.command_queue_properties.PROFILING_ENABLE)
    except Exception:
        return False


class Synchronizer:
    """How kbench calls ``fn`` and waits for it: the call that returns a CallHandle, and the device barrier
    (None: kbench waits on every result of a throughput batch instead). Built from one probe call's
    outputs."""

    def __init__(self, fn: Callable[[], Any], sync: Callable[[], Any] | str = "auto",
                 is_done: Callable[[Any], bool] | None = None) -> None:
        if not (sync == "auto" or callable(sync)):
            raise ValueError(f"sync must be 'auto' or a callable of no arguments, not {sync!r}")
        if is_done is not None and not callable(is_done):
            raise ValueError(f"is_done must be a callable of the outputs, not {is_done!r}")
        self.fn = fn
        self.sync = None if sync == "auto" else sync
        self.is_done = is_done
        self._unverified = [0]  # calls whose outputs kbench could not check; shared with the HostCall's wrap
        probe = CallHandle(fn(), self.sync, is_done)
        probe.wait()
        self._cuda = probe._cuda_end is not None
        self.kind = _kind_of(probe)
        self.device, self.platform = _device_of(probe)
        if self.sync is not None:
            self.barrier: Callable[[], Any] | None = self.sync
        elif self._cuda:
            self.barrier = sys.modules["torch"].cuda.synchronize
        elif probe._cl_events:
            queues = list({e.command_queue for e in probe._cl_events})

            def finish_queues() -> None:
                for queue in queues:
                    queue.finish()

            self.barrier = finish_queues
        else:
            self.barrier = None
        # What the timing loop calls: for a callable whose outputs are host values (complete when it returns),
        # the callable itself, each result's completeness proved by its type in C++ (no Python step inside the
        # timed window); a result of another type still gets a CallHandle. Otherwise self.call.
        self.target: Callable[[], Any] | Any = self.call
        if self.sync is None and is_done is None and self.kind == "host":
            from . import _kbench

            # (wrap holds no reference to self: a HostCall is not seen by Python's cycle collector)
            self.target = _kbench.HostCall(fn, _host_types(), functools.partial(_wrap, self._unverified))
        del probe

    @property
    def unverified_calls(self) -> int:
        return self._unverified[0]

    def call(self) -> CallHandle:
        start = None
        if self._cuda:
            start = sys.modules["torch"].cuda.Event(enable_timing=True)
            start.record()
        handle = CallHandle(self.fn(), self.sync, self.is_done, start)
        if not handle.verified:
            self._unverified[0] += 1
        return handle


def _wrap(unverified: list[int], outputs: Any) -> CallHandle:
    """The handle of a host callable's result that is not a host value (HostCall's fallback)."""
    handle = CallHandle(outputs, None, None)
    if not handle.verified:
        unverified[0] += 1
    return handle


def _device_of(handle: CallHandle) -> tuple[str, str]:
    """The device the outputs live on and the framework with its version, for records."""
    if handle._jax:
        jax = sys.modules["jax"]
        devices = sorted(str(d) for d in handle._jax[0].devices())
        return ",".join(devices), f"jax {jax.__version__}"
    if handle._cuda_end is not None:
        torch = sys.modules["torch"]
        return torch.cuda.get_device_name(), f"torch {torch.__version__}"
    if handle._cl_events:
        device = handle._cl_events[0].command_queue.device
        return device.name.strip(), device.platform.name.strip()
    return platform.processor() or platform.machine(), f"python {platform.python_version()}"


def _kind_of(handle: CallHandle) -> str:
    kinds = []
    if handle._jax:
        kinds.append("jax")
    if handle._cuda_end is not None:
        kinds.append("torch-cuda")
    if handle._cl_events:
        kinds.append("pyopencl")
    if not kinds:
        kinds.append("host" if handle.verified else "unknown")
    return "+".join(kinds)

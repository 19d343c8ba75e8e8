"""The torch-on-cuda adapter (events recorded around the call: the completion check and the device time).
It needs a CUDA device and a torch built with CUDA; Debian's python3-torch, which CI uses, is CPU-only, so
here these tests skip with that message."""

import pytest
from conftest import framework

import kbench

torch = framework("torch")

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="no CUDA device for torch (Debian's python3-torch is CPU-only): the torch-cuda adapter is not run")


@pytest.fixture(scope="module")
def cuda_exp():
    x = torch.rand(1 << 24, device="cuda")
    return lambda: torch.exp(x)


def test_cuda_tensors_are_waited_on_with_events_and_give_device_time(cuda_exp):
    m = kbench.measure(cuda_exp, repeat=20, throughput_batches=2)
    assert (m.sync, m.status) == ("torch-cuda", "ok"), str(m)
    assert m.device.count == 20 and 0 < m.device.median <= m.wall.median


def test_noop_sync_on_cuda_is_flagged_invalid(cuda_exp):
    m = kbench.measure(cuda_exp, repeat=20, throughput_batches=2, sync=kbench.sync.noop)
    assert m.status == "INVALID" and m.result_sync_violations > 0

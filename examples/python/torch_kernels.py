"""exp, add and softmax written with torch operations other than torch's own op for them (out= variants
into preallocated outputs, a hand-written softmax), each checked and timed against the op:
    python -m kbench run --module examples/python/torch_kernels.py
"""

import numpy as np
import torch

import kbench


def uniform(shape, seed, low=-4.0, high=4.0, count=1):
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, high, shape).astype(np.float32) for _ in range(count)]


_out = {}


def _output_like(x, key):
    out = _out.get(key)
    if out is None or out.shape != x.shape:
        out = _out[key] = torch.empty_like(x)
    return out


@kbench.kernel("exp_torch_out", shapes=[(1 << 16,), (1 << 20,), (1 << 24,)], inputs=uniform,
               prepare=torch.from_numpy, baseline=torch.exp, baseline_prepare=torch.from_numpy,
               bytes_moved=lambda s: 8.0 * s[0])
def exp_torch_out(x):
    """y = exp(x) into a preallocated output"""
    return torch.exp(x, out=_output_like(x, "exp"))


@kbench.kernel("add_torch_out", shapes=[(256, 256), (1024, 1024), (4096, 4096)],
               inputs=lambda shape, seed: uniform(shape, seed, count=2), prepare=torch.from_numpy,
               baseline=torch.add, baseline_prepare=torch.from_numpy, bytes_moved=lambda s: 12.0 * s[0] * s[1])
def add_torch_out(x, y):
    """z = x + y into a preallocated output"""
    return torch.add(x, y, out=_output_like(x, "add"))


@kbench.kernel("softmax_torch_manual", shapes=[(1024, 256), (1024, 1024), (4096, 4096)], inputs=uniform,
               prepare=torch.from_numpy, baseline=lambda x: torch.softmax(x, dim=-1),
               baseline_prepare=torch.from_numpy, atol=1e-6, rtol=1e-5, bytes_moved=lambda s: 8.0 * s[0] * s[1])
def softmax_torch_manual(x):
    """y = softmax(x, dim=-1) from exp, sum and divide"""
    e = torch.exp(x - x.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)


@kbench.kernel("softmax_torch_rows", shapes=[(4096, 1024), (16384, 1024)], inputs=uniform,
               prepare=torch.from_numpy, baseline=lambda x: torch.softmax(x, dim=-1),
               baseline_prepare=torch.from_numpy, atol=1e-6, rtol=1e-5, bytes_moved=lambda s: 8.0 * s[0] * s[1],
               params={"ROWS": [64, 256, 1024, 4096], "OUT": [False, True]}, default={"ROWS": 4096, "OUT": False})
def softmax_torch_rows(x, ROWS, OUT):
    """y = softmax(x, dim=-1), ROWS rows at a time (a tuning parameter: which block of rows stays in cache),
    into a preallocated output when OUT"""
    y = _output_like(x, "softmax_rows") if OUT else torch.empty_like(x)
    for start in range(0, x.shape[0], ROWS):
        torch.softmax(x[start:start + ROWS], dim=-1, out=y[start:start + ROWS])
    return y

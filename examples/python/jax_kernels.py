"""exp, add and softmax written in JAX, each checked and timed against torch's own op:
    python -m kbench run --module examples/python/jax_kernels.py
"""

import jax
import jax.numpy as jnp
import numpy as np
import torch

import kbench


def uniform(shape, seed, low=-4.0, high=4.0, count=1):
    rng = np.random.default_rng(seed)
    return [rng.uniform(low, high, shape).astype(np.float32) for _ in range(count)]


@kbench.kernel("exp_jax", shapes=[(1 << 16,), (1 << 20,), (1 << 24,)], inputs=uniform, prepare=jnp.asarray,
               baseline=torch.exp, baseline_prepare=torch.from_numpy, bytes_moved=lambda s: 8.0 * s[0])
@jax.jit
def exp_jax(x):
    """y = exp(x)"""
    return jnp.exp(x)


@kbench.kernel("add_jax", shapes=[(256, 256), (1024, 1024), (4096, 4096)],
               inputs=lambda shape, seed: uniform(shape, seed, count=2), prepare=jnp.asarray,
               baseline=torch.add, baseline_prepare=torch.from_numpy, bytes_moved=lambda s: 12.0 * s[0] * s[1])
@jax.jit
def add_jax(x, y):
    """z = x + y"""
    return x + y


@kbench.kernel("softmax_jax", shapes=[(1024, 256), (1024, 1024), (4096, 4096)], inputs=uniform,
               prepare=jnp.asarray, baseline=lambda x: torch.softmax(x, dim=-1), baseline_prepare=torch.from_numpy,
               atol=1e-6, rtol=1e-5, bytes_moved=lambda s: 8.0 * s[0] * s[1])
@jax.jit
def softmax_jax(x):
    """y = softmax(x, axis=-1): max-subtracted exp over the row sum"""
    e = jnp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

"""The seed's failure on a real framework: kbench.measure of a jitted JAX function over 104,857,600 floats,
with its own sync (JAX's block_until_ready, checked with is_ready) and with a sync that returns at once
(kbench.sync.noop, what torch.accelerator.synchronize did on TPU). Two functions: exp alone, which XLA's CPU
client runs inline (the call returns when the work is done, so there is nothing for a sync to miss), and
exp(x) + 1, which it dispatches asynchronously.

Usage: .venv/bin/python bench/python_jax_sync.py [--elements 104857600]
"""

import argparse
import os

import jax
import jax.numpy as jnp

import kbench


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=104_857_600)
    args = parser.parse_args()
    x = jnp.ones(args.elements, jnp.float32)
    functions = {"exp": jax.jit(jnp.exp), "exp_plus_1": jax.jit(lambda v: jnp.exp(v) + 1)}
    print(f"jax {jax.__version__} on {jax.devices()[0]}, {args.elements:,} float32, load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
    for name, f in functions.items():
        f(x).block_until_ready()
        for sync in ("auto", kbench.sync.noop):
            label = f"{name}, sync={'auto' if sync == 'auto' else 'kbench.sync.noop'}"
            print(f"\n== {label}")
            print(kbench.measure(lambda: f(x), sync=sync, name=name))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""JAX peer of bench/smooth_gradient.cpp: Laplacian smoothing's energy (the sum of squared edge
lengths over every vertex; the solvers keep the pinned boundary, so the gradient is every
vertex's row) and its gradient, on the file the C++ program writes with --write (bench/energy_bench.h), as a JAX user
writes them: energy by jit(sum), gradient by jit(grad). x64. Timing: wall clock around the call
+ block_until_ready, after warm-up; medians (energy_common.median_ms).

Prints the checksums bench/smooth_gradient.cpp prints (energy, |g|, g.v) in one RESULT line.

Usage: python3 smooth_jax.py FILE.bin [...] [--reps 15]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import energy_common as ec  # noqa: E402


def run(path, reps):
    d = ec.read_arrays(path)
    edges, x, v = jnp.asarray(d["edges"]), jnp.asarray(d["x"]), jnp.asarray(d["v"])

    def total(x):
        e = x[edges[:, 0]] - x[edges[:, 1]]
        return jnp.sum(e * e)

    energy, gradient = jax.jit(total), jax.jit(jax.grad(total))
    sync = jax.block_until_ready
    e_ms = ec.median_ms(lambda: energy(x), sync, reps)
    g_ms = ec.median_ms(lambda: gradient(x), sync, reps)
    g = gradient(x)
    # The C++ program's name for the file's vertex order: smooth_N.bin or smooth-rcm_N.bin.
    bench = os.path.basename(path).rsplit("_", 1)[0]
    print(ec.result_line(bench + "_jax", vertices=x.shape[0], edges=edges.shape[0], E_ms=e_ms, g_ms=g_ms, energy=float(energy(x)),
                         g_norm=float(jnp.linalg.norm(g)), g_dot_v=float(jnp.vdot(g, v))),
          flush=True)


def main():
    ec.run_files(run, jax.devices()[0].device_kind)


if __name__ == "__main__":
    main()

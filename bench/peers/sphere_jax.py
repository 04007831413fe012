#!/usr/bin/env python3
"""JAX peer of bench/sphere_lbfgs.cpp: the spherical parameterization's energy on the file the
C++ program writes with --write (faces, per-vertex frames p, b1, b2, per-face rest Dm^-1 and
area, the barrier weight), as a JAX user writes it: per face, the corners retracted to the sphere
x = normalize(p + b1 u + b2 v) from the tangent-plane offsets, J = [x1 - x0, x2 - x0] Dm^-1,
G = J^T J, A (tr G (1 + 1 / det G) - mu log(det(x0, x1, x2) / (2 A))), summed by jit(vmap);
then optax.lbfgs (memory 8) with optax's backtracking line search set to dualjit's: a first
trial of 1 each iteration (increase factor large, capped at max_learning_rate 1), halving,
Armijo c1 = 1e-4, at most 60 trials. x64 throughout.

Timed two ways, wall clock after a warm-up run of the same length (the first compiles), medians
of --reps runs: a Python loop of a jitted step (as optax's documentation writes it), and the
whole run in one jitted lax.fori_loop. Prints ms per iteration and the energies at the start
(the checksum bench/sphere_lbfgs.cpp prints), after 10, 50 and all iterations.

Usage: python3 sphere_jax.py FILE.bin [...] [--reps 5] [--iterations 200]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402

import energy_common as ec  # noqa: E402


def face_energy(u, frames, rest, mu):
    """u: (3, 2) offsets; frames: (3, 9) p, b1, b2 per corner; rest: (5,) Dm^-1, area."""
    q = frames[:, 0:3] + frames[:, 3:6] * u[:, 0:1] + frames[:, 6:9] * u[:, 1:2]
    x = q / jnp.linalg.norm(q, axis=1, keepdims=True)
    j = jnp.stack([x[1] - x[0], x[2] - x[0]], axis=1) @ rest[:4].reshape(2, 2)
    g = j.T @ j
    det = g[0, 0] * g[1, 1] - g[0, 1] * g[1, 0]
    stretch = (g[0, 0] + g[1, 1]) * (1.0 + 1.0 / det)
    volume = jnp.maximum(jnp.dot(x[0], jnp.cross(x[1], x[2])), 0.0)
    area = rest[4]
    return area * (stretch - mu * jnp.log(volume / (2.0 * area)))


def run(path, reps, iterations):
    d = ec.read_arrays(path)
    faces = jnp.asarray(d["faces"])
    frames, rest, mu = jnp.asarray(d["frames"]), jnp.asarray(d["rest"]), d["barrier"]
    nv, nf = frames.shape[0], faces.shape[0]
    corner_frames = frames[faces]  # (nf, 3, 9): constant, gathered once

    def energy(u):
        return jnp.sum(jax.vmap(face_energy, in_axes=(0, 0, 0, None))(
            u[faces], corner_frames, rest, mu))

    linesearch = optax.scale_by_backtracking_linesearch(
        max_backtracking_steps=60, slope_rtol=1e-4, decrease_factor=0.5, increase_factor=1e30,
        max_learning_rate=1.0, store_grad=True)
    opt = optax.lbfgs(memory_size=8, linesearch=linesearch)
    value_and_grad = optax.value_and_grad_from_state(energy)

    def step(u, state):
        value, grad = value_and_grad(u, state=state)
        updates, state = opt.update(grad, state, u, value=value, grad=grad, value_fn=energy)
        return optax.apply_updates(u, updates), state

    jstep = jax.jit(step)
    u0 = jnp.zeros((nv, 2))
    jenergy = jax.jit(energy)

    def python_loop(n):
        u, state = u0, opt.init(u0)
        energies = []
        for k in range(n):
            if k in (10, 50):
                energies.append(jenergy(u))
            u, state = jstep(u, state)
        return u, energies

    @jax.jit
    def fused(u):
        state = opt.init(u)
        return jax.lax.fori_loop(0, iterations, lambda k, c: step(*c), (u, state))[0]

    def timed(call):
        jax.block_until_ready(call())  # warm-up: compiles
        t = []
        for _ in range(reps):
            t0 = time.perf_counter()
            jax.block_until_ready(call())
            t.append((time.perf_counter() - t0) * 1e3)
        return float(np.median(t)) / iterations

    loop_ms = timed(lambda: python_loop(iterations))
    fused_ms = timed(lambda: fused(u0))
    u, energies = python_loop(iterations)
    print(ec.result_line(
        "sphere_jax", vertices=nv, faces=nf, iterations=iterations, loop_ms=loop_ms,
        fori_ms=fused_ms, energy0=float(jenergy(u0)),
        energy10=float(energies[0]) if energies else float("nan"),
        energy50=float(energies[1]) if len(energies) > 1 else float("nan"),
        energy=float(jenergy(u)), fori_energy=float(jenergy(fused(u0)))), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=200)
    args = ap.parse_args()
    print("device", jax.devices()[0].device_kind, flush=True)
    for path in args.files:
        run(path, args.reps, args.iterations)


if __name__ == "__main__":
    main()

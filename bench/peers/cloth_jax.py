#!/usr/bin/env python3
"""JAX peer of bench/cloth_step.cpp: the paper's cloth step (n x n spring grid, implicit Euler)
as a JAX user writes it: energy by jit(sum of vmapped terms), gradient by jit(grad), and the
full 3x3-block BCSR Hessian from jit(vmap(hessian(spring))) scattered with .at[].add into the
blocks (slots precomputed with numpy, not timed) plus the inertia's m I on the diagonal. The
same grid, parameters and perturbed configuration as the C++ program, so the energies match.
"Hp" is the same Hessian with each spring's 6x6 Hessian projected to positive definite
(jnp.linalg.eigh, eigenvalues clamped to 1e-9; the inertia's m I is already), "Hp_sum" the sum
of its entries. Timing: wall clock around the call + block_until_ready, after warm-up; median.

Usage: python3 cloth_jax.py [N ...] [--reps 15]
"""
import argparse
import time

import numpy as np
import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

from cloth_common import G, H, K, bcsr_slots, grid  # noqa: E402


def spring_energy(xi, xj, l):
    d = xi - xj
    t = jnp.dot(d, d) / (l * l) - 1.0
    return H * H * 0.5 * K * l * l * t * t


def total_energy(x, xhat, m, s, rest):
    e_s = jnp.sum(jax.vmap(spring_energy)(x[s[:, 0]], x[s[:, 1]], rest))
    d = x - xhat
    e_i = jnp.sum(0.5 * m * jnp.sum(d * d, axis=1)) - H * H * m * jnp.sum(x @ jnp.asarray(G))
    return e_s + e_i


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, default=[100, 500, 1000])
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    print("device", jax.devices()[0].device_kind)
    for n in args.sizes:
        x0, xp, s, rest = grid(n)
        nv = n * n
        m = 1.0 / nv
        nblocks, s_ii, s_ij, s_ji, s_jj, s_vv = bcsr_slots(nv, s)
        x, xhat = jnp.asarray(xp), jnp.asarray(x0)
        sj, rj = jnp.asarray(s), jnp.asarray(rest)
        s_ii, s_ij, s_ji, s_jj, s_vv = map(jnp.asarray, (s_ii, s_ij, s_ji, s_jj, s_vv))

        energy = jax.jit(lambda x: total_energy(x, xhat, m, sj, rj))
        gradient = jax.jit(jax.grad(lambda x: total_energy(x, xhat, m, sj, rj)))
        local_h = jax.vmap(jax.hessian(lambda xi, xj, l: spring_energy(xi, xj, l), argnums=(0, 1)))

        @jax.jit
        def hessian(x):
            (hii, hij), (hji, hjj) = local_h(x[sj[:, 0]], x[sj[:, 1]], rj)
            vals = jnp.zeros((nblocks, 3, 3))
            vals = vals.at[s_ii].add(hii).at[s_ij].add(hij).at[s_ji].add(hji).at[s_jj].add(hjj)
            return vals.at[s_vv].add(m * jnp.eye(3))

        def clamp_pd(hii, hij, hji, hjj):
            h = jnp.concatenate([jnp.concatenate([hii, hij], axis=2),
                                 jnp.concatenate([hji, hjj], axis=2)], axis=1)
            # cuSOLVER's batched eigh overflows its 32-bit workspace size on millions of
            # matrices: chunks of 32768, as JAX users do.
            c = 32768
            ne = h.shape[0]
            pad = (-ne) % c
            hc = jnp.concatenate([h, jnp.broadcast_to(jnp.eye(6), (pad, 6, 6))])
            hc = hc.reshape(-1, c, 6, 6)

            def project(b):
                w, q = jnp.linalg.eigh(b)
                return jnp.einsum("eij,ej,ekj->eik", q, jnp.maximum(w, 1e-9), q)

            h = jax.lax.map(project, hc).reshape(-1, 6, 6)[:ne]
            return h[:, :3, :3], h[:, :3, 3:], h[:, 3:, :3], h[:, 3:, 3:]

        @jax.jit
        def projected_hessian(x):
            (hii, hij), (hji, hjj) = local_h(x[sj[:, 0]], x[sj[:, 1]], rj)
            hii, hij, hji, hjj = clamp_pd(hii, hij, hji, hjj)
            vals = jnp.zeros((nblocks, 3, 3))
            vals = vals.at[s_ii].add(hii).at[s_ij].add(hij).at[s_ji].add(hji).at[s_jj].add(hjj)
            return vals.at[s_vv].add(m * jnp.eye(3))

        @jax.jit
        def step(x):
            return energy(x), gradient(x), hessian(x)

        def timed(f):
            for _ in range(3):
                jax.block_until_ready(f(x))
            t = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                jax.block_until_ready(f(x))
                t.append((time.perf_counter() - t0) * 1e3)
            return float(np.median(t))

        e_ms, g_ms, h_ms, all_ms = timed(energy), timed(gradient), timed(hessian), timed(step)
        hp_ms = timed(projected_hessian)
        print(f"RESULT jax n={n} vertices={nv} springs={len(s)} blocks={nblocks} "
              f"E_ms={e_ms:.3f} g_ms={g_ms:.3f} H_ms={h_ms:.3f} EgH_ms={all_ms:.3f} "
              f"Hp_ms={hp_ms:.3f} energy={float(energy(x)):.15g} "
              f"Hp_sum={float(jnp.sum(projected_hessian(x))):.12g}")


if __name__ == "__main__":
    main()

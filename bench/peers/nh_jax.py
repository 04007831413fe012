#!/usr/bin/env python3
"""JAX peer of bench/nh_hessian.cpp: stable Neo-Hookean elasticity (Smith, de Goes & Kim 2018)
of a tet mesh, on the file the C++ program writes with --write (tets, per-tet Dm^-1 and rest
volume, positions, the direction v, mu, lambda; bench/energy_bench.h), as a JAX user writes
it: per tet V (mu/2 (I_C - 3) + lambda/2 (J - alpha)^2 - mu/2 log(I_C + 1)), F = [x1 - x0,
x2 - x0, x3 - x0] Dm^-1, alpha = 1 + 3 mu / (4 lambda); energy by jit(sum of vmap), gradient by
jit(grad), the Hessian (3x3 blocks, both triangles) from jit(vmap(hessian)) scattered with
.at[].add into the blocks (slots precomputed with numpy, not timed), the PD-projected Hessian
(each tet's 12x12 Hessian through jnp.linalg.eigh in chunks of 32768, eigenvalues clamped to
1e-9), and gradient + projected Hessian in one jit (a Newton step's assembly). x64. Timing: wall
clock around the call + block_until_ready, after warm-up; medians (energy_common.median_ms).

Prints the checksums bench/nh_hessian.cpp prints (energy, |g|, g.v, |H|_F, v^T H v from the
blocks, |Hp|_F) in one RESULT line.

Usage: python3 nh_jax.py FILE.bin [...] [--reps 15]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import energy_common as ec  # noqa: E402
from sd_jax import project_chunked  # noqa: E402


def tet_energy(x, p, mu, lam):
    """x: (4, 3) corner positions; p: (10,) Dm^-1 row-major and the rest volume."""
    ds = jnp.stack([x[1] - x[0], x[2] - x[0], x[3] - x[0]], axis=1)  # columns: the edges
    f = ds @ p[:9].reshape(3, 3)
    ic = jnp.sum(f * f)
    j = jnp.dot(f[0], jnp.cross(f[1], f[2]))
    alpha = 1.0 + 0.75 * mu / lam
    return p[9] * (0.5 * mu * (ic - 3.0) + 0.5 * lam * (j - alpha) ** 2
                   - 0.5 * mu * jnp.log(ic + 1.0))


def run(path, reps):
    d = ec.read_arrays(path)
    tets_np = d["tets"]
    nv, nt = d["x"].shape[0], tets_np.shape[0]
    mu, lam = d["mu"], d["lambda"]
    tets, params = jnp.asarray(tets_np), jnp.asarray(d["params"])
    x, v = jnp.asarray(d["x"]), jnp.asarray(d["v"])
    nblocks, rows, cols, slots = ec.bcsr_slots(tets_np, nv)
    rows, cols, slots = jnp.asarray(rows), jnp.asarray(cols), jnp.asarray(slots.reshape(-1))

    def per_tet(xt, p):
        return tet_energy(xt, p, mu, lam)

    def total(x):
        return jnp.sum(jax.vmap(per_tet)(x[tets], params))

    local = jax.vmap(jax.hessian(per_tet))  # (nt, 4, 3, 4, 3)

    def assemble(h):
        blocks = h.transpose(0, 1, 3, 2, 4).reshape(-1, 3, 3)  # (a, b) pairs, a-major
        return jnp.zeros((nblocks, 3, 3)).at[slots].add(blocks)

    def projected(x):
        h = local(x[tets], params).reshape(nt, 12, 12)
        return assemble(project_chunked(h).reshape(nt, 4, 3, 4, 3))

    energy, gradient = jax.jit(total), jax.jit(jax.grad(total))
    hessian = jax.jit(lambda x: assemble(local(x[tets], params)))
    projected_hessian = jax.jit(projected)
    step = jax.jit(lambda x: (jax.grad(total)(x), projected(x)))
    sync = jax.block_until_ready

    times = dict(E_ms=ec.median_ms(lambda: energy(x), sync, reps),
                 g_ms=ec.median_ms(lambda: gradient(x), sync, reps),
                 H_ms=ec.median_ms(lambda: hessian(x), sync, reps),
                 Hp_ms=ec.median_ms(lambda: projected_hessian(x), sync, reps),
                 gHp_ms=ec.median_ms(lambda: step(x), sync, reps))
    g, h = gradient(x), hessian(x)
    print(ec.result_line(
        "nh_jax", nodes=nv, tets=nt, blocks=nblocks, **times, energy=float(energy(x)),
        g_norm=float(jnp.linalg.norm(g)), g_dot_v=float(jnp.vdot(g, v)),
        H_fro=float(jnp.linalg.norm(h)),
        H_vhv=float(jnp.einsum("ni,nij,nj->", v[rows], h, v[cols])),
        Hp_fro=float(jnp.linalg.norm(projected_hessian(x)))), flush=True)


def main():
    ec.run_files(run, jax.devices()[0].device_kind)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""JAX peer of bench/sd_hvp.cpp: the symmetric Dirichlet energy of a parameterization, on the
file the C++ program writes with --write (faces, per-face params Dm^-1 and rest area, UVs and
the direction v; bench/energy_bench.h), as a JAX user writes it: the per-face energy
A (|J|_F^2 + |J^-1|_F^2), J = [u1 - u0, u2 - u0] Dm^-1, energy by jit(sum of vmap), gradient by
jit(grad), Hessian-vector product by jit(jvp(grad)) (forward over reverse), the Hessian (2x2
blocks, both triangles) from jit(vmap(hessian)) scattered with .at[].add into the blocks (slots
precomputed with numpy, not timed) and the PD-projected Hessian (each face's 6x6 Hessian through
jnp.linalg.eigh in chunks of 32768, eigenvalues clamped to 1e-9). x64 throughout. Timing: wall
clock around the call + block_until_ready, after warm-up; medians (fewer repetitions for slow
calls, energy_common.median_ms).

Prints per file the checksums bench/sd_hvp.cpp prints (energy, |g|, g.v, |Hv|, v.Hv, |H|_F,
v^T H v from the blocks, |Hp|_F) in one RESULT line.

Usage: python3 sd_jax.py FILE.bin [...] [--reps 15] [--skip-hessian]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import energy_common as ec  # noqa: E402

CHUNK = 32768  # cuSOLVER's batched eigh overflows its workspace size on millions of matrices


def face_energy(u, p):
    """u: (3, 2) corner UVs; p: (5,) Dm^-1 row-major and the rest area."""
    m = jnp.stack([u[1] - u[0], u[2] - u[0]], axis=1)  # columns: the UV edges
    j = m @ p[:4].reshape(2, 2)
    det = j[0, 0] * j[1, 1] - j[0, 1] * j[1, 0]
    inv = jnp.array([[j[1, 1], -j[0, 1]], [-j[1, 0], j[0, 0]]]) / det
    return p[4] * (jnp.sum(j * j) + jnp.sum(inv * inv))


def project_chunked(h, eps=1e-9):
    """Each (n, d, d) symmetric matrix with its eigenvalues clamped to eps, in chunks."""
    n, d = h.shape[0], h.shape[1]
    c = min(CHUNK, n)  # small meshes: no padding to a whole chunk
    pad = (-n) % c
    hc = jnp.concatenate([h, jnp.broadcast_to(jnp.eye(d), (pad, d, d))]).reshape(-1, c, d, d)

    def project(b):
        w, q = jnp.linalg.eigh(b)
        return jnp.einsum("eij,ej,ekj->eik", q, jnp.maximum(w, eps), q)

    return jax.lax.map(project, hc).reshape(-1, d, d)[:n]


def run(path, reps, skip_hessian):
    d = ec.read_arrays(path)
    faces_np, params_np = d["faces"], d["params"]
    nv, nf = d["uv"].shape[0], faces_np.shape[0]
    faces, params = jnp.asarray(faces_np), jnp.asarray(params_np)
    uv, v = jnp.asarray(d["uv"]), jnp.asarray(d["v"])

    def total(x):
        return jnp.sum(jax.vmap(face_energy)(x[faces], params))

    energy = jax.jit(total)
    gradient = jax.jit(jax.grad(total))
    hvp = jax.jit(lambda x, w: jax.jvp(jax.grad(total), (x,), (w,))[1])
    sync = jax.block_until_ready

    e_ms = ec.median_ms(lambda: energy(uv), sync, reps)
    g_ms = ec.median_ms(lambda: gradient(uv), sync, reps)
    hv_ms = ec.median_ms(lambda: hvp(uv, v), sync, reps)
    g, hv = gradient(uv), hvp(uv, v)
    out = dict(vertices=nv, faces=nf, E_ms=e_ms, g_ms=g_ms, hvp_ms=hv_ms)
    checks = dict(energy=float(energy(uv)), g_norm=float(jnp.linalg.norm(g)),
                  g_dot_v=float(jnp.vdot(g, v)), hv_norm=float(jnp.linalg.norm(hv)),
                  v_hv=float(jnp.vdot(v, hv)))

    if not skip_hessian:
        nblocks, rows, cols, slots = ec.bcsr_slots(faces_np, nv)
        rows, cols, slots = jnp.asarray(rows), jnp.asarray(cols), jnp.asarray(slots.reshape(-1))
        local = jax.vmap(jax.hessian(face_energy))  # (nf, 3, 2, 3, 2)

        def assemble(h):
            blocks = h.transpose(0, 1, 3, 2, 4).reshape(-1, 2, 2)  # (a, b) pairs, a-major
            return jnp.zeros((nblocks, 2, 2)).at[slots].add(blocks)

        hessian = jax.jit(lambda x: assemble(local(x[faces], params)))

        @jax.jit
        def projected_hessian(x):
            h = local(x[faces], params).reshape(nf, 6, 6)
            return assemble(project_chunked(h).reshape(nf, 3, 2, 3, 2))

        h_ms = ec.median_ms(lambda: hessian(uv), sync, reps)
        hp_ms = ec.median_ms(lambda: projected_hessian(uv), sync, reps)
        h = hessian(uv)
        out.update(blocks=nblocks, H_ms=h_ms, Hp_ms=hp_ms)
        checks.update(H_fro=float(jnp.linalg.norm(h)),
                      H_vhv=float(jnp.einsum("ni,nij,nj->", v[rows], h, v[cols])),
                      Hp_fro=float(jnp.linalg.norm(projected_hessian(uv))))
    print(ec.result_line("sd_jax", **out, **checks), flush=True)


def main():
    ec.run_files(run, jax.devices()[0].device_kind, ["--skip-hessian"])


if __name__ == "__main__":
    main()

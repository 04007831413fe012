#!/usr/bin/env python3
"""JAX peer: the Roe flux Jacobian with FUN3D-style assembly, as a JAX user would write it.

Local Jacobians by jax.jit(jax.vmap(jax.jacfwd(flux, argnums=(0, 1)))) in float64 (x64), the
gather of Q[v0], Q[v1] and the scatter-add assembly (.at[].add) into Adiag (f64) and Aoff (f32)
inside the same jit; the slots come from mesh_io.build_bcsr (numpy, not timed). The zeroed
Adiag/Aoff are created outside the timed region and donated to the jitted call (so the scatter
runs in place, like the CUDA peer's atomics into memset buffers). With --chunk N the edges are
processed in chunks of N by the same jitted function (for memory), chained on the donated
buffers. Timing: wall clock around the call + block_until_ready, after warm-up; median.

Usage: python3 roe_jax.py MESH.bin[:label] [MESH2.bin[:label] ...] [--reps 21] [--chunk N]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import mesh_io  # noqa: E402
import roe_common as rc  # noqa: E402

OPS = rc.Ops(jnp.sqrt, jnp.abs, jnp.where, lambda xs: jnp.stack(xs, axis=-1), jnp.less)


def flux(ql, qr, s):
    return rc.roe_flux(ql, qr, s, OPS)


local_jac = jax.vmap(jax.jacfwd(flux, argnums=(0, 1)))
local_jac_jit = jax.jit(local_jac)


def _jac_assemble(Adiag, Aoff, Q, edges, S, slot01, slot10):
    v0, v1 = edges[:, 0], edges[:, 1]
    JL, JR = local_jac(Q[v0], Q[v1], S)
    Adiag = Adiag.at[v0].add(JL).at[v1].add(-JR)
    Aoff = Aoff.at[slot01].add(JR.astype(jnp.float32)).at[slot10].add(-JL.astype(jnp.float32))
    return Adiag, Aoff


jac_assemble = jax.jit(_jac_assemble, donate_argnums=(0, 1))


def _residual(R, Q, edges, S):
    v0, v1 = edges[:, 0], edges[:, 1]
    F = jax.vmap(flux)(Q[v0], Q[v1], S)
    return R.at[v0].add(F).at[v1].add(-F)


residual = jax.jit(_residual, donate_argnums=(0,))


def xla_flops_per_edge(ql, qr, s):
    """FLOPs per edge of the jitted local Jacobians by XLA's cost analysis of the compiled
    program (it counts every elementwise op, so comparisons and selects too: an upper estimate
    next to dualjit's and the hand-written kernel's counts); nan when the backend has none."""
    try:
        ca = local_jac_jit.lower(jnp.asarray(ql), jnp.asarray(qr), jnp.asarray(s)).compile().cost_analysis()
        if isinstance(ca, (list, tuple)):
            ca = ca[0]
        return float(ca["flops"]) / ql.shape[0]
    except Exception:  # cost analysis is optional and backend dependent
        return float("nan")


def median_time(fn, reps, warmup=3):
    ts = []
    for r in range(warmup + reps):
        args = fn.prepare()
        t0 = time.perf_counter()
        out = fn.call(*args)
        jax.block_until_ready(out)
        t1 = time.perf_counter()
        if r >= warmup:
            ts.append((t1 - t0) * 1e3)
        fn.keep(out)
    return float(np.median(ts)), ts


def run_mesh(path, label, reps, chunk):
    t = time.time()
    mesh = mesh_io.read_mesh(path)
    bcsr = mesh_io.build_bcsr(mesh.n_nodes, mesh.edges)
    n, m, nnzb = mesh.n_nodes, mesh.n_edges, bcsr.nnzb
    print(f"[jax] {label}: {n} nodes, {m} edges, {nnzb} blocks (read + slots {time.time() - t:.1f} s)",
          flush=True)

    Q = jnp.asarray(mesh.Q)
    S = jnp.asarray(mesh.area)
    edges = jnp.asarray(mesh.edges)
    s01 = jnp.asarray(bcsr.slot01.astype(np.int32))
    s10 = jnp.asarray(bcsr.slot10.astype(np.int32))
    chunk = chunk if chunk and chunk < m else m
    bounds = [(a, min(m, a + chunk)) for a in range(0, m, chunk)]
    parts = [(edges[a:b], S[a:b], s01[a:b], s10[a:b]) for a, b in bounds]

    # ---- correctness: local Jacobians (mesh sample + sonic states) against complex step
    idx = rc.sample_edges(m)
    ql, qr, ss = mesh.Q[mesh.edges[idx, 0]], mesh.Q[mesh.edges[idx, 1]], mesh.area[idx]
    JL, JR = local_jac_jit(jnp.asarray(ql), jnp.asarray(qr), jnp.asarray(ss))
    CL, CR = rc.cs_jacobians(ql, qr, ss)
    e_loc = max(rc.rel_err(np.asarray(JL), CL), rc.rel_err(np.asarray(JR), CR))
    a, b, c = rc.sonic_states()
    JL, JR = local_jac_jit(jnp.asarray(a), jnp.asarray(b), jnp.asarray(c))
    CL, CR = rc.cs_jacobians(a, b, c)
    e_son = max(rc.rel_err(np.asarray(JL), CL), rc.rel_err(np.asarray(JR), CR))
    ok = e_loc < 1e-9 and e_son < 1e-9
    print(f"[jax] check: local Jacobians vs complex step: {idx.size} mesh edges {e_loc:.2e}, "
          f"50 sonic states {e_son:.2e}  {'PASS' if ok else 'FAIL'}", flush=True)
    flops_edge = xla_flops_per_edge(ql, qr, ss)
    print(f"[jax] flops per edge of jit(vmap(jacfwd)) by XLA cost analysis: {flops_edge:.0f}",
          flush=True)

    class Jac:
        def prepare(self):
            out = (jnp.zeros((n, 5, 5), jnp.float64), jnp.zeros((nnzb, 5, 5), jnp.float32))
            jax.block_until_ready(out)
            return out

        def call(self, Ad, Ao):
            for e_, s_, a_, b_ in parts:
                Ad, Ao = jac_assemble(Ad, Ao, Q, e_, s_, a_, b_)
            return Ad, Ao

        def keep(self, out):
            self.out = out

    class Res:
        def prepare(self):
            out = jnp.zeros((n, 5), jnp.float64)
            jax.block_until_ready(out)
            return (out,)

        def call(self, R):
            for e_, s_, _, _ in parts:
                R = residual(R, Q, e_, s_)
            return R

        def keep(self, out):
            self.out = out

    jac, res = Jac(), Res()
    t = time.time()
    jax.block_until_ready(jac.call(*jac.prepare()))
    jax.block_until_ready(res.call(*res.prepare()))
    print(f"[jax] first calls (trace + compile + run): {time.time() - t:.1f} s", flush=True)
    t_jac, ts = median_time(jac, reps)
    t_res, _ = median_time(res, reps)

    Adiag, Aoff = (np.asarray(x) for x in jac.out)
    R = np.asarray(res.out)
    ref = rc.reference_rows(mesh, bcsr)
    ok2, msg = rc.check_assembled(ref, Adiag[ref["nodes"]], Aoff[ref["slots"]], R[ref["nodes"]])
    print(f"[jax] check: {msg}", flush=True)
    ok = ok and ok2
    print(f"CHECK peer=jax order={label} " + mesh_io.format_kv(mesh_io.checksums(Adiag, Aoff, R)))
    print(f"[jax] jacobian+assembly {t_jac:.3f} ms (min {min(ts):.3f}, max {max(ts):.3f}), "
          f"residual {t_res:.3f} ms, chunks {len(parts)} of <= {chunk} edges", flush=True)
    print(f"RESULT peer=jax order={label} nodes={n} edges={m} jac_ms={t_jac:.4f} res_ms={t_res:.4f} "
          f"chunk={chunk} flops_edge={flops_edge:.0f} ok={int(ok)}", flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("meshes", nargs="+", help="MESH.bin or MESH.bin:label")
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--chunk", type=int, default=0, help="edges per chunk (0: all at once)")
    a = ap.parse_args()
    print(f"[jax] jax {jax.__version__}, devices {jax.devices()}", flush=True)
    ok = True
    for spec in a.meshes:
        path, _, label = spec.partition(":")
        label = label or os.path.basename(path)
        chunk = a.chunk
        while True:
            try:
                ok = run_mesh(path, label, a.reps, chunk) and ok
                break
            except Exception as ex:  # out of memory: retry in chunks
                if "RESOURCE_EXHAUSTED" not in str(ex) and "out of memory" not in str(ex).lower():
                    raise
                chunk = (chunk or mesh_io.read_mesh(path).n_edges) // 2
                print(f"[jax] out of memory; retrying with --chunk {chunk}", flush=True)
                if chunk < 100000:
                    raise
    sys.exit(0 if ok else 3)


if __name__ == "__main__":
    main()

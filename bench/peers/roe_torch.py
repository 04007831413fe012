#!/usr/bin/env python3
"""PyTorch peer: the Roe flux Jacobian with FUN3D-style assembly, as a PyTorch user would write it.

Local Jacobians by torch.func.vmap(torch.func.jacfwd(flux, argnums=(0, 1))) in float64 (eager),
gather Q[v0], Q[v1] and index_add_ assembly into Adiag (f64) and Aoff (f32); slots from
mesh_io.build_bcsr (not timed). Adiag/Aoff are zeroed (zero_) before each timed call, outside
the timed region. Timing: CUDA events, 3 warm-ups, median of --reps. With --compile the same
function under torch.compile is also timed (compile time reported; failures are reported, not
fatal). With --chunk N the edges go through in chunks of N (for memory).

Usage: python3 roe_torch.py MESH.bin[:label] [...] [--reps 21] [--chunk N] [--compile] [--no-eager]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.func import jacfwd, vmap  # noqa: E402

import mesh_io  # noqa: E402
import roe_common as rc  # noqa: E402

OPS = rc.Ops(torch.sqrt, torch.abs, torch.where, lambda xs: torch.stack(xs, dim=-1), torch.lt)


def flux(ql, qr, s):
    return rc.roe_flux(ql, qr, s, OPS)


local_jac = vmap(jacfwd(flux, argnums=(0, 1)))


def jac_assemble(lj, Adiag, Aoff, Q, v0, v1, S, s01, s10):
    JL, JR = lj(Q[v0], Q[v1], S)
    m = JL.shape[0]
    JL = JL.reshape(m, 25)
    JR = JR.reshape(m, 25)
    Adiag.index_add_(0, v0, JL)
    Adiag.index_add_(0, v1, JR, alpha=-1.0)
    Aoff.index_add_(0, s01, JR.float())
    Aoff.index_add_(0, s10, JL.float(), alpha=-1.0)


def residual(fl, R, Q, v0, v1, S):
    F = fl(Q[v0], Q[v1], S)
    R.index_add_(0, v0, F)
    R.index_add_(0, v1, F, alpha=-1.0)


def cuda_time(call, reset, reps, warmup=3):
    cuda = torch.cuda.is_available()
    if cuda:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(warmup + reps):
        reset()
        if cuda:
            a.record()
            call()
            b.record()
            b.synchronize()
            ms = a.elapsed_time(b)
        else:  # CPU fallback (for testing the script without a GPU)
            t0 = time.perf_counter()
            call()
            ms = (time.perf_counter() - t0) * 1e3
        if r >= warmup:
            ts.append(ms)
    return float(np.median(ts)), ts


def peak_gib():
    return torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else float("nan")


def run_mesh(path, label, reps, chunk, do_eager, do_compile):
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    t = time.time()
    mesh = mesh_io.read_mesh(path)
    bcsr = mesh_io.build_bcsr(mesh.n_nodes, mesh.edges)
    n, m, nnzb = mesh.n_nodes, mesh.n_edges, bcsr.nnzb
    print(f"[torch] {label}: {n} nodes, {m} edges, {nnzb} blocks (read + slots {time.time() - t:.1f} s)",
          flush=True)
    Q = torch.from_numpy(mesh.Q).to(dev)
    S = torch.from_numpy(mesh.area).to(dev)
    v0 = torch.from_numpy(mesh.edges[:, 0].astype(np.int64)).to(dev)
    v1 = torch.from_numpy(mesh.edges[:, 1].astype(np.int64)).to(dev)
    s01 = torch.from_numpy(bcsr.slot01.astype(np.int64)).to(dev)
    s10 = torch.from_numpy(bcsr.slot10.astype(np.int64)).to(dev)
    chunk = chunk if chunk and chunk < m else m
    parts = [(v0[a:a + chunk], v1[a:a + chunk], S[a:a + chunk], s01[a:a + chunk], s10[a:a + chunk])
             for a in range(0, m, chunk)]
    Adiag = torch.zeros((n, 25), dtype=torch.float64, device=dev)
    Aoff = torch.zeros((nnzb, 25), dtype=torch.float32, device=dev)
    R = torch.zeros((n, 5), dtype=torch.float64, device=dev)
    ref = rc.reference_rows(mesh, bcsr)
    idx = rc.sample_edges(m)
    ql, qr, ss = mesh.Q[mesh.edges[idx, 0]], mesh.Q[mesh.edges[idx, 1]], mesh.area[idx]
    CL, CR = rc.cs_jacobians(ql, qr, ss)
    sa, sb, sc = rc.sonic_states()
    SL, SR = rc.cs_jacobians(sa, sb, sc)
    T = lambda x: torch.from_numpy(np.ascontiguousarray(x)).to(dev)  # noqa: E731

    ok_all = True
    variants = []
    if do_eager:
        variants.append(("torch", local_jac, vmap(flux)))
    if do_compile:
        variants.append(("torch_compile", torch.compile(local_jac), torch.compile(vmap(flux))))
    for name, lj, fl in variants:
        try:
            t = time.time()
            JL, JR = lj(T(ql), T(qr), T(ss))
            e_loc = max(rc.rel_err(JL.cpu().numpy(), CL), rc.rel_err(JR.cpu().numpy(), CR))
            JL, JR = lj(T(sa), T(sb), T(sc))
            e_son = max(rc.rel_err(JL.cpu().numpy(), SL), rc.rel_err(JR.cpu().numpy(), SR))
            ok = e_loc < 1e-9 and e_son < 1e-9
            print(f"[{name}] check: local Jacobians vs complex step: {idx.size} mesh edges {e_loc:.2e}, "
                  f"50 sonic states {e_son:.2e}  {'PASS' if ok else 'FAIL'}", flush=True)

            def jac_call():
                for p0, p1, pS, a_, b_ in parts:
                    jac_assemble(lj, Adiag, Aoff, Q, p0, p1, pS, a_, b_)

            def jac_reset():
                Adiag.zero_()
                Aoff.zero_()

            def res_call():
                for p0, p1, pS, _, _ in parts:
                    residual(fl, R, Q, p0, p1, pS)

            jac_reset()
            jac_call()
            R.zero_()
            res_call()
            if dev.type == "cuda":
                torch.cuda.synchronize()
            print(f"[{name}] first calls: {time.time() - t:.1f} s", flush=True)
            t_jac, ts = cuda_time(jac_call, jac_reset, reps)
            t_res, _ = cuda_time(res_call, R.zero_, reps)
            Ad = Adiag.cpu().numpy().reshape(n, 5, 5)
            Ao = Aoff.cpu().numpy().reshape(nnzb, 5, 5)
            Rh = R.cpu().numpy()
            ok2, msg = rc.check_assembled(ref, Ad[ref["nodes"]], Ao[ref["slots"]], Rh[ref["nodes"]])
            print(f"[{name}] check: {msg}", flush=True)
            ok = ok and ok2
            print(f"CHECK peer={name} order={label} " + mesh_io.format_kv(mesh_io.checksums(Ad, Ao, Rh)))
            print(f"[{name}] jacobian+assembly {t_jac:.3f} ms (min {min(ts):.3f}, max {max(ts):.3f}), "
                  f"residual {t_res:.3f} ms, peak memory {peak_gib():.1f} GiB",
                  flush=True)
            print(f"RESULT peer={name} order={label} nodes={n} edges={m} jac_ms={t_jac:.4f} "
                  f"res_ms={t_res:.4f} chunk={chunk} ok={int(ok)}", flush=True)
            ok_all = ok_all and ok
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception as ex:  # torch.compile failures must not end the run
            if name == "torch":
                raise
            print(f"[{name}] FAILED: {type(ex).__name__}: {str(ex)[:500]}", flush=True)
            print(f"RESULT peer={name} order={label} nodes={n} edges={m} jac_ms=nan res_ms=nan "
                  f"chunk={chunk} ok=0", flush=True)
    return ok_all


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("meshes", nargs="+", help="MESH.bin or MESH.bin:label")
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--chunk", type=int, default=0)
    ap.add_argument("--compile", action="store_true", help="also time torch.compile")
    ap.add_argument("--no-eager", action="store_true")
    a = ap.parse_args()
    dev = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU (no CUDA device)"
    print(f"[torch] torch {torch.__version__}, {dev}", flush=True)
    ok = True
    for spec in a.meshes:
        path, _, label = spec.partition(":")
        label = label or os.path.basename(path)
        chunk = a.chunk
        while True:
            try:
                ok = run_mesh(path, label, a.reps, chunk, not a.no_eager, a.compile) and ok
                break
            except torch.cuda.OutOfMemoryError:
                chunk = (chunk or mesh_io.read_mesh(path).n_edges) // 2
                torch.cuda.empty_cache()
                print(f"[torch] out of memory; retrying with --chunk {chunk}", flush=True)
                if chunk < 100000:
                    raise
    sys.exit(0 if ok else 3)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PyTorch peer of bench/cloth_step.cpp, mirroring bench/peers/cloth_jax.py: the paper's cloth
step (n x n spring grid, implicit Euler) as a PyTorch user writes it with torch.func: energy by
the sum of torch.func.vmap'ed spring terms plus the inertia, gradient by torch.func.grad, and the
full 3x3-block BCSR Hessian from torch.func.vmap(torch.func.hessian(spring)) scattered with
index_add_ into the blocks (slots precomputed with numpy, not timed) plus the inertia's m I on the
diagonal. The same grid, parameters and perturbed configuration as the C++ program and the JAX
peer, so the energies match. "Hp" is the same Hessian with each spring's 6x6 Hessian projected to
positive definite (torch.linalg.eigh in chunks of 32768, eigenvalues clamped to 1e-9), "Hp_sum"
the sum of its entries. float64, eager. Timing: wall clock around the call +
torch.cuda.synchronize(), after warm-up; medians (fewer repetitions for calls over 0.2 s). Runs
on the CPU when there is no GPU (for testing only).

Usage: python3 cloth_torch.py [N ...] [--reps 15]
"""
import argparse
import time

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
from cloth_common import G, H, K, bcsr_slots, grid  # noqa: E402
CHUNK = 32768


def spring_energy(xi, xj, l):
    d = xi - xj
    t = torch.dot(d, d) / (l * l) - 1.0
    return H * H * 0.5 * K * l * l * t * t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, default=[100, 500, 1000])
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print("device", torch.cuda.get_device_name() if dev.type == "cuda" else "cpu",
          "torch", torch.__version__, flush=True)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    for n in args.sizes:
        x0, xp, s, rest = grid(n)
        nv = n * n
        m = 1.0 / nv
        nblocks, s_ii, s_ij, s_ji, s_jj, s_vv = bcsr_slots(nv, s)
        t = lambda a: torch.as_tensor(a, device=dev)  # noqa: E731
        x, xhat = t(xp), t(x0)
        s0, s1, rj = t(s[:, 0].astype(np.int64)), t(s[:, 1].astype(np.int64)), t(rest)
        s_ii, s_ij, s_ji, s_jj, s_vv = (t(a.astype(np.int64)) for a in
                                        (s_ii, s_ij, s_ji, s_jj, s_vv))
        gvec = t(G)
        eye = torch.eye(3, device=dev)
        springs = torch.func.vmap(spring_energy)
        local_h = torch.func.vmap(torch.func.hessian(spring_energy, argnums=(0, 1)))

        def total_energy(x):
            e_s = torch.sum(springs(x[s0], x[s1], rj))
            d = x - xhat
            e_i = torch.sum(0.5 * m * torch.sum(d * d, dim=1)) - H * H * m * torch.sum(x @ gvec)
            return e_s + e_i

        gradient = torch.func.grad(total_energy)

        def assemble(hii, hij, hji, hjj):
            vals = torch.zeros((nblocks, 3, 3), device=dev)
            vals.index_add_(0, s_ii, hii).index_add_(0, s_ij, hij)
            vals.index_add_(0, s_ji, hji).index_add_(0, s_jj, hjj)
            return vals.index_add_(0, s_vv, (m * eye).expand(nv, 3, 3))

        def hessian(x):
            (hii, hij), (hji, hjj) = local_h(x[s0], x[s1], rj)
            return assemble(hii, hij, hji, hjj)

        def clamp_pd(hii, hij, hji, hjj):
            h = torch.cat([torch.cat([hii, hij], dim=2), torch.cat([hji, hjj], dim=2)], dim=1)
            # cuSOLVER's batched eigh on millions of matrices: chunks, as cloth_jax.py does.
            out = torch.empty_like(h)
            for a in range(0, h.shape[0], CHUNK):
                w, q = torch.linalg.eigh(h[a:a + CHUNK])
                out[a:a + CHUNK] = (q * torch.clamp(w, min=1e-9)[:, None, :]) @ q.transpose(1, 2)
            return out[:, :3, :3], out[:, :3, 3:], out[:, 3:, :3], out[:, 3:, 3:]

        def projected_hessian(x):
            (hii, hij), (hji, hjj) = local_h(x[s0], x[s1], rj)
            return assemble(*clamp_pd(hii, hij, hji, hjj))

        def step(x):
            return total_energy(x), gradient(x), hessian(x)

        def timed(f):
            for _ in range(3):
                f(x)
                sync()
            t0 = time.perf_counter()
            f(x)
            sync()
            # Slow calls (eager Hessians at n = 1000) get fewer repetitions: about 3 s each.
            reps = max(3, min(args.reps, int(3.0 / max(time.perf_counter() - t0, 1e-6))))
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                f(x)
                sync()
                ts.append((time.perf_counter() - t0) * 1e3)
            return float(np.median(ts))

        with torch.no_grad():
            e_ms = timed(total_energy)
        g_ms, h_ms, all_ms = timed(gradient), timed(hessian), timed(step)
        hp_ms = timed(projected_hessian)
        print(f"RESULT torch n={n} vertices={nv} springs={len(s)} blocks={nblocks} "
              f"E_ms={e_ms:.3f} g_ms={g_ms:.3f} H_ms={h_ms:.3f} EgH_ms={all_ms:.3f} "
              f"Hp_ms={hp_ms:.3f} energy={float(total_energy(x)):.15g} "
              f"Hp_sum={float(torch.sum(projected_hessian(x))):.12g}", flush=True)


if __name__ == "__main__":
    main()

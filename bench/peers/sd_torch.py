#!/usr/bin/env python3
"""PyTorch peer of bench/sd_hvp.cpp: the symmetric Dirichlet energy on the file the C++ program
writes with --write (bench/energy_bench.h), as a PyTorch user writes it: the per-face energy
A (|J|_F^2 + |J^-1|_F^2) over all faces at once (batched tensor ops, float64), the gradient by
torch.func.grad, the Hessian-vector product two ways: torch.func.jvp of torch.func.grad
(forward over reverse) and double backward (torch.autograd.grad with create_graph, then the
gradient of g . v); "hvp_ms" is the faster of the two that ran. Timing: wall clock around the
call + torch.cuda.synchronize(), after warm-up; medians (energy_common.median_ms). Runs on the
CPU when there is no GPU (for testing only).

Prints the checksums bench/sd_hvp.cpp prints for energy, gradient and H v in one RESULT line.

Usage: python3 sd_torch.py FILE.bin [...] [--reps 15]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import energy_common as ec  # noqa: E402

torch.set_default_dtype(torch.float64)


def make_total(faces, params):
    nf = faces.shape[0]
    flat = faces.reshape(-1)
    dm_inv = params[:, :4].reshape(nf, 2, 2)
    area = params[:, 4]

    def total(x):
        # index_select rather than x[faces]: its backward (index_add) has a forward derivative
        # in every PyTorch version, so jvp of grad works.
        u = torch.index_select(x, 0, flat).reshape(nf, 3, 2)
        m = torch.stack([u[:, 1] - u[:, 0], u[:, 2] - u[:, 0]], dim=2)  # columns: UV edges
        j = torch.bmm(m, dm_inv)
        det = j[:, 0, 0] * j[:, 1, 1] - j[:, 0, 1] * j[:, 1, 0]
        inv = torch.stack([torch.stack([j[:, 1, 1], -j[:, 0, 1]], dim=1),
                           torch.stack([-j[:, 1, 0], j[:, 0, 0]], dim=1)], dim=1) / det[:, None,
                                                                                         None]
        return torch.sum(area * ((j * j).sum(dim=(1, 2)) + (inv * inv).sum(dim=(1, 2))))

    return total


def run(path, reps, dev):
    d = ec.read_arrays(path)
    faces = torch.as_tensor(d["faces"].astype("int64"), device=dev)
    params = torch.as_tensor(d["params"], device=dev)
    uv, v = torch.as_tensor(d["uv"], device=dev), torch.as_tensor(d["v"], device=dev)
    nv, nf = uv.shape[0], faces.shape[0]
    total = make_total(faces, params)
    grad = torch.func.grad(total)

    def hvp_fwd(x, w):
        return torch.func.jvp(grad, (x,), (w,))[1]

    def hvp_db(x, w):
        x = x.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(total(x), x, create_graph=True)
        (hv,) = torch.autograd.grad(g, x, grad_outputs=w)
        return hv

    def sync(_):
        if dev.type == "cuda":
            torch.cuda.synchronize()

    with torch.no_grad():
        e_ms = ec.median_ms(lambda: total(uv), sync, reps)
        energy = float(total(uv))
    g_ms = ec.median_ms(lambda: grad(uv), sync, reps)
    g = grad(uv)
    times, hv = {}, None
    for name, f in (("hvp_fwd_ms", hvp_fwd), ("hvp_db_ms", hvp_db)):
        try:
            times[name] = ec.median_ms(lambda: f(uv, v), sync, reps)
            hv = f(uv, v) if hv is None else hv
        except Exception as e:  # an unsupported forward derivative must not lose the other
            print(f"[torch] {name[:-3]} failed: {type(e).__name__}: {str(e)[:200]}", flush=True)
            times[name] = float("nan")
    ok = [t for t in times.values() if t == t]
    out = dict(vertices=nv, faces=nf, E_ms=e_ms, g_ms=g_ms,
               hvp_ms=min(ok) if ok else float("nan"), **times, energy=energy,
               g_norm=float(torch.linalg.norm(g)), g_dot_v=float(torch.sum(g * v)))
    if hv is not None:
        out.update(hv_norm=float(torch.linalg.norm(hv)), v_hv=float(torch.sum(v * hv)))
    print(ec.result_line("sd_torch", **out), flush=True)


def main():
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    name = torch.cuda.get_device_name() if dev.type == "cuda" else "cpu"
    ec.run_files(lambda path, reps: run(path, reps, dev), f"{name} torch {torch.__version__}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Dr.Jit peer of bench/cloth_step.cpp for the gradient (Dr.Jit differentiates to first order
only): the same grid, parameters and perturbed configuration as cloth_jax.py; energy by gathers
and a horizontal sum, gradient by reverse mode (dr.backward), fp64 on CUDA. Timed as a user runs
it: the whole evaluation traced each call (plain), and with @dr.freeze (recorded once, replayed).
Wall clock + dr.sync_thread(), after warm-up; median. Prints the energy and the gradient's sum,
which cloth_step's gradient reproduces.

Usage: python3 cloth_drjit.py [N ...] [--reps 15]
"""
import argparse
import time

import numpy as np
import drjit as dr
from drjit.cuda.ad import Float64, UInt32

from cloth_common import G, H, K, grid  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sizes", nargs="*", type=int, default=[100, 500, 1000])
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    print("drjit", dr.__version__)
    for n in args.sizes:
        x0, xp, s, rest = grid(n)
        nv = n * n
        m = 1.0 / nv
        i0, i1 = UInt32(s[:, 0].astype(np.uint32)), UInt32(s[:, 1].astype(np.uint32))
        l = Float64(rest)
        xh = [Float64(np.ascontiguousarray(x0[:, c])) for c in range(3)]
        # The state lives on the GPU, as the other programs' does; each evaluation starts from a
        # fresh device copy (no host transfer in the timing).
        xdev = [Float64(np.ascontiguousarray(xp[:, c])) for c in range(3)]
        dr.eval(xdev)

        # Everything the function reads is an argument: a frozen function records only what
        # its inputs reach.
        def energy_and_gradient(x, i0, i1, l, xh):
            dr.enable_grad(x)
            d = [dr.gather(Float64, x[c], i0) - dr.gather(Float64, x[c], i1) for c in range(3)]
            t = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / (l * l) - 1.0
            e_s = dr.sum(H * H * 0.5 * K * l * l * t * t)
            e_i = 0.0
            for c in range(3):
                r = x[c] - xh[c]
                e_i += dr.sum(0.5 * m * r * r - H * H * m * G[c] * x[c])
            e = e_s + e_i
            dr.backward(e)
            return e, [dr.grad(x[c]) for c in range(3)]

        frozen = dr.freeze(energy_and_gradient)

        def run(f):
            x = [dr.copy(c) for c in xdev]
            e, g = f(x, i0, i1, l, xh)
            dr.eval(e, g)
            dr.sync_thread()
            return e, g

        def timed(f):
            for _ in range(3):
                run(f)
            t = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                run(f)
                t.append((time.perf_counter() - t0) * 1e3)
            return float(np.median(t))

        plain_ms = timed(energy_and_gradient)
        try:
            frozen_ms = f"{timed(frozen):.3f}"
        except RuntimeError as err:  # recording can refuse (Dr.Jit 1.5 on this function)
            print("freeze failed:", str(err).splitlines()[0])
            frozen_ms = "n/a"
        e, g = run(energy_and_gradient)
        gsum = sum(float(dr.sum(g[c])[0]) if hasattr(dr.sum(g[c]), "__len__") else
                   float(dr.sum(g[c])) for c in range(3))
        ev = e[0] if hasattr(e, "__len__") else e
        print(f"RESULT drjit n={n} vertices={nv} springs={len(s)} Eg_ms={plain_ms:.3f} "
              f"Eg_frozen_ms={frozen_ms} energy={float(ev):.15g} gradient_sum={gsum:.12g}")


if __name__ == "__main__":
    main()

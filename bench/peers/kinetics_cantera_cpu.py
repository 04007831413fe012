#!/usr/bin/env python3
"""CPU reference of bench/kinetics_rates.cpp (issue 16): Cantera 3.2 on all CPU cores, per cell
the net production rates wdot (kmol/m^3/s) and heat release rate q (W/m^3) at constant
pressure, and, as a separate timed pass, the dense per-cell Jacobian d(wdot, q)/d(T, Y) that
kinetics_rates and the JAX peer compute, assembled from the derivatives Cantera offers.

Cantera has no d/dY; its derivatives (Kinetics.net_production_rates_ddT, _ddCi; experimental
API, default derivative_settings: third bodies and falloff included, falloff by finite
differences with rtol-delta 1e-8) are taken at fixed concentrations. With C_k = C_tot X_k,
C_tot = p / (R T), X_k = (Y_k / W_k) / S, S = sum_j Y_j / W_j (Y not renormalised, as
kinetics_rates differentiates it), at fixed p:
  dwdot/dT   = ddT - ddCi . C / T                        (dC_k/dT = -C_k / T)
  dwdot/dY_j = (C_tot / (S W_j)) (ddCi[:, j] - ddCi . X)  (dC_k/dY_j = C_tot (d_kj - X_k) / (S W_j))
  dq/dT = -cp . wdot - h . dwdot/dT,  dq/dY = -h . dwdot/dY   (h, cp partial molar)
Its accuracy is that of Cantera's finite-difference falloff terms (sum |J| agrees with
kinetics_rates to about 1e-9 relative on GRI-3.0).

Parallelism: one forked worker process per core (os.sched_getaffinity, or --procs), each with
its own Solution and an even, contiguous share of the cells; the states are inherited through
fork, the outputs stay in each worker's preallocated arrays (kept as a user keeps them).
Timing: the wall time of the whole batch as the parent sees it (all workers told to go, until
the last answers); the median of up to --reps calls after an untimed first one, fewer where they
would take over 10 s (rates) or 20 s (Jacobian), at least 3 (energy_common.median_ms). Process
start-up and mechanism loading are not timed. Cells per second = cells / that time. The rates
pass is gas.TPY = T, p, Y; gas.net_production_rates; gas.heat_release_rate per cell.

Inputs: kinetics_rates --write DIR's DIR/kinetics_<mech>.json (for the YAML file, phase and
species order it loaded) and DIR/kinetics_<mech>_<CELLS>.bin ("states", "pressure").

Usage: python3 kinetics_cantera_cpu.py MECH.json STATES.bin [...] [--reps 5] [--procs N]
                                        [--yaml FILE[:PHASE]] [--no-jacobian]
"""
import argparse
import json
import math
import multiprocessing as mp
import os
import sys

# One thread per worker: the workers are the parallelism (numpy's BLAS would oversubscribe).
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(v, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import energy_common as ec  # noqa: E402


def result_line(name, values, checksums):
    """kinetics_jax.py's format (not imported: it imports JAX): times with 4 decimals,
    checksums with all 17 digits."""
    parts = [f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()]
    parts += [f"{k}={v:.17g}" for k, v in checksums.items()]
    return f"RESULT {name} " + " ".join(parts)


# The states of the file being run, set before the workers are forked (inherited, not copied).
STATES = None


def worker(conn, lo, hi, yaml, phase, p):
    import cantera as ct

    gas = ct.Solution(yaml, phase) if phase else ct.Solution(yaml)
    # ddCi as scipy's sparse matrix and then dense is faster than Cantera's own dense output
    # (about 330 against 560 us per GRI-3.0 cell, Cantera 3.2): its densifying is slow.
    try:
        ct.use_sparse(True)
        sparse = True
    except ImportError:
        sparse = False
    x = STATES[lo:hi]
    n, ns = hi - lo, gas.n_species
    W = gas.molecular_weights
    w = np.zeros((n, ns))
    q = np.zeros(n)
    J = None
    conn.send((ct.__version__, gas.species_names, "ddCi-sparse" if sparse else "ddCi-dense"))

    def rates():
        for i in range(n):
            gas.TPY = x[i, 0], p, x[i, 1:]
            w[i] = gas.net_production_rates
            q[i] = gas.heat_release_rate

    def jacobian():
        for i in range(n):
            T, Y = x[i, 0], x[i, 1:]
            gas.TPY = T, p, Y
            wd = gas.net_production_rates
            ddT = gas.net_production_rates_ddT
            ddCi = gas.net_production_rates_ddCi
            if sparse:
                ddCi = ddCi.toarray()
            h, cp = gas.partial_molar_enthalpies, gas.partial_molar_cp
            C, X = gas.concentrations, gas.X
            jt = ddT - ddCi @ C / T
            jy = (ddCi - (ddCi @ X)[:, None]) * (gas.density_mole / (np.dot(Y, 1 / W) * W))
            Ji = J[i]
            Ji[:ns, 0] = jt
            Ji[:ns, 1:] = jy
            Ji[ns, 0] = -np.dot(cp, wd) - np.dot(h, jt)
            Ji[ns, 1:] = -(h @ jy)

    while True:
        cmd = conn.recv()
        if cmd == "rates":
            rates()
        elif cmd == "jacobian":
            if J is None:
                J = np.zeros((n, ns + 1, ns + 1))
            jacobian()
        elif cmd == "sums":  # per cell, for the parent's order-independent fsum
            # |J| in slices: a 1e6-cell run keeps 23 GB of Jacobians, no second copy.
            j_abs = None if J is None else np.concatenate(
                [np.abs(J[a:a + 4096]).sum(axis=(1, 2)) for a in range(0, n, 4096)] + [[]])
            conn.send((w.sum(axis=1), np.abs(w).sum(axis=1), q, j_abs))
            continue
        elif cmd == "stop":
            return
        conn.send(True)


def run(mech, path, reps, procs, yaml, phase, jacobian):
    global STATES
    d = ec.read_arrays(path)
    x, p = d["states"], d["pressure"]
    ns = len(mech["species"])
    if x.shape[1] != ns + 1:
        raise SystemExit(f"{path}: states have {x.shape[1]} columns, the mechanism {ns + 1}")
    n = x.shape[0]
    STATES = x
    ctx = mp.get_context("fork")
    conns, workers = [], []
    for k in range(procs):
        a, b = ctx.Pipe()
        pr = ctx.Process(target=worker, args=(b, n * k // procs, n * (k + 1) // procs, yaml,
                                              phase, p), daemon=True)
        pr.start()
        conns.append(a)
        workers.append(pr)
    try:
        for c in conns:
            version, names, ddci = c.recv()
        want = [s["name"] for s in mech["species"]]
        if list(names) != want:
            raise SystemExit(f"{yaml}: Cantera's species order differs from {path}'s mechanism")

        def go(cmd):
            return lambda: [c.send(cmd) for c in conns]

        def wait(_):
            for c in conns:
                c.recv()

        out = dict(mechanism=os.path.splitext(os.path.basename(mech["file"]))[0],
                   cells=n, species=ns, reactions=len(mech["reactions"]), procs=procs,
                   cantera=version, jacobian=ddci, w_ms=float("nan"), J_ms=float("nan"))
        # No compile to warm up: median_ms's first, untimed-for-the-median call (it sizes the
        # repetitions) is the warm-up, and faults in the output arrays.
        out["w_ms"] = ec.median_ms(go("rates"), wait, reps, budget_s=10.0, warmup=0)
        out["w_cells_per_s"] = n / out["w_ms"] * 1e3
        if jacobian:
            out["J_ms"] = ec.median_ms(go("jacobian"), wait, reps, budget_s=20.0, warmup=0)
        out["J_cells_per_s"] = n / out["J_ms"] * 1e3
        for c in conns:
            c.send("sums")
        parts = [c.recv() for c in conns]
    finally:
        for c in conns:
            try:
                c.send("stop")
            except OSError:
                pass
        for pr in workers:
            pr.join(timeout=10)
        STATES = None
    cat = [np.concatenate([s[i] for s in parts]) for i in range(3)]
    j_abs = math.fsum(np.concatenate([s[3] for s in parts])) if jacobian else float("nan")
    sums = dict(wdot_sum=math.fsum(cat[0]), wdot_abs_sum=math.fsum(cat[1]), q_sum=math.fsum(cat[2]),
                J_abs_sum=j_abs)
    print(result_line("kinetics_cantera", out, sums), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mechanism", help="kinetics_<mech>.json written by kinetics_rates --write")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=5, help="at most; fewer for slow calls")
    ap.add_argument("--procs", type=int, default=0, help="worker processes (0: all cores)")
    ap.add_argument("--yaml", default="", help="FILE[:PHASE] (default: the JSON's file, phase)")
    ap.add_argument("--no-jacobian", action="store_true")
    args = ap.parse_args()
    with open(args.mechanism) as f:
        mech = json.load(f)
    yaml, _, phase = args.yaml.partition(":") if args.yaml else (mech["file"], "", mech["phase"])
    procs = args.procs or len(os.sched_getaffinity(0))
    print(f"device CPU, {procs} worker processes ({os.cpu_count()} CPUs); {yaml} phase "
          f"{phase or '(default)'}", flush=True)
    for path in args.files:
        run(mech, path, args.reps, procs, yaml, phase, not args.no_jacobian)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CPU reference of bench/kinetics_ignition.cpp (issue 17): Cantera 3.2 integrates the same
batch of adiabatic constant-pressure ideal-gas reactors, each ct.IdealGasConstPressureReactor
in its own ct.ReactorNet (CVODES, rtol and atol of the case file), from (T0[i], pressure, Y0)
to net.advance(t_end[i]), on all CPU cores.

Cells: --limit K of the file's N reactors, chosen evenly over the index range (all when K >= N
or K = 0); the file's T0 are spread evenly over the temperature range, so the subset spans it.
Parallelism: a multiprocessing Pool of --processes P workers (default os.cpu_count()), forked;
each loads the Solution once, in its initializer, and takes one reactor at a time
(chunksize 1: the reactors' costs differ).
Timing: the wall time of the whole pool map over the subset as the parent sees it, after an
untimed warm-up in which every worker integrates one reactor (the subset's first; a barrier
makes each worker take exactly one); the median of --reps such runs (default 1). Process
start-up and mechanism loading are not timed. reactors_per_s = cells / seconds.
Agreement: dT_max = max over the subset of |T_final(Cantera) - T_final(dualjit)|.
--tau also (untimed, a second pass) steps each reactor with net.step() to t_end and takes its
ignition delay as dualjit does: the time of the largest dT/dt = heat_release_rate /
(density cp_mass), refined to the vertex of the parabola through that step and its neighbours;
tau_rel_max = max |tau(Cantera) / tau(dualjit) - 1|.
A reactor whose integration fails (CanteraError) counts in failed= and is left out of the
maxima.

Input: the case file kinetics_ignition --write DIR writes (DIR/ignition_<mech>_<N>.json:
mechanism, phase, pressure, species, Y0, rtol, atol, T0, t_end, tau, T_final, seconds).

Usage: python3 ignition_cantera_cpu.py CASE.json [--limit 1024] [--processes P] [--reps 1]
                                        [--tau] [--yaml FILE[:PHASE]]
"""
import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time

# One thread per worker: the workers are the parallelism.
for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(v, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ignition_common import result_line  # noqa: E402


def subset(n, k):
    """k indices spread evenly over 0..n-1 (all of them when k >= n or k <= 0)."""
    if k <= 0 or k >= n:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, k)).astype(np.int64))


def peak_time(ts, fs):
    """Time of the largest f, refined to the vertex of the parabola through it and its two
    neighbours (solvers/stiff_integrator.cpp's PeakTracker)."""
    k = int(np.argmax(fs))
    if k == 0 or k == len(fs) - 1:
        return ts[k]
    x0, x1, x2 = ts[k - 1], ts[k], ts[k + 1]
    y0, y1, y2 = fs[k - 1], fs[k], fs[k + 1]
    d1 = (y1 - y0) / (x1 - x0)
    d2 = ((y2 - y1) / (x2 - x1) - d1) / (x2 - x0)
    if not d2 < 0:
        return x1
    return min(max(0.5 * (x0 + x1 - d1 / d2), x0), x2)


# Per worker: set by init().
W = {}


def init(yaml, phase, pressure, Y0, rtol, atol, barrier):
    import cantera as ct

    W["ct"] = ct
    W["gas"] = ct.Solution(yaml, phase) if phase else ct.Solution(yaml)
    W.update(p=pressure, Y0=np.asarray(Y0), rtol=rtol, atol=atol, barrier=barrier)


def reactor(T0):
    ct, gas = W["ct"], W["gas"]
    gas.TPY = T0, W["p"], W["Y0"]
    r = ct.IdealGasConstPressureReactor(gas, clone=False)
    net = ct.ReactorNet([r])
    net.rtol, net.atol = W["rtol"], W["atol"]
    return gas, net


def advance(item):
    """(T_final, CVODES steps) of one reactor; NaN and -1 when Cantera fails."""
    T0, t_end = item
    try:
        gas, net = reactor(T0)
        net.advance(t_end)
        return gas.T, net.solver_stats["steps"]
    except W["ct"].CanteraError:
        return math.nan, -1


def warm(item):
    out = advance(item)
    W["barrier"].wait(timeout=600)  # one warm-up reactor per worker
    return out


def ignition(item):
    """Cantera's ignition delay (largest dT/dt over its own steps to t_end); NaN on failure."""
    T0, t_end = item
    try:
        gas, net = reactor(T0)
        ts, fs = [], []
        while net.time < t_end:
            ts.append(net.step())
            fs.append(gas.heat_release_rate / (gas.density * gas.cp_mass))
        return peak_time(ts, fs)
    except W["ct"].CanteraError:
        return math.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", help="ignition_<mech>_<N>.json written by kinetics_ignition --write")
    ap.add_argument("--limit", type=int, default=1024, help="reactors run (0: all)")
    ap.add_argument("--processes", type=int, default=0, help="workers (0: os.cpu_count())")
    ap.add_argument("--reps", type=int, default=1, help="timed runs (median)")
    ap.add_argument("--tau", action="store_true", help="also Cantera's ignition delays (untimed)")
    ap.add_argument("--yaml", default="", help="FILE[:PHASE] (default: the case's)")
    args = ap.parse_args()
    with open(args.case) as f:
        case = json.load(f)
    if args.yaml:
        yaml, _, phase = args.yaml.partition(":")
    else:
        yaml, phase = case["mechanism"], case.get("phase", "")
    n = len(case["T0"])
    idx = subset(n, args.limit)
    T0 = np.asarray(case["T0"])[idx]
    t_end = np.asarray(case["t_end"])[idx]
    items = list(zip(T0.tolist(), t_end.tolist()))
    procs = args.processes or os.cpu_count()

    import cantera as ct

    gas = ct.Solution(yaml, phase) if phase else ct.Solution(yaml)
    if gas.species_names != case["species"]:
        raise SystemExit(f"{yaml}: Cantera's species order differs from {args.case}'s")
    print(f"device CPU, {procs} worker processes ({os.cpu_count()} CPUs); Cantera "
          f"{ct.__version__}; {yaml} phase {gas.name}; {len(idx)} of {n} reactors, "
          f"T0 {T0.min():g}-{T0.max():g} K, p {case['pressure']:g} Pa, rtol {case['rtol']:g}, "
          f"atol {case['atol']:g}; dualjit: {case.get('seconds', math.nan):.4f} s for {n} on "
          f"{case.get('device', '?')}", flush=True)

    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(procs)
    with ctx.Pool(procs, initializer=init, initargs=(yaml, phase, case["pressure"], case["Y0"],
                                                     case["rtol"], case["atol"], barrier)) as pool:
        pool.map(warm, [items[0]] * procs, chunksize=1)
        times = []
        for _ in range(max(1, args.reps)):
            t0 = time.perf_counter()
            res = pool.map(advance, items, chunksize=1)
            times.append(time.perf_counter() - t0)
        taus = pool.map(ignition, items, chunksize=1) if args.tau else None
    seconds = float(np.median(times))
    T_final = np.array([r[0] for r in res])
    steps = np.array([r[1] for r in res])
    ok = np.isfinite(T_final)
    dT = np.abs(T_final - np.asarray(case["T_final"])[idx])
    worst = int(idx[ok][np.argmax(dT[ok])]) if ok.any() else -1
    out = dict(peer="cantera_cpu", mechanism=os.path.splitext(os.path.basename(yaml))[0],
               cantera=ct.__version__, processes=procs, cells=len(idx), of=n, seconds=seconds,
               reactors_per_s=len(idx) / seconds, steps_mean=float(steps[ok].mean()) if ok.any()
               else math.nan, failed=int((~ok).sum()),
               dT_max=float(dT[ok].max()) if ok.any() else math.nan, dT_max_cell=worst,
               dualjit_seconds=float(case.get("seconds", math.nan)))
    s = out["dualjit_seconds"]
    out["dualjit_reactors_per_s"] = n / s if s > 0 else math.nan
    if taus is not None:
        taus = np.array(taus)
        rel = np.abs(taus / np.asarray(case["tau"])[idx] - 1)
        good = np.isfinite(rel)
        out["tau_rel_max"] = float(rel[good].max()) if good.any() else math.nan
        out["tau_rel_max_cell"] = int(idx[good][np.argmax(rel[good])]) if good.any() else -1
    for i in np.argsort(-np.where(ok, dT, np.inf))[:3]:
        print(f"  cell {idx[i]}: T0 {T0[i]:.2f} K, t_end {t_end[i]:.4e} s, T_final Cantera "
              f"{T_final[i]:.6f} dualjit {case['T_final'][idx[i]]:.6f} K"
              + (f", tau Cantera {taus[i]:.6e} dualjit {case['tau'][idx[i]]:.6e} s"
                 if taus is not None else ""), flush=True)
    print(result_line(out), flush=True)


if __name__ == "__main__":
    main()

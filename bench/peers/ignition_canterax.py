#!/usr/bin/env python3
"""canterax peer of bench/kinetics_ignition.cpp (issue 17): the same batch of adiabatic
constant-pressure ideal-gas reactors, integrated by canterax (PyPI "canterax" 0.3.1, pure
Python on JAX) as a JAX user batches them: canterax.ReactorNet(mech).advance(T0, p, Y0, t_end,
rtol, atol, solver=...) of one reactor (state [T, Y_1..Y_ns], canterax's reactor_rhs), under
jax.vmap over (T0, t_end) and jax.jit, float64, on the GPU.

Solvers (--solver): kvaerno5, canterax's default (diffrax.Kvaerno5 with a VeryChord root finder
and LU, PIDController(rtol, atol), dt0 1e-8, SaveAt(t1)), or bdf (canterax's own variable-order
BDF; it does not clip its last step to t_end, so it stops at some t >= t_end: t_over_max; on
GRI-3.0 at 1000 K, 10 atm it steps ~5e-8 s and reaches only 5 ms of 164 ms in 100000 steps
(CPU, unbatched): give it --max-steps, it reports such reactors as unfinished).
Under vmap every reactor of a chunk steps in one while loop until the slowest is done, and
canterax's BDF evaluates both sides of each lax.cond (Jacobian and LU refreshes) at every step.
max_steps: canterax's default (100000) unless --max-steps.

Cells: --limit K of the file's N reactors, chosen evenly over the index range (all when K >= N
or K = 0), run in chunks of --chunk C (the last chunk padded with copies of its last reactor,
so one executable serves all; the copies are not counted). Timing: jit(vmap(...)) is lowered
and compiled ahead of time for one chunk (compile_s: tracing and XLA), run once on the first
chunk (first_s, untimed warm-up), then the whole subset is timed, wall clock from the first
call to block_until_ready of the last chunk's outputs, the median of --reps runs (default 1);
reactors_per_s = cells / seconds. Agreement: dT_max = max |T_final(canterax) -
T_final(dualjit)| over the reactors that finished.

Failures do not stop the script: diffrax raises on max_steps by default and advance() passes
no throw=, so this script sets EQX_ON_ERROR=off (unless set) and reads each reactor's
diffrax result instead (under vmap EQX_ON_ERROR=nan would poison the whole chunk); a reactor
with a non-finite state counts in nonfinite=, one that stopped before t_end (max_steps, or
diffrax's result not successful) in unfinished=; a chunk that raises anyway counts all its
cells in errors=. Mechanisms canterax 0.3.1 does not compute are refused as
kinetics_canterax.py refuses them (its check_mechanism).

Input: the case file kinetics_ignition --write DIR writes (DIR/ignition_<mech>_<N>.json). The
YAML file is the case's "mechanism", or --yaml (canterax loads its first phase).

Usage: python3 ignition_canterax.py CASE.json [--limit 4096] [--chunk 1024]
                                     [--solver kvaerno5|bdf] [--reps 1] [--max-steps S]
                                     [--dt0 DT] [--yaml FILE]
"""
import os

# Before equinox is imported (by canterax): report failed reactors instead of raising.
os.environ.setdefault("EQX_ON_ERROR", "off")

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kinetics_canterax as kcx  # noqa: E402  (imports JAX, float64 on; check_mechanism)
from ignition_common import result_line  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def subset(n, k):
    """k indices spread evenly over 0..n-1 (all of them when k >= n or k <= 0)."""
    if k <= 0 or k >= n:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, k)).astype(np.int64))


def dist_version(name):
    from importlib.metadata import version

    try:
        return version(name)
    except Exception:
        return "?"


def advance_params(net):
    """The parameters of canterax's ReactorNet.advance, an eqx.filter_jit method (the bound
    method's signature is (*args, **kwargs); the wrapper's __wrapped__ has the real one); {}
    when they cannot be inspected."""
    for get in (lambda: type(net).__dict__["advance"].__wrapped__, lambda: net.advance):
        try:
            params = inspect.signature(get()).parameters
        except Exception:
            continue
        if "t_end" in params:
            return params
    return {}


def make_batch(net, p, Y0, rtol, atol, solver, max_steps, dt0):
    """jit(vmap(one reactor)) over (T0, t_end): (T_final, t reached, steps, finished)."""
    import diffrax

    kw = dict(solver="bdf" if solver == "bdf" else None)
    if max_steps:
        kw["max_steps"] = max_steps
    if dt0:
        kw["dt0"] = dt0
    if "throw" in advance_params(net):  # not in canterax 0.3.1
        kw["throw"] = False
    Y0 = jnp.asarray(Y0)

    def one(T0, t_end):
        sol = net.advance(T0, p, Y0, t_end, rtol, atol, **kw)
        if isinstance(sol, dict):  # canterax's BDF: {"ts": [t], "ys": [y], "stats": ...}
            t, y, steps = sol["ts"][-1], sol["ys"][-1], sol["stats"]["num_steps"]
            done = t >= t_end
        else:  # a diffrax Solution, SaveAt(t1=True)
            t, y, steps = sol.ts[-1], sol.ys[-1], sol.stats["num_steps"]
            done = (sol.result == diffrax.RESULTS.successful) & (t >= t_end)
        return y[0], t, steps, done & jnp.all(jnp.isfinite(y))

    return jax.jit(jax.vmap(one))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", help="ignition_<mech>_<N>.json written by kinetics_ignition --write")
    ap.add_argument("--limit", type=int, default=4096, help="reactors run (0: all)")
    ap.add_argument("--chunk", type=int, default=1024, help="reactors per call (0: all)")
    ap.add_argument("--solver", choices=("kvaerno5", "bdf"), default="kvaerno5")
    ap.add_argument("--reps", type=int, default=1, help="timed runs of the subset (median)")
    ap.add_argument("--max-steps", type=int, default=0, help="0: canterax's default")
    ap.add_argument("--dt0", type=float, default=0.0, help="diffrax's first step (0: canterax's)")
    ap.add_argument("--yaml", default="", help="the YAML file (default: the case's)")
    args = ap.parse_args()
    with open(args.case) as f:
        case = json.load(f)
    yaml = args.yaml or case["mechanism"]
    n = len(case["T0"])
    idx = subset(n, args.limit)
    cells = len(idx)
    chunk = cells if args.chunk <= 0 else min(args.chunk, cells)
    T0 = np.asarray(case["T0"], dtype=np.float64)[idx]
    t_end = np.asarray(case["t_end"], dtype=np.float64)[idx]

    import canterax
    from canterax.loader import load_mechanism

    ct_version = kcx.check_mechanism(yaml, dict(
        phase=case.get("phase", ""), species=[dict(name=s) for s in case["species"]]))
    t0 = time.perf_counter()
    mech = load_mechanism(yaml)
    net = canterax.ReactorNet(mech)
    adv = advance_params(net)
    max_steps = args.max_steps or (adv["max_steps"].default if "max_steps" in adv else "default")
    print(f"device {jax.devices()[0].device_kind}; canterax {dist_version('canterax')} (Cantera "
          f"{ct_version}, jax {jax.__version__}, diffrax {dist_version('diffrax')}, equinox "
          f"{dist_version('equinox')}, EQX_ON_ERROR={os.environ['EQX_ON_ERROR']}); {yaml}: "
          f"{mech.n_species} species, {mech.n_reactions} reactions, loaded in "
          f"{time.perf_counter() - t0:.1f} s; solver {args.solver}, max_steps {max_steps}; "
          f"{cells} of {n} reactors in chunks of {chunk}, T0 {T0.min():g}-{T0.max():g} K, "
          f"p {case['pressure']:g} Pa, rtol {case['rtol']:g}, atol {case['atol']:g}; dualjit: "
          f"{case.get('seconds', math.nan):.4f} s for {n} on {case.get('device', '?')}",
          flush=True)

    # Chunks of equal size (the last one padded with its last reactor), on the device.
    parts = []
    for a in range(0, cells, chunk):
        b = min(cells, a + chunk)
        pad = chunk - (b - a)
        parts.append((a, b, jax.device_put(np.concatenate([T0[a:b], np.repeat(T0[b - 1:b], pad)])),
                      jax.device_put(np.concatenate([t_end[a:b],
                                                     np.repeat(t_end[b - 1:b], pad)]))))
    batch = make_batch(net, float(case["pressure"]), case["Y0"], float(case["rtol"]),
                       float(case["atol"]), args.solver, args.max_steps, args.dt0)
    out = dict(peer="canterax", solver=args.solver,
               mechanism=os.path.splitext(os.path.basename(yaml))[0],
               canterax=dist_version("canterax"), cells=cells, of=n, chunk=chunk,
               seconds=math.nan, reactors_per_s=math.nan, compile_s=math.nan, first_s=math.nan,
               max_steps=max_steps)
    T_final = np.full(cells, np.nan)
    t_reached = np.full(cells, np.nan)
    steps = np.full(cells, -1, dtype=np.int64)
    done = np.zeros(cells, dtype=bool)
    errors = np.zeros(cells, dtype=bool)

    def keep(part, res):
        a, b = part[0], part[1]
        T, t, s, d = (np.asarray(r)[:b - a] for r in res)
        T_final[a:b], t_reached[a:b], steps[a:b], done[a:b] = T, t, s, d

    try:
        t0 = time.perf_counter()
        run = batch.lower(parts[0][2], parts[0][3]).compile()
        out["compile_s"] = time.perf_counter() - t0
    except Exception as e:
        print(f"{args.case}: compile failed: {str(e).splitlines()[0]}", flush=True)
        run = None
        errors[:] = True
    if run is not None:
        try:
            t0 = time.perf_counter()
            jax.block_until_ready(run(parts[0][2], parts[0][3]))
            out["first_s"] = time.perf_counter() - t0
        except Exception as e:  # out of memory, or a failure that raised anyway
            print(f"{args.case}: first call failed: {str(e).splitlines()[0]}", flush=True)
    if run is not None:
        try:
            times = []
            for _ in range(max(1, args.reps)):
                t0 = time.perf_counter()
                res = [run(p[2], p[3]) for p in parts]
                jax.block_until_ready(res)
                times.append(time.perf_counter() - t0)
            out["seconds"] = float(np.median(times))
            out["reactors_per_s"] = cells / out["seconds"]
            for p, r in zip(parts, res):
                keep(p, r)
        except Exception as e:  # then chunk by chunk, untimed, to see which chunks fail
            print(f"{args.case}: the timed run failed: {str(e).splitlines()[0]}", flush=True)
            for p in parts:
                try:
                    keep(p, jax.block_until_ready(run(p[2], p[3])))
                except Exception as e2:
                    print(f"  cells {p[0]}-{p[1] - 1}: {str(e2).splitlines()[0]}", flush=True)
                    errors[p[0]:p[1]] = True

    ran = ~errors
    finite = np.isfinite(T_final)
    dT = np.abs(T_final - np.asarray(case["T_final"])[idx])
    good = done & finite & ran
    over = t_reached / t_end - 1
    counted = ran & np.isfinite(t_reached)  # EQX_ON_ERROR=nan leaves int max in steps
    out.update(steps_max=int(steps[counted].max()) if counted.any() else -1,
               steps_mean=float(steps[counted].mean()) if counted.any() else math.nan,
               nonfinite=int((ran & ~finite).sum()), unfinished=int((ran & finite & ~done).sum()),
               errors=int(errors.sum()),
               dT_max=float(dT[good].max()) if good.any() else math.nan,
               dT_max_cell=int(idx[good][np.argmax(dT[good])]) if good.any() else -1,
               t_over_max=float(over[good].max()) if good.any() else math.nan,
               dualjit_seconds=float(case.get("seconds", math.nan)))
    s = out["dualjit_seconds"]
    out["dualjit_reactors_per_s"] = n / s if s > 0 else math.nan
    for i in np.argsort(-np.where(good, dT, np.inf))[:3]:
        print(f"  cell {idx[i]}: T0 {T0[i]:.2f} K, t_end {t_end[i]:.4e} s, reached "
              f"{t_reached[i]:.4e} s in {steps[i]} steps, T_final canterax {T_final[i]:.6f} "
              f"dualjit {case['T_final'][idx[i]]:.6f} K", flush=True)
    print(result_line(out), flush=True)


if __name__ == "__main__":
    main()

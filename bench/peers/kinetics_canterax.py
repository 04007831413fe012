#!/usr/bin/env python3
"""canterax peer of bench/kinetics_rates.cpp (issue 16): the same per-cell rates (wdot, q) and
dense Jacobian d(wdot, q)/d(T, Y) at constant pressure as kinetics_jax.py, computed by canterax
(PyPI "canterax" 0.3.1, pure Python on JAX; it reads the mechanism through Cantera) instead of
a hand-written rates function. canterax has no Jacobian of its own and no batched rates: per
cell canterax.kinetics.compute_wdot(T, p, Y, mech) gives wdot (kmol/m^3/s) and the partial molar
enthalpies h, q = -h . wdot; then, as in kinetics_jax.py, jit(vmap(rates)) over all cells and
jit(vmap(jacfwd(rates))) over chunks of cells.

canterax 0.3.1 covers Arrhenius, three-body and falloff (Troe, Lindemann) reactions with their
stoichiometric coefficients as orders; anything else (PLOG, SRI, chemically activated,
Chebyshev, explicit orders, negative pre-exponential factors: it takes log A) it would refuse or
compute wrongly, so this peer refuses such mechanisms by name. Its gas constant is
8314.462618 J/kmol/K, Cantera's 8314.46261815324: the checksums agree with kinetics_rates'
to about 1e-11, not 1e-15 (exp(-Ea / RT) magnifies the 2e-11 difference).

Inputs, timing and the RESULT line as kinetics_jax.py (whose helpers it uses); the YAML file
is the one kinetics_rates loaded (the JSON's "file"), or --yaml.

Usage: python3 kinetics_canterax.py MECH.json STATES.bin [...] [--reps 15] [--chunk 16384]
                                     [--w-chunk 0] [--yaml FILE] [--no-jacobian]
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kinetics_jax as kj  # noqa: E402  (imports JAX, float64 on)
import energy_common as ec  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

SUPPORTED = ("Arrhenius", "three-body-Arrhenius", "falloff-Troe", "falloff-Lindemann")


def check_mechanism(yaml, mech):
    """Refuse what canterax 0.3.1's loader and rates do not handle; the species order and phase
    must be those of the states file."""
    import cantera as ct

    gas = ct.Solution(yaml)
    if mech.get("phase") and gas.name != mech["phase"]:
        raise SystemExit(f"{yaml}: canterax loads the first phase, '{gas.name}', the states are "
                         f"for phase '{mech['phase']}'")
    if gas.species_names != [s["name"] for s in mech["species"]]:
        raise SystemExit(f"{yaml}: Cantera's species order differs from the JSON's")
    bad = []
    for i, r in enumerate(gas.reactions()):
        t = r.reaction_type
        if t not in SUPPORTED:
            bad.append(f"{i + 1} '{r.equation}' ({t})")
        elif r.orders:
            bad.append(f"{i + 1} '{r.equation}' (explicit orders)")
        else:
            rates = [r.rate.low_rate, r.rate.high_rate] if t.startswith("falloff") else [r.rate]
            if any(a.pre_exponential_factor < 0 for a in rates):
                bad.append(f"{i + 1} '{r.equation}' (negative A)")
    if bad:
        raise SystemExit(f"{yaml}: canterax 0.3.1 does not compute {len(bad)} reactions: "
                         + "; ".join(bad[:5]) + ("; ..." if len(bad) > 5 else ""))
    return ct.__version__


def make_rates(mech):
    from canterax.kinetics import compute_wdot

    def rates(x, p):
        wdot, _, _, _, h_mol = compute_wdot(x[0], p, x[1:], mech)
        return jnp.concatenate([wdot, (-jnp.dot(h_mol, wdot))[None]])

    return rates


def run(mech, name, ns, nr, path, reps, chunk, w_chunk, jacobian):
    """kinetics_jax's timing with canterax's rates."""
    kj.time_cells(make_rates(mech), path, reps, chunk, w_chunk, jacobian, "kinetics_canterax",
                  dict(mechanism=name, species=ns, reactions=nr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mechanism", help="kinetics_<mech>.json written by kinetics_rates --write")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--chunk", type=int, default=16384, help="cells per Jacobian call (0: all)")
    ap.add_argument("--w-chunk", type=int, default=0, help="cells per rates call (0: all)")
    ap.add_argument("--yaml", default="", help="the YAML file (default: the JSON's file)")
    ap.add_argument("--no-jacobian", action="store_true")
    args = ap.parse_args()
    with open(args.mechanism) as f:
        desc = json.load(f)
    yaml = args.yaml or desc["file"]
    import canterax
    from canterax.loader import load_mechanism

    version = getattr(canterax, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version
        version = dist_version("canterax")
    ct_version = check_mechanism(yaml, desc)
    print("device", jax.devices()[0].device_kind, flush=True)
    t0 = time.perf_counter()
    mech = load_mechanism(yaml)
    print(f"{yaml}: canterax {version} (Cantera {ct_version}), {mech.n_species} species, "
          f"{mech.n_reactions} reactions, loaded in {time.perf_counter() - t0:.1f} s", flush=True)
    name = os.path.splitext(os.path.basename(desc["file"]))[0]
    for path in args.files:
        run(mech, name, mech.n_species, mech.n_reactions, path, args.reps, args.chunk,
            args.w_chunk, not args.no_jacobian)


if __name__ == "__main__":
    main()

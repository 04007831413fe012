#!/usr/bin/env python3
"""Reference values from Cantera for dualjit's rate-law tests (tests/examples/kinetics_*_test.cpp).

For each mechanism, a few random states (fixed seed: T uniform in 300-3000 K, p log-uniform in
0.1-100 atm, every mass fraction positive, log-uniform over five decades), then two corners of
that range (300 K at 0.1 atm, 3000 K at 100 atm; rate_types.yaml, which has every reaction type,
also at three fixed (T, p) that put its PLOG table's ends and tabulated pressures under test)
and, at each, what Cantera computes: net production rates, heat release rate, forward and
reverse rate constants, and at a few states the derivatives of the net production rates
(net_production_rates_ddT, _ddP, _ddC and the dense _ddCi, with third bodies and falloff not
skipped). The files written here are committed, so that the C++ tests run without Cantera; the
ctest test kinetics_cantera writes them afresh into the build tree (--out) and runs the tests
against those.

Run from anywhere with Cantera 3.2 (tools/install-test-deps.sh BUILD_DIR installs it into
BUILD_DIR/python):
    python3 tests/data/kinetics/make_references.py [--out DIR]

Before writing, the data are checked against themselves in plain Python (check_state): the same
net rates at the same state set by density (constant volume), the rates of progress rebuilt
from the rate constants by mass action, mass conservation and the heat release rate, and
ddC = ddCi X (the tests compose the constant-pressure Jacobian from ddC).

File format (one file per mechanism, <stem>.ref.txt): '#' lines are comments; every other line
is a key followed by its values, separated by spaces. Header keys: mechanism, phase, species
(names), reactions (count), states (count). Then per state: state <i>, T, p, Y, wdot, hrr, kf,
kr, in that order, and at a few states ddT, ddP, ddC (ns values each: dwdot_k/dT at
constant p and C, dwdot_k/dp at constant T and C, dwdot_k/dC_tot at constant T, p and X) and
ddCi (ns x ns, row-major: dwdot_k/dC_i at constant T, p and the other C). Values are written
with 17 significant digits, derivatives with 10 (they are compared to about 1e-6).
"""
import argparse
import os
import sys

import cantera as ct
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SHIPPED = os.path.join(ROOT, "data", "mechanisms")

T_RANGE = (300.0, 3000.0)  # K
P_RANGE = (0.1, 100.0)  # atm
CORNERS = [(T_RANGE[0], P_RANGE[0]), (T_RANGE[1], P_RANGE[1])]

# (file, folder, phase, number of random states, extra (T, p in atm) states, the states with
# derivatives: a dense ns x ns matrix each, so few for the large mechanisms)
MECHANISMS = [
    ("h2o2.yaml", SHIPPED, "ohmech", 6, CORNERS, range(8)),
    ("gri30.yaml", SHIPPED, "gri30", 6, CORNERS, range(3)),
    ("ammonia-CO-H2-Alzueta-2023.yaml", SHIPPED, "", 6, CORNERS, range(3)),
    ("nDodecane_Reitz.yaml", SHIPPED, "nDodecane_IG", 4, CORNERS, range(2)),
    # Above rate_types' PLOG table (1-10 atm) and exactly at two of its pressures (states 7 and
    # 8: no derivatives there, since dk/dp of PLOG jumps at a tabulated pressure).
    ("rate_types.yaml", HERE, "gas", 6, [(900.0, 30.0), (2400.0, 3.0), (1200.0, 1.0)] + CORNERS,
     [0, 1, 2, 3, 4, 5, 6, 9, 10]),
]
SEED = 20261124


def random_states(gas, n, rng):
    states = []
    for _ in range(n):
        T = rng.uniform(*T_RANGE)
        p = ct.one_atm * np.exp(rng.uniform(np.log(P_RANGE[0]), np.log(P_RANGE[1])))
        Y = 10.0 ** rng.uniform(-5.0, 0.0, gas.n_species)
        states.append((T, p, Y / Y.sum()))
    return states


def check_state(gas, T, p, Y, wdot, hrr, kf, kr):
    """Raises AssertionError when the recorded values do not fit together."""
    scale = np.max(np.abs(wdot))
    # The same state at constant volume: same density, same rates.
    rho = gas.density
    gas.TDY = T, rho, Y
    assert np.max(np.abs(gas.net_production_rates - wdot)) <= 1e-12 * scale, "TDY"
    gas.TPY = T, p, Y
    # Rates of progress by mass action from kf, kr (kf without [M] for three-body reactions:
    # Cantera 3's default, not the legacy definition).
    C = gas.concentrations
    M = gas.third_body_concentrations
    nu_r = gas.reactant_stoich_coeffs
    nu_p = gas.product_stoich_coeffs
    nu_r = nu_r.toarray() if hasattr(nu_r, "toarray") else np.asarray(nu_r)
    nu_p = nu_p.toarray() if hasattr(nu_p, "toarray") else np.asarray(nu_p)
    for i, r in enumerate(gas.reactions()):
        orders = nu_r[:, i].copy()
        for name, order in r.orders.items():
            orders[gas.species_index(name)] = order
        fwd = kf[i] * np.prod(C ** orders)
        rev = kr[i] * np.prod(C ** nu_p[:, i])
        if r.reaction_type.startswith("three-body"):
            fwd *= M[i]
            rev *= M[i]
        rf, rr = gas.forward_rates_of_progress[i], gas.reverse_rates_of_progress[i]
        assert abs(fwd - rf) <= 1e-12 * abs(rf) + 1e-300, f"forward rate of {r.equation}"
        assert abs(rev - rr) <= 1e-12 * abs(rr) + 1e-300, f"reverse rate of {r.equation}"
        if not r.reversible:
            assert kr[i] == 0.0, f"irreversible {r.equation} has a reverse rate"
    # Mass is conserved; the heat release rate is -sum h_k wdot_k.
    W = gas.molecular_weights
    assert abs(np.dot(W, wdot)) <= 1e-12 * np.max(np.abs(W * wdot)), "mass"
    h = gas.partial_molar_enthalpies
    assert abs(-np.dot(h, wdot) - hrr) <= 1e-12 * np.max(np.abs(h * wdot)), "heat release"


def derivatives(gas):
    """Cantera's derivatives of the net production rates at the current state, every term kept
    (the defaults skip none in 3.2, but say so: Cantera's reactor preconditioner skips both)."""
    gas.derivative_settings = {"skip-third-bodies": False, "skip-falloff": False}
    ddCi = gas.net_production_rates_ddCi
    ddCi = ddCi.toarray() if hasattr(ddCi, "toarray") else np.asarray(ddCi)
    d = {
        "ddT": gas.net_production_rates_ddT.copy(),
        "ddP": gas.net_production_rates_ddP.copy(),
        "ddC": gas.net_production_rates_ddC.copy(),
        "ddCi": ddCi,
    }
    # ddC is the derivative along C itself (constant X): ddCi X.
    err = np.max(np.abs(d["ddC"] - ddCi @ gas.X))
    assert err <= 1e-10 * np.max(np.abs(d["ddC"])), "ddC against ddCi X"
    return d


def numbers(values, digits=17):
    return " ".join(f"{v:.{digits}g}" for v in np.ravel(values))


def write_reference(file, folder, phase, n_random, extra, with_derivatives, out_dir, rng):
    path = os.path.join(folder, file)
    gas = ct.Solution(path, phase) if phase else ct.Solution(path)
    lines = [
        f"# Cantera {ct.__version__} reference for dualjit's kinetics tests; written by",
        "# tests/data/kinetics/make_references.py (do not edit by hand)",
        f"mechanism {file}",
        f"phase {gas.name}",
        "species " + " ".join(gas.species_names),
        f"reactions {gas.n_reactions}",
        f"states {n_random + len(extra)}",
    ]
    states = random_states(gas, n_random + len(extra), rng)
    for i, (T, p) in enumerate(extra):
        states[n_random + i] = (T, p * ct.one_atm, states[n_random + i][2])
    for s, (T, p, Y) in enumerate(states):
        gas.TPY = T, p, Y
        wdot = gas.net_production_rates.copy()
        hrr = gas.heat_release_rate
        kf = gas.forward_rate_constants.copy()
        kr = gas.reverse_rate_constants.copy()
        check_state(gas, T, p, Y, wdot, hrr, kf, kr)
        gas.TPY = T, p, Y
        lines += [
            f"state {s}",
            "T " + numbers(T),
            "p " + numbers(p),
            "Y " + numbers(gas.Y),
            "wdot " + numbers(wdot),
            "hrr " + numbers(hrr),
            "kf " + numbers(kf),
            "kr " + numbers(kr),
        ]
        if s in with_derivatives:
            lines += [f"{key} " + numbers(v, 10) for key, v in derivatives(gas).items()]
    out = os.path.join(out_dir, os.path.splitext(file)[0] + ".ref.txt")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{out}: {gas.n_species} species, {gas.n_reactions} reactions, {len(states)} states")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=HERE, help="folder for the .ref.txt files")
    args = parser.parse_args()
    if not ct.__version__.startswith("3.2"):
        sys.exit(f"Cantera 3.2 expected, found {ct.__version__}")
    ct.use_legacy_rate_constants(False)
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    for file, folder, phase, n, extra, with_derivatives in MECHANISMS:
        write_reference(file, folder, phase, n, extra, with_derivatives, args.out, rng)


if __name__ == "__main__":
    main()

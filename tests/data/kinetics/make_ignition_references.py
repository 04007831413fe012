#!/usr/bin/env python3
"""Cantera's reference results for adiabatic ignition in closed reactors (dualjit's ignition tests).

For each case in CASES (mechanism, initial T, p and mole fractions; constant pressure or
constant volume), Cantera's IdealGasConstPressureReactor or IdealGasReactor (ReactorNet rtol
1e-10, atol 1e-20) gives:
  - the initial mass fractions Y0, as Cantera sets them from the mole fractions (TPX),
  - the ignition delay tau, the time of maximum dT/dt: the network is stepped with step(), dT/dt
    is computed from the state after each step (constant pressure: heat_release_rate /
    (rho cp); constant volume: -sum_k u_k wdot_k / (rho cv)) and the maximum refined by a
    parabola through the largest sample and its two neighbours; also that maximum, dTdt_max,
  - T_2tau, the temperature at 2 tau (a fresh network, advance()),
  - t_end, an end time at which the reactor has reached equilibrium (from 10 tau, doubled until
    T is within 0.05 K and every mole fraction within 1e-5 of equilibrate('HP') or ('UV') of
    the initial state; at most 10 s), and there T_end and Y_end, with T_eq and X_eq of the
    equilibrium itself. Where a species that the mechanism produces but never consumes holds
    the difference (nDodecane_Reitz: c3h7cho), the reactor stops short of equilibrium: there
    t_end is doubled until the state stops changing (T by 0.005 K, X by 1e-6) and a comment
    line before the case says so.
The file written here is committed, so that the C++ tests run without Cantera.

Run from anywhere with Cantera 3.2 (tools/install-test-deps.sh BUILD_DIR installs it into
BUILD_DIR/python):
    python3 tests/data/kinetics/make_ignition_references.py [--out DIR]

Before writing, the results are checked (and the script fails otherwise): tau > 0 with the
maximum of dT/dt at an interior sample, Y0 and Y_end summing to 1 within 1e-12, and the end
state matching the equilibrium (or, as above, steady) within the tolerances.

File format (ignition.ref.txt): '#' lines are comments; every other line is a key followed by
its values, separated by single spaces. Per case, in this order: case <name>, mechanism <file>,
phase <name, or - for the file's first phase>, reactor <constant-pressure|constant-volume>, T0
(K), p0 (Pa), species (names), Y0, tau (s), dTdt_max (K/s), T_2tau (K), t_end (s), T_end (K),
Y_end, T_eq (K), X_eq (ns values each where a list). The initial mole fractions, as given to
Cantera, are in a comment line before each case. Values are written with 17 significant digits.
"""
import argparse
import os
import sys
import time

import cantera as ct
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
SHIPPED = os.path.join(ROOT, "data", "mechanisms")

RTOL, ATOL = 1e-10, 1e-20
T_TOL, X_TOL = 0.05, 1e-5  # end state against equilibrium: K, mole fraction
T_END_CAP = 10.0  # s

# (name, mechanism file, phase, constant pressure?, T0 in K, p0 in Pa, mole fractions)
AIR_CH4 = "CH4:1, O2:2, N2:7.52"
AIR_H2 = "H2:2, O2:1, AR:3.76"
CASES = [
    ("gri30_1200K_1atm", "gri30.yaml", "gri30", True, 1200.0, ct.one_atm, AIR_CH4),
    ("gri30_1400K_10atm", "gri30.yaml", "gri30", True, 1400.0, 10 * ct.one_atm, AIR_CH4),
    ("h2o2_1000K_1atm", "h2o2.yaml", "ohmech", True, 1000.0, ct.one_atm, AIR_H2),
    ("ndodecane_1000K_20atm", "nDodecane_Reitz.yaml", "nDodecane_IG", True, 1000.0,
     20 * ct.one_atm, "c12h26:1, o2:18.5, n2:69.56"),
    ("h2o2_1000K_1atm_cv", "h2o2.yaml", "ohmech", False, 1000.0, ct.one_atm, AIR_H2),
]


def network(gas, const_p):
    """A fresh reactor (own copy of gas, in gas's current state) and its network."""
    kind = ct.IdealGasConstPressureReactor if const_p else ct.IdealGasReactor
    reactor = kind(gas, clone=True)
    net = ct.ReactorNet([reactor])
    net.rtol, net.atol = RTOL, ATOL
    return reactor, net


def dTdt(phase, const_p):
    """dT/dt of the adiabatic closed reactor at the phase's state."""
    if const_p:
        return phase.heat_release_rate / (phase.density * phase.cp_mass)
    u = phase.partial_molar_int_energies
    return -np.dot(u, phase.net_production_rates) / (phase.density * phase.cv_mass)


def ignition(gas, const_p, T_eq):
    """(tau, dTdt_max, steps): the refined maximum of dT/dt along net.step()."""
    reactor, net = network(gas, const_p)
    T0 = reactor.T
    t, f = [0.0], [dTdt(reactor.phase, const_p)]
    while True:
        net.step()
        t.append(net.time)
        f.append(dTdt(reactor.phase, const_p))
        # Stop well after the main ignition: T close to equilibrium, dT/dt fallen far below its
        # maximum (a first-stage peak alone does not stop it).
        near_eq = T_eq - reactor.T < 0.01 * (T_eq - T0)
        if near_eq and f[-1] < 1e-3 * max(f):
            break
        if net.time > T_END_CAP:
            sys.exit(f"no ignition before {T_END_CAP} s (T = {reactor.T} K)")
    t, f = np.array(t), np.array(f)
    i = int(np.argmax(f))
    if not 0 < i < len(t) - 1:
        sys.exit(f"maximum of dT/dt at sample {i} of {len(t)}: not interior")
    # Parabola through (t[i-1..i+1], f[i-1..i+1]) in s = t - t[i]: f[i] + B s + A s^2.
    h0, h2 = t[i - 1] - t[i], t[i + 1] - t[i]
    d0, d2 = (f[i - 1] - f[i]) / h0, (f[i + 1] - f[i]) / h2
    A = (d2 - d0) / (h2 - h0)
    B = d2 - A * h2
    if not A < 0:
        sys.exit("parabola through the maximum of dT/dt is not concave")
    s = -B / (2 * A)
    assert h0 <= s <= h2, "parabola's vertex outside its three samples"
    tau, fmax = t[i] + s, f[i] - B * B / (4 * A)
    if not tau > 0:
        sys.exit(f"ignition delay {tau} not positive")
    return tau, fmax, len(t)


def sinks(gas):
    """Species that some reaction produces and none consumes (reactant of none, product of no
    reversible one): they accumulate, and the reactor need not reach equilibrium."""
    produced, consumed = set(), set()
    for r in gas.reactions():
        produced.update(r.products)
        consumed.update(r.reactants)
        if r.reversible:
            consumed.update(r.products)
    return [k for k in gas.species_names if k in produced and k not in consumed]


def advance(gas, const_p, t):
    """The reactor's phase after a fresh network is advanced to t."""
    reactor, net = network(gas, const_p)
    net.advance(t)
    return reactor.phase


def run_case(name, file, phase, const_p, T0, p0, X0):
    path = os.path.join(SHIPPED, file)
    gas = ct.Solution(path, phase) if phase else ct.Solution(path)
    gas.TPX = T0, p0, X0
    Y0 = gas.Y.copy()
    if abs(Y0.sum() - 1) > 1e-12:
        sys.exit(f"{name}: sum Y0 - 1 = {Y0.sum() - 1}")
    eq = ct.Solution(path, phase) if phase else ct.Solution(path)
    eq.TPX = T0, p0, X0
    eq.equilibrate("HP" if const_p else "UV")
    T_eq, X_eq = eq.T, eq.X.copy()

    start = time.perf_counter()
    tau, fmax, steps = ignition(gas, const_p, T_eq)
    t_ign = time.perf_counter() - start
    T_2tau = advance(gas, const_p, 2 * tau).T
    # From 10 tau, doubled until at equilibrium, or, where species that the mechanism only
    # produces hold the surplus, until the state stops changing (within a tenth of the tolerances).
    trapped = sinks(gas)
    t_end, previous, note = 10 * tau, None, ""
    while True:
        end = advance(gas, const_p, t_end)
        dT, dX = abs(end.T - T_eq), np.max(np.abs(end.X - X_eq))
        if dT <= T_TOL and dX <= X_TOL:
            break
        held = [k for k in trapped if end[k].X[0] > X_TOL]
        if held and previous is not None and abs(end.T - previous[0]) <= T_TOL / 10 \
                and np.max(np.abs(end.X - previous[1])) <= X_TOL / 10:
            note = (f"# {name}: steady, not at equilibrium: {', '.join(held)} only produced by "
                    f"the mechanism, never consumed; T_end - T_eq = {end.T - T_eq:.4g} K")
            break
        if t_end >= T_END_CAP:
            sys.exit(f"{name}: not at equilibrium at the cap {T_END_CAP} s: "
                     f"|T - T_eq| = {dT} K, max |X - X_eq| = {dX}")
        previous = (end.T, end.X.copy())
        t_end = min(2 * t_end, T_END_CAP)
    T_end, Y_end = end.T, end.Y.copy()
    if abs(Y_end.sum() - 1) > 1e-12:
        sys.exit(f"{name}: sum Y_end - 1 = {Y_end.sum() - 1}")
    seconds = time.perf_counter() - start
    print(f"{name}: {steps} steps to ignition ({t_ign:.2f} s), {seconds:.2f} s in all; at t_end "
          f"|T - T_eq| = {dT:.2e} K, max |X - X_eq| = {dX:.2e}")

    if note:
        print(note[2:])
    lines = [note] if note else []
    lines += [
        f"# {name}: initial mole fractions {X0}",
        f"case {name}",
        f"mechanism {file}",
        f"phase {phase or '-'}",
        "reactor " + ("constant-pressure" if const_p else "constant-volume"),
        "T0 " + numbers(T0),
        "p0 " + numbers(p0),
        "species " + " ".join(gas.species_names),
        "Y0 " + numbers(Y0),
        "tau " + numbers(tau),
        "dTdt_max " + numbers(fmax),
        "T_2tau " + numbers(T_2tau),
        "t_end " + numbers(t_end),
        "T_end " + numbers(T_end),
        "Y_end " + numbers(Y_end),
        "T_eq " + numbers(T_eq),
        "X_eq " + numbers(X_eq),
    ]
    return lines, (name, tau, T_2tau, t_end, T_end, T_eq, seconds)


def numbers(values, digits=17):
    return " ".join(f"{v:.{digits}g}" for v in np.ravel(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=HERE, help="folder for ignition.ref.txt")
    args = parser.parse_args()
    if not ct.__version__.startswith("3.2"):
        sys.exit(f"Cantera 3.2 expected, found {ct.__version__}")
    ct.use_legacy_rate_constants(False)
    lines = [
        f"# Cantera {ct.__version__} reference for dualjit's ignition tests; written by",
        "# tests/data/kinetics/make_ignition_references.py (do not edit by hand)",
        f"# Reactor networks with rtol {RTOL:g}, atol {ATOL:g}. Per case: case, mechanism, phase,",
        "# reactor, T0 (K), p0 (Pa), species, Y0, tau (s, time of max dT/dt), dTdt_max (K/s),",
        "# T_2tau (K, at 2 tau), t_end (s), T_end (K), Y_end (at t_end), T_eq (K), X_eq",
        "# (equilibrium at constant h and p, or u and v, from the initial state).",
    ]
    rows = []
    for case in CASES:
        case_lines, row = run_case(*case)
        lines += case_lines
        rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, "ignition.ref.txt")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"\n{'case':24s} {'tau (s)':>12s} {'T_2tau (K)':>11s} {'t_end (s)':>10s} "
          f"{'T_end (K)':>10s} {'T_eq (K)':>10s} {'Cantera (s)':>11s}")
    for name, tau, T_2tau, t_end, T_end, T_eq, seconds in rows:
        print(f"{name:24s} {tau:12.6e} {T_2tau:11.4f} {t_end:10.3e} {T_end:10.4f} {T_eq:10.4f} "
              f"{seconds:11.2f}")
    print(f"{out}: {len(rows)} cases")


if __name__ == "__main__":
    main()

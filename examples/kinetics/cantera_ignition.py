#!/usr/bin/env python3
"""Ignition delays by Cantera, for `dualjit demo --problem ignition` (examples/kinetics/
ignition_demo.cpp runs it to put Cantera's values beside its own).

Per initial temperature T0: an IdealGasConstPressureReactor at the given pressure and initial
mass fractions, in a ReactorNet with rtol 1e-9 and atol 1e-15 (Cantera's defaults), stepped with
net.step(); after each step dT/dt = heat_release_rate / (density cp_mass). The ignition delay
tau is the time of the largest dT/dt, refined by the parabola through the largest sample and its
two neighbours (as dualjit's integrator refines its own). Stepping stops at t_end, or once the
temperature has risen by 400 K and dT/dt has fallen below 1e-3 of its maximum (well after the
main ignition; a first-stage peak alone does not stop it).

    cantera_ignition.py --mechanism PATH --phase NAME --pressure PA --Y "H2:0.02,O2:0.17,..."
                        --t-end S T0 [T0 ...]

Output:
    cantera VERSION
    tau T0 TAU_S      (one per T0 in the order given; TAU_S is nan where T rose by less than
                       400 K by t_end)
Exit status 3 (and a line on stderr) when cantera cannot be imported; 2 for bad arguments.
"""
import argparse
import math
import sys

RTOL, ATOL = 1e-9, 1e-15
IGNITION_RISE = 400.0  # K


def parse_mass_fractions(text):
    Y = {}
    for entry in text.split(","):
        entry = entry.strip()
        if not entry:
            continue
        name, _, value = entry.rpartition(":")
        Y[name.strip()] = float(value)
    return Y


def ignition(ct, gas, T0, pressure, Y, t_end):
    gas.TPY = T0, pressure, Y
    try:  # Cantera 3.2 warns without clone=False; older versions lack the argument
        reactor = ct.IdealGasConstPressureReactor(gas, clone=False)
    except TypeError:
        reactor = ct.IdealGasConstPressureReactor(gas)
    net = ct.ReactorNet([reactor])
    net.rtol, net.atol = RTOL, ATOL

    def dTdt():
        p = reactor.phase
        return p.heat_release_rate / (p.density * p.cp_mass)

    t, f = [0.0], [dTdt()]
    i_max = 0
    while net.time < t_end:
        net.step()
        t.append(net.time)
        f.append(dTdt())
        if f[-1] > f[i_max]:
            i_max = len(f) - 1
        if reactor.T - T0 > IGNITION_RISE and f[-1] < 1e-3 * f[i_max]:
            break
    if reactor.T - T0 < IGNITION_RISE:
        return math.nan
    i = i_max
    tau = t[i]
    if 0 < i < len(t) - 1:
        h0, h2 = t[i - 1] - t[i], t[i + 1] - t[i]
        d0, d2 = (f[i - 1] - f[i]) / h0, (f[i + 1] - f[i]) / h2
        A = (d2 - d0) / (h2 - h0)
        B = d2 - A * h2
        if A < 0:
            s = -B / (2 * A)
            if h0 <= s <= h2:
                tau = t[i] + s
    return float(tau)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mechanism", required=True)
    ap.add_argument("--phase", default="")
    ap.add_argument("--pressure", type=float, required=True)
    ap.add_argument("--Y", required=True, help="initial mass fractions, NAME:VALUE,...")
    ap.add_argument("--t-end", type=float, required=True)
    ap.add_argument("T0", type=float, nargs="+")
    args = ap.parse_args()
    try:
        import cantera as ct
    except ImportError as e:
        print(f"cannot import cantera: {e}", file=sys.stderr)
        return 3
    gas = ct.Solution(args.mechanism, args.phase) if args.phase else ct.Solution(args.mechanism)
    Y = parse_mass_fractions(args.Y)
    print(f"cantera {ct.__version__}", flush=True)
    for T0 in args.T0:
        print(f"tau {T0!r} {ignition(ct, gas, T0, args.pressure, Y, args.t_end)!r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

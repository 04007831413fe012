#!/usr/bin/env python3
"""JAX peer of bench/kinetics_rates.cpp: a mechanism's net production rates wdot (kmol/m^3/s)
and heat release rate q (W/m^3) per cell at constant pressure, state (T, Y_1..Y_ns), and the
dense per-cell Jacobian d(wdot, q)/d(T, Y), written as a JAX user writes them: one cell's rates
in jax.numpy, float64, with the mass-action products as matrix products in log space
(exp(nu_f . ln C), as Barwey & Raman 2021), jit(vmap(rates)) over all cells and
jit(vmap(jacfwd(rates))) over chunks of cells (unchunked it runs out of memory at 1e5 GRI-3.0
cells on a 141 GB GPU: issue 16). The definitions are those of examples/kinetics (Cantera 3.2's):
Arrhenius, three-body with efficiencies, falloff (Lindemann, Troe, SRI), chemically activated,
PLOG; Chebyshev is refused. ln C needs C > 0: the states the C++ program writes have every
Y_k > 0.

Inputs, written by kinetics_rates --write DIR (no Cantera needed): DIR/kinetics_<mech>.json
(species W and NASA7, per reaction its type, stoichiometry, forward orders, Arrhenius
parameters in SI with kmol, efficiencies, falloff and PLOG parameters) and the arrays files
DIR/kinetics_<mech>_<CELLS>.bin ("states" CELLS x (ns + 1), "pressure").

Timing: wall clock around the call + block_until_ready, after warm-up (the first call compiles;
the Jacobian's last, shorter chunk compiles once more), medians (energy_common.median_ms); the
Jacobian's time covers all chunks, their outputs kept as a user keeps them. Prints the
checksums kinetics_rates prints (sum wdot, sum |wdot|, sum q, sum |J|) in one RESULT line.

Usage: python3 kinetics_jax.py MECH.json STATES.bin [...] [--reps 15] [--chunk 16384]
                                [--w-chunk 0] [--no-jacobian]
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import energy_common as ec  # noqa: E402

SMALL = 1e-300  # Cantera's SmallNumber, as falloff_rate.cpp and plog_rate.cpp use it
LN10 = 2.302585092994045684


def arrhenius_arrays(rates, R):
    """(ln|A|, b, Ea/R, sign of A) of a list of [A, b, Ea]; A = 0 gives sign 0 (k = 0)."""
    a = np.array(rates, dtype=np.float64).reshape(-1, 3)
    sign = np.sign(a[:, 0])
    ln_a = np.log(np.where(a[:, 0] == 0, 1.0, np.abs(a[:, 0])))
    return ln_a, a[:, 1], a[:, 2] / R, sign


class Mechanism:
    """The JSON description as numpy arrays, grouped by reaction type."""

    def __init__(self, path):
        with open(path) as f:
            d = json.load(f)
        self.name = os.path.basename(path)
        self.R = d["gas_constant"]
        self.p_ref = d["one_atm"]
        sp, rx = d["species"], d["reactions"]
        ns, nr = len(sp), len(rx)
        self.ns, self.nr = ns, nr
        for r in rx:
            if r["type"] == "Chebyshev":
                raise SystemExit(f"{path}: reaction {r['index'] + 1} '{r['equation']}': "
                                 "Chebyshev rate constants are not in this peer")
        self.W = np.array([s["W"] for s in sp])
        self.t_mid = np.array([s["t_mid"] for s in sp])
        # thermo.cpp's bases over (1, T, T^2, T^3, T^4, 1/T, ln T), per range.
        def g_basis(a):
            return [a[0] - a[6], -a[1] / 2, -a[2] / 6, -a[3] / 12, -a[4] / 20, a[5], -a[0]]

        def h_basis(a):
            return [a[0], a[1] / 2, a[2] / 3, a[3] / 4, a[4] / 5, a[5], 0.0]

        self.g_lo = np.array([g_basis(s["low"]) for s in sp]).T  # 7 x ns
        self.g_hi = np.array([g_basis(s["high"]) for s in sp]).T
        self.h_lo = np.array([h_basis(s["low"]) for s in sp]).T
        self.h_hi = np.array([h_basis(s["high"]) for s in sp]).T

        # Stoichiometry: forward orders, reverse (product) coefficients, net coefficients.
        self.orders = np.zeros((ns, nr))
        self.nu_r = np.zeros((ns, nr))
        self.nu = np.zeros((ns, nr))
        for i, r in enumerate(rx):
            for k, o in r["orders"]:
                self.orders[k, i] = o
            for k, v in r["products"]:
                self.nu_r[k, i] += v
                self.nu[k, i] += v
            for k, v in r["reactants"]:
                self.nu[k, i] -= v
        self.dnu = self.nu.sum(axis=0)
        self.reversible = np.array([r["reversible"] for r in rx], dtype=np.float64)
        self.three_body = np.array([r["type"] == "three-body" for r in rx], dtype=np.float64)

        # Third bodies ([M] = d C_tot + sum_k (eff_k - d) C_k) of three-body and falloff ones.
        self.M_default = np.zeros(nr)
        self.M_eff = np.zeros((ns, nr))
        for i, r in enumerate(rx):
            if "default_efficiency" in r:
                d0 = r["default_efficiency"]
                self.M_default[i] = d0
                for k, e in r["efficiencies"]:
                    self.M_eff[k, i] = e - d0

        by_type = {}
        for i, r in enumerate(rx):
            t = r["type"]
            if t in ("falloff", "chemically-activated"):
                t = "falloff"
            elif t in ("elementary", "three-body"):
                t = "arrhenius"
            by_type.setdefault(t, []).append(i)
        self.arr_idx = np.array(by_type.get("arrhenius", []), dtype=np.int64)
        self.arr = arrhenius_arrays([rx[i]["rate"] for i in self.arr_idx], self.R)

        fo = [rx[i] for i in by_type.get("falloff", [])]
        self.fo_idx = np.array(by_type.get("falloff", []), dtype=np.int64)
        self.fo_low = arrhenius_arrays([r["low"] for r in fo], self.R)
        self.fo_high = arrhenius_arrays([r["high"] for r in fo], self.R)
        self.fo_activated = np.array([r["type"] == "chemically-activated" for r in fo])
        form = np.array([r["falloff"]["form"] for r in fo])
        self.fo_troe, self.fo_sri = form == "troe", form == "sri"
        troe = np.array([r["falloff"]["troe"] for r in fo]).reshape(-1, 4)
        self.troe_A = troe[:, 0]
        # A T3 or T1 of zero drops its term (Cantera); guarded reciprocals so none is inf.
        self.troe_m3 = np.abs(troe[:, 1]) >= SMALL
        self.troe_m1 = np.abs(troe[:, 2]) >= SMALL
        self.troe_m2 = np.array([r["falloff"]["troe_has_t2"] for r in fo], dtype=bool) & (
            troe[:, 3] != 0)
        self.troe_n3 = np.where(self.troe_m3, -1.0 / np.where(self.troe_m3, troe[:, 1], 1), 0)
        self.troe_n1 = np.where(self.troe_m1, -1.0 / np.where(self.troe_m1, troe[:, 2], 1), 0)
        self.troe_T2 = troe[:, 3]
        sri = np.array([r["falloff"]["sri"] for r in fo]).reshape(-1, 5)
        self.sri = sri
        self.sri_mc = sri[:, 2] != 0
        self.sri_nc = np.where(self.sri_mc, -1.0 / np.where(self.sri_mc, sri[:, 2], 1), 0)

        # PLOG: per reaction, groups of lines at one pressure, padded (lines with A = 0, groups
        # at ln p = +inf, which no state reaches).
        pl = [rx[i] for i in by_type.get("pressure-dependent-Arrhenius", [])]
        self.pl_idx = np.array(by_type.get("pressure-dependent-Arrhenius", []), dtype=np.int64)
        groups = []
        for r in pl:
            g = []
            for p, a, b, ea in r["plog"]:
                lp = math.log(p)
                if not g or g[-1][0] != lp:
                    g.append((lp, []))
                g[-1][1].append((a, b, ea))
            groups.append(g)
        G = max((len(g) for g in groups), default=1)
        L = max((len(x[1]) for g in groups for x in g), default=1)
        n = len(pl)
        self.pl_ngroups = np.array([len(g) for g in groups], dtype=np.int64)
        self.pl_lp = np.full((n, G), np.inf)
        self.pl_single = np.zeros((n, G), dtype=bool)
        lines = np.zeros((n, G, L, 3))
        for i, g in enumerate(groups):
            for j, (lp, ls) in enumerate(g):
                self.pl_lp[i, j] = lp
                self.pl_single[i, j] = len(ls) == 1
                lines[i, j, : len(ls)] = ls
        self.pl_lines = arrhenius_arrays(lines.reshape(-1, 3), self.R)
        self.pl_shape = (n, G, L)
        # 1 / (ln p_{j+1} - ln p_j), as plog_rate.cpp's inv_width (0 past the last group).
        with np.errstate(invalid="ignore"):  # inf - inf past the last group
            width = np.diff(self.pl_lp, axis=1) if G > 1 else np.zeros((n, 0))
            self.pl_inv_width = np.where(np.isfinite(width), 1.0 / np.where(
                np.isfinite(width), width, 1.0), 0.0)
        self.perm = np.argsort(np.concatenate([self.arr_idx, self.fo_idx, self.pl_idx]))
        self.n_types = {t: len(v) for t, v in by_type.items()}


def arrhenius_k(params, log_T, inv_T):
    ln_a, b, ea_r, sign = params
    return sign * jnp.exp(ln_a + b * log_T - ea_r * inv_T)


def make_rates(m):
    """rates(x, p): one cell's (wdot_1..wdot_ns, q) at state x = (T, Y), pressure p (Pa)."""
    c = {k: jnp.asarray(v) for k, v in vars(m).items() if isinstance(v, np.ndarray)}
    R, log_R_pref = m.R, math.log(m.R / m.p_ref)
    inv_W = 1.0 / m.W

    def rates(x, p):
        T, Y = x[0], x[1:]
        log_T, inv_T = jnp.log(T), 1.0 / T
        T2 = T * T
        basis = jnp.stack([jnp.ones_like(T), T, T2, T2 * T, T2 * T2, inv_T, log_T])
        low = T <= c["t_mid"]
        g = jnp.where(low, basis @ c["g_lo"], basis @ c["g_hi"])  # g/RT per species
        h = jnp.where(low, basis @ c["h_lo"], basis @ c["h_hi"])  # h/RT
        # Constant pressure: C_k = (p / RT) (Y_k / W_k) / sum_j Y_j / W_j.
        C_tot = p / (R * T)
        moles = Y * inv_W
        C = (C_tot / jnp.sum(moles)) * moles
        log_p = jnp.log(p)
        M = c["M_default"] * C_tot + C @ c["M_eff"]

        parts = [arrhenius_k(m.arr, log_T, inv_T)]
        if len(m.fo_idx):
            k0 = arrhenius_k(m.fo_low, log_T, inv_T)
            kinf = arrhenius_k(m.fo_high, log_T, inv_T)
            Pr = M[c["fo_idx"]] * k0 / (kinf + SMALL)
            lpr = jnp.log10(jnp.maximum(Pr, SMALL))
            Fcent = (jnp.where(c["troe_m3"], (1 - c["troe_A"]) * jnp.exp(T * c["troe_n3"]), 0)
                     + jnp.where(c["troe_m1"], c["troe_A"] * jnp.exp(T * c["troe_n1"]), 0)
                     + jnp.where(c["troe_m2"], jnp.exp(-c["troe_T2"] * inv_T), 0))
            log_Fcent = jnp.log10(jnp.maximum(Fcent, SMALL))
            cc = -0.4 - 0.67 * log_Fcent
            nn = 0.75 - 1.27 * log_Fcent
            f1 = (lpr + cc) / (nn - 0.14 * (lpr + cc))
            F_troe = jnp.exp(LN10 * (log_Fcent / (1.0 + f1 * f1)))
            s = c["sri"]
            base = s[:, 0] * jnp.exp(-s[:, 1] * inv_T) + jnp.where(
                c["sri_mc"], jnp.exp(T * c["sri_nc"]), 0)
            scale = jnp.where(s[:, 4] == 0, s[:, 3], s[:, 3] * jnp.exp(s[:, 4] * log_T))
            # Rows of other forms get base 1: no 0 ** x, whose tangent is not finite.
            F_sri = jnp.where(c["fo_sri"], base, 1.0) ** (1.0 / (1.0 + lpr * lpr)) * scale
            F = jnp.where(c["fo_troe"], F_troe, jnp.where(c["fo_sri"], F_sri, 1.0))
            parts.append(jnp.where(c["fo_activated"], F / (1.0 + Pr) * k0,
                                   Pr * (F / (1.0 + Pr)) * kinf))
        if len(m.pl_idx):
            n, G, L = m.pl_shape
            ln_a, b, ea_r, sign = m.pl_lines
            ln_line = (ln_a + b * log_T - ea_r * inv_T).reshape(n, G, L)
            k_sum = jnp.sum(sign.reshape(n, G, L) * jnp.exp(ln_line), axis=-1)
            ln_k = jnp.where(c["pl_single"], ln_line[:, :, 0],
                             jnp.log(SMALL + k_sum))
            # Interval: j with ln p_j <= ln p < ln p_{j+1}; held at the ends.
            count = jnp.sum(log_p >= c["pl_lp"], axis=1)
            last = c["pl_ngroups"] - 1
            j = jnp.clip(count - 1, 0, jnp.maximum(last - 1, 0))
            take = lambda a, i: jnp.take_along_axis(a, i[:, None], axis=1)[:, 0]  # noqa: E731
            lo, hi = take(ln_k, j), take(ln_k, jnp.minimum(j + 1, last))
            inv_w = take(c["pl_inv_width"], j) if G > 1 else jnp.zeros(n)
            interp = lo + (hi - lo) * ((log_p - take(c["pl_lp"], j)) * inv_w)
            ln_kp = jnp.where(count == 0, ln_k[:, 0], jnp.where(count > last, take(ln_k, last),
                                                                 interp))
            parts.append(jnp.exp(ln_kp))
        kf = jnp.concatenate(parts)[c["perm"]]

        # kr = kf / Kc, ln(1/Kc) = sum_k nu_k g_k/RT + (sum_k nu_k) ln(R T / p_ref).
        log_inv_Kc = g @ c["nu"] + c["dnu"] * (log_T + log_R_pref)
        kr = jnp.where(c["reversible"] > 0, kf * jnp.exp(log_inv_Kc), 0.0)
        ln_C = jnp.log(C)
        rop = kf * jnp.exp(ln_C @ c["orders"]) - kr * jnp.exp(ln_C @ c["nu_r"])
        rop = jnp.where(c["three_body"] > 0, M * rop, rop)
        wdot = c["nu"] @ rop
        q = -(R * T) * jnp.dot(h, wdot)
        return jnp.concatenate([wdot, q[None]])

    return rates


def chunks(n, size):
    size = n if size <= 0 else size
    return [(i, min(n, i + size)) for i in range(0, n, size)]


def run(m, path, reps, chunk, w_chunk, jacobian):
    name = os.path.splitext(m.name)[0].removeprefix("kinetics_")
    time_cells(make_rates(m), path, reps, chunk, w_chunk, jacobian, "kinetics_jax",
               dict(mechanism=name, species=m.ns, reactions=m.nr))


def time_cells(rates, path, reps, chunk, w_chunk, jacobian, tag, meta):
    """Times jit(vmap(rates)) and, in chunks, jit(vmap(jacfwd(rates))) over the states in `path`
    (rates(x, p): wdot then q of one cell) and prints RESULT `tag` with `meta` (mechanism,
    species, reactions): the one timing loop of the JAX-based peers."""
    d = ec.read_arrays(path)
    x, p = d["states"], d["pressure"]
    ns = meta["species"]
    if x.shape[1] != ns + 1:
        raise SystemExit(f"{path}: states have {x.shape[1]} columns, the mechanism {ns + 1}")
    n = x.shape[0]
    w_fn = jax.jit(jax.vmap(rates, in_axes=(0, None)))
    j_fn = jax.jit(jax.vmap(jax.jacfwd(rates), in_axes=(0, None)))
    abs_sum = jax.jit(lambda a: jnp.sum(jnp.abs(a)))
    xd = jax.device_put(x)
    w_parts = [xd[a:b] for a, b in chunks(n, w_chunk)]
    j_parts = [xd[a:b] for a, b in chunks(n, chunk)]
    sync = jax.block_until_ready
    t0 = time.perf_counter()
    sync(w_fn(w_parts[0], p))
    w_first = time.perf_counter() - t0
    w_ms = ec.median_ms(lambda: [w_fn(s, p) for s in w_parts], sync, reps)
    w = np.concatenate([np.asarray(w_fn(s, p)) for s in w_parts])
    wd, q = w[:, :-1], w[:, -1]
    out = dict(mechanism=meta["mechanism"], cells=n, species=ns, reactions=meta["reactions"],
               w_ms=w_ms, J_ms=float("nan"),
               chunk=min(chunk, n) if chunk > 0 else n, w_first_s=w_first, J_first_s=float("nan"))
    j_abs = float("nan")
    if jacobian:
        try:
            t0 = time.perf_counter()
            sync(j_fn(j_parts[0], p))
            out["J_first_s"] = time.perf_counter() - t0
            out["J_ms"] = ec.median_ms(lambda: [j_fn(s, p) for s in j_parts], sync, reps)
            j_abs = math.fsum(float(abs_sum(j_fn(s, p))) for s in j_parts)
        except Exception as e:  # out of memory: say so and go on with the checksums of wdot
            print(f"{path}: Jacobian failed: {str(e).splitlines()[0]}", flush=True)
    # Sums in float64 by numpy (pairwise) per cell, then fsum: order-independent to ~1e-15.
    sums = dict(wdot_sum=math.fsum(wd.sum(axis=1)), wdot_abs_sum=math.fsum(np.abs(wd).sum(axis=1)),
                q_sum=math.fsum(q), J_abs_sum=j_abs)
    print(result_line(tag, out, sums), flush=True)


def result_line(name, values, checksums):
    """RESULT NAME k=v ...: times with 4 decimals, checksums with all 17 digits."""
    parts = [f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()]
    parts += [f"{k}={v:.17g}" for k, v in checksums.items()]
    return f"RESULT {name} " + " ".join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mechanism")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--chunk", type=int, default=16384, help="cells per Jacobian call (0: all)")
    ap.add_argument("--w-chunk", type=int, default=0, help="cells per rates call (0: all)")
    ap.add_argument("--no-jacobian", action="store_true")
    args = ap.parse_args()
    print("device", jax.devices()[0].device_kind, flush=True)
    m = Mechanism(args.mechanism)
    print(f"{m.name}: {m.ns} species, {m.nr} reactions; {m.n_types}", flush=True)
    for path in args.files:
        run(m, path, args.reps, args.chunk, args.w_chunk, not args.no_jacobian)


if __name__ == "__main__":
    main()

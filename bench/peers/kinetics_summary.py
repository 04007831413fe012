#!/usr/bin/env python3
"""Tables of bench/kinetics_peers.sh from the RESULT lines in its logs: per cell count, the
rates and Jacobian times of dualjit (bench/kinetics_rates.cpp) and JAX (kinetics_jax.py), JAX /
dualjit, dualjit / floor, issue 16's targets, and the checksums' relative differences; where
their logs are given, the same for Cantera on all CPU cores (kinetics_cantera_cpu.py) and
canterax (kinetics_canterax.py), with cells per second; then the kernels' compile times, cold
(first run, empty cache) and warm (second run, disk cache).

Usage: python3 kinetics_summary.py COLD.log [WARM.log] [PEER.log ...]   (peers by RESULT tag)
"""
import sys


def results(paths):
    out = []
    for i, path in enumerate(paths):
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            if not line.startswith("RESULT "):
                continue
            f = line.split()
            kv = dict(x.split("=", 1) for x in f[2:] if "=" in x)
            kv["_tag"], kv["_file"] = f[1], i
            out.append(kv)
    return out


def num(d, k):
    try:
        return float(d[k])
    except (KeyError, TypeError, ValueError):
        return float("nan")


def ratio(a, b):
    return a / b if b and b == b and a == a else float("nan")


def rel(a, b, scale=None):
    s = abs(a) if scale is None else abs(scale)
    return abs(a - b) / s if s else abs(a - b)


def per_s(cells, ms):
    return float(cells) / ms * 1e3 if ms == ms and ms > 0 else float("nan")


def peers_table(dj, rs):
    """dualjit against Cantera (all cores) and canterax: times, cells per second, peer time /
    dualjit time (how many times dualjit is faster), checksum differences."""
    peers = [("kinetics_cantera", "Cantera"), ("kinetics_canterax", "canterax")]
    by = {tag: {r["cells"]: r for r in rs if r["_tag"] == tag} for tag, _ in peers}
    if not any(by.values()):
        return
    print("\n| cells | code | rates ms | rates cells/s | / dualjit | J ms | J cells/s | / dualjit "
          "| d wdot | d abs wdot | d q | d abs J |")
    print("|" + "---|" * 12)
    for cells in sorted(dj, key=int):
        d = dj[cells]
        w, J = num(d, "w_ms"), num(d, "J_ms")
        print(f"| {cells} | dualjit ({d.get('backend', '?')}) | {w:.3f} | "
              f"{per_s(cells, w):.3g} | 1 | {J:.3f} | {per_s(cells, J):.3g} | 1 | | | | |")
        for tag, label in peers:
            p = by[tag].get(cells)
            if p is None:
                continue
            if "procs" in p:
                label += f" ({p['procs']} cores, {p.get('jacobian', '?')})"
            pw, pj = num(p, "w_ms"), num(p, "J_ms")
            diffs = checksum_diffs(d, p)
            print(f"| {cells} | {label} | {pw:.3f} | {per_s(cells, pw):.3g} | {ratio(pw, w):.1f} | "
                  f"{pj:.3f} | {per_s(cells, pj):.3g} | {ratio(pj, J):.1f} | "
                  + " | ".join(f"{x:.1e}" for x in diffs) + " |")
    print("(/ dualjit: the peer's time over dualjit's, i.e. dualjit's cells/s over the peer's; "
          "d: as above, against dualjit)")


def checksum_diffs(d, p):
    """dualjit's checksums (d) against a peer's (p): sum wdot relative to sum |wdot|, the others
    relative to themselves."""
    return [rel(num(d, "wdot_sum"), num(p, "wdot_sum"), num(d, "wdot_abs_sum")),
            rel(num(d, "wdot_abs_sum"), num(p, "wdot_abs_sum")),
            rel(num(d, "q_sum"), num(p, "q_sum")),
            rel(num(d, "J_abs_sum"), num(p, "J_abs_sum"))]


def main():
    rs = results(sys.argv[1:])
    dj = {r["cells"]: r for r in rs if r["_tag"] == "kinetics_dualjit" and r["_file"] == 0}
    jx = {r["cells"]: r for r in rs if r["_tag"] == "kinetics_jax"}
    print("| cells | rates ms | floor bytes | floor arith | / floor | JAX ms | JAX / dualjit "
          "| J ms | J comp-major ms | floor J | / floor | JAX J ms | JAX / dualjit "
          "| d wdot | d abs wdot | d q | d abs J |")
    print("|" + "---|" * 17)
    for cells in sorted(dj, key=int):
        d, j = dj[cells], jx.get(cells, {})
        w, fb, fa = num(d, "w_ms"), num(d, "floor_w_ms"), num(d, "floor_w_arith_ms")
        J, fj = num(d, "J_ms"), num(d, "floor_J_ms")
        jw, jj = num(j, "w_ms"), num(j, "J_ms")
        diffs = checksum_diffs(d, j)
        print(f"| {cells} | {w:.3f} | {fb:.3f} | {fa:.3f} | {ratio(w, max(fb, fa)):.1f} | "
              f"{jw:.3f} | {ratio(jw, w):.1f} | {J:.3f} | {num(d, 'Jc_ms'):.3f} | {fj:.3f} | "
              f"{ratio(J, fj):.1f} | {jj:.3f} | {ratio(jj, J):.1f} | "
              + " | ".join(f"{x:.1e}" for x in diffs) + " |")
    print("(d wdot: |difference of sum wdot| / sum |wdot|; the others relative; "
          "/ floor: over the higher of the two floors)")
    # The Jacobian's targets for its layouts: cell-major J, component-major Jc and cell-major
    # Jcol with column-major blocks (cuBLAS's batched LU's), JAX's being cell-major.
    for cells, what, r, target in (("100000", "J / byte floor", lambda d, j: ratio(
            num(d, "J_ms"), num(d, "floor_J_ms")), "<= 3"), ("100000", "JAX J / dualjit J",
            lambda d, j: ratio(num(j, "J_ms"), num(d, "J_ms")), ">= 30"),
            ("100000", "Jc / byte floor", lambda d, j: ratio(num(d, "Jc_ms"),
                                                             num(d, "floor_J_ms")), "<= 3"),
            ("100000", "JAX J / dualjit Jc",
             lambda d, j: ratio(num(j, "J_ms"), num(d, "Jc_ms")), ">= 30"),
            ("100000", "Jcol / byte floor", lambda d, j: ratio(num(d, "Jcol_ms"),
                                                               num(d, "floor_J_ms")), "<= 3"),
            ("100000", "JAX J / dualjit Jcol",
             lambda d, j: ratio(num(j, "J_ms"), num(d, "Jcol_ms")), ">= 30"),
            ("1000000", "JAX rates / dualjit rates",
             lambda d, j: ratio(num(j, "w_ms"), num(d, "w_ms")), ">= 8")):
        if cells in dj:
            print(f"target at {cells} cells: {what} = {r(dj[cells], jx.get(cells, {})):.2f} "
                  f"(target {target})")
    peers_table(dj, rs)
    comp = [r for r in rs if r["_tag"] == "kinetics_compile"]
    if comp:
        print("\n| output | kernel | flops | registers | spill bytes | cold first call s "
              "| warm first call s |")
        print("|" + "---|" * 7)
        warm = {(r["output"], r["kernel"]): r for r in comp if r["_file"] == 1}
        for r in comp:
            if r["_file"] != 0:
                continue
            w = warm.get((r["output"], r["kernel"]), {})
            cold = r["first_call_s"] + ("" if r["compiled_now"] == "1" else " (cache hit)")
            wtxt = w.get("first_call_s", "-") + (" (compiled)" if w.get("compiled_now") == "1"
                                                 else "")
            print(f"| {r['output']} | {r['kernel']} | {r['flops']} | {r['registers']} | "
                  f"{r['spill_bytes']} | {cold} | {wtxt} |")


if __name__ == "__main__":
    main()

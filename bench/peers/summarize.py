#!/usr/bin/env python3
"""Collect the RESULT / CHECK lines of the peer logs (and dualjit's, from bench/djmesh_check)
into one table.

Usage: python3 summarize.py LOG [LOG ...]

CHECK lines are compared with dualjit's line of the same ordering when there is one (else with
dualjit's first line, else with the first line): node orderings of one write_djmesh cell count
are permutations of one problem, so every line should agree to ~1e-7 relative (fp32 Aoff,
summation order).
"""
import math
import sys

AGREE = 1e-6  # relative; fp32 Aoff and atomic order leave ~1e-7


def parse(lines, tag):
    rows = []
    for line in lines:
        if line.startswith(tag + " "):
            kv = dict(tok.split("=", 1) for tok in line.split()[1:] if "=" in tok)
            rows.append(kv)
    return rows


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def main(paths):
    lines = []
    for p in paths:
        try:
            with open(p, errors="replace") as f:
                lines += f.read().splitlines()
        except OSError as ex:
            print(f"(cannot read {p}: {ex})")
    res, chk = parse(lines, "RESULT"), parse(lines, "CHECK")
    hw = {r["order"]: num(r["jac_ms"]) for r in res if r["peer"] == "handwritten"}
    print(f"{'peer':<16}{'order':<9}{'nodes':>9}{'edges':>10}{'jac ms':>10}{'x hw':>8}"
          f"{'res ms':>9}{'flop/e':>8}  {'other':<50}ok")
    for r in res:
        other = ""
        if r["peer"] == "handwritten":
            other = (f"typed {num(r['typed_ms']):.3f}  mem-only {num(r['mem_ms']):.3f}  "
                     f"floor {num(r['floor_ms']):.3f}")
        elif "chunk" in r:
            other = f"chunk {r['chunk']}"
        ratio = num(r["jac_ms"]) / hw.get(r["order"], math.nan)
        print(f"{r['peer']:<16}{r['order']:<9}{r['nodes']:>9}{r['edges']:>10}{num(r['jac_ms']):>10.3f}"
              f"{ratio:>8.1f}{num(r['res_ms']):>9.3f}{num(r.get('flops_edge')):>8.0f}  {other:<50}"
              f"{r.get('ok')}")
    if chk:
        dualjit = {c["order"]: c for c in chk if c["peer"] == "dualjit"}
        fallback = next((c for c in chk if c["peer"] == "dualjit"), chk[0])
        keys = [k for k in fallback if k not in ("peer", "order")]
        print(f"\nchecksums ({', '.join(keys)}): max relative difference to dualjit's of the same "
              f"ordering (else {fallback['peer']}/{fallback['order']}); agree below {AGREE:g}:")
        bad = 0
        for c in chk:
            # dualjit's own lines against its first: the orderings are one problem.
            base = fallback if c["peer"] == "dualjit" else dualjit.get(c["order"], fallback)
            d = max(abs(num(c.get(k)) - num(base[k])) / max(abs(num(base[k])), 1e-300) for k in keys)
            ok = d < AGREE
            bad += not ok
            print(f"  {c['peer']:<16}{c['order']:<9}vs {base['peer']}/{base['order']:<9}{d:.2e}"
                  f"{'' if ok else '  DIFFERENT'}")
        print(f"checksums: {len(chk) - bad} of {len(chk)} agree" + ("" if bad else " (all)"))


if __name__ == "__main__":
    main(sys.argv[1:])

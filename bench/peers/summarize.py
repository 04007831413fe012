#!/usr/bin/env python3
"""Collect the RESULT / CHECK lines of the peer logs into one table.

Usage: python3 summarize.py LOG [LOG ...]
"""
import math
import sys


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
          f"{'res ms':>9}  {'other':<50}ok")
    for r in res:
        other = ""
        if r["peer"] == "handwritten":
            other = (f"typed {num(r['typed_ms']):.3f}  mem-only {num(r['mem_ms']):.3f}  "
                     f"floor {num(r['floor_ms']):.3f}")
        elif "chunk" in r:
            other = f"chunk {r['chunk']}"
        ratio = num(r["jac_ms"]) / hw.get(r["order"], math.nan)
        print(f"{r['peer']:<16}{r['order']:<9}{r['nodes']:>9}{r['edges']:>10}{num(r['jac_ms']):>10.3f}"
              f"{ratio:>8.1f}{num(r['res_ms']):>9.3f}  {other:<50}{r.get('ok')}")
    if chk:
        base = chk[0]
        keys = [k for k in base if k not in ("peer", "order")]
        print(f"\nchecksums, max relative difference to {base['peer']}/{base['order']} "
              "(node orderings are permutations of one mesh, so all should agree):")
        for c in chk:
            d = max(abs(num(c.get(k)) - num(base[k])) / max(abs(num(base[k])), 1e-300) for k in keys
                    if k in c)
            print(f"  {c['peer']:<16}{c['order']:<9}{d:.2e}")


if __name__ == "__main__":
    main(sys.argv[1:])

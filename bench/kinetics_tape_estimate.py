#!/usr/bin/env python3
"""Sizes of a tape design for the (T, Y) Jacobian at constant pressure, from a mechanism's
structure alone (no GPU, no Cantera): each reaction's rate of progress q_r and its tangent
stored once per cell, then every Jacobian row composed from the tangents of the reactions
that change it (d wdot_i = sum_r nu_ir dq_r; the heat release's row from all of them).

dq_r's nonzeros, in the directions the JIT carries: T, the cut `scale` of the concentrations
(examples/kinetics/cell_state.cpp), Y_k of each species of the reaction and, for three-body
and falloff reactions, of each species whose efficiency differs from the default (the rest
enter through C_tot = p / RT, a function of T).

    python3 bench/kinetics_tape_estimate.py [MECHANISM.yaml] [CELLS]
      (default the project's data/mechanisms/gri30.yaml, 1e5 cells)
"""
import os
import re
import sys

import yaml


def side(text):
    out = {}
    for term in text.split("+"):
        term = term.strip()
        if not term or term == "M":
            continue
        m = re.match(r"^([0-9.]*)\s*(\S+)$", term)
        out[m.group(2)] = out.get(m.group(2), 0.0) + (float(m.group(1)) if m.group(1) else 1.0)
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "data/mechanisms/gri30.yaml")
    cells = float(sys.argv[2]) if len(sys.argv) > 2 else 1e5
    doc = yaml.load(open(path), Loader=yaml.BaseLoader)  # species names stay strings
    ns, reactions = len(doc["species"]), doc["reactions"]
    tape = reads = 0
    row_reads = {}
    for r in reactions:
        equation = re.sub(r"\(\s*\+\s*M\s*\)", " ", r["equation"])
        left, right = re.split(r"<=>|=>|=", equation, maxsplit=1)
        L, R = side(left), side(right)
        species = set(L) | set(R)
        nonzeros = {"T", "scale"} | {"Y_" + k for k in species}
        default = float(r.get("default-efficiency", 1.0))
        for k, e in (r.get("efficiencies") or {}).items():
            if float(e) != default:
                nonzeros.add("Y_" + k)
        tape += len(nonzeros)
        rows = [k for k in species if R.get(k, 0.0) != L.get(k, 0.0)]
        reads += len(nonzeros) * (len(rows) + 1)  # its species' rows and the heat release's
        for k in rows:
            row_reads[k] = row_reads.get(k, 0) + len(nonzeros)
    stored = tape + len(reactions)  # the tangents and the values q_r
    out = ns * (ns + 1)
    print(f"{path}: {ns} species, {len(reactions)} reactions")
    print(f"tape a cell: {tape} tangent entries + {len(reactions)} values = {stored} "
          f"({stored * 8 / 1e3:.1f} KB)")
    print(f"entries read to compose the rows a cell: {reads} "
          f"(the heat release's row {tape}, the largest species row {max(row_reads.values())})")
    print(f"Jacobian entries a cell: {out}")
    print(f"at {cells:g} cells: tape written {stored * 8 * cells / 1e9:.2f} GB, "
          f"read {reads * 8 * cells / 1e9:.2f} GB, Jacobian written {out * 8 * cells / 1e9:.2f} GB")


if __name__ == "__main__":
    main()

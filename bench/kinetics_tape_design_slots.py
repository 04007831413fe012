#!/usr/bin/env python3
"""Counts a mechanism's tape slots a cell as dualjit lays them out (kinetics_tape_layout's file)
against a design not built (bench/RESULTS.md, the products of powers): for a reaction whose rate
of progress is a product of powers of the concentrations, k_f(T) M prod C^a - k_r(T) M prod C^b
(elementary and three-body reactions), the tape holds the value, k_f, k_r (reversible), M
(three-body) and dq/dT, and the columns' launches take the concentration components from the
state; other reactions keep every component. Tapes made from the reactions' (the heat
release's) count the same in both.

  python3 bench/kinetics_tape_design_slots.py LAYOUT_FILE MECHANISM_YAML
"""
import collections
import sys

import yaml


def main(layout_file, mechanism_file):
    lines = open(layout_file).read().split("\n")
    total = int(lines[0].split()[-1])
    components = [int(l.split()[2]) for l in lines[2:] if l.strip()]
    reactions = yaml.safe_load(open(mechanism_file))["reactions"]
    if len(components) != len(reactions):
        sys.exit(f"{layout_file}: {len(components)} tapes for {len(reactions)} reactions")
    now, design, count = collections.Counter(), collections.Counter(), collections.Counter()
    for r, c in zip(reactions, components):
        kind = r.get("type", "elementary")
        reversible = "<=>" in r["equation"] or ("=" in r["equation"] and "=>" not in r["equation"])
        count[kind] += 1
        now[kind] += 1 + c
        if kind in ("elementary", "three-body"):
            design[kind] += 3 + (1 if reversible else 0) + (1 if kind == "three-body" else 0)
        else:
            design[kind] += 1 + c
    others = total - sum(now.values())
    print(f"{'reaction type':<14} {'reactions':>9} {'slots now':>9} {'design':>9}")
    for kind in count:
        print(f"{kind:<14} {count[kind]:>9} {now[kind]:>9} {design[kind]:>9}")
    print(f"{'other tapes':<14} {'':>9} {others:>9} {others:>9}")
    after = sum(design.values()) + others
    print(f"{'a cell':<14} {sum(count.values()):>9} {total:>9} {after:>9}"
          f"  ({100.0 * (after - total) / total:+.0f}%)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

#!/usr/bin/env python3
"""Tables from the RESULT lines of the energy benchmarks (bench/energy_peers.sh's logs): per
benchmark and size, each peer's times next to dualjit's, the ratio peer / dualjit, dualjit's
time over its byte floor, issue 15's targets, and how far each peer's checksums are from
dualjit's (relative difference per checksum). Plain Python, no numpy.

Usage: python3 energy_summary.py LOG [...]
"""
import sys

# bench: (size key, timed fields, floors {field: floor field}, checksum fields)
BENCHES = {
    "sd": ("vertices", ["E_ms", "g_ms", "hvp_ms", "H_ms", "Hp_ms"],
           {"g_ms": "floor_g_ms", "hvp_ms": "floor_hvp_ms", "H_ms": "floor_H_ms"},
           ["energy", "g_norm", "g_dot_v", "hv_norm", "v_hv", "H_fro", "H_vhv", "Hp_fro"]),
    "smooth": ("vertices", ["E_ms", "g_ms", "g_loop_ms"],
               {"g_ms": "floor_g_ms", "g_loop_ms": "floor_g_ms"}, ["energy", "g_norm", "g_dot_v"]),
    "smooth-rcm": ("vertices", ["E_ms", "g_ms", "g_loop_ms"],
                   {"g_ms": "floor_g_ms", "g_loop_ms": "floor_g_ms"},
                   ["energy", "g_norm", "g_dot_v"]),
    "nh": ("tets", ["E_ms", "g_ms", "H_ms", "Hp_ms", "Hp_ng_ms", "Hp_es_ms", "gHp_ms"],
           {"gHp_ms": "floor_gH_ms"},
           ["energy", "g_norm", "g_dot_v", "H_fro", "H_vhv", "Hp_fro"]),
}
# (bench, field, peer, at least this many times dualjit's time)
TARGETS = [("sd", "hvp_ms", "jax", 3.0), ("sd", "hvp_ms", "torch", 10.0),
           ("smooth", "g_ms", "jax", 3.0), ("smooth-rcm", "g_ms", "jax", 3.0)]
# (bench, field, at most this many times the byte floor)
FLOOR_TARGETS = [("smooth", "g_ms", 2.0), ("smooth-rcm", "g_ms", 2.0)]


def num(s):
    """The value, or None when missing or not a number (a peer that did not run a part)."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if v == v else None


def parse(paths):
    rows = []
    for path in paths:
        try:
            lines = open(path, errors="replace").read().splitlines()
        except OSError as e:
            print(f"({path}: {e.strerror})")
            continue
        for line in lines:
            if not line.startswith("RESULT "):
                continue
            parts = line.split()
            kv = {}
            for p in parts[2:]:
                if "=" in p:
                    k, v = p.split("=", 1)
                    kv[k] = v
            rows.append((parts[1], kv))
    return rows


def main():
    rows = parse(sys.argv[1:])
    by = {}
    for name, kv in rows:
        if "_" not in name:
            continue
        bench, peer = name.split("_", 1)
        if bench not in BENCHES:
            continue
        key = BENCHES[bench][0]
        if key in kv:
            by.setdefault((bench, int(kv[key])), {})[peer] = kv
    for (bench, size), peers in sorted(by.items()):
        key, fields, floors, checks = BENCHES[bench]
        dj = peers.get("dualjit", {})
        others = [p for p in ("jax", "torch") if p in peers]
        print(f"\n{bench}: {size} {key}")
        head = f"{'':10}{'dualjit':>10}" + "".join(f"{p:>10}" for p in others)
        head += "".join(f"{p + '/dj':>10}" for p in others) + f"{'dj/floor':>10}"
        print(head)
        for f in fields:
            d = num(dj.get(f))
            line = f"{f:10}" + (f"{d:>10.4f}" if d is not None else f"{'-':>10}")
            vals = [num(peers[p].get(f)) for p in others]
            line += "".join(f"{v:>10.4f}" if v is not None else f"{'-':>10}" for v in vals)
            for v in vals:
                ok = v is not None and d
                line += f"{v / d:>9.1f}x" if ok else f"{'-':>10}"
            fl = num(dj.get(floors.get(f, "")))
            line += f"{d / fl:>9.1f}x" if fl and d else ""
            print(line)
        for p in others:
            diffs = []
            for c in checks:
                a, b = num(dj.get(c)), num(peers[p].get(c))
                if a is None or b is None:
                    continue
                scale = max(abs(a), abs(b), 1e-300)
                diffs.append(f"{c} {abs(a - b) / scale:.1e}")
            print(f"  checksums {p} vs dualjit (relative difference): " + ", ".join(diffs))
        for tb, tf, tp, want in TARGETS:
            if tb == bench and tp in peers and num(dj.get(tf)) and num(peers[tp].get(tf)):
                got = num(peers[tp][tf]) / num(dj[tf])
                print(f"  target {tf} {tp}/dualjit >= {want:g}x: {got:.1f}x "
                      f"{'met' if got >= want else 'NOT met'}")
        for tb, tf, want in FLOOR_TARGETS:
            fl = num(dj.get(floors.get(tf, "")))
            if tb == bench and fl and num(dj.get(tf)):
                got = num(dj[tf]) / fl
                print(f"  target {tf} <= {want:g}x the byte floor: {got:.1f}x "
                      f"{'met' if got <= want else 'NOT met'}")
    for name, kv in rows:
        if name == "sd_newton_cg":
            print("\nsd Newton-CG (host vectors, transfers included): " +
                  " ".join(f"{k}={v}" for k, v in kv.items()))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Write a mesh-like edge list with states for the Roe flux Jacobian peer benchmark.

File format (little endian), read by mesh_io.py, roe_handwritten.cu and dualjit's bench:
    magic    8 bytes  b"DJMESH1\\0"
    n_nodes  int64
    n_edges  int64
    edges    int32[n_edges * 2]    (v0, v1) per edge
    area     float64[n_edges * 3]  directed area vector S of each edge (from v0 towards v1)
    Q        float64[n_nodes * 5]  conservative states (rho, rho u, rho v, rho w, E)

Graph: every node i is linked to `--per-node` (default 6) nodes i + d (mod n), d distinct and
drawn from 1..60, so there are per_node * n edges, no duplicates (n > 120), node degree ~12 and
the locality of a structured tetrahedral mesh in natural order. `--order random` relabels the
nodes with a random permutation (states move with their nodes). In both orders the edges are
sorted by v0 (stable), as a mesh preprocessor would store them; the orientation of each edge
(and so the sign of S) is kept.

States: rho in [0.7, 1.3], each momentum component in 0.2 +- 0.09, E in [2.2, 2.8]; with
gamma = 1.4 the pressure stays well above zero. S: uniformly random direction, |S| in [0.2, 1].

Usage: python3 make_mesh.py OUT --nodes N [--order natural|random] [--seed S] [--per-node K]
"""
import argparse
import struct
import sys
import time

import numpy as np

MAGIC = b"DJMESH1\0"


def make_mesh(n, per_node=6, max_d=60, order="natural", seed=1):
    if n <= 2 * max_d:
        raise ValueError(f"--nodes must exceed {2 * max_d} (got {n})")
    rng = np.random.default_rng(seed)
    # per_node distinct offsets in 1..max_d for every node (chunked to bound memory).
    d = np.empty((n, per_node), dtype=np.int64)
    chunk = 1 << 18
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        r = rng.random((b - a, max_d), dtype=np.float32)
        d[a:b] = np.argpartition(r, per_node, axis=1)[:, :per_node] + 1
    d.sort(axis=1)
    v0 = np.repeat(np.arange(n, dtype=np.int64), per_node)
    v1 = (v0 + d.reshape(-1)) % n
    m = v0.size

    direction = rng.standard_normal((m, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    area = direction * rng.uniform(0.2, 1.0, size=(m, 1))

    Q = np.empty((n, 5))
    Q[:, 0] = rng.uniform(0.7, 1.3, n)
    Q[:, 1:4] = 0.2 + rng.uniform(-0.09, 0.09, (n, 3))
    Q[:, 4] = rng.uniform(2.2, 2.8, n)

    if order == "random":
        perm = rng.permutation(n)  # old label i -> new label perm[i]
        v0, v1 = perm[v0], perm[v1]
        Qn = np.empty_like(Q)
        Qn[perm] = Q
        Q = Qn
        idx = np.argsort(v0, kind="stable")
        v0, v1, area = v0[idx], v1[idx], area[idx]
    elif order != "natural":
        raise ValueError(f"unknown order {order!r}")

    edges = np.stack([v0, v1], axis=1).astype(np.int32)
    return edges, np.ascontiguousarray(area), Q


def write_mesh(path, edges, area, Q):
    with open(path, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<qq", Q.shape[0], edges.shape[0]))
        np.ascontiguousarray(edges, dtype="<i4").tofile(f)
        np.ascontiguousarray(area, dtype="<f8").tofile(f)
        np.ascontiguousarray(Q, dtype="<f8").tofile(f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--order", choices=["natural", "random"], default="natural")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-node", type=int, default=6)
    a = ap.parse_args(argv)
    t = time.time()
    edges, area, Q = make_mesh(a.nodes, a.per_node, order=a.order, seed=a.seed)
    write_mesh(a.out, edges, area, Q)
    print(f"make_mesh: {a.out}: {Q.shape[0]} nodes, {edges.shape[0]} edges, order {a.order}, "
          f"seed {a.seed} ({time.time() - t:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()

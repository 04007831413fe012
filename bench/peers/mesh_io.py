"""Reader for the DJMESH1 edge-mesh file (see make_mesh.py) and the FUN3D-style block-CSR
structure shared by the Python peers (roe_jax.py, roe_torch.py). numpy only.

Assembly convention (residual R_i = sum over edges of +F at v0 and -F at v1):
    Adiag[v0]        += dF/dQL        Aoff[slot01[e]] += dF/dQR     (block (v0, v1))
    Aoff[slot10[e]]  -= dF/dQL        Adiag[v1]       -= dF/dQR     (block (v1, v0))
Adiag: (n_nodes, 5, 5) float64. Aoff: (nnzb, 5, 5) float32, block CSR over the node graph with
each row's column indices sorted; block (k, j) entry = d(output k)/d(input j), row-major.
Since edges are unique, every off-diagonal block receives exactly one edge's contribution.
"""
import struct

import numpy as np

MAGIC = b"DJMESH1\0"


class Mesh:
    def __init__(self, n_nodes, edges, area, Q):
        self.n_nodes = int(n_nodes)
        self.n_edges = int(edges.shape[0])
        self.edges = edges  # (E, 2) int32
        self.area = area    # (E, 3) float64
        self.Q = Q          # (n, 5) float64


def read_mesh(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) != 24 or head[:8] != MAGIC:
        raise ValueError(f"{path}: not a DJMESH1 file")
    n, m = struct.unpack("<qq", head[8:])
    if n <= 0 or m <= 0:
        raise ValueError(f"{path}: bad sizes n_nodes={n} n_edges={m}")
    off = 24
    edges = np.fromfile(path, dtype="<i4", count=2 * m, offset=off).reshape(m, 2)
    off += 8 * m
    area = np.fromfile(path, dtype="<f8", count=3 * m, offset=off).reshape(m, 3)
    off += 24 * m
    Q = np.fromfile(path, dtype="<f8", count=5 * n, offset=off).reshape(n, 5)
    if edges.shape[0] != m or area.shape[0] != m or Q.shape[0] != n:
        raise ValueError(f"{path}: truncated file")
    if edges.min() < 0 or edges.max() >= n:
        raise ValueError(f"{path}: edge vertex out of range [0, {n})")
    if np.any(edges[:, 0] == edges[:, 1]):
        raise ValueError(f"{path}: self-loop edge")
    return Mesh(n, edges, area, Q)


class BCSR:
    def __init__(self, row_ptr, col_idx, slot01, slot10):
        self.row_ptr = row_ptr  # (n+1,) int64
        self.col_idx = col_idx  # (nnzb,) int32
        self.slot01 = slot01    # (E,) int32/int64: block (v0, v1)
        self.slot10 = slot10    # (E,) block (v1, v0)
        self.nnzb = int(col_idx.size)


def build_bcsr(n_nodes, edges):
    """Off-diagonal block structure of the node graph and each edge's two block slots."""
    v0 = edges[:, 0].astype(np.int64)
    v1 = edges[:, 1].astype(np.int64)
    m = v0.size
    keys = np.concatenate([v0 * n_nodes + v1, v1 * n_nodes + v0])
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    if m > 0 and np.any(sk[1:] == sk[:-1]):
        raise ValueError("duplicate edge (or both orientations of one edge) in the mesh")
    slot = np.empty(2 * m, dtype=np.int64)
    slot[order] = np.arange(2 * m, dtype=np.int64)
    rows = sk // n_nodes
    col_idx = (sk % n_nodes).astype(np.int32)
    row_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_nodes), out=row_ptr[1:])
    return BCSR(row_ptr, col_idx, slot[:m], slot[m:])


def checksums(Adiag, Aoff, R=None):
    """Order-independent summary numbers printed by every peer (compare across peers and
    across node orderings of the same mesh: they are permutation invariant)."""
    Adiag = np.asarray(Adiag, dtype=np.float64)
    Aoff = np.asarray(Aoff, dtype=np.float64)
    out = {
        "adiag_fro": float(np.sqrt(np.sum(Adiag * Adiag))),
        "adiag_sum": float(np.sum(Adiag)),
        "aoff_fro": float(np.sqrt(np.sum(Aoff * Aoff))),
        "aoff_sum": float(np.sum(Aoff)),
    }
    if R is not None:
        R = np.asarray(R, dtype=np.float64)
        out["r_fro"] = float(np.sqrt(np.sum(R * R)))
        out["r_abs"] = float(np.sum(np.abs(R)))
    return out


def format_kv(d):
    return " ".join(f"{k}={v:.10e}" if isinstance(v, float) else f"{k}={v}" for k, v in d.items())


def assemble_numpy(n_nodes, bcsr, edges, JL, JR, dtype_off=np.float32):
    """Reference assembly of local Jacobians JL = dF/dQL, JR = dF/dQR (E, 5, 5)."""
    Adiag = np.zeros((n_nodes, 5, 5))
    np.add.at(Adiag, edges[:, 0], JL)
    np.add.at(Adiag, edges[:, 1], -JR)
    Aoff = np.zeros((bcsr.nnzb, 5, 5), dtype=dtype_off)
    Aoff[bcsr.slot01] += JR.astype(dtype_off)
    Aoff[bcsr.slot10] -= JL.astype(dtype_off)
    return Adiag, Aoff

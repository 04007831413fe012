"""What the cloth peers (cloth_jax.py, cloth_torch.py, cloth_drjit.py) share with
bench/cloth_step.cpp: the grid, its springs and rest lengths, the perturbed configuration, the
step's constants, and the BCSR slots of the Hessian's blocks. numpy only."""
import numpy as np

K, H, G = 1e5, 0.01, np.array([0.0, -9.8, 0.0])


def grid(n):
    """Rest positions, the perturbed configuration, springs (n_springs x 2), rest lengths."""
    h = 1.0 / (n - 1)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    x = np.stack([j * h, np.zeros_like(i, dtype=float), i * h], axis=-1).reshape(-1, 3)
    v = (i * n + j).reshape(-1)
    springs = []
    ii, jj = i.reshape(-1), j.reshape(-1)
    for di, dj, off in ((0, 1, 1), (1, 0, n), (1, 1, n + 1)):
        ok = (ii + di < n) & (jj + dj < n)
        springs.append(np.stack([v[ok], v[ok] + off], axis=1))
    # The C++ grid orders springs per vertex: (v, v+1), (v, v+n), (v, v+n+1); the sum is the
    # same in any order up to round-off.
    s = np.concatenate(springs)
    rest = np.linalg.norm(x[s[:, 0]] - x[s[:, 1]], axis=1)
    nv = n * n
    xp = x + 0.2 * h * np.sin(0.7 * np.arange(nv)[:, None] + 1.3 * np.arange(3)[None, :])
    return x, xp, s, rest


def bcsr_slots(nv, s):
    """Block count and the slots of (i, i), (i, j), (j, i), (j, j) per spring and (v, v)."""
    rows = np.concatenate([s[:, 0], s[:, 1], np.arange(nv)])
    cols = np.concatenate([s[:, 1], s[:, 0], np.arange(nv)])
    keys = np.unique(rows.astype(np.int64) * nv + cols)

    def slot(r, c):
        return np.searchsorted(keys, r.astype(np.int64) * nv + c)
    return len(keys), slot(s[:, 0], s[:, 0]), slot(s[:, 0], s[:, 1]), slot(s[:, 1], s[:, 0]), \
        slot(s[:, 1], s[:, 1]), slot(np.arange(nv), np.arange(nv))

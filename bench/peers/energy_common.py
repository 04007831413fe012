"""Shared by the energy peers (sd_jax.py, sd_torch.py, smooth_jax.py, nh_jax.py): the arrays
file the C++ benchmarks write with --write (bench/energy_bench.h), timing (warm-up, then the
median of repeated calls, fewer repetitions for slow calls so that a run stays within its time
budget), BCSR slots, and the RESULT line. numpy only; the frameworks are the callers'.

Arrays file (little endian): magic "DJARRS1\\0", int64 n_arrays, then per array: name (24
bytes, NUL-padded), dtype (8 bytes, NUL-padded: "<i4" or "<f8"), int64 rows, int64 cols, the
values row-major.
"""
import argparse
import time

import numpy as np


def read_arrays(path):
    """{name: array (rows, cols)}; 1 x 1 arrays also as floats under the same name."""
    out = {}
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic != b"DJARRS1\0":
            raise ValueError(f"{path}: not an arrays file (magic {magic!r})")
        (n,) = np.frombuffer(f.read(8), "<i8")
        for _ in range(int(n)):
            name = f.read(24).rstrip(b"\0").decode()
            dtype = np.dtype(f.read(8).rstrip(b"\0").decode())
            rows, cols = (int(x) for x in np.frombuffer(f.read(16), "<i8"))
            nbytes = rows * cols * dtype.itemsize
            data = f.read(nbytes)
            if len(data) != nbytes:
                raise ValueError(f"{path}: array {name} truncated")
            a = np.frombuffer(data, dtype).reshape(rows, cols).copy()
            out[name] = float(a[0, 0]) if a.size == 1 and dtype.kind == "f" else a
    return out


def direction(n):
    """energy_bench.h's direction: v_i = sin(0.37 i + 0.2)."""
    return np.sin(0.37 * np.arange(n, dtype=np.float64) + 0.2)


def median_ms(call, sync, reps, budget_s=3.0, warmup=2):
    """Median wall time (ms) of call() followed by sync(result), after `warmup` untimed calls
    (the first compiles). At most `reps` repetitions, fewer when one call is so slow that `reps`
    would exceed `budget_s`; at least 3."""
    for _ in range(warmup):
        sync(call())
    t0 = time.perf_counter()
    sync(call())
    first = time.perf_counter() - t0
    n = max(3, min(reps, int(budget_s / max(first, 1e-6))))
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        sync(call())
        t.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(t))


def bcsr_slots(elements, n_nodes):
    """The general block-CSR pattern of elements (n x k node indices; both (a, b) and (b, a),
    diagonal included) and, per element, the slot of each local pair (a, b), a-major:
    (n_blocks, block_rows, block_cols, slots (n, k * k))."""
    n, k = elements.shape
    r = np.repeat(elements, k, axis=1).astype(np.int64)
    c = np.tile(elements, (1, k)).astype(np.int64)
    keys_all = r * n_nodes + c
    keys = np.unique(keys_all)
    slots = np.searchsorted(keys, keys_all)
    return len(keys), keys // n_nodes, keys % n_nodes, slots


def result_line(name, **kv):
    parts = []
    for k, v in kv.items():
        if isinstance(v, float):
            parts.append(f"{k}={v:.15g}" if k == "energy" else f"{k}={v:.12g}" if not k.endswith(
                "_ms") else f"{k}={v:.4f}")
        else:
            parts.append(f"{k}={v}")
    return f"RESULT {name} " + " ".join(parts)


def run_files(run, device_line, extra_flags=()):
    """The peers' command line: data files written by the C++ program, --reps, and any boolean
    flags the peer adds; prints the device, then calls run(path, reps, **flags) per file."""
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--reps", type=int, default=15)
    for flag in extra_flags:
        ap.add_argument(flag, action="store_true")
    args = ap.parse_args()
    print("device", device_line, flush=True)
    flags = {f.lstrip("-").replace("-", "_"): getattr(args, f.lstrip("-").replace("-", "_"))
             for f in extra_flags}
    for path in args.files:
        run(path, args.reps, **flags)

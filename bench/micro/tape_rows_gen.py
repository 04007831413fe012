#!/usr/bin/env python3
"""Writes a CUDA program: the (T, Y) Jacobian's rows from the tapes, each tape slot read once a
cell (bench/micro/tape_rows.cu's design), in straight-line code the way a JIT would emit it: a
group's tape slots and coefficients are constants, each entry a sum of shared-memory operands,
no tables read in the loop. Same cells, checks and RESULT line as tape_rows.cu.

  python3 tape_rows_gen.py LAYOUT [--group-slots S] [--warps W] [--order tile|group]
                          [--cut registers|shared] [--min-blocks M] [--first-alone]
                          > tape_rows_gen.cu
  nvcc -O3 -arch=sm_90 -std=c++17 -I bench/micro -o tape_rows_gen tape_rows_gen.cu
  ./tape_rows_gen LAYOUT [--cells N] [--reps R]

Launch A (a block of 32 cells): the values w_k and D[k][s] (the cut's column) from the values'
and cut components' slots, and ds/dx. Launch B (a block of 32 cells and a group of columns; a
group's tiles consecutive in the grid, or with --order group a tile's groups):
the group's slots staged in shared memory, then J[k][c] = D[k][c] + D[k][s] ds/dx_c, a warp a
set of rows; stored component-major (directly: a warp's store is a line) or cell-major (through
a warp's buffer of its row's columns, so that each cell's run of the group's columns is
written together). D[k][s] and ds/dx are read into registers, or with --cut shared staged
beside the slots; --first-alone runs the first group (column T, a slot of every reaction) as a
launch of its own, so that the others' blocks need less shared memory; --min-blocks is
__launch_bounds__'s second argument.
"""
import argparse
import sys

KTILE = 32


def read_layout(path):
    with open(path) as f:
        head = f.readline().split()
        ns, nr, ni, slots = int(head[1]), int(head[3]), int(head[5]), int(head[7])
        f.readline()  # weights: the program reads them
        reactions = []
        for r in range(nr):
            t = f.readline().split()
            assert int(t[0]) == r, f"{path}: reaction line {r}"
            off, nc = int(t[1]), int(t[2])
            cols = [int(x) for x in t[3:3 + nc]]
            nn = int(t[3 + nc])
            nu = [(int(t[4 + nc + 2 * i]), float(t[5 + nc + 2 * i])) for i in range(nn)]
            reactions.append((off, cols, nu))
    return ns, nr, ni, slots, reactions


def heat_coefficient(r):  # tape_rows_common.cuh's
    return -1.0e3 * (1 + r % 7)


VALUE, CUT = -2, -1


def column_terms(ns, ni, reactions, c):
    """Per row k (ns + 1 rows): the (tape slot, coefficient) terms of entry (k, c)."""
    terms = [[] for _ in range(ns + 1)]
    for r, (off, cols, nu) in enumerate(reactions):
        if c == VALUE:
            slot = off
        else:
            want = ni if c == CUT else c
            slot = next((off + 1 + i for i, x in enumerate(cols) if x == want), None)
        if slot is None:
            continue
        for k, v in nu:
            terms[k].append((slot, v))
        terms[ns].append((slot, heat_coefficient(r)))
    return terms


def column_groups(ni, reactions, limit):
    groups, slots = [[]], 0
    for c in range(ni):
        n = sum(cols.count(c) for _, cols, _ in reactions)
        if groups[-1] and slots + n > limit:
            groups.append([])
            slots = 0
        groups[-1].append(c)
        slots += n
    return groups


def make_group(ns, ni, reactions, cols):
    """Staged slots (in order of first use) and per row, per column, (staged index, coef)."""
    staged, index = [], {}
    rows = [[None] * len(cols) for _ in range(ns + 1)]
    for ci, c in enumerate(cols):
        for k, terms in enumerate(column_terms(ns, ni, reactions, c)):
            local = []
            for slot, v in terms:
                if slot not in index:
                    index[slot] = len(staged)
                    staged.append(slot)
                local.append((index[slot], v))
            rows[k][ci] = local
    return staged, rows


def assign_rows(rows, warps):
    """Rows to warps, heaviest first to the least loaded."""
    load, owned = [0] * warps, [[] for _ in range(warps)]
    for k in sorted(range(len(rows)), key=lambda k: -sum(len(t) for t in rows[k])):
        w = min(range(warps), key=lambda w: load[w])
        owned[w].append(k)
        load[w] += sum(len(t) for t in rows[k]) + len(rows[k])
    return owned


def sum_text(terms):
    if not terms:
        return "0.0"
    out = []
    for i, (s, v) in enumerate(terms):
        operand = f"S[{s * KTILE}]"
        if v == 1.0:
            out.append(("" if i == 0 else " + ") + operand)
        elif v == -1.0:
            out.append(("-" if i == 0 else " - ") + operand)
        else:
            out.append(("" if i == 0 else " + ") + f"{v!r} * {operand}")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("layout")
    ap.add_argument("--group-slots", type=int, default=200)
    ap.add_argument("--warps", type=int, default=8)
    ap.add_argument("--order", choices=["tile", "group"], default="tile")
    ap.add_argument("--cut", choices=["registers", "shared"], default="registers")
    ap.add_argument("--min-blocks", type=int, default=0)
    ap.add_argument("--first-alone", action="store_true")
    a = ap.parse_args()
    ns, nr, ni, slots, reactions = read_layout(a.layout)
    ns1, W = ns + 1, a.warps
    aux = 2 * ns1 + ni
    o = []
    p = o.append
    p(f"// Generated by bench/micro/tape_rows_gen.py from {a.layout} (column groups of at most "
      f"{a.group_slots} slots, {W} warps a block, grid by {a.order}, cut in {a.cut}, min blocks "
      f"{a.min_blocks}{', first group alone' if a.first_alone else ''}): do not edit.")
    p('#include "tape_rows_common.cuh"')
    p("using namespace tape_rows;")
    p("namespace {")
    p(f"constexpr int kNs1 = {ns1}, kNi = {ni}, kAux = {aux};")
    p(f"constexpr long long kSlots = {slots};")

    # Launch A.
    staged_a, rows_a = make_group(ns, ni, reactions, [VALUE, CUT])
    na = len(staged_a)
    p(f"__constant__ int kStagedA[{na}] = {{{', '.join(map(str, staged_a))}}};")
    bounds = f"{32 * W}, {a.min_blocks}" if a.min_blocks else f"{32 * W}"
    p(f"__global__ void __launch_bounds__({bounds}) values_and_cut(const double* __restrict__ tape,"
      " const double* __restrict__ state, const double* __restrict__ inv_weight,"
      " double* __restrict__ aux, long long n) {")
    p("  extern __shared__ double st[];")
    p("  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;")
    p("  const long long tile = blockIdx.x, e = tile * 32 + lane;")
    p("  const bool live = e < n;")
    p("  const long long ee = live ? e : n - 1;")
    p("  const double* tp = tape + tile * kSlots * 32 + lane;")
    p(f"  for (int i = warp; i < {na}; i += {W}) st[i * 32 + lane] = tp[kStagedA[i] * 32];")
    p("  __syncthreads();")
    p("  const double* S = st + lane;")
    p("  double* ax = aux + tile * kAux * 32 + lane;")
    p("  switch (warp) {")
    for w, ks in enumerate(assign_rows(rows_a, W)):
        p(f"    case {w}: {{")
        for k in ks:
            p(f"      {{ const double v = {sum_text(rows_a[k][0])}; if (live) ax[{k * 32}] = v; }}")
            p(f"      {{ const double v = {sum_text(rows_a[k][1])}; "
              f"if (live) ax[{(ns1 + k) * 32}] = v; }}")
        p("    } break;")
    p("  }")
    p("  const double* x = state + ee * kNi;")
    p("  double sum = 0;")
    p("  for (int m = 1; m < kNi; ++m) sum += x[m] * inv_weight[m - 1];")
    p("  const double T = x[0], s = kPressure / (kR * T * sum);")
    p(f"  for (int c = warp; c < kNi; c += {W}) {{")
    p("    const double g = c == 0 ? -s / T : -s * inv_weight[c - 1] / sum;")
    p(f"    if (live) ax[({2 * ns1} + c) * 32] = g;")
    p("  }")
    p("}")

    # Launch B: a device function per group.
    groups = column_groups(ni, reactions, a.group_slots)
    staged_all, need, terms_b = [], [], 0
    for g, cols in enumerate(groups):
        staged, rows = make_group(ns, ni, reactions, cols)
        first, nc, c0 = len(staged_all), len(cols), cols[0]
        assert cols == list(range(c0, c0 + nc))
        staged_all += staged
        nstg = len(staged)
        terms_b += sum(len(t) for r in rows for t in r)
        shared_cut = a.cut == "shared"
        # D[k][s] and ds/dx_c staged beside the slots, or (--cut registers) read from A's
        # array into registers, a row's D[k][s] once and the group's ds/dx once a warp.
        cut_at, ds_at = nstg, nstg + ns1
        buf_at = nstg + ns1 + nc if shared_cut else nstg
        need.append((buf_at * KTILE * 8, (buf_at + W * nc) * KTILE * 8))  # component-, cell-major
        p("template <bool CM>")
        p(f"__device__ __forceinline__ void group{g}(const double* __restrict__ tp, "
          "const double* __restrict__ ax, double* __restrict__ st, double* __restrict__ J, "
          "long long n, long long tile, int lane, int warp, bool live, long long e) {")
        p(f"  for (int i = warp; i < {nstg}; i += {W}) st[i * 32 + lane] = "
          f"tp[kStaged[{first} + i] * 32];")
        if shared_cut:
            p(f"  for (int k = warp; k < kNs1; k += {W}) st[({cut_at} + k) * 32 + lane] = "
              "ax[(kNs1 + k) * 32];")
            p(f"  for (int i = warp; i < {nc}; i += {W}) st[({ds_at} + i) * 32 + lane] = "
              f"ax[(2 * kNs1 + {c0} + i) * 32];")
        else:
            p(f"  double ds[{nc}];")
            p(f"  for (int i = 0; i < {nc}; ++i) ds[i] = ax[(2 * kNs1 + {c0} + i) * 32];")
        p("  __syncthreads();")
        p("  const double* S = st + lane;")
        p(f"  double* buf = st + ({buf_at} + warp * {nc}) * 32;")
        p("  switch (warp) {")
        for w, ks in enumerate(assign_rows(rows, W)):
            p(f"    case {w}: {{")
            for k in ks:
                if not shared_cut:
                    p(f"      {{ const double dk = ax[{(ns1 + k) * KTILE}];")
                for ci, c in enumerate(cols):
                    cut_term = (f"S[{(cut_at + k) * KTILE}] * S[{(ds_at + ci) * KTILE}]"
                                if shared_cut else f"dk * ds[{ci}]")
                    p(f"      {{ const double v = {sum_text(rows[k][ci])} + {cut_term};")
                    p(f"        if (CM) {{ if (live) J[{k * ni + c}LL * n + e] = v; }} "
                      f"else buf[{ci} * 32 + lane] = v; }}")
                p("      if (!CM) {")
                p("        __syncwarp();")
                p(f"        for (int i = lane; i < {32 * nc}; i += 32) {{")
                p(f"          const int cell = i / {nc}, cc = i - cell * {nc};")
                p("          const long long ec = tile * 32 + cell;")
                p(f"          if (ec < n) J[ec * {ns1 * ni} + {k * ni + c0} + cc] = buf[cc * 32 + cell];")
                p("        }")
                p("        __syncwarp();")
                p("      }")
                if not shared_cut:
                    p("      }")
            p("    } break;")
        p("  }")
        p("}")
    p(f"__constant__ int kStaged[{len(staged_all)}] = {{{', '.join(map(str, staged_all))}}};")
    # kStaged is used above: declare it first (moved below by the fix-up after generation).
    p("template <bool CM>")
    p(f"__global__ void __launch_bounds__({bounds}) rows(const double* __restrict__ tape, "
      "const double* __restrict__ aux, double* __restrict__ J, long long n, int g0) {")
    p("  extern __shared__ double st[];")
    p("  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;")
    # --order group: a tile's groups run together (the grid's fast dimension), so that the
    # cell-major runs they write into the same lines meet in L2; tile: a group's tiles do, so
    # that a component-major entry's lines are written in order.
    fast, slow = ("blockIdx.x", "blockIdx.y") if a.order == "group" else ("blockIdx.y", "blockIdx.x")
    p(f"  const long long tile = {slow}, e = tile * 32 + lane;")
    p("  const bool live = e < n;")
    p("  const double* tp = tape + tile * kSlots * 32 + lane;")
    p("  const double* ax = aux + tile * kAux * 32 + lane;")
    p(f"  switch (g0 + {fast}) {{")
    for g in range(len(groups)):
        p(f"    case {g}: group{g}<CM>(tp, ax, st, J, n, tile, lane, warp, live, e); break;")
    p("  }")
    p("}")
    p("}  // namespace")

    smem_a = na * KTILE * 8
    # The launches of B: every group in one, or (--first-alone) the first group, column T with
    # every reaction's slot, in a launch of its own, so that the others' blocks need less
    # shared memory.
    ranges = [(0, 1), (1, len(groups))] if a.first_alone else [(0, len(groups))]
    smem = max(max(x) for x in need)

    def launches(cm):
        out = []
        for g0, g1 in ranges:
            size = max(need[g][0 if cm else 1] for g in range(g0, g1))
            grid = f"dim3({g1 - g0}, tiles)" if a.order == "group" else f"dim3(tiles, {g1 - g0})"
            out.append(f"rows<{'true' if cm else 'false'}><<<{grid}, {32 * W}, {size}>>>"
                       f"(tape, aux, J, n, {g0});")
        return " ".join(out)
    p(f"""
int main(int argc, char** argv) {{
  if (argc < 2) {{
    std::fprintf(stderr, "usage: %s LAYOUT [--cells N] [--reps R]\\n", argv[0]);
    return 2;
  }}
  const Layout l = read_layout(argv[1]);
  long long n = 100000;
  int reps = 15;
  for (int i = 2; i + 1 < argc; i += 2) {{
    const std::string f = argv[i];
    if (f == "--cells") n = std::atoll(argv[i + 1]);
    else if (f == "--reps") reps = std::atoi(argv[i + 1]);
  }}
  if (l.ns + 1 != kNs1 || l.ni != kNi || l.slots != kSlots) {{
    std::fprintf(stderr, "%s: not the layout this program was generated from\\n", argv[1]);
    return 2;
  }}
  std::printf("tape_rows_gen: %d species, %d reactions, %lld slots a cell; %d column groups of "
              "at most {a.group_slots} slots, {W} warps a block; terms a cell: B {terms_b}; "
              "shared memory A %d B, B %d B\\n", l.ns, l.nr, l.slots, {len(groups)}, {smem_a}, {smem});
  const Cells cells = random_cells(l, n);
  double *tape, *state, *inv_weight, *aux, *J;
  cudaMalloc(&tape, cells.tape.size() * sizeof(double));
  cudaMemcpy(tape, cells.tape.data(), cells.tape.size() * sizeof(double), cudaMemcpyHostToDevice);
  cudaMalloc(&state, cells.state.size() * sizeof(double));
  cudaMemcpy(state, cells.state.data(), cells.state.size() * sizeof(double), cudaMemcpyHostToDevice);
  cudaMalloc(&inv_weight, cells.inv_weight.size() * sizeof(double));
  cudaMemcpy(inv_weight, cells.inv_weight.data(), cells.inv_weight.size() * sizeof(double),
             cudaMemcpyHostToDevice);
  cudaMalloc(&aux, cells.tiles * 32 * kAux * sizeof(double));
  std::vector<double> host_J(n * kNs1 * kNi);
  cudaMalloc(&J, host_J.size() * sizeof(double));
  cudaFuncSetAttribute(values_and_cut, cudaFuncAttributeMaxDynamicSharedMemorySize, {smem_a});
  cudaFuncSetAttribute(rows<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, {smem});
  cudaFuncSetAttribute(rows<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, {smem});
  const unsigned tiles = static_cast<unsigned>(cells.tiles);
  const auto run_a = [&] {{ values_and_cut<<<tiles, {32 * W}, {smem_a}>>>(tape, state, inv_weight, aux, n); }};
  const double bw = copy_bandwidth(tape, static_cast<long long>(cells.tape.size()), reps);
  for (int cm = 0; cm < 2; ++cm) {{
    const auto run_b = [&] {{
      if (cm) {{ {launches(True)} }}
      else {{ {launches(False)} }}
    }};
    run_a();
    run_b();
    if (cudaDeviceSynchronize() != cudaSuccess) {{
      std::printf("launch failed: %s\\n", cudaGetErrorString(cudaGetLastError()));
      return 1;
    }}
    const float ms_a = median_ms(reps, [] {{}}, run_a);
    const float ms_b = median_ms(reps, [] {{}}, run_b);
    const float ms = median_ms(reps, [] {{}}, [&] {{ run_a(); run_b(); }});
    cudaMemcpy(host_J.data(), J, host_J.size() * sizeof(double), cudaMemcpyDeviceToHost);
    const double worst = worst_difference(l, cells, host_J, cm == 1, 97);
    const double bytes = n * (l.slots + kNi + double(kNs1) * kNi) * sizeof(double);
    std::printf("RESULT tape_rows_gen cells=%lld order=%s grid={a.order} warps={W} groups={len(groups)} A_ms=%.4f "
                "B_ms=%.4f ms=%.4f floor_ms=%.4f copy_GBs=%.0f max_rel=%.3g\\n",
                n, cm ? "component-major" : "cell-major", ms_a, ms_b, ms, bytes / bw * 1e3,
                bw / 1e9, worst);
    if (worst > 1e-12) return 1;
  }}
  return 0;
}}""")
    text = "\n".join(o)
    # The staged slots' table before its first use.
    decl = next(line for line in o if line.startswith("__constant__ int kStaged["))
    text = text.replace(decl + "\n", "")
    text = text.replace("template <bool CM>\n__device__ __forceinline__ void group0(",
                        decl + "\ntemplate <bool CM>\n__device__ __forceinline__ void group0(", 1)
    sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()

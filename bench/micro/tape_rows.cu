// The (T, Y) Jacobian's rows composed from the tapes with each tape slot read once a cell: the
// design bench/RESULTS.md sizes against dualjit's row groups (which read a reaction's tape once
// per row group holding one of its species, 4.2 times a slot). The tape layout and the net
// stoichiometry are dualjit's for the mechanism (bench/kinetics_tape_layout writes them); the
// tape's values are random, since what is timed is the memory and the gathers, not the tape's
// launch.
//
// The rows are linear in the tape: with q_r's tangent components dq_r/dx_c at fixed density
// cut s (the tape's slots), and the cut's own component dq_r/ds,
//   D[k][c] = sum_r nu_kr dq_r/dx_c,   J[k][c] = D[k][c] + D[k][s] ds/dx_c,
//   ds/dT = -s/T, ds/dY_c = -s (1/W_c) / sum_m Y_m/W_m   (s = p / (R T sum_m Y_m/W_m)),
// and the values w_k = sum_r nu_kr q_r. The last row (the heat release) takes a constant
// coefficient per reaction where dualjit's takes -RT dh_r/RT(T): the same loads and adds, its
// T-dependent coefficient and that coefficient's T derivative left out.
//
// Two launches: A reads each cell's values and cut components (a slot each per reaction) and
// writes w, D[.][s] and ds/dx per cell; B runs blocks of 32 cells (a lane each) and a group of
// columns, stages the group's tape slots of the 32 cells in shared memory (each slot read once
// a cell over the grid), and its warps sum the group's entries J[k][c] from shared memory,
// storing them cell-major (dualjit's default block order) or component-major.
//
// Build and run (no dualjit needed; the layout from kinetics_tape_layout):
//   nvcc -O3 -arch=sm_90 -std=c++17 -o tape_rows tape_rows.cu
//   ./tape_rows LAYOUT [--cells N] [--warps W] [--group-slots S] [--reps R] [--host]
// --host runs the launches' algorithm on the host over a few cells against the direct sums
// (no GPU needed): a check of the tables.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "median_ms.cuh"
#include "tape_rows_common.cuh"

namespace {

using namespace tape_rows;

// An output entry: row k, column c (an input; or, in A, kCut / kValue), the triples summed.
struct Entry {
  int k, c, first, last;
};
constexpr int kCutColumn = -1, kValueColumn = -2;

// Column groups: B's grid has a block per (tile, group). A group's slots are staged; `entries`
// the group's outputs, `slot` and `coef` their terms (slot as an index into the group's staged
// slots).
struct Tables {
  int groups = 0;
  std::vector<int> slot_first, entry_first;  // per group, and one past the last group
  std::vector<int> slots;                    // tape slot of each staged slot
  std::vector<Entry> entries;
  std::vector<int> term_slot;
  std::vector<double> term_coef;
  std::vector<int> group_columns;  // per group: its columns, group_column_first delimits
  std::vector<int> group_column_first;
  int max_group_slots = 0, max_group_columns = 0;
};

// Terms of entry (k, c): the (slot, coefficient) pairs of every reaction whose tape has a
// component in column c (c < 0: kCut or kValue) and whose row k is nonzero.
std::vector<std::vector<std::pair<long long, double>>> column_terms(const Layout& l, int c) {
  std::vector<std::vector<std::pair<long long, double>>> terms(l.ns + 1);
  for (int r = 0; r < l.nr; ++r) {
    long long slot = -1;
    if (c == kValueColumn) {
      slot = l.offset[r];
    } else {
      const int want = c == kCutColumn ? l.ni : c;
      for (size_t i = 0; i < l.columns[r].size(); ++i)
        if (l.columns[r][i] == want) slot = l.offset[r] + 1 + static_cast<long long>(i);
    }
    if (slot < 0) continue;
    for (const auto& [k, v] : l.nu[r]) terms[k].push_back({slot, v});
    terms[l.ns].push_back({slot, heat_coefficient(r)});
  }
  return terms;
}

void add_group(Tables& t, const Layout& l, const std::vector<int>& cols) {
  std::vector<int> staged;  // tape slots, in order of first use
  std::vector<int> index(l.slots, -1);
  t.group_column_first.push_back(static_cast<int>(t.group_columns.size()));
  for (int c : cols) t.group_columns.push_back(c);
  for (int c : cols) {
    const auto terms = column_terms(l, c);
    for (int k = 0; k <= l.ns; ++k) {
      Entry e{k, c, static_cast<int>(t.term_slot.size()), 0};
      for (const auto& [slot, v] : terms[k]) {
        if (index[slot] < 0) {
          index[slot] = static_cast<int>(staged.size());
          staged.push_back(static_cast<int>(slot));
        }
        t.term_slot.push_back(index[slot]);
        t.term_coef.push_back(v);
      }
      e.last = static_cast<int>(t.term_slot.size());
      t.entries.push_back(e);
    }
  }
  t.slots.insert(t.slots.end(), staged.begin(), staged.end());
  t.max_group_slots = std::max(t.max_group_slots, static_cast<int>(staged.size()));
  t.max_group_columns = std::max(t.max_group_columns, static_cast<int>(cols.size()));
  ++t.groups;
  t.slot_first.push_back(static_cast<int>(t.slots.size()));
  t.entry_first.push_back(static_cast<int>(t.entries.size()));
}

Tables make_tables(const std::vector<std::vector<int>>& groups, const Layout& l) {
  Tables t;
  t.slot_first.push_back(0);
  t.entry_first.push_back(0);
  for (const auto& g : groups) add_group(t, l, g);
  t.group_column_first.push_back(static_cast<int>(t.group_columns.size()));
  return t;
}

// B's groups: the input columns in order, a group closed once its slots would pass `limit`.
std::vector<std::vector<int>> column_groups(const Layout& l, int limit) {
  std::vector<std::vector<int>> groups(1);
  int slots = 0;
  for (int c = 0; c < l.ni; ++c) {
    int n = 0;
    for (int r = 0; r < l.nr; ++r)
      n += static_cast<int>(std::count(l.columns[r].begin(), l.columns[r].end(), c));
    if (!groups.back().empty() && slots + n > limit) {
      groups.emplace_back();
      slots = 0;
    }
    groups.back().push_back(c);
    slots += n;
  }
  return groups;
}

struct Args {
  const double* tape;
  const double* state;  // cell-major, ni a cell
  const double* inv_weight;
  double* aux;
  double* J;
  long long n, slots;
  int ns, ni, warps;
  bool component_major;
  const int* slot_first;
  const int* entry_first;
  const int* staged;
  const Entry* entries;
  const int* term_slot;
  const double* term_coef;
  const int* group_columns;
  const int* group_column_first;
};

// The sum of entry `en` over the staged slots `st` (a lane's cell at stride kTile).
__host__ __device__ inline double entry_sum(const Args& a, int en, const double* st, int lane) {
  const Entry e = a.entries[en];
  double acc = 0;
  for (int t = e.first; t < e.last; ++t) acc += a.term_coef[t] * st[a.term_slot[t] * kTile + lane];
  return acc;
}

__global__ void values_and_cut(Args a) {  // launch A: group 0 of its tables
  extern __shared__ double st[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long tile = blockIdx.x, e = tile * kTile + lane;
  const bool live = e < a.n;
  const long long ee = live ? e : a.n - 1;
  for (int s = a.slot_first[0] + warp; s < a.slot_first[1]; s += a.warps)
    st[(s - a.slot_first[0]) * kTile + lane] = a.tape[tiled(ee, a.staged[s], a.slots)];
  __syncthreads();
  const int as = aux_size(a.ns, a.ni);
  for (int en = a.entry_first[0] + warp; en < a.entry_first[1]; en += a.warps) {
    const Entry x = a.entries[en];
    const double v = entry_sum(a, en, st, lane);
    if (live) a.aux[tiled(e, (x.c == kValueColumn ? 0 : a.ns + 1) + x.k, as)] = v;
  }
  // ds/dx: the cut s = p / (R T S), S = sum_m Y_m / W_m.
  const double* x = a.state + ee * a.ni;
  double S = 0;
  for (int m = 1; m < a.ni; ++m) S += x[m] * a.inv_weight[m - 1];
  const double T = x[0], s = kPressure / (kR * T * S);
  for (int c = warp; c < a.ni; c += a.warps) {
    const double g = c == 0 ? -s / T : -s * a.inv_weight[c - 1] / S;
    if (live) a.aux[tiled(e, 2 * (a.ns + 1) + c, as)] = g;
  }
}

__global__ void rows(Args a) {  // launch B: group blockIdx.y + 1 of the tables
  extern __shared__ double st[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = blockIdx.y + 1;
  const long long tile = blockIdx.x, e = tile * kTile + lane;
  const bool live = e < a.n;
  const long long ee = live ? e : a.n - 1;
  const int s0 = a.slot_first[g], ns1 = a.ns + 1, as = aux_size(a.ns, a.ni);
  const int c0 = a.group_column_first[g], nc = a.group_column_first[g + 1] - c0;
  double* cut = st + (a.slot_first[g + 1] - s0) * kTile;  // D[k][s], then ds/dx of the columns
  double* ds = cut + ns1 * kTile;
  for (int s = s0 + warp; s < a.slot_first[g + 1]; s += a.warps)
    st[(s - s0) * kTile + lane] = a.tape[tiled(ee, a.staged[s], a.slots)];
  for (int k = warp; k < ns1; k += a.warps) cut[k * kTile + lane] = a.aux[tiled(ee, ns1 + k, as)];
  for (int i = warp; i < nc; i += a.warps)
    ds[i * kTile + lane] = a.aux[tiled(ee, 2 * ns1 + a.group_columns[c0 + i], as)];
  __syncthreads();
  const int ni = a.ni;
  for (int en = a.entry_first[g] + warp; en < a.entry_first[g + 1]; en += a.warps) {
    const Entry x = a.entries[en];
    const int ci = (en - a.entry_first[g]) / ns1;  // entries are column-major in a group
    const double v = entry_sum(a, en, st, lane) + cut[x.k * kTile + lane] * ds[ci * kTile + lane];
    if (!live) continue;
    if (a.component_major)
      a.J[(static_cast<long long>(x.k) * ni + x.c) * a.n + e] = v;
    else
      a.J[e * ns1 * ni + static_cast<long long>(x.k) * ni + x.c] = v;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: tape_rows LAYOUT [--cells N] [--warps W] [--group-slots S] "
                 "[--reps R] [--host]\n");
    return 2;
  }
  const Layout l = read_layout(argv[1]);
  long long n = 100000;
  int warps = 8, limit = 200, reps = 15;
  bool host = false;
  for (int i = 2; i < argc; ++i) {
    const std::string f = argv[i];
    const auto next = [&] { return i + 1 < argc ? argv[++i] : "0"; };
    if (f == "--cells")
      n = std::atoll(next());
    else if (f == "--warps")
      warps = std::atoi(next());
    else if (f == "--group-slots")
      limit = std::atoi(next());
    else if (f == "--reps")
      reps = std::atoi(next());
    else if (f == "--host")
      host = true;
  }
  if (host) n = std::min<long long>(n, 64);
  const int ns1 = l.ns + 1, ni = l.ni;
  std::vector<std::vector<int>> groups{{kValueColumn, kCutColumn}};
  for (const auto& g : column_groups(l, limit)) groups.push_back(g);
  const Tables t = make_tables(groups, l);
  long long terms_b = 0;
  for (int en = t.entry_first[1]; en < t.entry_first.back(); ++en)
    terms_b += t.entries[en].last - t.entries[en].first;
  std::printf(
      "tape_rows: %d species, %d reactions, %lld slots a cell; %d column groups of at "
      "most %d slots (%d columns); terms a cell: A %d, B %lld\n",
      l.ns, l.nr, l.slots, t.groups - 1, t.max_group_slots, t.max_group_columns,
      t.entries[t.entry_first[1] - 1].last, terms_b);

  const Cells cells = random_cells(l, n);
  const long long tiles = cells.tiles;
  const std::vector<double>& tape = cells.tape;
  const std::vector<double>& state = cells.state;
  const std::vector<double>& inv_weight = cells.inv_weight;
  Args a{};
  a.n = n;
  a.slots = l.slots;
  a.ns = l.ns;
  a.ni = ni;
  a.warps = warps;
  std::vector<double> aux(tiles * kTile * aux_size(l.ns, ni)), J(n * ns1 * ni);
  if (host) {  // the launches' algorithm, lane by lane
    a.tape = tape.data();
    a.state = state.data();
    a.inv_weight = inv_weight.data();
    a.aux = aux.data();
    a.J = J.data();
    a.slot_first = t.slot_first.data();
    a.entry_first = t.entry_first.data();
    a.staged = t.slots.data();
    a.entries = t.entries.data();
    a.term_slot = t.term_slot.data();
    a.term_coef = t.term_coef.data();
    a.group_columns = t.group_columns.data();
    a.group_column_first = t.group_column_first.data();
    double worst = 0;
    std::vector<double> st(static_cast<size_t>(t.max_group_slots + ns1 + t.max_group_columns + 2) *
                           kTile);
    for (int g = 0; g < t.groups; ++g)
      for (long long e = 0; e < n; ++e) {
        const int lane = static_cast<int>(e % kTile);
        for (int s = t.slot_first[g]; s < t.slot_first[g + 1]; ++s)
          st[(s - t.slot_first[g]) * kTile + lane] = tape[tiled(e, t.slots[s], l.slots)];
        for (int en = t.entry_first[g]; en < t.entry_first[g + 1]; ++en) {
          const Entry x = t.entries[en];
          const double v = entry_sum(a, en, st.data(), lane);
          if (g == 0) {
            aux[tiled(e, (x.c == kValueColumn ? 0 : ns1) + x.k, aux_size(l.ns, ni))] = v;
            continue;
          }
          const double* s = &state[e * ni];
          double S = 0;
          for (int m = 1; m < ni; ++m) S += s[m] * inv_weight[m - 1];
          const double T = s[0], cut = kPressure / (kR * T * S);
          const double gc = x.c == 0 ? -cut / T : -cut * inv_weight[x.c - 1] / S;
          J[e * ns1 * ni + x.k * ni + x.c] = v + aux[tiled(e, ns1 + x.k, aux_size(l.ns, ni))] * gc;
        }
      }
    for (long long e = 0; e < n; ++e) {
      const std::vector<double> r = reference(l, tape, state, e);
      double scale = 0, diff = 0;
      for (int i = 0; i < ns1 * ni; ++i) {
        scale = std::max(scale, std::abs(r[i]));
        diff = std::max(diff, std::abs(r[i] - J[e * ns1 * ni + i]));
      }
      worst = std::max(worst, diff / scale);
    }
    std::printf(
        "host: %lld cells, largest difference from the direct sums %.3g of a cell's "
        "largest entry\n",
        n, worst);
    return worst < 1e-13 ? 0 : 1;
  }

  a.tape = upload(tape);
  a.state = upload(state);
  a.inv_weight = upload(inv_weight);
  cudaMalloc(&a.aux, aux.size() * sizeof(double));
  cudaMalloc(&a.J, J.size() * sizeof(double));
  a.slot_first = upload(t.slot_first);
  a.entry_first = upload(t.entry_first);
  a.staged = upload(t.slots);
  a.entries = upload(t.entries);
  a.term_slot = upload(t.term_slot);
  a.term_coef = upload(t.term_coef);
  a.group_columns = upload(t.group_columns);
  a.group_column_first = upload(t.group_column_first);
  const int threads = 32 * warps;
  const size_t smem_a = static_cast<size_t>(t.slot_first[1]) * kTile * sizeof(double);
  size_t smem_b = 0;
  for (int g = 1; g < t.groups; ++g) {
    const int cols = t.group_column_first[g + 1] - t.group_column_first[g];
    smem_b =
        std::max(smem_b, static_cast<size_t>(t.slot_first[g + 1] - t.slot_first[g] + ns1 + cols) *
                             kTile * sizeof(double));
  }
  cudaFuncSetAttribute(values_and_cut, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(smem_a));
  cudaFuncSetAttribute(rows, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_b));
  const dim3 grid_b(static_cast<unsigned>(tiles), static_cast<unsigned>(t.groups - 1));
  const auto run_a = [&] { values_and_cut<<<static_cast<unsigned>(tiles), threads, smem_a>>>(a); };
  const auto run_b = [&] { rows<<<grid_b, threads, smem_b>>>(a); };
  const auto none = [] {};
  std::printf("device smem: A %zu B, B %zu B a block of %d threads\n", smem_a, smem_b, threads);

  const double bw = copy_bandwidth(a.tape, static_cast<long long>(tape.size()), reps);
  for (int cm = 0; cm < 2; ++cm) {
    a.component_major = cm == 1;
    run_a();
    run_b();
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("launch failed: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    const float ms_a = median_ms(reps, none, run_a);
    const float ms_b = median_ms(reps, none, run_b);
    const float ms = median_ms(reps, none, [&] {
      run_a();
      run_b();
    });
    cudaMemcpy(J.data(), a.J, J.size() * sizeof(double), cudaMemcpyDeviceToHost);
    const double worst = worst_difference(l, cells, J, cm == 1, 97);
    // Bytes once: the tape, the state, J; A's auxiliary array written and read once a group.
    const double bytes = n * (l.slots + ni + double(ns1) * ni) * sizeof(double);
    std::printf(
        "RESULT tape_rows cells=%lld order=%s warps=%d groups=%d A_ms=%.4f B_ms=%.4f "
        "ms=%.4f floor_ms=%.4f copy_GBs=%.0f max_rel=%.3g\n",
        n, cm ? "component-major" : "cell-major", warps, t.groups - 1, ms_a, ms_b, ms,
        bytes / bw * 1e3, bw / 1e9, worst);
    if (worst > 1e-12) return 1;
  }
  return 0;
}

#include "jit/emit_assembly.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "jit/emit_element.h"

namespace dualjit::jit {

std::string_view assembly_name(AssemblyStrategy s) {
  return s == AssemblyStrategy::ScatterAtomic ? "scatter-atomic" : "gather-by-column";
}

std::string AssemblySpec::suffix() const {
  std::string out = strategy == AssemblyStrategy::ScatterAtomic ? "_sa" : "_gc";
  out += off_single ? "32" : "64";
  if (staged) out += "s";
  if (staged && off_direct) out += "d";
  if (staged && pre_reduce) out += "r";
  if (staged && store_rows) out += "o";
  if (staged && warp_specialized) out += "w";
  return out;
}

namespace {

// Warp-specialised gather: threads per warpgroup and the registers each warpgroup keeps (the
// two add up to twice the 128 that two blocks of 256 threads per SM get at launch).
constexpr int kWarpgroup = 128;
constexpr int kComputeRegisters = 216, kWriteOutRegisters = 40;

// A named barrier of both warpgroups, `op` (sync or arrive) on barrier first + (k & 1):
// immediate ids, so that ptxas reserves only the barriers used.
std::string pair_barrier(const std::string& op, int first) {
  const auto one = [&](int id) {
    return "asm volatile(\"bar." + op + " " + std::to_string(id) + ", " +
           std::to_string(2 * kWarpgroup) + ";\");";
  };
  return "if (k & 1) " + one(first + 1) + " else " + one(first);
}

std::string args_type(const DriverSpec& s) {
  return "DjArgs_" + s.symbol;
}

std::string node_of(int vertex) {
  return "(a.conn ? (long long)a.conn[e * a.vertices_per_element + " + std::to_string(vertex) +
         "] : e)";
}

std::string slot_of(int row_vertex, int col_vertex) {
  return "a.slots[(e * a.vertices_per_element + " + std::to_string(row_vertex) +
         ") * a.vertices_per_element + " + std::to_string(col_vertex) + "]";
}

std::string off_type(const AssemblySpec& a) {
  return a.off_single ? "float" : "double";
}

// Slot whose B columns are the directions of chunk `c` (GatherByColumn plans have W = B).
int slot_of_chunk(const DerivativePlan& plan, int c, int block) {
  return plan.chunks[c].first_columns.empty() ? -1 : plan.chunks[c].first_columns[0] / block;
}

// The staged gather's shared arrays, in elements (doubles, then ints), for a tile of T
// elements per side: one staging buffer (every side's values, then the d1 rows the sides
// share, odd strides as in staged_scatter_entry), the running sums per node and side, each
// node's run per side and the tile's off-diagonal slots. Both gather entries lay them out from
// here, and the byte counts below come from here.
struct GatherShared {
  int values = 0, d1 = 0, racc = 0, dacc = 0, runs = 0, slots = 0;
  int staging() const { return values + d1; }
};
GatherShared gather_shared(const DriverSpec& s, const AssemblySpec& a) {
  const int T = s.layout.elements_per_block, k = a.vertices, B = a.block;
  const int nodes = gather_max_nodes(T), ks = std::max(k - 1, 1);
  GatherShared g;
  g.values = k * T * (std::max(s.n_outputs, 1) | 1);
  g.d1 = a.jacobian ? T * (static_cast<int>(s.first_size) | 1) : 0;
  g.racc = k * nodes * B;
  g.dacc = a.jacobian ? k * nodes * B * B : 0;
  g.runs = k * (nodes + 1);
  g.slots = a.jacobian ? k * T * ks : 0;
  return g;
}

// Static shared memory of a staged kernel: values, local Jacobians (odd strides, see
// staged_scatter_entry), nodes and slots of the block's elements, pre-reduction run ends; for
// the staged gather its GatherShared arrays.
size_t staged_shared_bytes(const DriverSpec& s, const AssemblySpec& a) {
  if (a.strategy == AssemblyStrategy::GatherByColumn) {
    const GatherShared g = gather_shared(s, a);
    return 8 * size_t(g.staging() + g.racc + g.dacc) + 4 * size_t(g.runs + g.slots);
  }
  const size_t b = s.layout.elements_per_block, k = a.vertices;
  size_t words = b * (std::max(s.n_outputs, 1) | 1);
  if (a.jacobian) words += b * (s.first_size | 1);
  words += b * k;
  if (a.jacobian) words += b * k * k;
  size_t bytes = words * 8;
  if (a.pre_reduce) bytes += b * 4;  // run ends
  return bytes;
}

// Two blocks per SM on an H100 (228 KiB of shared memory per SM, 1 KiB of it per block for the
// driver).
constexpr size_t kWarpSpecializedSharedMax = 112 * 1024;

// The input slot bound to element vertex `lv` (-1 when none); GatherByColumn differentiates
// with respect to it alone when it runs the element for that vertex.
int slot_of_vertex(const DriverSpec& s, int lv) {
  int slot = -1;
  for (size_t sl = 0; sl < s.input_vertex.size(); ++sl) {
    if (s.input_vertex[sl] == lv) slot = static_cast<int>(sl);
  }
  return slot;
}

}  // namespace

size_t assembly_dynamic_shared_bytes(const DriverSpec& s, const AssemblySpec& a) {
  if (!a.warp_specialized) return 0;
  const GatherShared g = gather_shared(s, a);  // two staging buffers
  return 8 * size_t(2 * g.staging() + g.racc + g.dacc) + 4 * size_t(g.runs + g.slots);
}

void check_assembly(const DriverSpec& s, const DerivativePlan& plan, const AssemblySpec& a,
                    const std::string& kernel_name) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("kernel '" + kernel_name + "': " +
                                std::string(assembly_name(a.strategy)) + " assembly: " + what);
  };
  if (plan.mode != Mode::Jacobian && plan.mode != Mode::Value) {
    fail("assembles residuals and Jacobians (mode value or jacobian), not " +
         std::string(mode_name(plan.mode)));
  }
  if (a.jacobian != (plan.mode == Mode::Jacobian)) fail("mode and spec.jacobian disagree");
  for (int size : s.slot_size) {
    if (size != a.block) fail("every input slot must be B = " + std::to_string(a.block) + " wide");
  }
  if (s.n_outputs != static_cast<int>(a.output_scatter.size()) * a.block) {
    fail("scatter rules for " + std::to_string(a.output_scatter.size()) + " output slots of B = " +
         std::to_string(a.block) + " do not cover " + std::to_string(s.n_outputs) + " outputs");
  }
  for (const auto& rules : a.output_scatter) {
    for (const auto& [v, sign] : rules) {
      if (v < 0 || v >= a.vertices) fail("scatter to vertex " + std::to_string(v));
    }
  }
  for (int v : s.input_vertex) {
    if (v >= a.vertices) fail("input bound to vertex " + std::to_string(v));
  }
  if ((a.off_direct || a.pre_reduce || a.store_rows) && !a.staged)
    fail("direct, pre-reduced or stored writes need staging");
  const bool gather = a.strategy == AssemblyStrategy::GatherByColumn;
  if (a.pre_reduce && gather) fail("gather by column needs no pre-reduction");
  if (a.store_rows && !gather) fail("only gather by column owns its rows");
  if (a.staged && gather && s.layout.threads_per_element != 1)
    fail("the staged gather runs one element per thread (layout 1xT)");
  if (gather && a.jacobian) {
    for (int lv = 0; lv < a.vertices; ++lv) {
      const auto n = std::count(s.input_vertex.begin(), s.input_vertex.end(), lv);
      if (n > 1)
        fail("vertex " + std::to_string(lv) + " binds " + std::to_string(n) +
             " input slots; gather by column differentiates one per vertex");
    }
  }
  if (a.warp_specialized && !(gather && a.staged))
    fail("warp specialisation is a staged gather by column");
  if (a.warp_specialized) {
    if (assembly_dynamic_shared_bytes(s, a) > kWarpSpecializedSharedMax)
      fail("staging " + std::to_string(s.layout.elements_per_block) +
           " elements per side twice needs " + std::to_string(assembly_dynamic_shared_bytes(s, a)) +
           " bytes of shared memory, over " + std::to_string(kWarpSpecializedSharedMax) +
           ": use fewer elements per block");
  } else if (a.staged && staged_shared_bytes(s, a) > 48 * 1024) {
    fail("staging " + std::to_string(s.layout.elements_per_block) + " elements needs " +
         std::to_string(staged_shared_bytes(s, a)) +
         " bytes of shared memory, over the 48 KiB static limit: use fewer elements per block");
  }
  if (a.strategy == AssemblyStrategy::GatherByColumn && a.jacobian) {
    if (plan.width != a.block) fail("needs W = B (one chunk per vertex)");
    for (size_t c = 0; c < plan.chunks.size(); ++c) {
      if (!plan.chunks[c].writes_values) fail("every chunk must write values");
    }
  }
}

std::string emit_assembly_driver(const DriverSpec& s, const DerivativePlan& plan,
                                 const AssemblySpec& a) {
  const int B = a.block, n_in = s.n_inputs;
  const auto dim = [](size_t n) { return std::to_string(std::max<size_t>(n, 1)); };
  std::ostringstream os;
  const std::string locals = "  double val[" + dim(s.n_outputs) + "], d1[" + dim(s.first_size) +
                             "], d2[1];\n  " + off_type(a) + "* off = (" + off_type(a) +
                             "*)a.off;\n  (void)off; (void)d2;\n";
  const auto call = [&](int c) {
    return s.symbol + "_c" + std::to_string(c) + "(x, v, p, u, val, d1, d2);\n";
  };
  if (a.strategy == AssemblyStrategy::ScatterAtomic) {
    os << "DJ_FN void " << s.symbol << "_assemble(const " << args_type(s)
       << "& a, long long e, int group, int groups) {\n"
       << emit_element_loads(s) << locals;
    os << "  for (int c = group; c < " << s.n_chunks << "; c += groups) {\n    switch (c) {\n";
    for (int c = 0; c < s.n_chunks; ++c) {
      const Chunk& ch = plan.chunks[c];
      os << "      case " << c << ": {\n        " << call(c);
      if (ch.writes_values) {
        for (size_t o = 0; o < a.output_scatter.size(); ++o) {
          for (const auto& [vx, sign] : a.output_scatter[o]) {
            for (int i = 0; i < B; ++i) {
              os << "        dj_atomic_add(&a.residual[" << node_of(vx) << " * " << B << " + " << i
                 << "], " << c_literal(sign) << " * val[" << o * B + i << "]);\n";
            }
          }
        }
      }
      if (a.jacobian) {
        for (int j : ch.first_columns) {
          const int slot = j / B, cj = j % B, vb = s.input_vertex[slot];
          for (size_t o = 0; o < a.output_scatter.size(); ++o) {
            for (const auto& [va, sign] : a.output_scatter[o]) {
              for (int i = 0; i < B; ++i) {
                const std::string value =
                    c_literal(sign) + " * d1[" + std::to_string((o * B + i) * n_in + j) + "]";
                if (va == vb) {
                  os << "        dj_atomic_add(&a.diag[" << node_of(va) << " * " << B * B << " + "
                     << i * B + cj << "], " << value << ");\n";
                } else {
                  os << "        dj_atomic_add(&off[" << slot_of(va, vb) << " * " << B * B << " + "
                     << i * B + cj << "], " << value << ");\n";
                }
              }
            }
          }
        }
      }
      os << "        break;\n      }\n";
    }
    os << "    }\n  }\n}\n";
    if (a.staged) {
      // Staged: the chunk functions write straight into the block's shared staging area.
      os << "DJ_FN void " << s.symbol << "_stage(const " << args_type(s)
         << "& a, long long e, int group, int groups, double* __restrict__ val, double* "
            "__restrict__ d1) {\n"
         << emit_element_loads(s) << "  double d2[1];\n  (void)d2;\n"
         << "  for (int c = group; c < " << s.n_chunks << "; c += groups) {\n    switch (c) {\n";
      for (int c = 0; c < s.n_chunks; ++c)
        os << "      case " << c << ": " << call(c) << "        break;\n";
      os << "    }\n  }\n}\n";
    }
    return os.str();
  }
  // GatherByColumn: element e seen from its local vertex lv = the node this thread owns,
  // differentiated with respect to that vertex's slot alone (chunk_of[lv]; values only, from
  // chunk 0, when it has none).
  std::vector<int> chunk_of(a.vertices, -1);
  if (a.jacobian) {
    for (int c = 0; c < s.n_chunks; ++c) {
      const int sl = slot_of_chunk(plan, c, B);
      if (sl >= 0 && s.input_vertex[sl] < a.vertices) chunk_of[s.input_vertex[sl]] = c;
    }
  }
  if (a.staged) {
    // Staged (CUDA): the tile's local results go to its shared staging area.
    os << "DJ_FN void " << s.symbol << "_side(const " << args_type(s)
       << "& a, long long e, int lv, double* __restrict__ val, double* __restrict__ d1) {\n"
       << emit_element_loads(s) << "  double d2[1];\n  (void)d2;\n  switch (lv) {\n";
    for (int lv = 0; lv < a.vertices; ++lv)
      os << "    case " << lv << ": " << call(std::max(chunk_of[lv], 0)) << "      break;\n";
    os << "  }\n}\n";
  }
  os << "DJ_FN void " << s.symbol << "_gather(const " << args_type(s)
     << "& a, long long e, int lv, double* __restrict__ rsum, double* __restrict__ dsum) {\n"
     << emit_element_loads(s) << locals << "  switch (lv) {\n";
  for (int lv = 0; lv < a.vertices; ++lv) {
    os << "    case " << lv << ": {\n";
    const int chunk = chunk_of[lv];
    const int slot = chunk >= 0 ? slot_of_chunk(plan, chunk, B) : -1;
    os << "      " << call(chunk >= 0 ? chunk : 0);
    for (size_t o = 0; o < a.output_scatter.size(); ++o) {
      for (const auto& [vx, sign] : a.output_scatter[o]) {
        if (vx != lv) continue;
        for (int i = 0; i < B; ++i) {
          os << "      rsum[" << i << "] += " << c_literal(sign) << " * val[" << o * B + i
             << "];\n";
        }
      }
    }
    if (slot >= 0) {
      for (size_t o = 0; o < a.output_scatter.size(); ++o) {
        for (const auto& [vx, sign] : a.output_scatter[o]) {
          for (int i = 0; i < B; ++i) {
            for (int cj = 0; cj < B; ++cj) {
              const std::string value = c_literal(sign) + " * d1[" +
                                        std::to_string((o * B + i) * n_in + slot * B + cj) + "]";
              if (vx == lv) {
                os << "      dsum[" << i * B + cj << "] += " << value << ";\n";
              } else {
                // Block (node of vx, this node): column of this node, written by this thread only.
                os << "      off[" << slot_of(vx, lv) << " * " << B * B << " + " << i * B + cj
                   << "] += " << value << ";\n";
              }
            }
          }
        }
      }
    }
    os << "      break;\n    }\n";
  }
  os << "  }\n}\n";
  return os.str();
}

namespace {

std::string gather_node_body(const DriverSpec& s, const AssemblySpec& a, const std::string& i,
                             const std::string& indent) {
  const int B = a.block;
  // The incidence is side-major (mesh::Incidence): each side's run is summed on its own, then
  // the runs side by side, the order the staged GPU gather sums in (assembly_spec.h).
  std::ostringstream os;
  os << indent << "double rsum[" << B << "], dsum[" << B * B << "], rside[" << B << "], dside["
     << B * B << "];\n"
     << indent << "for (int r = 0; r < " << B << "; ++r) rsum[r] = 0.0;\n"
     << indent << "for (int r = 0; r < " << B * B << "; ++r) dsum[r] = 0.0;\n"
     << indent << "for (long long q = a.inc_ptr[" << i << "]; q < a.inc_ptr[" << i << " + 1];) {\n"
     << indent << "  const int lv = a.inc_vertex[q];\n"
     << indent << "  for (int r = 0; r < " << B << "; ++r) rside[r] = 0.0;\n"
     << indent << "  for (int r = 0; r < " << B * B << "; ++r) dside[r] = 0.0;\n"
     << indent << "  for (; q < a.inc_ptr[" << i << " + 1] && a.inc_vertex[q] == lv; ++q)\n"
     << indent << "    " << s.symbol << "_gather(a, a.inc_element[q], lv, rside, dside);\n"
     << indent << "  for (int r = 0; r < " << B << "; ++r) rsum[r] += rside[r];\n"
     << indent << "  for (int r = 0; r < " << B * B << "; ++r) dsum[r] += dside[r];\n"
     << indent << "}\n"
     << indent << "for (int r = 0; r < " << B << "; ++r) a.residual[" << i << " * " << B
     << " + r] += rsum[r];\n";
  if (a.jacobian) {
    os << indent << "for (int r = 0; r < " << B * B << "; ++r) a.diag[" << i << " * " << B * B
       << " + r] += dsum[r];\n";
  }
  return os.str();
}

// One unit of staged write-out: a B-wide residual row or a B x B Jacobian block of one
// element, going to a node's residual row, a node's diagonal block or an off-diagonal slot.
struct StagedUnit {
  bool block = false;  // B x B Jacobian block (else a residual row)
  int o = 0, va = 0, sl = 0, vb = 0;
  double sign = 1;
  bool diag() const { return !block || va == vb; }
};

// Shared-memory spelling of unit u's entry (row, col or q) for element `f`; `val_base`
// prefixes the value index (the staged gather keeps one value area per side).
std::string staged_source(const StagedUnit& u, const std::string& f, int B, int n_in, int d1_stride,
                          int out_stride, const std::string& val_base = "") {
  if (!u.block)
    return "dj_val[" + val_base + f + " * " + std::to_string(out_stride) + " + " +
           std::to_string(u.o * B) + " + q]";
  return "dj_d1[" + f + " * " + std::to_string(d1_stride) + " + (" + std::to_string(u.o * B) +
         " + row) * " + std::to_string(n_in) + " + " + std::to_string(u.sl * B) + " + col]";
}

// Opens a loop in which thread i of the block takes entries i, i + threads, ... of the
// flattened (element f, entry q) range, `width` entries per element.
std::string entry_loop_head(const DriverSpec& s, int width) {
  return "  for (int i = threadIdx.x; i < n_here * " + std::to_string(width) +
         "; i += " + std::to_string(s.layout.block_threads()) + ") {\n    const int f = i / " +
         std::to_string(width) + ", q = i - f * " + std::to_string(width) + ";\n";
}

// Row and column of entry q of a B x B block.
std::string row_col(int B) {
  return "    const int row = q / " + std::to_string(B) + ", col = q - row * " + std::to_string(B) +
         ";\n";
}

// One flattened write-out loop: thread i of the block takes entries i, i + threads, ... of
// the (element, entry) range, so every lane is busy (a 5x5 block has 25 entries: one element
// per warp and step would leave 7 of 32 lanes idle), a warp writes consecutive entries of at
// most two blocks (coalesced), and the unrolled loop keeps several independent shared loads
// and atomics in flight.
std::string flat_loop(const DriverSpec& s, const AssemblySpec& a,
                      const std::vector<StagedUnit>& units, bool blocks, int d1_stride,
                      int out_stride) {
  const int B = a.block, K = a.vertices, n_in = s.n_inputs, BB = B * B;
  const int width = blocks ? BB : B;
  std::ostringstream body;
  for (const StagedUnit& u : units) {
    if (u.block != blocks) continue;
    const std::string value =
        c_literal(u.sign) + " * " + staged_source(u, "f", B, n_in, d1_stride, out_stride);
    const std::string node =
        "dj_node[f * " + std::to_string(K) + " + " + std::to_string(u.va) + "]";
    if (!u.block) {
      body << "      dj_atomic_add(&a.residual[" << node << " * " << B << " + q], " << value
           << ");\n";
    } else if (u.diag()) {
      body << "      dj_atomic_add(&a.diag[" << node << " * " << BB << " + q], " << value << ");\n";
    } else {
      const std::string slot =
          "dj_slot[f * " + std::to_string(K * K) + " + " + std::to_string(u.va * K + u.vb) + "]";
      if (a.off_direct) {
        body << "      off[" << slot << " * " << BB << " + q] = (" << off_type(a) << ")(" << value
             << ");\n";
      } else {
        body << "      dj_atomic_add(&off[" << slot << " * " << BB << " + q], " << value << ");\n";
      }
    }
  }
  if (body.str().empty()) return {};
  std::ostringstream os;
  os << "  #pragma unroll 4\n" << entry_loop_head(s, width);
  if (blocks) os << row_col(B);
  os << "    {\n" << body.str() << "    }\n  }\n";
  return os.str();
}

// Pre-reduced write-out of the units that add to vertex 0's diagonal block (blocks) or
// residual row: elements come sorted by vertex 0 (an edge list sorted by (v0, v1): about 7
// consecutive edges per node on a tet mesh), so the first element of each run sums the run's
// contributions (independent shared loads) and adds once: one fp64 atomic per run and entry
// instead of one per element. On the Roe FUN3D assembly (H100) it removes ~40% of the fp64
// atomics yet runs 25% slower: the added reduction lengthens the write-out phase, which at 8
// warps per SM adds to each block's time (bench/RESULTS.md); a tuning candidate.
std::string reduced_loop(const DriverSpec& s, const AssemblySpec& a,
                         const std::vector<StagedUnit>& units, bool blocks, int d1_stride,
                         int out_stride) {
  const int B = a.block, K = a.vertices, n_in = s.n_inputs, BB = B * B;
  const int width = blocks ? BB : B;
  std::string sum;
  for (const StagedUnit& u : units) {
    if (u.block != blocks || !u.diag() || u.va != 0) continue;
    sum +=
        " + " + c_literal(u.sign) + " * " + staged_source(u, "g", B, n_in, d1_stride, out_stride);
  }
  if (sum.empty()) return {};
  std::ostringstream os;
  os << entry_loop_head(s, width) << "    const int end = dj_run[f];\n"
     << "    if (end < 0) continue;\n";
  if (blocks) os << row_col(B);
  os << "    double acc = 0.0;\n"
     << "    #pragma unroll 4\n"
     << "    for (int g = f; g < end; ++g) acc +=" << sum.substr(2) << ";\n"
     << "    dj_atomic_add(&a." << (blocks ? "diag" : "residual") << "[dj_node[f * " << K << "] * "
     << width << " + q], acc);\n"
     << "  }\n";
  return os.str();
}

std::string staged_write_out(const DriverSpec& s, const AssemblySpec& a,
                             const std::vector<StagedUnit>& units, int d1_stride, int out_stride) {
  if (!a.pre_reduce) {
    return flat_loop(s, a, units, false, d1_stride, out_stride) +
           flat_loop(s, a, units, true, d1_stride, out_stride);
  }
  std::vector<StagedUnit> rest;  // units not pre-reduced: other vertices, off-diagonal blocks
  for (const StagedUnit& u : units) {
    if (!(u.diag() && u.va == 0)) rest.push_back(u);
  }
  return reduced_loop(s, a, units, false, d1_stride, out_stride) +
         reduced_loop(s, a, units, true, d1_stride, out_stride) +
         flat_loop(s, a, rest, false, d1_stride, out_stride) +
         flat_loop(s, a, rest, true, d1_stride, out_stride);
}

// Pre-reduction: the first element of each run of equal vertex 0 records where the run ends
// (-1 for the others). Runs before the element arithmetic, so its latency overlaps other
// warps' arithmetic; the barrier that ends the arithmetic publishes it.
std::string pre_reduce_setup(const DriverSpec& s, const AssemblySpec& a) {
  const int K = a.vertices, tb = s.layout.block_threads();
  std::ostringstream os;
  os << "  __syncthreads();\n"
     << "  for (int f = threadIdx.x; f < n_here; f += " << tb << ") {\n"
     << "    const long long v0 = dj_node[f * " << K << "];\n"
     << "    int end = -1;\n"
     << "    if (f == 0 || dj_node[(f - 1) * " << K << "] != v0) {\n"
     << "      end = f + 1;\n"
     << "      while (end < n_here && dj_node[end * " << K << "] == v0) ++end;\n"
     << "    }\n"
     << "    dj_run[f] = end;\n"
     << "  }\n";
  return os.str();
}

std::string staged_scatter_entry(const DriverSpec& s, const AssemblySpec& a) {
  const int t = s.layout.threads_per_element, b = s.layout.elements_per_block;
  const int K = a.vertices, tb = t * b;
  // Odd strides in doubles keep the staging writes (one element per lane) free of bank
  // conflicts.
  const int d1_stride = static_cast<int>(s.first_size) | 1;  // as in staged_shared_bytes
  const int out_stride = std::max(s.n_outputs, 1) | 1;
  std::vector<StagedUnit> units;
  for (size_t o = 0; o < a.output_scatter.size(); ++o) {
    for (const auto& [va, sign] : a.output_scatter[o]) {
      units.push_back({false, static_cast<int>(o), va, 0, 0, sign});
    }
  }
  if (a.jacobian) {
    for (size_t o = 0; o < a.output_scatter.size(); ++o) {
      for (const auto& [va, sign] : a.output_scatter[o]) {
        for (size_t sl = 0; sl < s.input_vertex.size(); ++sl) {
          units.push_back(
              {true, static_cast<int>(o), va, static_cast<int>(sl), s.input_vertex[sl], sign});
        }
      }
    }
  }
  std::ostringstream os;
  os << "extern \"C\" __global__ void __launch_bounds__(" << tb << bounds_min(s) << ") " << s.symbol
     << "(const " << args_type(s) << " a) {\n"
     << "  __shared__ double dj_val[" << b * out_stride << "];\n";
  if (a.jacobian) {
    os << "  __shared__ double dj_d1[" << b * d1_stride << "];\n"
       << "  __shared__ long long dj_slot[" << b * K * K << "];\n";
  }
  os << "  __shared__ long long dj_node[" << b * K << "];\n";
  if (a.pre_reduce) os << "  __shared__ int dj_run[" << b << "];\n";
  os << "  " << off_type(a) << "* off = (" << off_type(a) << "*)a.off;\n"
     << "  (void)off;\n"
     << "  const long long e0 = (long long)blockIdx.x * " << b << ";\n"
     << "  const int n_here = (int)(a.n_elements - e0 < " << b << " ? a.n_elements - e0 : " << b
     << ");\n"
     << "  for (int i = threadIdx.x; i < n_here * " << K << "; i += " << tb << ") {\n"
     << "    dj_node[i] = a.conn ? (long long)a.conn[e0 * " << K << " + i] : e0 + i / " << K
     << ";\n  }\n";
  if (a.jacobian) {
    os << "  for (int i = threadIdx.x; i < n_here * " << K * K << "; i += " << tb
       << ") dj_slot[i] = a.slots[e0 * " << K * K << " + i];\n";
  }
  if (a.pre_reduce) os << pre_reduce_setup(s, a);
  os << "  {\n"
     << "    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;\n"
     << "    const int el = (warp / " << t << ") * 32 + lane;\n"
     << "    if (el < n_here) " << s.symbol << "_stage(a, e0 + el, warp % " << t << ", " << t
     << ", dj_val + el * " << out_stride << ", "
     << (a.jacobian ? "dj_d1 + el * " + std::to_string(d1_stride) : std::string("nullptr"))
     << ");\n"
     << "  }\n"
     << "  __syncthreads();\n";
  os << staged_write_out(s, a, units, d1_stride, out_stride);
  os << "}\n";
  return os.str();
}

// The pieces of a staged gather by column, for a group of `threads` threads whose index is
// `tid` (the whole block, or the write-out warpgroup of the warp-specialised kernel). Tile:
// T elements per side; the block's shared arrays are named dj_val, dj_d1 (staging), dj_racc,
// dj_dacc (running sums per side), dj_run (each node's run per side in the tile) and dj_slot.
struct GatherTile {
  // Per side: its input slot, the summands of its residual rows and diagonal blocks (added one
  // at a time in this order) and its off-diagonal block writes (f: the element's place in the
  // side's tile).
  struct Side {
    int slot = -1;
    std::vector<std::string> rows, diag;
    std::string offs;
  };
  const DriverSpec& s;
  const AssemblySpec& a;
  int T, K, B, BB, nodes, ks, d1_stride, out_stride;
  GatherShared mem;
  std::vector<Side> sides;

  GatherTile(const DriverSpec& spec, const AssemblySpec& as)
      : s(spec),
        a(as),
        T(spec.layout.block_threads()),
        K(as.vertices),
        B(as.block),
        BB(as.block * as.block),
        nodes(gather_max_nodes(T)),
        ks(std::max(K - 1, 1)),
        d1_stride(static_cast<int>(spec.first_size) | 1),  // as in gather_shared
        out_stride(std::max(spec.n_outputs, 1) | 1),
        mem(gather_shared(spec, as)),
        sides(K) {
    for (int lv = 0; lv < K; ++lv) {
      Side& sd = sides[lv];
      sd.slot = a.jacobian ? slot_of_vertex(s, lv) : -1;
      for (size_t o = 0; o < a.output_scatter.size(); ++o) {
        for (const auto& [vx, sign] : a.output_scatter[o]) {
          const StagedUnit row{false, static_cast<int>(o), vx, 0, lv, sign};
          const StagedUnit blk{true, static_cast<int>(o), vx, std::max(sd.slot, 0), lv, sign};
          const std::string sg = c_literal(sign) + " * ";
          // Each side's values have their own area (every chunk writes them); the Jacobian
          // columns of different sides are disjoint, so the sides share one d1 row.
          const std::string row_src =
              staged_source(row, "f", B, s.n_inputs, d1_stride, out_stride, values_of(lv) + " + ");
          const std::string blk_src = staged_source(blk, "f", B, s.n_inputs, d1_stride, out_stride);
          if (vx == lv) {
            sd.rows.push_back(sg + row_src);
            if (sd.slot >= 0) sd.diag.push_back(sg + blk_src);
            continue;
          }
          if (sd.slot < 0) continue;
          const std::string target = "off[(long long)dj_slot[" + std::to_string(lv * T * ks) +
                                     " + f * " + std::to_string(ks) + " + " +
                                     std::to_string(vx < lv ? vx : vx - 1) + "] * " +
                                     std::to_string(BB) + " + q]";
          if (a.off_direct) {
            sd.offs += "      " + target + " = (" + off_type(a) + ")(" + sg + blk_src + ");\n";
          } else {
            sd.offs += "      dj_atomic_add(&" + target + ", " + sg + blk_src + ");\n";
          }
        }
      }
    }
  }
  std::string values_of(int lv) const { return std::to_string(lv * T * out_stride); }
  // Doubles of one staging buffer (values of every side, then the shared d1 rows).

  // n0, nn, the sides' ranges (ptrL, startL, endL) and n_tiles of node block `nb`.
  std::string node_block(const std::string& nb, const std::string& in) const {
    std::ostringstream os;
    os << in << "const long long n0 = a.node_blocks[2 * " << nb << "], n1 = a.node_blocks[2 * "
       << nb << " + 1];\n"
       << in << "const int nn = (int)(n1 - n0);\n"
       << in << "long long n_tiles = 0;\n";
    for (int lv = 0; lv < K; ++lv) {
      const std::string l = std::to_string(lv);
      os << in << "const long long* ptr" << l << " = a.side_ptr + " << l << " * (a.n_nodes + 1);\n"
         << in << "const long long start" << l << " = ptr" << l << "[n0], end" << l << " = ptr" << l
         << "[n1];\n"
         << in << "if ((end" << l << " - start" << l << " + " << T - 1 << ") / " << T
         << " > n_tiles) n_tiles = (end" << l << " - start" << l << " + " << T - 1 << ") / " << T
         << ";\n";
    }
    return os.str();
  }
  // Running sums, per side (the side's rows one after another, as the nodes), set to zero.
  std::string zero_sums(const std::string& tid, int threads, const std::string& in) const {
    std::ostringstream os;
    for (int lv = 0; lv < K; ++lv) {
      os << in << "for (int i = " << tid << "; i < nn * " << B << "; i += " << threads
         << ") dj_racc[" << lv * nodes * B << " + i] = 0.0;\n";
      if (a.jacobian)
        os << in << "for (int i = " << tid << "; i < nn * " << BB << "; i += " << threads
           << ") dj_dacc[" << lv * nodes * BB << " + i] = 0.0;\n";
    }
    return os.str();
  }
  // baseL, hereL of the tile.
  std::string tile_range(const std::string& in) const {
    std::ostringstream os;
    for (int lv = 0; lv < K; ++lv) {
      const std::string l = std::to_string(lv);
      os << in << "const long long base" << l << " = start" << l << " + tile * " << T << ";\n"
         << in << "const int here" << l << " = (int)(end" << l << " - base" << l << " < 0 ? 0 : end"
         << l << " - base" << l << " < " << T << " ? end" << l << " - base" << l << " : " << T
         << ");\n";
    }
    return os.str();
  }
  // Each node's run in the tile per side, and the tile's off-diagonal slots.
  std::string runs_and_slots(const std::string& tid, int threads, const std::string& in) const {
    std::ostringstream os;
    for (int lv = 0; lv < K; ++lv) {
      const std::string l = std::to_string(lv);
      os << in << "for (int m = " << tid << "; m <= nn; m += " << threads << ") {\n"
         << in << "  const long long r = ptr" << l << "[n0 + m] - base" << l << ";\n"
         << in << "  dj_run[" << lv * (nodes + 1) << " + m] = (int)(r < 0 ? 0 : r > here" << l
         << " ? here" << l << " : r);\n"
         << in << "}\n";
      if (!sides[lv].offs.empty()) {
        os << in << "for (int i = " << tid << "; i < here" << l << " * " << ks
           << "; i += " << threads << ") dj_slot[" << lv * T * ks << " + i] = a.side_slot[base" << l
           << " * " << ks << " + i];\n";
      }
    }
    return os.str();
  }
  // Element f of side lv staged (f < hereL checked by the caller).
  std::string run_side(int lv, const std::string& f) const {
    const std::string l = std::to_string(lv);
    return s.symbol + "_side(a, (long long)a.side_element[base" + l + " + " + f + "], " + l +
           ", dj_val + " + values_of(lv) + " + " + f + " * " + std::to_string(out_stride) + ", " +
           (a.jacobian ? "dj_d1 + " + f + " * " + std::to_string(d1_stride)
                       : std::string("nullptr")) +
           ");\n";
  }
  // The tile's off-diagonal blocks, every lane busy over the flattened (element, entry) range:
  // consecutive lanes write consecutive entries of a block.
  std::string write_out(const std::string& tid, int threads, const std::string& in) const {
    std::ostringstream os;
    for (int lv = 0; lv < K; ++lv) {
      if (sides[lv].offs.empty()) continue;
      os << in << "#pragma unroll 4\n"
         << in << "for (int i = " << tid << "; i < here" << lv << " * " << BB
         << "; i += " << threads << ") {\n"
         << in << "  const int f = i / " << BB << ", q = i - f * " << BB << ";\n"
         << in << "  const int row = q / " << B << ", col = q - row * " << B << ";\n"
         << sides[lv].offs << in << "}\n";
    }
    return os.str();
  }
  // Per node, side and entry: the side's run of the tile added, in element order, to the
  // side's running sum (a hub's run may span several tiles); the sides are added once, at the
  // end (assembly_spec.h): the same order for any tile size.
  std::string reduce(const std::string& tid, int threads, const std::string& in) const {
    std::ostringstream os;
    for (bool blocks : {false, true}) {
      const int width = blocks ? BB : B;
      const std::string acc = blocks ? "dj_dacc" : "dj_racc";
      std::ostringstream body;
      for (int lv = 0; lv < K; ++lv) {
        const auto& terms = blocks ? sides[lv].diag : sides[lv].rows;
        if (terms.empty()) continue;
        const int r = lv * (nodes + 1);
        const std::string side_acc = acc + "[" + std::to_string(lv * nodes * width) + " + i]";
        body << in << "  { double s = " << side_acc << ";\n"
             << in << "    for (int f = dj_run[" << r << " + m]; f < dj_run[" << r
             << " + m + 1]; ++f) {";
        for (const std::string& t : terms) body << " s += " << t << ";";
        body << " }\n" << in << "    " << side_acc << " = s; }\n";
      }
      if (body.str().empty()) continue;
      os << in << "for (int i = " << tid << "; i < nn * " << width << "; i += " << threads
         << ") {\n"
         << in << "  const int m = i / " << width << ", q = i - m * " << width << ";\n";
      if (blocks) os << in << "  const int row = q / " << B << ", col = q - row * " << B << ";\n";
      os << body.str() << in << "}\n";
    }
    return os.str();
  }
  // Each node's residual row and diagonal block: its sides' sums, side by side, stored (the
  // first term) or added.
  std::string store_rows(const std::string& tid, int threads, const std::string& in) const {
    const auto total = [&](bool blocks) {
      const int width = blocks ? BB : B;
      const std::string acc = blocks ? "dj_dacc" : "dj_racc";
      std::string sum = "double tot = 0.0;";
      for (int lv = 0; lv < K; ++lv) {
        if (!(blocks ? sides[lv].diag : sides[lv].rows).empty())
          sum += " tot += " + acc + "[" + std::to_string(lv * nodes * width) + " + i];";
      }
      return sum;
    };
    const std::string op = a.store_rows ? " = " : " += ";
    std::ostringstream os;
    os << in << "for (int i = " << tid << "; i < nn * " << B << "; i += " << threads << ") { "
       << total(false) << " a.residual[n0 * " << B << " + i]" << op << "tot; }\n";
    if (a.jacobian) {
      os << in << "for (int i = " << tid << "; i < nn * " << BB << "; i += " << threads << ") { "
         << total(true) << " a.diag[n0 * " << BB << " + i]" << op << "tot; }\n";
    }
    return os.str();
  }
};

// Staged gather by column (AssemblySpec::store_rows and the comment there): the block owns
// nodes [n0, n1); in each tile thread t runs the t-th element of every side of those nodes
// (one chunk per side, every lane of a warp differentiating with respect to the same vertex),
// then the block writes the tile's off-diagonal blocks of its columns and sums its residual
// rows and diagonal blocks per node into shared accumulators, written once at the end. One
// barrier-to-barrier phase per tile for all sides: at 8 warps per SM a phase per side
// measured 3.18 ms against a per-side loop (bench/RESULTS.md, fifth session).
std::string staged_gather_entry(const DriverSpec& s, const AssemblySpec& a) {
  const GatherTile g(s, a);
  const int T = g.T;
  std::ostringstream os;
  os << "extern \"C\" __global__ void __launch_bounds__(" << T << bounds_min(s) << ") " << s.symbol
     << "(const " << args_type(s) << " a) {\n"
     << "  __shared__ double dj_val[" << g.mem.values << "];\n"
     << "  __shared__ double dj_racc[" << g.mem.racc << "];\n"
     << "  __shared__ int dj_run[" << g.mem.runs << "];\n";
  if (a.jacobian) {
    os << "  __shared__ double dj_d1[" << g.mem.d1 << "];\n"
       << "  __shared__ double dj_dacc[" << g.mem.dacc << "];\n"
       << "  __shared__ int dj_slot[" << g.mem.slots << "];\n";
  }
  os << "  " << off_type(a) << "* off = (" << off_type(a) << "*)a.off;\n"
     << "  (void)off;\n"
     << g.node_block("blockIdx.x", "  ") << g.zero_sums("threadIdx.x", T, "  ")
     << "  for (long long tile = 0; tile < n_tiles; ++tile) {\n"
     << "    __syncthreads();  // the previous tile's staging has been read\n"
     << g.tile_range("    ") << g.runs_and_slots("threadIdx.x", T, "    ");
  for (int lv = 0; lv < g.K; ++lv)
    os << "    if (threadIdx.x < here" << lv << ")\n      " << g.run_side(lv, "threadIdx.x");
  os << "    __syncthreads();\n"
     << g.write_out("threadIdx.x", T, "    ") << g.reduce("threadIdx.x", T, "    ") << "  }\n"
     << "  __syncthreads();\n"
     << g.store_rows("threadIdx.x", T, "  ") << "}\n";
  return os.str();
}

// Warp-specialised staged gather (AssemblySpec::warp_specialized, sm_90): persistent blocks of
// two warpgroups. The compute warpgroup takes the registers the element needs (setmaxnreg) and
// stages tile k into buffer k % 2 while the write-out warpgroup, with few registers, writes tile
// k - 1's off-diagonal blocks and sums its rows from the other buffer, so the element arithmetic
// of one tile runs under the memory traffic of the previous one. Named barriers: 1 + b "buffer
// b staged", 3 + b "buffer b free", 5 the write-out warpgroup alone. Same tiles, same order of
// every sum as staged_gather_entry: the same bits.
std::string warp_specialized_gather_entry(const DriverSpec& s, const AssemblySpec& a) {
  const GatherTile g(s, a);
  const int T = g.T, K = g.K, buf = g.mem.staging();
  const std::string values = std::to_string(g.mem.values);
  std::ostringstream os;
  os << "extern \"C\" __global__ void __launch_bounds__(" << 2 * kWarpgroup << ", 2) " << s.symbol
     << "(const " << args_type(s) << " a) {\n"
     << "  extern __shared__ double dj_shared[];  // 2 staging buffers, sums, runs, slots\n"
     << "  double* const dj_racc = dj_shared + " << 2 * buf << ";\n";
  if (a.jacobian) os << "  double* const dj_dacc = dj_shared + " << 2 * buf + g.mem.racc << ";\n";
  os << "  int* const dj_run = (int*)(dj_shared + " << 2 * buf + g.mem.racc + g.mem.dacc << ");\n";
  if (a.jacobian) os << "  int* const dj_slot = dj_run + " << g.mem.runs << ";\n";
  os << "  " << off_type(a) << "* off = (" << off_type(a) << "*)a.off;\n"
     << "  (void)off;\n"
     << "  const int t = threadIdx.x % " << kWarpgroup << ";\n"
     << "  long long k = 0;  // tiles so far\n"
     << "  if (threadIdx.x < " << kWarpgroup << ") {\n"
     << "    asm volatile(\"setmaxnreg.inc.sync.aligned.u32 " << kComputeRegisters << ";\\n\");\n"
     << "    for (long long nb = blockIdx.x; nb < a.n_node_blocks; nb += gridDim.x) {\n"
     << g.node_block("nb", "      ")
     << "      for (long long tile = 0; tile < n_tiles; ++tile, ++k) {\n"
     << g.tile_range("        ") << "        double* const dj_val = dj_shared + (k & 1) * " << buf
     << ";\n";
  if (a.jacobian) os << "        double* const dj_d1 = dj_val + " << values << ";\n";
  os << "        if (k >= 2) { " << pair_barrier("sync", 3) << " }  // buffer free\n"
     << "        for (int u = t; u < " << K * T << "; u += " << kWarpgroup << ") {\n"
     << "          const int lv = u / " << T << ", f = u - lv * " << T << ";\n";
  for (int lv = 0; lv < K; ++lv)
    os << "          if (lv == " << lv << " && f < here" << lv << ") " << g.run_side(lv, "f");
  os << "        }\n"
     << "        " << pair_barrier("arrive", 1) << "  // staged\n"
     << "      }\n"
     << "    }\n"
     << "    // The write-out warpgroup's last two releases.\n"
     << "    if (k >= 2) { " << pair_barrier("sync", 3) << " }\n"
     << "    if (k >= 1) { --k; " << pair_barrier("sync", 3) << " }\n"
     << "  } else {\n"
     << "    asm volatile(\"setmaxnreg.dec.sync.aligned.u32 " << kWriteOutRegisters << ";\\n\");\n"
     << "    for (long long nb = blockIdx.x; nb < a.n_node_blocks; nb += gridDim.x) {\n"
     << g.node_block("nb", "      ") << "      asm volatile(\"bar.sync 5, " << kWarpgroup
     << ";\");  // the last rows are stored\n"
     << g.zero_sums("t", kWarpgroup, "      ")
     << "      for (long long tile = 0; tile < n_tiles; ++tile, ++k) {\n"
     << g.tile_range("        ") << "        const double* const dj_val = dj_shared + (k & 1) * "
     << buf << ";\n";
  if (a.jacobian) os << "        const double* const dj_d1 = dj_val + " << values << ";\n";
  os << "        asm volatile(\"bar.sync 5, " << kWarpgroup
     << ";\");  // the last tile's runs and slots are read\n"
     << g.runs_and_slots("t", kWarpgroup, "        ") << "        " << pair_barrier("sync", 1)
     << "  // staged\n"
     << g.write_out("t", kWarpgroup, "        ") << g.reduce("t", kWarpgroup, "        ")
     << "        " << pair_barrier("arrive", 3) << "  // buffer free\n"
     << "      }\n"
     << "      asm volatile(\"bar.sync 5, " << kWarpgroup << ";\");  // every run is summed\n"
     << g.store_rows("t", kWarpgroup, "      ") << "    }\n"
     << "  }\n"
     << "}\n";
  return os.str();
}

}  // namespace

std::string emit_assembly_cuda_entry(const DriverSpec& s, const AssemblySpec& a) {
  const int t = s.layout.threads_per_element, b = s.layout.elements_per_block;
  std::ostringstream os;
  if (a.strategy == AssemblyStrategy::ScatterAtomic && a.staged) return staged_scatter_entry(s, a);
  if (a.strategy == AssemblyStrategy::GatherByColumn && a.warp_specialized)
    return warp_specialized_gather_entry(s, a);
  if (a.strategy == AssemblyStrategy::GatherByColumn && a.staged) return staged_gather_entry(s, a);
  if (a.strategy == AssemblyStrategy::ScatterAtomic) {
    os << "extern \"C\" __global__ void __launch_bounds__(" << t * b << bounds_min(s) << ") "
       << s.symbol << "(const " << args_type(s) << " a) {\n"
       << "  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;\n"
       << "  const long long e = (long long)blockIdx.x * " << b << " + (warp / " << t
       << ") * 32 + lane;\n"
       << "  if (e >= a.n_elements) return;\n"
       << "  " << s.symbol << "_assemble(a, e, warp % " << t << ", " << t << ");\n}\n";
    return os.str();
  }
  // One thread per node; elements_per_block counts nodes here.
  os << "extern \"C\" __global__ void __launch_bounds__(" << b << bounds_min(s) << ") " << s.symbol
     << "(const " << args_type(s) << " a) {\n"
     << "  const long long i = (long long)blockIdx.x * " << b << " + threadIdx.x;\n"
     << "  if (i >= a.n_nodes) return;\n"
     << gather_node_body(s, a, "i", "  ") << "}\n";
  return os.str();
}

std::string emit_assembly_host_entry(const DriverSpec& s, const AssemblySpec& a) {
  std::ostringstream os;
  os << "extern \"C\" void " << s.symbol << "_host(const " << args_type(s) << "* ap) {\n"
     << "  const " << args_type(s) << "& a = *ap;\n";
  if (a.strategy == AssemblyStrategy::ScatterAtomic) {
    os << "#pragma omp parallel for schedule(static)\n"
       << "  for (long long e = 0; e < a.n_elements; ++e) " << s.symbol
       << "_assemble(a, e, 0, 1);\n}\n";
    return os.str();
  }
  os << "#pragma omp parallel for schedule(static)\n"
     << "  for (long long i = 0; i < a.n_nodes; ++i) {\n"
     << gather_node_body(s, a, "i", "    ") << "  }\n}\n";
  return os.str();
}

}  // namespace dualjit::jit

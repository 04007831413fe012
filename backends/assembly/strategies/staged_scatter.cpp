// staged-scatter: scatter-atomic staged in shared memory. A block runs its elements' chunks
// into shared staging arrays, then all its threads write the block's results out together,
// consecutive threads to consecutive entries of a block (the Zubair et al. scheme), so the
// atomics and stores coalesce. Options: off_direct (Aoff slots with one writer are stored, not
// added: no atomics and no zeroing for Aoff) and pre_reduce (runs of elements sharing vertex 0
// summed before the atomics). CUDA only.
#include <algorithm>
#include <sstream>

#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/emit_helpers.h"
#include "backends/assembly/strategies/units.h"
#include "jit/driver_text.h"
#include "jit/emit_element.h"

namespace dualjit::assembly {
namespace {

using namespace emit;

// Static shared memory of the kernel: values, local Jacobians (odd strides, see
// staged_scatter_entry), nodes and slots of the block's elements, pre-reduction run ends.
size_t staged_shared_bytes(const jit::DriverSpec& s, const FusedSpec& a) {
  const size_t b = s.layout.elements_per_block, k = a.vertices;
  size_t words = b * (std::max(s.n_outputs, 1) | 1);
  if (a.jacobian) words += b * (s.first_size | 1);
  words += b * k;
  if (a.jacobian) words += b * k * k;
  size_t bytes = words * 8;
  if (a.pre_reduce) bytes += b * 4;  // run ends
  return bytes;
}

// The chunk functions write straight into the block's shared staging area.
std::string stage_function(const jit::DriverSpec& s) {
  std::ostringstream os;
  os << "DJ_FN void " << s.symbol << "_stage(const " << s.args_type()
     << "& a, long long e, int group, int groups, double* __restrict__ val, double* "
        "__restrict__ d1) {\n"
     << jit::emit_element_loads(s) << "  double d2[1];\n  (void)d2;\n"
     << "  for (int c = group; c < " << s.n_chunks << "; c += groups) {\n    switch (c) {\n";
  for (int c = 0; c < s.n_chunks; ++c)
    os << "      case " << c << ": " << jit::chunk_call(s, c) << "        break;\n";
  os << "    }\n  }\n}\n";
  return os.str();
}

// Opens a loop in which thread i of the block takes entries i, i + threads, ... of the
// flattened (element f, entry q) range, `width` entries per element.
std::string entry_loop_head(const jit::DriverSpec& s, int width) {
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
std::string flat_loop(const jit::DriverSpec& s, const FusedSpec& a,
                      const std::vector<StagedUnit>& units, bool blocks, int d1_stride,
                      int out_stride) {
  const int B = a.block, K = a.vertices, n_in = s.n_inputs, BB = B * B;
  const int width = blocks ? BB : B;
  std::ostringstream body;
  for (const StagedUnit& u : units) {
    if (u.block != blocks) continue;
    const std::string value =
        jit::c_literal(u.sign) + " * " + staged_source(u, "f", B, n_in, d1_stride, out_stride);
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
std::string reduced_loop(const jit::DriverSpec& s, const FusedSpec& a,
                         const std::vector<StagedUnit>& units, bool blocks, int d1_stride,
                         int out_stride) {
  const int B = a.block, K = a.vertices, n_in = s.n_inputs, BB = B * B;
  const int width = blocks ? BB : B;
  std::string sum;
  for (const StagedUnit& u : units) {
    if (u.block != blocks || !u.diag() || u.va != 0) continue;
    sum += " + " + jit::c_literal(u.sign) + " * " +
           staged_source(u, "g", B, n_in, d1_stride, out_stride);
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

std::string staged_write_out(const jit::DriverSpec& s, const FusedSpec& a,
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
std::string pre_reduce_setup(const jit::DriverSpec& s, const FusedSpec& a) {
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

std::string staged_scatter_entry(const jit::DriverSpec& s, const FusedSpec& a) {
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
  os << "extern \"C\" __global__ void __launch_bounds__(" << tb << jit::bounds_min(s) << ") "
     << s.symbol << "(const " << s.args_type() << " a) {\n"
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

class StagedScatter : public FusedStrategy {
 public:
  explicit StagedScatter(FusedSpec s) : FusedStrategy(normalised(std::move(s))) {}
  static FusedSpec normalised(FusedSpec s) {
    s.off_direct = s.single_writer && s.jacobian;
    s.store_rows = false;
    return s;
  }
  std::string_view name() const override { return "staged-scatter"; }
  std::string_view host_form() const override { return "scatter-atomic"; }

  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    return stage_function(s) + staged_scatter_entry(s, spec());
  }
  std::string host_entry(const jit::DriverSpec&, const jit::DerivativePlan&) const override {
    return {};
  }
  bool runs_on_host() const override { return false; }

  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override {
    return {"n_elements", s.layout.elements_per_block, s.layout.block_threads(), 0, 0};
  }

  int default_width(int vertices, int block) const override {
    return scatter_default_width(vertices, block);
  }

  TermStructure structure(const TermContext& t) const override {
    return slots_structure(t, spec());
  }

 protected:
  std::string prefix() const override { return "_sa"; }
  std::string letters() const override {
    return std::string("s") + (spec().off_direct ? "d" : "") + (spec().pre_reduce ? "r" : "");
  }
  void check_strategy(const jit::DriverSpec& s, const jit::DerivativePlan&,
                      const std::string& kernel) const override {
    if (staged_shared_bytes(s, spec()) > kStaticSharedMax) {
      unfit(kernel, "staging " + std::to_string(s.layout.elements_per_block) + " elements needs " +
                        std::to_string(staged_shared_bytes(s, spec())) +
                        " bytes of shared memory, over the 48 KiB static limit: use fewer "
                        "elements per block");
    }
  }
  std::vector<jit::ArgField> own_fields(const jit::DriverSpec&) const override {
    return {slots_field(spec())};
  }
};

}  // namespace

std::shared_ptr<const FusedStrategy> units::staged_scatter(FusedSpec spec) {
  return std::make_shared<const StagedScatter>(std::move(spec));
}

}  // namespace dualjit::assembly

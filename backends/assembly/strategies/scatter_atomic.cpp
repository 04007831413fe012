// scatter-atomic: one element per thread (T threads per element run its chunks), each adding
// its residual rows and Jacobian blocks with atomics through the precomputed per-element block
// slots (mesh::BlockPattern::element_slots). The plainest strategy; the reference layout of the
// CPU backend, where the atomics are OpenMP's.
#include <sstream>

#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/emit_helpers.h"
#include "backends/assembly/strategies/units.h"
#include "jit/driver_text.h"
#include "jit/emit_element.h"

namespace dualjit::assembly {
namespace {

using namespace emit;

class ScatterAtomic : public FusedStrategy {
 public:
  explicit ScatterAtomic(FusedSpec s) : FusedStrategy(normalised(std::move(s))) {}
  static FusedSpec normalised(FusedSpec s) {
    s.off_direct = s.store_rows = s.pre_reduce = false;
    return s;
  }
  std::string_view name() const override { return "scatter-atomic"; }
  std::string_view host_form() const override { return "scatter-atomic"; }

  std::string functions(const jit::DriverSpec& s, const jit::DerivativePlan& plan) const override {
    const FusedSpec& a = spec();
    const int B = a.block, n_in = s.n_inputs;
    const auto dim = [](size_t n) { return std::to_string(std::max<size_t>(n, 1)); };
    std::ostringstream os;
    os << "DJ_FN void " << s.symbol << "_assemble(const " << s.args_type()
       << "& a, long long e, int group, int groups) {\n"
       << jit::emit_element_loads(s) << "  double val[" << dim(s.n_outputs) << "], d1["
       << dim(s.first_size) << "], d2[1];\n  " << off_type(a) << "* off = (" << off_type(a)
       << "*)a.off;\n  (void)off; (void)d2;\n";
    os << "  for (int c = group; c < " << s.n_chunks << "; c += groups) {\n    switch (c) {\n";
    for (int c = 0; c < s.n_chunks; ++c) {
      const jit::Chunk& ch = plan.chunks[c];
      os << "      case " << c << ": {\n        " << jit::chunk_call(s, c);
      if (ch.writes_values) {
        for (size_t o = 0; o < a.output_scatter.size(); ++o) {
          for (const auto& [vx, sign] : a.output_scatter[o]) {
            for (int i = 0; i < B; ++i) {
              os << "        dj_atomic_add(&a.residual[" << node_of(vx) << " * " << B << " + " << i
                 << "], " << jit::c_literal(sign) << " * val[" << o * B + i << "]);\n";
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
                    jit::c_literal(sign) + " * d1[" + std::to_string((o * B + i) * n_in + j) + "]";
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
    return os.str();
  }

  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    const int t = s.layout.threads_per_element, b = s.layout.elements_per_block;
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << t * b << jit::bounds_min(s) << ") "
       << s.symbol << "(const " << s.args_type() << " a) {\n"
       << "  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;\n"
       << "  const long long e = (long long)blockIdx.x * " << b << " + (warp / " << t
       << ") * 32 + lane;\n"
       << "  if (e >= a.n_elements) return;\n"
       << "  " << s.symbol << "_assemble(a, e, warp % " << t << ", " << t << ");\n}\n";
    return os.str();
  }

  std::string host_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* ap) {\n"
       << "  const " << s.args_type() << "& a = *ap;\n"
       << "#pragma omp parallel for schedule(static)\n"
       << "  for (long long e = 0; e < a.n_elements; ++e) " << s.symbol
       << "_assemble(a, e, 0, 1);\n}\n";
    return os.str();
  }

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
  std::string letters() const override { return ""; }
  void check_strategy(const jit::DriverSpec&, const jit::DerivativePlan&,
                      const std::string&) const override {}
  std::vector<jit::ArgField> own_fields(const jit::DriverSpec&) const override {
    return {slots_field(spec())};
  }
};

}  // namespace

std::shared_ptr<const FusedStrategy> units::scatter_atomic(FusedSpec spec) {
  return std::make_shared<const ScatterAtomic>(std::move(spec));
}

}  // namespace dualjit::assembly

// gather-by-column: one thread per node walks the node's incident elements (mesh::Incidence),
// differentiates each with respect to that node's own state only (its vertex's chunk) and
// writes its residual row, its diagonal block and the off-diagonal blocks of its column: no
// atomics, deterministic by construction (each output has one writer and a fixed order).
//
// The summation order, the same as the staged gathers' on every backend and layout: per node,
// each side's elements (the node as local vertex 0, 1, ...) summed in element order from 0.0,
// then the sides' sums added to 0.0 in side order. Compiled without FMA contraction, the GPU's
// kernels and the CPU backend give the same bits wherever the element uses only correctly
// rounded operations (+ - * / sqrt fabs, as the Roe flux; library functions such as exp differ
// between the GPU and the CPU).
#include <sstream>

#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/emit_helpers.h"
#include "backends/assembly/strategies/units.h"
#include "backends/mesh/incidence.h"
#include "jit/driver_text.h"
#include "jit/emit_element.h"

namespace dualjit::assembly {
namespace {

using namespace emit;

// element e seen from its local vertex lv = the node this thread owns, differentiated with
// respect to that vertex's slot alone (values only, from chunk 0, when it has none).
std::string gather_function(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                            const FusedSpec& a) {
  const int B = a.block, n_in = s.n_inputs;
  const auto dim = [](size_t n) { return std::to_string(std::max<size_t>(n, 1)); };
  const std::string locals = "  double val[" + dim(s.n_outputs) + "], d1[" + dim(s.first_size) +
                             "], d2[1];\n  " + off_type(a) + "* off = (" + off_type(a) +
                             "*)a.off;\n  (void)off; (void)d2;\n";
  const std::vector<int> chunk_of = chunk_of_vertex(s, plan, a);
  std::ostringstream os;
  os << "DJ_FN void " << s.symbol << "_gather(const " << s.args_type()
     << "& a, long long e, int lv, double* __restrict__ rsum, double* __restrict__ dsum) {\n"
     << jit::emit_element_loads(s) << locals << "  switch (lv) {\n";
  for (int lv = 0; lv < a.vertices; ++lv) {
    os << "    case " << lv << ": {\n";
    const int chunk = chunk_of[lv];
    const int slot = chunk >= 0 ? slot_of_chunk(plan, chunk, B) : -1;
    os << "      " << jit::chunk_call(s, chunk >= 0 ? chunk : 0);
    for (size_t o = 0; o < a.output_scatter.size(); ++o) {
      for (const auto& [vx, sign] : a.output_scatter[o]) {
        if (vx != lv) continue;
        for (int i = 0; i < B; ++i) {
          os << "      rsum[" << i << "] += " << jit::c_literal(sign) << " * val[" << o * B + i
             << "];\n";
        }
      }
    }
    if (slot >= 0) {
      for (size_t o = 0; o < a.output_scatter.size(); ++o) {
        for (const auto& [vx, sign] : a.output_scatter[o]) {
          for (int i = 0; i < B; ++i) {
            for (int cj = 0; cj < B; ++cj) {
              const std::string value = jit::c_literal(sign) + " * d1[" +
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

std::string gather_node_body(const jit::DriverSpec& s, const FusedSpec& a, const std::string& i,
                             const std::string& indent) {
  const int B = a.block;
  // The incidence is side-major (mesh::Incidence): each side's run is summed on its own, then
  // the runs side by side, the order the staged GPU gathers sum in (the comment at the top of this
  // file).
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

class GatherByColumn : public FusedStrategy {
 public:
  explicit GatherByColumn(FusedSpec s) : FusedStrategy(normalised(std::move(s))) {}
  static FusedSpec normalised(FusedSpec s) {
    s.off_direct = s.store_rows = s.pre_reduce = false;
    return s;
  }
  std::string_view name() const override { return "gather-by-column"; }
  std::string_view host_form() const override { return "gather-by-column"; }
  void adapt(jit::DerivativePlan& plan) const override { every_chunk_writes_values(plan); }

  std::string functions(const jit::DriverSpec& s, const jit::DerivativePlan& plan) const override {
    return gather_function(s, plan, spec());
  }

  // One thread per node; elements_per_block counts nodes here.
  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    const int b = s.layout.elements_per_block;
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << b << jit::bounds_min(s) << ") "
       << s.symbol << "(const " << s.args_type() << " a) {\n"
       << "  const long long i = (long long)blockIdx.x * " << b << " + threadIdx.x;\n"
       << "  if (i >= a.n_nodes) return;\n"
       << gather_node_body(s, spec(), "i", "  ") << "}\n";
    return os.str();
  }

  std::string host_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* ap) {\n"
       << "  const " << s.args_type() << "& a = *ap;\n"
       << "#pragma omp parallel for schedule(static)\n"
       << "  for (long long i = 0; i < a.n_nodes; ++i) {\n"
       << gather_node_body(s, spec(), "i", "    ") << "  }\n}\n";
    return os.str();
  }

  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override {
    return {"n_nodes", s.layout.elements_per_block, s.layout.elements_per_block, 0, 0};
  }
  jit::CompileFlags compile_flags() const override { return {false, ""}; }

  TermStructure structure(const TermContext& t) const override {
    TermStructure out = slots_structure(t, spec());
    const mesh::Incidence inc =
        mesh::build_incidence(t.problem.n_nodes(), t.problem.term(t.term).elements);
    out.add("inc_ptr", inc.ptr);
    out.add("inc_element", inc.element);
    out.add("inc_vertex", inc.local_vertex);
    out.counts.emplace_back("n_nodes", t.problem.n_nodes());
    return out;
  }

 protected:
  std::string prefix() const override { return "_gc"; }
  std::string letters() const override { return ""; }
  void check_strategy(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                      const std::string& kernel) const override {
    check_gather(*this, s, plan, kernel);
  }
  std::vector<jit::ArgField> own_fields(const jit::DriverSpec&) const override {
    using jit::ArgKind;
    return {slots_field(spec()),
            {"inc_ptr", ArgKind::Pointer, "const long long*", 1, true, "node incidence offsets"},
            {"inc_element", ArgKind::Pointer, "const int*", 1, true, "node incidence elements",
             false, true},
            {"inc_vertex", ArgKind::Pointer, "const signed char*", 1, true,
             "node incidence local vertices", false, true},
            {"n_nodes", ArgKind::Int64, "", 1, false, "node count"}};
  }
};

}  // namespace

std::shared_ptr<const FusedStrategy> units::gather_by_column(FusedSpec spec) {
  return std::make_shared<const GatherByColumn>(std::move(spec));
}

}  // namespace dualjit::assembly

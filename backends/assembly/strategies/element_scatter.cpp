// element-scatter: a term's element kernel adds its own results into the node rows (residual,
// gradient, H v) or the stored blocks (Hessian, general Jacobian) with atomics, one element per
// thread, in one pass: nothing element-local goes to memory and no gather follows. Where each
// entry goes (element_rules.h) is emitted as code, not read from tables. Sums are in atomic
// order, so the last bits vary from run to run; the element-local gather
// (device_element_assembly.h) is the deterministic alternative. On the CPU backend the
// atomics are OpenMP's.
#include <memory>

#include "backends/assembly/strategies/in_place_strategy.h"
#include "backends/assembly/strategies/units.h"

#include <algorithm>
#include <sstream>
#include <string>

#include "backends/assembly/strategies/emit_helpers.h"
#include "jit/driver_text.h"
#include "jit/emit_element.h"

namespace dualjit::assembly {
namespace {

using emit::signed_sum;

class ElementScatter : public jit::Driver {
 public:
  ElementScatter(InPlaceRules r, int block, int vertices)
      : source_(std::move(r.source)),
        block_(block),
        vertices_(vertices),
        rows_(std::move(r.rows)),
        entries_(std::move(r.entries)) {}

  bool blocks() const { return !entries_.ptr.empty(); }

  std::string suffix() const override { return blocks() ? "_esb" : "_esr"; }

  void check(const jit::DriverSpec& s, const jit::DerivativePlan&,
             const std::string& kernel) const override {
    if (s.layout.threads_per_element != 1) {
      throw std::invalid_argument(kernel + ": element-scatter runs one thread per element (" +
                                  s.layout.describe() + ")");
    }
  }

  std::vector<jit::ArgField> fields(const jit::DriverSpec&) const override {
    std::vector<jit::ArgField> f = {{"out", jit::ArgKind::Pointer, "double*", 1, true,
                                     blocks() ? "block values" : "node rows"}};
    if (blocks()) {
      f.push_back({"slots", jit::ArgKind::Pointer, "const int*", 1, true, "stored block slots"});
    }
    return f;
  }

  std::string functions(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    const auto dim = [](size_t n) { return std::to_string(std::max<size_t>(n, 1)); };
    const int B = block_, k = vertices_;
    std::ostringstream os;
    os << "DJ_FN void " << s.symbol << "_scatter(const " << s.args_type() << "& a, long long e) {\n"
       << jit::emit_element_loads(s) << "  double val[" << dim(s.n_outputs) << "], d1["
       << dim(s.first_size) << "], d2[" << dim(s.second_size) << "];\n";
    for (int c = 0; c < s.n_chunks; ++c) os << "  " << jit::chunk_call(s, c);
    const auto node = [](int v) {
      return "(a.conn ? (long long)a.conn[e * a.vertices_per_element + " + std::to_string(v) +
             "] : e)";
    };
    // Every destination is read before the first atomic: the atomics' stores could alias the
    // connectivity and slots for all the compiler knows, which would force reloads after them.
    if (!blocks()) {
      const auto has_row = [&](int v) { return rows_.ptr[v] != rows_.ptr[v + 1]; };
      for (int v = 0; v < k; ++v) {
        if (has_row(v)) os << "  double* r" << v << " = a.out + " << node(v) << " * " << B << ";\n";
      }
      for (int v = 0; v < k; ++v) {
        if (!has_row(v)) continue;
        for (int c = 0; c < B; ++c) {
          os << "  dj_atomic_add(r" << v << " + " << c << ", "
             << signed_sum(source_, rows_.offset, rows_.sign, rows_.ptr[v], rows_.ptr[v + 1], c)
             << ");\n";
        }
      }
    } else {
      const auto has_block = [&](int va, int vb) {
        const int64_t q0 = int64_t(va * k + vb) * B * B;
        return entries_.ptr[q0] != entries_.ptr[q0 + B * B];
      };
      for (int va = 0; va < k; ++va) {
        for (int vb = 0; vb < k; ++vb) {
          if (!has_block(va, vb)) continue;
          os << "  const int s" << va << vb << " = a.slots[(e * " << k << " + " << va << ") * " << k
             << " + " << vb << "];\n";
        }
      }
      for (int va = 0; va < k; ++va) {
        for (int vb = 0; vb < k; ++vb) {
          if (!has_block(va, vb)) continue;
          const std::string sl = "s" + std::to_string(va) + std::to_string(vb);
          os << "  if (" << sl << " >= 0) {\n    double* m = a.out + (long long)" << sl << " * "
             << B * B << ";\n";
          const int64_t q0 = int64_t(va * k + vb) * B * B;
          for (int ij = 0; ij < B * B; ++ij) {
            const int32_t b = entries_.ptr[q0 + ij], end = entries_.ptr[q0 + ij + 1];
            if (b == end) continue;
            os << "    dj_atomic_add(m + " << ij << ", "
               << signed_sum(source_, entries_.offset, entries_.sign, b, end, 0) << ");\n";
          }
          os << "  }\n";
        }
      }
    }
    os << "}\n";
    return os.str();
  }

  std::string cuda_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" __global__ void __launch_bounds__(" << s.layout.elements_per_block
       << jit::bounds_min(s) << ") " << s.symbol << "(const " << s.args_type() << " a) {\n"
       << "  const long long e = (long long)blockIdx.x * " << s.layout.elements_per_block
       << " + threadIdx.x;\n"
       << "  if (e < a.n_elements) " << s.symbol << "_scatter(a, e);\n}\n";
    return os.str();
  }

  std::string host_entry(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    std::ostringstream os;
    os << "extern \"C\" void " << s.symbol << "_host(const " << s.args_type() << "* ap) {\n"
       << "  const " << s.args_type() << "& a = *ap;\n"
       << "#pragma omp parallel for schedule(static)\n"
       << "  for (long long e = 0; e < a.n_elements; ++e) " << s.symbol << "_scatter(a, e);\n}\n";
    return os.str();
  }

  jit::LaunchPolicy launch(const jit::DriverSpec& s) const override {
    jit::LaunchPolicy p;
    p.items = "n_elements";
    p.items_per_block = s.layout.elements_per_block;
    p.block_threads = s.layout.elements_per_block;
    return p;
  }

 private:
  std::string source_;
  int block_, vertices_;
  RowGather rows_;
  EntryGather entries_;
};

class ElementScatterUnit : public InPlaceStrategy {
 public:
  ElementStrategy kind() const override { return ElementStrategy::Scatter; }
  jit::LoweringOptions lowering(const Term& t, Mode mode, int block, int width,
                                int items_per_block) const override {
    jit::LoweringOptions o = in_place_lowering(t, mode, width, items_per_block);
    o.driver = std::make_shared<ElementScatter>(in_place_rules(t, mode, block, "element-scatter"),
                                                block, t.elements.k);
    return o;
  }
  bool adds_to_output() const override { return true; }
  bool needs_incidence() const override { return false; }
  jit::ArgValues args(const jit::ElementLaunch& in, const InPlaceTarget& t) const override {
    jit::ArgValues a = in.inputs();
    a.set("out", t.out);
    if (t.slots) a.set("slots", t.slots);
    return a;
  }
};

}  // namespace

std::shared_ptr<const InPlaceStrategy> units::element_scatter() {
  return std::make_shared<ElementScatterUnit>();
}

}  // namespace dualjit::assembly

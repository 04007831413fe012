// element-scatter: a term's element kernel adds its own results into the node rows (residual,
// gradient, H v) or the stored blocks (Hessian, general Jacobian) with atomics, one element per
// thread, in one pass: nothing element-local goes to memory and no gather follows. Where each
// entry goes (element_rules.h) is emitted as code, not read from tables. Sums are in atomic
// order, so the last bits vary from run to run; the element-local gather
// (device_element_assembly.h) is the deterministic alternative. On the CPU backend the
// atomics are OpenMP's.
#include <memory>
#include <sstream>
#include <string>

#include "backends/assembly/strategies/in_place_driver.h"
#include "backends/assembly/strategies/units.h"

namespace dualjit::assembly {
namespace {

class ElementScatter : public InPlaceDriver {
 public:
  ElementScatter(InPlaceRules r, int block, int vertices)
      : InPlaceDriver("element-scatter", {"n_elements", "scatter", "e", "element", "static"},
                      std::move(r), block, vertices) {}

  std::string unit_suffix() const override { return blocks() ? "_esb" : "_esr"; }

  std::vector<jit::ArgField> fields(const jit::DriverSpec&) const override {
    std::vector<jit::ArgField> f = {{"out", jit::ArgKind::Pointer, "double*", 1, true,
                                     blocks() ? "block values" : "node rows"}};
    if (blocks()) {
      f.push_back({"slots", jit::ArgKind::Pointer, "const int*", 1, true, "stored block slots",
                   false, true});
    }
    return f;
  }

  std::string item_functions(const jit::DriverSpec& s) const override {
    const int B = block(), k = vertices();
    std::ostringstream os;
    os << function_head(s) << element_results(s, "  ", "live");
    if (team_projection(s)) os << "  if (!live) return;\n";
    const auto node = [](int v) {
      return "(a.conn ? (long long)a.conn[e * a.vertices_per_element + " + std::to_string(v) +
             "] : e)";
    };
    // Every destination is read before the first atomic: the atomics' stores could alias the
    // connectivity and slots for all the compiler knows, which would force reloads after them.
    if (!blocks()) {
      for (int v = 0; v < k; ++v) {
        if (has_row(v)) os << "  double* r" << v << " = a.out + " << node(v) << " * " << B << ";\n";
      }
      for (int v = 0; v < k; ++v) {
        if (!has_row(v)) continue;
        for (int c = 0; c < B; ++c) {
          os << "  dj_atomic_add(r" << v << " + " << c << ", " << row_sum(v, c) << ");\n";
        }
      }
    } else {
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
            const std::string sum = entry_sum(q0 + ij);
            if (!sum.empty()) os << "    dj_atomic_add(m + " << ij << ", " << sum << ");\n";
          }
          os << "  }\n";
        }
      }
    }
    os << "}\n";
    return os.str();
  }
};

class ElementScatterUnit : public InPlaceStrategy {
 public:
  ElementStrategy kind() const override { return ElementStrategy::Scatter; }
  jit::LoweringOptions lowering(const Term& t, Mode mode,
                                const InPlaceShape& shape) const override {
    if (shape.with_energy_gradient) {
      throw ProblemError("term '" + t.name +
                         "': element-scatter sums no energy or gradient with the Hessian (its "
                         "atomics would make the energy's sum order vary)");
    }
    jit::LoweringOptions o = in_place_lowering(t, mode, shape);
    o.driver = std::make_shared<ElementScatter>(in_place_rules(t, mode, shape, "element-scatter"),
                                                shape.block, t.elements.k);
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

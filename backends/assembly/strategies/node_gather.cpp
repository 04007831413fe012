// node-gather: one thread per node walks the node's incident elements (mesh::Incidence),
// evaluates each of them whole and adds the rows of the node's local vertex: into registers
// for the node's row of the residual, gradient or H v (stored once), or into the node's own row
// of blocks for the Hessian and the general Jacobian (each row has one writer, so plain adds).
// No atomics and a fixed order: bit-identical from run to run, like element-gather, but in
// one pass with nothing element-local in memory. The price is recomputation: each element is
// evaluated once per vertex (k times), so it suits cheap elements (springs, triangles) more
// than expensive ones; the tuner decides. The CPU backend runs the same text over OpenMP.
#include <memory>
#include <sstream>
#include <string>

#include "backends/assembly/strategies/in_place_driver.h"
#include "backends/assembly/strategies/units.h"

namespace dualjit::assembly {
namespace {

class NodeGather : public InPlaceDriver {
 public:
  NodeGather(InPlaceRules r, int block, int vertices)
      : InPlaceDriver("node-gather", {"n_nodes", "node", "node", "node", "dynamic, 256"},
                      std::move(r), block, vertices) {}

  std::string suffix() const override { return blocks() ? "_ngb" : "_ngr"; }

  std::vector<jit::ArgField> fields(const jit::DriverSpec&) const override {
    std::vector<jit::ArgField> f = {
        {"n_nodes", jit::ArgKind::Int64, "", 1, false, "node count"},
        {"inc_ptr", jit::ArgKind::Pointer, "const long long*", 1, true, "incidence pointer"},
        {"inc_element", jit::ArgKind::Pointer, "const long long*", 1, true, "incident elements"},
        {"inc_vertex", jit::ArgKind::Pointer, "const signed char*", 1, true,
         "incident local vertices"},
        {"out", jit::ArgKind::Pointer, "double*", 1, true, blocks() ? "block values" : "node rows"},
        {"accumulate", jit::ArgKind::Int64, "", 1, false, "accumulate flag"}};
    if (blocks()) {
      f.push_back({"row_ptr", jit::ArgKind::Pointer, "const int*", 1, true, "BSR row pointer"});
      f.push_back({"slots", jit::ArgKind::Pointer, "const int*", 1, true, "stored block slots"});
    }
    return f;
  }

  std::string functions(const jit::DriverSpec& s, const jit::DerivativePlan&) const override {
    const int B = block(), k = vertices(), BB = B * B;
    std::ostringstream os;
    os << function_head(s);
    if (!blocks()) {
      os << "  double acc[" << B << "] = {0};\n";
    } else {
      os << "  if (!a.accumulate) {\n"
         << "    for (long long i = (long long)a.row_ptr[node] * " << BB
         << "; i < (long long)a.row_ptr[node + 1] * " << BB << "; ++i) a.out[i] = 0.0;\n  }\n";
    }
    os << "  for (long long q = a.inc_ptr[node]; q < a.inc_ptr[node + 1]; ++q) {\n"
       << "    const long long e = a.inc_element[q];\n"
       << "    const int lv = a.inc_vertex[q];\n"
       << element_results(s, "    ") << "    switch (lv) {\n";
    for (int v = 0; v < k; ++v) {
      std::ostringstream body;
      if (!blocks()) {
        if (!has_row(v)) continue;
        for (int c = 0; c < B; ++c)
          body << "        acc[" << c << "] += " << row_sum(v, c) << ";\n";
      } else {
        for (int vb = 0; vb < k; ++vb) {
          if (!has_block(v, vb)) continue;
          body << "        {\n          const int s = a.slots[(e * " << k << " + " << v << ") * "
               << k << " + " << vb << "];\n          if (s >= 0) {\n"
               << "            double* m = a.out + (long long)s * " << BB << ";\n";
          const int64_t q0 = int64_t(v * k + vb) * BB;
          for (int ij = 0; ij < BB; ++ij) {
            const std::string sum = entry_sum(q0 + ij);
            if (!sum.empty()) body << "            m[" << ij << "] += " << sum << ";\n";
          }
          body << "          }\n        }\n";
        }
      }
      if (body.str().empty()) continue;
      os << "      case " << v << ": {\n" << body.str() << "        break;\n      }\n";
    }
    os << "    }\n  }\n";
    if (!blocks()) {
      os << "  double* r = a.out + node * " << B << ";\n";
      for (int c = 0; c < B; ++c) {
        os << "  r[" << c << "] = a.accumulate ? r[" << c << "] + acc[" << c << "] : acc[" << c
           << "];\n";
      }
    }
    os << "}\n";
    return os.str();
  }
};

class NodeGatherUnit : public InPlaceStrategy {
 public:
  ElementStrategy kind() const override { return ElementStrategy::NodeGather; }
  jit::LoweringOptions lowering(const Term& t, Mode mode, int block, int width,
                                int items_per_block) const override {
    jit::LoweringOptions o = in_place_lowering(t, mode, width, items_per_block);
    o.driver = std::make_shared<NodeGather>(in_place_rules(t, mode, block, "node-gather"), block,
                                            t.elements.k);
    return o;
  }
  bool adds_to_output() const override { return false; }
  bool needs_incidence() const override { return true; }
  jit::ArgValues args(const jit::ElementLaunch& in, const InPlaceTarget& t) const override {
    jit::ArgValues a = in.inputs();
    a.set("n_nodes", t.n_nodes);
    a.set("inc_ptr", t.inc_ptr);
    a.set("inc_element", t.inc_element);
    a.set("inc_vertex", t.inc_vertex);
    a.set("out", t.out);
    a.set("accumulate", int64_t(t.accumulate ? 1 : 0));
    if (t.row_ptr) a.set("row_ptr", t.row_ptr);
    if (t.slots) a.set("slots", t.slots);
    return a;
  }
};

}  // namespace

std::shared_ptr<const InPlaceStrategy> units::node_gather() {
  return std::make_shared<NodeGatherUnit>();
}

}  // namespace dualjit::assembly

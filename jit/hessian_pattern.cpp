#include "jit/hessian_pattern.h"

namespace dualjit::jit {
namespace {

// Per node: the inputs it depends on (bit i) and its second-derivative pairs (row masks).
struct Deps {
  uint64_t first = 0;
  std::vector<uint64_t> second;
};

void add_pairs(std::vector<uint64_t>& rows, uint64_t a, uint64_t b) {  // a x b and b x a
  for (size_t i = 0; i < rows.size(); ++i) {
    if ((a >> i) & 1u) rows[i] |= b;
    if ((b >> i) & 1u) rows[i] |= a;
  }
}

}  // namespace

HessianPattern hessian_pattern(const Kernel& kernel) {
  HessianPattern p;
  p.n = kernel.n_inputs();
  if (p.n > 64) return p;
  const Graph& g = kernel.graph();
  std::vector<Deps> deps(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    Deps& d = deps[i];
    d.second.assign(p.n, 0);
    if (n.op == Op::Input) {
      d.first = uint64_t(1) << kernel.flat_index(n);
      continue;
    }
    if (is_leaf(n.op) || has_zero_derivative(n.op)) continue;
    // What every op passes on: its operands' dependencies and pairs (a select's value operands).
    const int first = n.op == Op::Select ? 1 : 0;
    for (int k = first; k < op_arity(n.op); ++k) {
      const Deps& o = deps[n.operand(k)];
      d.first |= o.first;
      for (int r = 0; r < p.n; ++r) d.second[r] |= o.second[r];
    }
    if (op_info(n.op).cls != OpClass::Analytic) continue;  // linear or piecewise linear
    if (n.op == Op::Mul || n.op == Op::Div) {
      const uint64_t a = deps[n.operand(0)].first, b = deps[n.operand(1)].first;
      add_pairs(d.second, a, b);
      if (n.op == Op::Div) add_pairs(d.second, b, b);  // 1/b is nonlinear in b
    } else {
      add_pairs(d.second, d.first, d.first);  // a nonlinear function of all its inputs
    }
  }
  p.rows.assign(p.n, 0);
  for (NodeId out : kernel.outputs()) {
    for (int r = 0; r < p.n; ++r) p.rows[r] |= deps[out].second[r];
  }
  return p;
}

}  // namespace dualjit::jit

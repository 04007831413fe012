#include "jit/tape_linear_outputs.h"

#include <cstdint>
#include <utility>

namespace dualjit::jit {
namespace {

// Whether each node has a tape in its cone (a tape counts itself).
std::vector<uint8_t> reaching_tapes(const Graph& g) {
  std::vector<uint8_t> r(g.size(), 0);
  for (size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    if (n.op == Op::Tape) {
      r[i] = 1;
      continue;
    }
    for (int k = 0; k < op_arity(n.op); ++k) r[i] |= r[static_cast<size_t>(n.operand(k))];
  }
  return r;
}

// A summand still to decompose: scale * product(factors) * node.
struct Pending {
  NodeId node;
  double scale;
  std::vector<TapeFactor> factors;
};

// A bound on the terms of one output: a graph whose shared sums are reached along many paths
// would multiply them; such an output is left to the row groups.
constexpr size_t kMaxTerms = size_t{1} << 20;

TapeLinearOutput decompose(const Graph& g, const TapePattern& tapes,
                           const std::vector<uint8_t>& reaches, NodeId out) {
  TapeLinearOutput r;
  std::vector<Pending> stack{{out, 1.0, {}}};
  while (!stack.empty()) {
    Pending p = std::move(stack.back());
    stack.pop_back();
    if (r.terms.size() + r.rest.size() + stack.size() > kMaxTerms) return {};
    const Node& n = g.node(p.node);
    if (!reaches[static_cast<size_t>(p.node)]) {
      r.rest.push_back({p.node, p.scale, std::move(p.factors)});
      continue;
    }
    const auto push = [&stack, &p](NodeId id, double scale, const TapeFactor* factor) {
      std::vector<TapeFactor> f = p.factors;
      if (factor) f.push_back(*factor);
      stack.push_back({id, scale, std::move(f)});
    };
    const auto reach = [&reaches](NodeId id) { return reaches[static_cast<size_t>(id)] != 0; };
    switch (n.op) {
      case Op::Tape:
        r.terms.push_back({tapes.index_of(p.node), p.scale, std::move(p.factors)});
        break;
      case Op::Add:
        push(n.a, p.scale, nullptr);
        push(n.b, p.scale, nullptr);
        break;
      case Op::Sub:
        push(n.a, p.scale, nullptr);
        push(n.b, -p.scale, nullptr);
        break;
      case Op::Neg:
        push(n.a, -p.scale, nullptr);
        break;
      case Op::Mul: {
        if (reach(n.a) && reach(n.b)) return {};
        const NodeId linear = reach(n.a) ? n.a : n.b, other = reach(n.a) ? n.b : n.a;
        if (g.is_constant(other)) {
          push(linear, p.scale * g.node(other).value, nullptr);
        } else {
          const TapeFactor f{other, false};
          push(linear, p.scale, &f);
        }
        break;
      }
      case Op::Div: {
        if (reach(n.b)) return {};
        if (g.is_constant(n.b)) {
          push(n.a, p.scale / g.node(n.b).value, nullptr);
        } else {
          const TapeFactor f{n.b, true};
          push(n.a, p.scale, &f);
        }
        break;
      }
      default:  // a tape through anything else, a cut or a select among them: not linear
        return {};
    }
  }
  r.linear = true;
  return r;
}

}  // namespace

std::vector<TapeLinearOutput> tape_linear_outputs(const Kernel& kernel, const TapePattern& tapes) {
  const Graph& g = kernel.graph();
  const std::vector<uint8_t> reaches = reaching_tapes(g);
  std::vector<TapeLinearOutput> out;
  out.reserve(kernel.outputs().size());
  for (NodeId o : kernel.outputs()) out.push_back(decompose(g, tapes, reaches, o));
  return out;
}

}  // namespace dualjit::jit

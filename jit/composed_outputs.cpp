#include "jit/composed_outputs.h"

#include <algorithm>

namespace dualjit::jit {

bool OutputComposition::any() const {
  return std::any_of(bases.begin(), bases.end(), [](const auto& b) { return !b.empty(); });
}

OutputComposition output_composition(const Kernel& kernel) {
  const Graph& g = kernel.graph();
  const std::vector<NodeId>& outs = kernel.outputs();
  const size_t n = g.size();
  // The first output of each computed node (a leaf or a constant is no work to reuse).
  std::vector<int> output_of(n, -1);
  for (size_t o = outs.size(); o-- > 0;) {
    const Op op = g.node(outs[o]).op;
    if (op != Op::Const && !is_leaf(op)) output_of[outs[o]] = static_cast<int>(o);
  }
  // Whether a node's operands reach an output's node (its own cone, itself excluded): one
  // pass in id order, operands first. Only such outputs need the search below.
  std::vector<uint8_t> reaches(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = g.node(static_cast<NodeId>(i));
    for (int k = 0; k < op_arity(nd.op); ++k) {
      const NodeId a = nd.operand(k);
      if (output_of[a] >= 0 || reaches[a]) reaches[i] = 1;
    }
  }
  OutputComposition c;
  c.bases.resize(outs.size());
  std::vector<uint8_t> seen(n, 0);
  std::vector<NodeId> stack, visited;
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!reaches[outs[o]]) continue;
    // The outputs whose nodes o's graph reaches first, not looking below them.
    std::vector<int> found;
    bool whole = false;  // reaches an output that is not a base: computed whole
    stack.assign(1, outs[o]);
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      const Node& nd = g.node(id);
      for (int k = 0; k < op_arity(nd.op); ++k) {
        const NodeId a = nd.operand(k);
        if (seen[a]) continue;
        seen[a] = 1;
        visited.push_back(a);
        if (output_of[a] >= 0) {
          if (reaches[a]) whole = true;
          found.push_back(output_of[a]);
        } else if (reaches[a]) {
          stack.push_back(a);
        }
      }
    }
    for (NodeId id : visited) seen[id] = 0;
    visited.clear();
    if (whole) continue;
    std::sort(found.begin(), found.end());
    c.bases[o] = std::move(found);
  }
  return c;
}

}  // namespace dualjit::jit

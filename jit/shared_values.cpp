#include "jit/shared_values.h"

#include <map>

namespace dualjit::jit {

bool is_shared_candidate(Op op) {
  return op_info(op).cls == OpClass::Analytic && op != Op::Mul && op != Op::Div && op != Op::Sqrt;
}

std::vector<NodeId> shared_values(const Kernel& kernel, const DerivativePlan& plan) {
  if (plan.rows <= 0) return {};
  const Graph& g = kernel.graph();
  const std::vector<NodeId>& outs = kernel.outputs();
  std::map<std::vector<int>, int> groups;  // outputs -> group
  for (const Chunk& c : plan.chunks) {
    if (!c.values_pass && !c.outputs.empty()) groups.emplace(c.outputs, 0);
  }
  if (groups.size() < 2) return {};
  std::vector<int> count(g.size(), 0);
  std::vector<uint8_t> mark(g.size());
  for (const auto& [rows, unused] : groups) {
    std::fill(mark.begin(), mark.end(), 0);
    for (int r : rows) mark[outs[static_cast<size_t>(r)]] = 1;
    for (size_t i = g.size(); i-- > 0;) {
      if (!mark[i]) continue;
      ++count[i];
      const Node& n = g.node(static_cast<NodeId>(i));
      for (int k = 0; k < op_arity(n.op); ++k) mark[n.operand(k)] = 1;
    }
  }
  std::vector<NodeId> out;
  for (size_t i = 0; i < g.size(); ++i) {
    if (count[i] >= 2 && is_shared_candidate(g.node(static_cast<NodeId>(i)).op))
      out.push_back(static_cast<NodeId>(i));
  }
  return out;
}

}  // namespace dualjit::jit

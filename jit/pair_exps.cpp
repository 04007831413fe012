#include "jit/pair_exps.h"

#include <vector>

namespace dualjit::jit {

bool exp_pair(const Graph& g, NodeId a, NodeId b) {
  return g.node(a).op == Op::Exp && g.node(b).op == Op::Exp && g.node(b).a != a;
}

void pair_exps(ScalarProgram& program, int window) {
  const Graph& g = *program.graph;
  std::vector<NodeId> out;
  out.reserve(program.order.size());
  std::vector<uint8_t> tainted(g.size(), 0);  // reads the waiting exp, directly or not
  std::vector<NodeId> moved;
  NodeId waiting = kNoNode;
  // The waiting exp (with its partner, if any), then its readers.
  const auto release = [&](NodeId partner) {
    out.push_back(waiting);
    if (partner != kNoNode) out.push_back(partner);
    out.insert(out.end(), moved.begin(), moved.end());
    tainted[waiting] = 0;
    for (NodeId m : moved) tainted[m] = 0;
    moved.clear();
    waiting = kNoNode;
  };
  for (NodeId id : program.order) {
    const Node& n = g.node(id);
    if (waiting == kNoNode) {
      if (n.op == Op::Exp) {
        waiting = id;
        tainted[id] = 1;
      } else {
        out.push_back(id);
      }
      continue;
    }
    bool reads = false;
    for (int k = 0; k < op_arity(n.op); ++k) reads = reads || tainted[n.operand(k)];
    if (reads) {
      moved.push_back(id);
      tainted[id] = 1;
      if (static_cast<int>(moved.size()) > window) release(kNoNode);
    } else if (n.op == Op::Exp) {
      release(id);
    } else {
      out.push_back(id);
    }
  }
  if (waiting != kNoNode) release(kNoNode);
  program.order = std::move(out);
  program.paired_exps = true;
}

}  // namespace dualjit::jit

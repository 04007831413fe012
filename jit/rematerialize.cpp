#include "jit/rematerialize.h"

#include <algorithm>

namespace dualjit::jit {

ScalarProgram rematerialize(const ScalarProgram& p) {
  const Graph& g = *p.graph;
  const size_t n = g.size();
  std::vector<int64_t> pos(n, -1), last(n, -1), first_user(n, -1);
  for (size_t i = 0; i < p.order.size(); ++i) pos[p.order[i]] = static_cast<int64_t>(i);
  std::vector<int> users(n, 0);
  for (size_t i = 0; i < p.order.size(); ++i) {
    const Node& nd = g.node(p.order[i]);
    for (int k = 0; k < op_arity(nd.op); ++k) {
      const NodeId a = nd.operand(k);
      last[a] = std::max<int64_t>(last[a], static_cast<int64_t>(i));
      if (first_user[a] < 0) first_user[a] = static_cast<int64_t>(i);
      ++users[a];
    }
  }
  for (const Store& st : p.stores) last[st.node] = std::max(last[st.node], pos[st.node]);
  std::vector<uint8_t> again(n, 0);
  for (NodeId id : p.order) {
    const Node& nd = g.node(id);
    if (!(nd.op == Op::Add || nd.op == Op::Sub || nd.op == Op::Mul || nd.op == Op::Neg) ||
        users[id] < 2)
      continue;
    bool ok = true;
    for (int k = 0; k < op_arity(nd.op) && ok; ++k) {
      const NodeId a = nd.operand(k);
      ok = g.node(a).op == Op::Const || (!again[a] && last[a] >= last[id]);
    }
    again[id] = ok;
  }
  ScalarProgram out;
  out.graph = std::make_unique<Graph>(g.label(), GraphOptions{false, false});
  std::vector<NodeId> map(n, kNoNode);
  const auto add = [&](NodeId made, NodeId from) {
    out.order.push_back(made);
    if (!p.primal.empty()) {
      out.primal.resize(out.graph->size(), 1);
      out.primal[static_cast<size_t>(made)] = p.primal[static_cast<size_t>(from)];
    }
    return made;
  };
  const auto make = [&](const Node& nd, const NodeId* ops) {
    if (nd.op == Op::Const) return out.graph->constant(nd.value);
    if (is_leaf(nd.op)) return out.graph->leaf(nd.op, nd.slot, nd.index);
    return out.graph->make(nd.op, ops[0], ops[1], ops[2]);
  };
  for (size_t i = 0; i < p.order.size(); ++i) {
    const NodeId id = p.order[i];
    const Node& nd = g.node(id);
    NodeId ops[3] = {kNoNode, kNoNode, kNoNode};
    for (int k = 0; k < op_arity(nd.op); ++k) {
      const NodeId a = nd.operand(k);
      if (again[a] && first_user[a] != static_cast<int64_t>(i)) {
        if (k == 1 && nd.operand(0) == a) {
          ops[1] = ops[0];
          continue;
        }
        const Node& an = g.node(a);
        NodeId aops[3] = {kNoNode, kNoNode, kNoNode};
        for (int j = 0; j < op_arity(an.op); ++j) aops[j] = map[an.operand(j)];
        ops[k] = add(make(an, aops), a);
      } else {
        ops[k] = map[a];
      }
    }
    map[id] = add(make(nd, ops), id);
  }
  for (const Store& st : p.stores) out.stores.push_back({st.target, st.index, map[st.node]});
  return out;
}

}  // namespace dualjit::jit

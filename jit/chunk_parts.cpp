#include "jit/chunk_parts.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "jit/emit_element.h"

namespace dualjit::jit {
namespace {

bool is_value_leaf(const Node& n) {
  return n.op == Op::Const || is_leaf(n.op);
}

// What a node costs to compute, for balancing the parts: an outlined special is a call of tens
// of instructions, a division or square root a few.
int64_t node_cost(const Node& n) {
  if (is_value_leaf(n)) return 0;
  if (is_outlined_special(n.op)) return 20;
  if (n.op == Op::Div || n.op == Op::Sqrt) return 8;
  return 1;
}

// A program over the nodes of `p` marked in `keep`, in p's order, into a graph of its own
// (unsimplified, unshared: the same operations). Where `slot` names a staged value (>= 0), its
// readers read it as a kSharedSlot leaf instead of computing it.
class Rebuild {
 public:
  Rebuild(const ScalarProgram& p, const std::vector<int>& slot)
      : p_(p), slot_(slot), map_(p.graph->size(), kNoNode) {
    out_.graph = std::make_unique<Graph>(p.graph->label(), GraphOptions{false, false});
  }

  // Computes `id` (its operands first made or loaded, each once).
  NodeId compute(NodeId id) {
    const Node& n = p_.graph->node(id);
    if (is_value_leaf(n)) return operand(id);
    NodeId ops[3] = {kNoNode, kNoNode, kNoNode};
    for (int k = 0; k < op_arity(n.op); ++k) ops[k] = operand(n.operand(k));
    return map_[id] = add(out_.graph->make(n.op, ops[0], ops[1], ops[2]), primal(id));
  }

  // `id`'s staged value (a leaf, in the order once; emission spells its load at each reader).
  NodeId load(NodeId id) {
    if (map_[id] == kNoNode)
      map_[id] = add(out_.graph->leaf(Op::Input, kSharedSlot, slot_[static_cast<size_t>(id)]), 1);
    return map_[id];
  }

  NodeId mapped(NodeId id) const { return map_[id]; }

  void store(Target target, int index, NodeId node) {
    out_.stores.push_back({target, index, node});
  }

  ScalarProgram take() { return std::move(out_); }

 private:
  uint8_t primal(NodeId id) const {
    return p_.primal.empty() ? 1 : p_.primal[static_cast<size_t>(id)];
  }

  NodeId add(NodeId made, uint8_t primal) {
    out_.order.push_back(made);
    if (!p_.primal.empty()) {
      out_.primal.resize(out_.graph->size(), 1);
      out_.primal[static_cast<size_t>(made)] = primal;
    }
    return made;
  }

  NodeId operand(NodeId a) {
    if (slot_[static_cast<size_t>(a)] >= 0) return load(a);
    if (map_[a] != kNoNode) return map_[a];
    const Node& n = p_.graph->node(a);
    if (n.op == Op::Const) return map_[a] = add(out_.graph->constant(n.value), 1);
    if (is_leaf(n.op)) return map_[a] = add(out_.graph->leaf(n.op, n.slot, n.index), primal(a));
    throw std::logic_error("split_chunk: node %" + std::to_string(a) +
                           " is read before it is computed");
  }

  const ScalarProgram& p_;
  const std::vector<int>& slot_;
  std::vector<NodeId> map_;
  ScalarProgram out_;
};

}  // namespace

ChunkParts split_chunk(const ScalarProgram& p, int parts) {
  if (parts < 2 || parts > 32) {
    throw std::invalid_argument("split_chunk: " + std::to_string(parts) + " parts (2 to 32)");
  }
  const Graph& g = *p.graph;
  const size_t n = g.size();
  const auto W = static_cast<int64_t>(parts);
  std::vector<int64_t> upto(n, -1);  // cost of the order up to and with each node
  int64_t total = 0;
  for (NodeId id : p.order) upto[id] = total += node_cost(g.node(id));
  total = std::max<int64_t>(total, 1);
  // Each store's part: runs of the order of about equal cost.
  std::vector<uint32_t> reads(n, 0);  // the parts that read each node, a bit each
  std::vector<int> store_part;
  for (const Store& st : p.stores) {
    if (upto[st.node] < 0) {
      throw std::logic_error("split_chunk: stored node %" + std::to_string(st.node) +
                             " is not scheduled");
    }
    store_part.push_back(static_cast<int>(std::min(W - 1, upto[st.node] * W / total)));
    reads[st.node] |= 1u << store_part.back();
  }
  for (size_t i = p.order.size(); i-- > 0;) {
    const Node& nd = g.node(p.order[i]);
    for (int k = 0; k < op_arity(nd.op); ++k) reads[nd.operand(k)] |= reads[p.order[i]];
  }
  const auto shared = [&](NodeId id) {
    return !is_value_leaf(g.node(id)) && std::popcount(reads[id]) > 1;
  };
  // Shared values that each part computes again: one cheap operation on leaves, then on leaves
  // and one staged value, until none is left.
  std::vector<uint8_t> again(n, 0), staged(n, 0);
  const auto cheap_over = [&](NodeId id, const auto& allowed) {
    const Node& nd = g.node(id);
    if (node_cost(nd) != 1) return false;
    int computed = 0;
    for (int k = 0; k < op_arity(nd.op); ++k) {
      const NodeId a = nd.operand(k);
      if (is_value_leaf(g.node(a))) continue;
      if (++computed > 1 || !allowed(a)) return false;
    }
    return true;
  };
  for (NodeId id : p.order) again[id] = shared(id) && cheap_over(id, [](NodeId) { return false; });
  // The staged values: shared ones that a part reads, walking from its stores, a part's
  // stores after another's so that `seen` need only know the part walking.
  std::vector<size_t> by_part(p.stores.size());
  for (size_t s = 0; s < by_part.size(); ++s) by_part[s] = s;
  std::stable_sort(by_part.begin(), by_part.end(),
                   [&](size_t a, size_t b) { return store_part[a] < store_part[b]; });
  std::vector<int> seen(n, -1);
  const auto mark_staged = [&] {
    std::fill(staged.begin(), staged.end(), 0);
    std::fill(seen.begin(), seen.end(), -1);
    std::vector<NodeId> stack;
    for (size_t s : by_part) {
      stack.push_back(p.stores[s].node);
      while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        if (seen[id] == store_part[s]) continue;
        seen[id] = store_part[s];
        const Node& nd = g.node(id);
        if (is_value_leaf(nd)) continue;
        if (shared(id) && !again[id]) {
          staged[id] = 1;
          continue;
        }
        for (int k = 0; k < op_arity(nd.op); ++k) stack.push_back(nd.operand(k));
      }
    }
  };
  for (bool changed = true; changed;) {
    mark_staged();
    changed = false;
    for (NodeId id : p.order) {
      if (staged[id] && cheap_over(id, [&](NodeId a) { return staged[a] && !again[a]; })) {
        again[id] = 1;
        changed = true;
      }
    }
  }
  std::vector<int> slot(n, -1), no_slot(n, -1);
  std::vector<NodeId> staged_list;
  for (NodeId id : p.order) {
    if (!staged[id]) continue;
    slot[id] = static_cast<int>(staged_list.size());
    staged_list.push_back(id);
  }
  ChunkParts out;
  out.staged_slots = static_cast<int>(staged_list.size());
  {  // The staged values and all they are computed from.
    std::vector<uint8_t> keep(n, 0);
    std::vector<NodeId> stack(staged_list.begin(), staged_list.end());
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      if (keep[id] || is_value_leaf(g.node(id))) continue;
      keep[id] = 1;
      const Node& nd = g.node(id);
      for (int k = 0; k < op_arity(nd.op); ++k) stack.push_back(nd.operand(k));
    }
    Rebuild r(p, no_slot);
    for (NodeId id : p.order) {
      if (!keep[id]) continue;
      const NodeId made = r.compute(id);
      if (slot[id] >= 0) r.store(Target::Shared, slot[id], made);
    }
    out.stage = r.take();
  }
  // Parts: what their stores need short of the staged values, which each reader loads.
  std::vector<std::vector<size_t>> stores_of(n);
  for (size_t s = 0; s < p.stores.size(); ++s) stores_of[p.stores[s].node].push_back(s);
  for (int w = 0; w < parts; ++w) {
    std::vector<uint8_t> keep(n, 0), stored(n, 0);
    std::vector<NodeId> stack;
    for (size_t s = 0; s < p.stores.size(); ++s)
      if (store_part[s] == w) stack.push_back(p.stores[s].node), stored[p.stores[s].node] = 1;
    while (!stack.empty()) {
      const NodeId id = stack.back();
      stack.pop_back();
      if (keep[id] || is_value_leaf(g.node(id)) || staged[id]) continue;
      keep[id] = 1;
      const Node& nd = g.node(id);
      for (int k = 0; k < op_arity(nd.op); ++k) stack.push_back(nd.operand(k));
    }
    Rebuild r(p, slot);
    for (NodeId id : p.order) {
      if (!stored[id] && !keep[id]) continue;
      // A stored leaf or staged value is read where it is stored.
      const NodeId made = staged[id] ? r.load(id) : r.compute(id);
      for (size_t s : stores_of[id])
        if (store_part[s] == w) r.store(p.stores[s].target, p.stores[s].index, made);
    }
    out.parts.push_back(r.take());
  }
  return out;
}

}  // namespace dualjit::jit

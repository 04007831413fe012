#include "jit/tape_pattern.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "jit/jacobian_pattern.h"

namespace dualjit::jit {

int TapePattern::index_of(NodeId tape) const {
  const auto it = std::lower_bound(tapes.begin(), tapes.end(), tape);
  return it != tapes.end() && *it == tape ? static_cast<int>(it - tapes.begin()) : -1;
}

namespace {

// A head's bound: every reader of a derived component runs through all of it.
constexpr size_t kMaxHeadOps = 256;

bool polynomial(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Div || op == Op::Neg;
}

using Keys = std::vector<int32_t>;  // sorted direction keys (tape_pattern's deps)

bool meets(const Keys& a, const Keys& b) {
  for (auto i = a.begin(), j = b.begin(); i != a.end() && j != b.end();) {
    if (*i == *j) return true;
    *i < *j ? ++i : ++j;
  }
  return false;
}

// The head of the tape whose operand is x, where one pays (jit/tape_pattern.h), its leaves
// still node ids; empty where x is not factored.
struct Factoring {
  TapeHead head;
  Keys derived;                 // the derived directions' keys, ascending
  std::vector<NodeId> at_leaf;  // each one's input or cut node, a leaf of the head
};

Factoring factor(const Graph& g, NodeId x, const std::vector<Keys>& deps) {
  const auto candidate = [&](NodeId id) {
    return polynomial(g.node(id).op) && !deps[static_cast<size_t>(id)].empty();
  };
  const auto direction_leaf = [&](NodeId id) {
    const Op op = g.node(id).op;
    return (op == Op::Input || op == Op::Cut) && deps[static_cast<size_t>(id)].size() == 1;
  };
  if (!candidate(x)) return {};
  // The polynomial region from x; S, the keys that reach x through anything else.
  std::unordered_set<NodeId> region{x};
  std::vector<NodeId> stack{x}, direction_leaves;
  std::unordered_set<int32_t> opaque;
  const auto through = [&](NodeId id, bool as_opaque) {
    if (!as_opaque && candidate(id)) {
      if (region.insert(id).second) stack.push_back(id);
    } else if (!as_opaque && direction_leaf(id)) {
      direction_leaves.push_back(id);
    } else {
      for (int32_t k : deps[static_cast<size_t>(id)]) opaque.insert(k);
    }
  };
  while (!stack.empty()) {
    const Node& n = g.node(stack.back());
    stack.pop_back();
    through(n.a, false);
    if (op_arity(n.op) == 2) through(n.b, n.op == Op::Div);
  }
  // A derived direction is one leaf: its derivative is one there and zero at every other.
  std::sort(direction_leaves.begin(), direction_leaves.end());
  direction_leaves.erase(std::unique(direction_leaves.begin(), direction_leaves.end()),
                         direction_leaves.end());
  std::vector<std::pair<int32_t, NodeId>> by_key;
  for (NodeId id : direction_leaves) {
    const int32_t k = deps[static_cast<size_t>(id)].front();
    if (!opaque.count(k)) by_key.push_back({k, id});
  }
  std::sort(by_key.begin(), by_key.end());
  Factoring f;
  for (const auto& [k, id] : by_key) {
    if (!f.derived.empty() && f.derived.back() == k) return {};
    f.derived.push_back(k);
    f.at_leaf.push_back(id);
  }
  if (f.derived.empty()) return {};
  const Keys& derived = f.derived;
  // The head: the region's nodes that depend on a derived direction, operands first; every
  // other operand a leaf (a constant inline).
  std::unordered_map<NodeId, int> op_of;
  std::vector<std::pair<NodeId, bool>> walk{{x, false}};
  size_t value_leaves = 0;
  const auto in_head = [&](NodeId id) {
    return region.count(id) && meets(deps[static_cast<size_t>(id)], derived);
  };
  while (!walk.empty()) {
    auto [id, expanded] = walk.back();
    if (op_of.count(id)) {
      walk.pop_back();
      continue;
    }
    const Node& n = g.node(id);
    HeadOp op;
    if (!in_head(id)) {
      walk.pop_back();
      if (n.op == Op::Const) {
        op.kind = HeadOp::Kind::Constant;
        op.value = n.value;
      } else {
        op.kind = HeadOp::Kind::Leaf;
        op.leaf = static_cast<int>(id);  // a node id until the pattern numbers its leaves
        value_leaves += std::find(f.at_leaf.begin(), f.at_leaf.end(), id) == f.at_leaf.end();
      }
    } else if (!expanded) {
      walk.back().second = true;
      walk.push_back({n.a, false});
      if (op_arity(n.op) == 2) walk.push_back({n.b, false});
      continue;
    } else {
      walk.pop_back();
      switch (n.op) {
        case Op::Add:
          op.kind = HeadOp::Kind::Add;
          break;
        case Op::Sub:
          op.kind = HeadOp::Kind::Sub;
          break;
        case Op::Mul:
          op.kind = HeadOp::Kind::Mul;
          break;
        case Op::Div:
          op.kind = HeadOp::Kind::Div;
          break;
        default:
          op.kind = HeadOp::Kind::Neg;
          break;
      }
      op.a = op_of.at(n.a);
      if (op_arity(n.op) == 2) op.b = op_of.at(n.b);
    }
    op_of[id] = static_cast<int>(f.head.ops.size());
    f.head.ops.push_back(op);
    if (f.head.ops.size() > kMaxHeadOps) return {};
  }
  // Stored instead, each leaf that is not a derived direction's costs a slot where each
  // derived direction saves one (its leaf's value is every tape's: a cell's inputs).
  if (value_leaves >= derived.size()) return {};
  return f;
}

}  // namespace

TapePattern tape_pattern(const Kernel& kernel) {
  const Graph& g = kernel.graph();
  TapePattern p;
  for (size_t i = 0; i < g.size(); ++i)
    if (g.node(static_cast<NodeId>(i)).op == Op::Tape) p.tapes.push_back(static_cast<NodeId>(i));
  if (p.tapes.empty()) return p;
  // Per node, the sorted keys of its tangent's components: inputs 0..n-1, then n + the cut's
  // ordinal among the graph's cuts. Expansion gives a cut with a tangent a direction of its
  // own, and carries nothing through comparisons, sign or a select's condition.
  const int32_t n = kernel.n_inputs();
  const size_t last = static_cast<size_t>(p.tapes.back()) + 1;
  std::vector<Keys> deps(last);
  std::vector<NodeId> cuts;  // by ordinal
  Keys merged;
  for (size_t i = 0; i < last; ++i) {
    const Node& nd = g.node(static_cast<NodeId>(i));
    if (nd.op == Op::Input) {
      deps[i] = {static_cast<int32_t>(kernel.flat_index(nd))};
      continue;
    }
    if (nd.op == Op::Cut) {
      if (!deps[nd.a].empty()) deps[i] = {n + static_cast<int32_t>(cuts.size())};
      cuts.push_back(static_cast<NodeId>(i));
      continue;
    }
    merge_operand_keys(nd, i, deps, merged);
  }
  const auto entry = [&](int32_t key) {
    return key < n ? TapeEntry{key, kNoNode} : TapeEntry{-1, cuts[static_cast<size_t>(key - n)]};
  };
  std::map<NodeId, int> leaf_of;
  for (NodeId t : p.tapes) {
    Factoring f = factor(g, g.node(t).a, deps);
    p.offset.push_back(p.size);
    std::vector<TapeEntry>& e = p.entries.emplace_back();
    for (int32_t key : deps[g.node(t).a])
      if (!std::binary_search(f.derived.begin(), f.derived.end(), key)) e.push_back(entry(key));
    for (HeadOp& op : f.head.ops) {
      if (op.kind != HeadOp::Kind::Leaf) continue;
      const NodeId id = op.leaf;
      const auto [it, fresh] = leaf_of.try_emplace(id, static_cast<int>(p.leaves.size()));
      if (fresh) p.leaves.push_back(id);
      op.leaf = it->second;
    }
    for (size_t i = 0; i < f.derived.size(); ++i)
      f.head.derived.push_back({entry(f.derived[i]), leaf_of.at(f.at_leaf[i])});
    p.heads.push_back(std::move(f.head));
    p.size += 1 + static_cast<int64_t>(e.size());
  }
  p.leaf_offset = p.size;
  p.size += static_cast<int64_t>(p.leaves.size());
  return p;
}

int64_t tape_doubles(int64_t size, int64_t n_elements) {
  return (n_elements + kTapeTile - 1) / kTapeTile * kTapeTile * size;
}

int64_t tape_doubles(const TapePattern& p, int64_t n_elements) {
  return tape_doubles(p.size, n_elements);
}

}  // namespace dualjit::jit

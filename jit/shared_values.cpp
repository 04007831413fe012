#include "jit/shared_values.h"

#include <algorithm>
#include <map>

namespace dualjit::jit {

namespace {

// The structural first-order components of every node in the chunk's directions (a superset of
// what expand_derivatives finds, which also drops components that simplify away): an input's
// directions, a cut's own direction (nreal + its rank), none for comparisons and signs, a
// select's branches', else the union of the operands'.
std::vector<std::vector<int32_t>> structural_directions(const Kernel& kernel, const Chunk& chunk) {
  const Graph& g = kernel.graph();
  const size_t n = g.size(), nreal = chunk.directions.size();
  std::vector<std::vector<int32_t>> dirs(n);
  int cuts = 0;
  for (size_t i = 0; i < n; ++i) {
    const Node& nd = g.node(static_cast<NodeId>(i));
    std::vector<int32_t>& out = dirs[i];
    if (nd.op == Op::Input) {
      const int input = kernel.flat_index(nd);
      for (size_t d = 0; d < nreal; ++d) {
        if (chunk.directions[d].input == input) out.push_back(static_cast<int32_t>(d));
      }
      continue;
    }
    if (nd.op == Op::Cut) {
      const int rank = cuts++;
      if (nreal == 0) {
        out = dirs[nd.a];
      } else if (!dirs[nd.a].empty()) {
        out.push_back(static_cast<int32_t>(nreal + rank));
      }
      continue;
    }
    if (nd.op == Op::Const || is_leaf(nd.op) || nd.op == Op::Sign ||
        op_info(nd.op).cls == OpClass::Comparison)
      continue;
    for (int k = nd.op == Op::Select ? 1 : 0; k < op_arity(nd.op); ++k) {
      const std::vector<int32_t>& o = dirs[nd.operand(k)];
      std::vector<int32_t> merged;
      std::set_union(out.begin(), out.end(), o.begin(), o.end(), std::back_inserter(merged));
      out.swap(merged);
    }
  }
  return dirs;
}

// Arithmetic of leaves and constants alone: recomputed where it is needed, never loaded.
bool cheaper_to_recompute(const Graph& g, const Node& nd) {
  switch (nd.op) {
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div:
    case Op::Neg:
      break;
    default:
      return false;
  }
  for (int k = 0; k < op_arity(nd.op); ++k) {
    const Node& o = g.node(nd.operand(k));
    if (!(o.op == Op::Const || is_leaf(o.op))) return false;
  }
  return true;
}

}  // namespace

std::vector<SharedNode> shared_frontier(const Kernel& kernel, const DerivativePlan& plan) {
  if (plan.rows <= 0) return {};
  const Graph& g = kernel.graph();
  const std::vector<NodeId>& outs = kernel.outputs();
  std::map<std::vector<int>, int> groups;  // outputs -> chunks with them
  for (const Chunk& c : plan.chunks) {
    if (c.values_pass || c.outputs.empty() || !c.pairs.empty()) return {};
    if (c.directions != plan.chunks.front().directions) return {};
    if (++groups[c.outputs] > 1) return {};  // more than one column chunk
  }
  if (groups.size() < 2) return {};
  const size_t n = g.size();
  std::vector<int> count(n, 0);
  std::vector<uint8_t> mark(n);
  for (const auto& [rows, unused] : groups) {
    std::fill(mark.begin(), mark.end(), 0);
    for (int r : rows) mark[outs[static_cast<size_t>(r)]] = 1;
    for (size_t i = n; i-- > 0;) {
      if (!mark[i]) continue;
      ++count[i];
      const Node& nd = g.node(static_cast<NodeId>(i));
      for (int k = 0; k < op_arity(nd.op); ++k) mark[nd.operand(k)] = 1;
    }
  }
  // From each group's outputs down through what it alone needs (or recomputes), to the first
  // nodes another group needs too.
  std::vector<uint8_t> frontier(n, 0);
  for (const auto& [rows, unused] : groups) {
    std::fill(mark.begin(), mark.end(), 0);
    for (int r : rows) mark[outs[static_cast<size_t>(r)]] = 1;
    for (size_t i = n; i-- > 0;) {
      if (!mark[i]) continue;
      const Node& nd = g.node(static_cast<NodeId>(i));
      if (nd.op == Op::Const || is_leaf(nd.op)) continue;
      // A cut is expanded by every chunk that composes through it, never loaded.
      if (count[i] >= 2 && nd.op != Op::Cut && !cheaper_to_recompute(g, nd)) {
        frontier[i] = 1;
        continue;
      }
      for (int k = 0; k < op_arity(nd.op); ++k) mark[nd.operand(k)] = 1;
    }
  }
  const std::vector<std::vector<int32_t>> dirs = structural_directions(kernel, plan.chunks.front());
  std::vector<SharedNode> out;
  int slot = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!frontier[i]) continue;
    out.push_back({static_cast<NodeId>(i), slot, dirs[i]});
    slot += 1 + static_cast<int>(dirs[i].size());
  }
  return out;
}

}  // namespace dualjit::jit

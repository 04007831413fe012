#include "jit/tape_pattern.h"

#include <algorithm>

#include "jit/jacobian_pattern.h"

namespace dualjit::jit {

int TapePattern::index_of(NodeId tape) const {
  const auto it = std::lower_bound(tapes.begin(), tapes.end(), tape);
  return it != tapes.end() && *it == tape ? static_cast<int>(it - tapes.begin()) : -1;
}

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
  std::vector<std::vector<int32_t>> deps(last);
  std::vector<NodeId> cuts;  // by ordinal
  std::vector<int32_t> merged;
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
  for (NodeId t : p.tapes) {
    p.offset.push_back(p.size);
    std::vector<TapeEntry>& e = p.entries.emplace_back();
    for (int32_t key : deps[g.node(t).a]) {
      if (key < n) {
        e.push_back({key, kNoNode});
      } else {
        e.push_back({-1, cuts[static_cast<size_t>(key - n)]});
      }
    }
    p.size += 1 + static_cast<int64_t>(e.size());
  }
  return p;
}

int64_t tape_doubles(int64_t size, int64_t n_elements) {
  return (n_elements + kTapeTile - 1) / kTapeTile * kTapeTile * size;
}

int64_t tape_doubles(const TapePattern& p, int64_t n_elements) {
  return tape_doubles(p.size, n_elements);
}

}  // namespace dualjit::jit

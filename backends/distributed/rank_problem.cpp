#include "backends/distributed/rank_problem.h"

#include <algorithm>
#include <string>

namespace dualjit::distributed {
namespace {

bool touches_owned(const mesh::ElementSet& set, int64_t e, const NodePartition& p, int rank) {
  for (int a = 0; a < set.k; ++a)
    if (p.owner[set.vertex(e, a)] == rank) return true;
  return false;
}

[[noreturn]] void bad_layout(const RankLayout& l, int64_t local, const std::string& what) {
  throw mesh::MeshError("rank " + std::to_string(l.rank) + ": local node " + std::to_string(local) +
                        " (global " + std::to_string(local < l.n_local() ? l.global[local] : -1) +
                        ") " + what);
}

}  // namespace

std::vector<const mesh::ElementSet*> element_sets(const assembly::Problem& p) {
  std::vector<const mesh::ElementSet*> sets;
  for (size_t t = 0; t < p.n_terms(); ++t) sets.push_back(&p.term(t).elements);
  return sets;
}

RankLayout rank_layout(const NodePartition& p, int rank,
                       const std::vector<const mesh::ElementSet*>& sets) {
  if (rank < 0 || rank >= p.n_parts) {
    throw mesh::MeshError("rank_layout: rank " + std::to_string(rank) + " of a partition in " +
                          std::to_string(p.n_parts) + " parts");
  }
  const int64_t n = static_cast<int64_t>(p.owner.size());
  RankLayout l;
  l.rank = rank;
  for (int64_t i = 0; i < n; ++i)
    if (p.owner[i] == rank) l.global.push_back(static_cast<int32_t>(i));
  l.n_owned = l.n_local();
  std::vector<uint8_t> ghost(n, 0);
  for (const mesh::ElementSet* set : sets) {
    for (int64_t e = 0; e < set->size(); ++e) {
      if (!touches_owned(*set, e, p, rank)) continue;
      for (int a = 0; a < set->k; ++a) {
        const int32_t v = set->vertex(e, a);
        if (p.owner[v] != rank) ghost[v] = 1;
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!ghost[i]) continue;
    l.global.push_back(static_cast<int32_t>(i));
    l.ghost_owner.push_back(p.owner[i]);
  }
  return l;
}

void check_layout(const RankLayout& l, const NodePartition& p) {
  const int64_t n = static_cast<int64_t>(p.owner.size());
  if (l.n_owned < 0 || l.n_owned > l.n_local() ||
      static_cast<int64_t>(l.ghost_owner.size()) != l.n_ghosts()) {
    throw mesh::MeshError("rank " + std::to_string(l.rank) + ": " + std::to_string(l.n_owned) +
                          " owned of " + std::to_string(l.n_local()) + " local nodes with " +
                          std::to_string(l.ghost_owner.size()) + " ghost owners");
  }
  std::vector<uint8_t> seen(n, 0);
  for (int64_t i = 0; i < l.n_local(); ++i) {
    const int32_t g = l.global[i];
    if (g < 0 || g >= n) bad_layout(l, i, "is not a node of the partition");
    if (seen[g]) bad_layout(l, i, "appears twice");
    seen[g] = 1;
    const bool owned = i < l.n_owned;
    if (i > 0 && i != l.n_owned && l.global[i - 1] >= g)
      bad_layout(l, i, "breaks the ascending numbering");
    if (owned && p.owner[g] != l.rank)
      bad_layout(l, i, "is listed as owned but rank " + std::to_string(p.owner[g]) + " owns it");
    if (!owned) {
      const int32_t named = l.ghost_owner[i - l.n_owned];
      if (named == l.rank || p.owner[g] == l.rank)
        bad_layout(l, i, "is a ghost of the rank that owns it");
      if (named != p.owner[g]) {
        bad_layout(l, i,
                   "is a ghost owned by rank " + std::to_string(p.owner[g]) + ", not rank " +
                       std::to_string(named));
      }
    }
  }
  for (int64_t g = 0; g < n; ++g) {
    if (p.owner[g] == l.rank && !seen[g]) {
      throw mesh::MeshError("rank " + std::to_string(l.rank) + ": owns global node " +
                            std::to_string(g) + " but its layout lacks it");
    }
  }
}

RankProblem rank_problem(const assembly::Problem& global, const NodePartition& p, int rank) {
  check_partition(p, global.n_nodes());
  RankLayout layout = rank_layout(p, rank, element_sets(global));
  std::vector<int32_t> local_of(global.n_nodes(), -1);
  for (int64_t i = 0; i < layout.n_local(); ++i)
    local_of[layout.global[i]] = static_cast<int32_t>(i);
  const int64_t n_local = layout.n_local();
  RankProblem out{std::move(layout), assembly::Problem(n_local, global.block_size()), {}};
  for (size_t t = 0; t < global.n_terms(); ++t) {
    const assembly::Term& g = global.term(t);
    const int64_t n = g.elements.size();
    const size_t per = n > 0 ? g.params.size() / n : 0;
    assembly::Term local = g;
    local.elements.conn.clear();
    local.params.clear();
    std::vector<int64_t> kept;
    for (int64_t e = 0; e < n; ++e) {
      if (!touches_owned(g.elements, e, p, rank)) continue;
      kept.push_back(e);
      for (int a = 0; a < g.elements.k; ++a)
        local.elements.conn.push_back(local_of[g.elements.vertex(e, a)]);
      local.params.insert(local.params.end(), g.params.begin() + e * per,
                          g.params.begin() + (e + 1) * per);
    }
    out.problem.add_term(std::move(local));
    out.elements.push_back(std::move(kept));
  }
  return out;
}

assembly::Problem energy_share(const RankProblem& rp) {
  const int64_t n_owned = rp.layout.n_owned;
  assembly::Problem out(rp.layout.n_local(), rp.problem.block_size());
  for (size_t t = 0; t < rp.problem.n_terms(); ++t) {
    const assembly::Term& all = rp.problem.term(t);
    const int64_t n = all.elements.size();
    const size_t per = n > 0 ? all.params.size() / n : 0;
    assembly::Term mine = all;
    mine.elements.conn.clear();
    mine.params.clear();
    for (int64_t e = 0; e < n; ++e) {
      if (all.elements.vertex(e, 0) >= n_owned) continue;  // a ghost's: its owner counts it
      for (int a = 0; a < all.elements.k; ++a)
        mine.elements.conn.push_back(all.elements.vertex(e, a));
      mine.params.insert(mine.params.end(), all.params.begin() + e * per,
                         all.params.begin() + (e + 1) * per);
    }
    out.add_term(std::move(mine));
  }
  return out;
}

std::vector<double> local_values(const RankLayout& layout, std::span<const double> global,
                                 int block) {
  std::vector<double> out(layout.n_local() * block);
  for (int64_t i = 0; i < layout.n_local(); ++i)
    std::copy_n(global.begin() + int64_t(layout.global[i]) * block, block, out.begin() + i * block);
  return out;
}

}  // namespace dualjit::distributed

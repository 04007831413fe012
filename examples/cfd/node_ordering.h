// Node orderings for the CFD example: random (the worst case for memory locality) and reverse
// Cuthill-McKee (a good one), and applying them to a mesh.
//
// Permutation convention, everywhere here: new_of_old[old] is the new index of node `old`;
// it is a bijection of [0, n).
#pragma once

#include <cstdint>
#include <vector>

#include "examples/cfd/tet_mesh.h"

namespace dualjit::cfd {

// A uniformly random permutation of [0, n) (Fisher-Yates over std::mt19937_64), the same for
// the same seed on every platform.
std::vector<int32_t> random_permutation(int64_t n, uint64_t seed);

// Reverse Cuthill-McKee ordering of the graph given by `edges` (pairs, any order, duplicates
// allowed), returned as new_of_old. Each connected component is numbered by a breadth-first
// search from a pseudo-peripheral node (George-Liu), neighbours by increasing degree (ties by
// index), and the whole order is then reversed. Deterministic. Throws std::invalid_argument
// for a node outside [0, n_nodes).
std::vector<int32_t> reverse_cuthill_mckee(int64_t n_nodes, const std::vector<int32_t>& edges);

// old_of_new from new_of_old (or the reverse). Throws std::invalid_argument if p is not a
// bijection of [0, p.size()).
std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& p);

// Renumbers the nodes in place: node `old` moves to new_of_old[old] (coordinates and tet
// connectivity; tet order and orientation are unchanged). Throws std::invalid_argument if
// new_of_old is not a bijection of [0, mesh.n_nodes).
void renumber_nodes(TetMesh& mesh, const std::vector<int32_t>& new_of_old);

// max |v0 - v1| over the edges (pairs); 0 when there are none.
int64_t edge_bandwidth(const std::vector<int32_t>& edges);

}  // namespace dualjit::cfd

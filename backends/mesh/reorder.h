// Locality-improving node reordering (reverse Cuthill-McKee) and applying a renumbering.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/mesh/block_pattern.h"
#include "backends/mesh/element_set.h"

namespace dualjit::mesh {

// Reverse Cuthill-McKee over the node graph of the sets (nodes sharing an element are adjacent).
// Returns new_of_old: node `old` becomes node new_of_old[old]; a bijection of [0, n_nodes).
// Each connected component starts from a pseudo-peripheral node (George-Liu); neighbours are
// visited by increasing degree, ties by index, so the result is deterministic.
std::vector<int32_t> reverse_cuthill_mckee(int64_t n_nodes,
                                           const std::vector<const ElementSet*>& sets);

// old_of_new from new_of_old (or the reverse); throws MeshError if p is not a bijection.
std::vector<int32_t> inverse_permutation(const std::vector<int32_t>& p);

// The set with every vertex index mapped through new_of_old (element order unchanged).
ElementSet renumbered(const ElementSet& set, const std::vector<int32_t>& new_of_old);

// A node field of `width` values per node moved to the new numbering:
// out[new_of_old[i] * width + j] = field[i * width + j].
std::vector<double> permute_rows(const std::vector<double>& field, int width,
                                 const std::vector<int32_t>& new_of_old);

// Largest |col - row| over the stored blocks (0 for a diagonal-only pattern).
int64_t bandwidth(const BlockPattern& pattern);

}  // namespace dualjit::mesh

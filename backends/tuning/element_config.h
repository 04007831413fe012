// Launch configurations of a plain element kernel (element-local values and derivatives, no
// in-place assembly): dual width and GPU layout, as tuning-database fields, with candidates
// and the documented heuristic.
#pragma once

#include <string>
#include <vector>

#include "backends/tuning/fused_config.h"
#include "jit/lowering.h"

namespace dualjit::tuning {

struct ElementConfig {
  int width = 0;  // W; 0: all directions in one chunk
  jit::LaunchLayout layout;
};

jit::TuningConfig element_config_fields(const ElementConfig& c);
ElementConfig element_config(const jit::TuningConfig& fields);  // throws naming a bad field
std::string describe_element(const ElementConfig& c);           // "W3 1x128"

// For a kernel with n_inputs directions, in a fixed (tie-break) order.
//   cuda: W in {n, ceil(n/2), 1} x threads per element {1, chunks (when 2..8)} x elements per
//         block {64, 128, 256};
//   cpu:  W in {n, ceil(n/2), ceil(n/3), 1} (chunking is all that matters on the host).
std::vector<ElementConfig> element_candidates(Target target, int n_inputs);

// Without a record: one chunk of at most 8 directions per pass (W = min(n, 8)), one thread
// per element, 128 elements per block.
ElementConfig element_heuristic(Target target, int n_inputs);

}  // namespace dualjit::tuning

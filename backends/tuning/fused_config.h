// Launch configurations of the fused residual/Jacobian assembly (assembly::FusedOptions) as
// tuning-database fields, the candidates the autotuner times, and the documented heuristic
// used when there is no tuning record.
#pragma once

#include <string>
#include <vector>

#include "backends/assembly/fused_assembly.h"
#include "jit/tuning_db.h"

namespace dualjit::tuning {

enum class Target { Cuda, Cpu };
std::string_view target_name(Target t);  // "cuda", "cpu"

// Every FusedOptions field by name, and back. Missing fields keep FusedOptions' defaults so a
// record written before a field existed still loads; an unknown value throws
// std::invalid_argument naming the field.
jit::TuningConfig fused_config(const assembly::FusedOptions& o);
assembly::FusedOptions fused_options(const jit::TuningConfig& config);
// Short label: "staged-scatter W5 2x64 mb5 pre-reduced".
std::string describe_fused(const assembly::FusedOptions& o);

// The candidates for a problem whose node field is `block` wide and whose elements have
// `vertices` vertices, in a fixed order (the tie-break order). This is the one place that
// enumerates: a new FusedOptions field is one edit here.
//   cuda: scatter (plain, staged, staged + pre-reduction) x W {1, B, 2B} x threads per element
//         x elements per block x min_blocks, pruned to about 35; gather by column (W = B):
//         staged (node-owned blocks) x tile, and one thread per node x nodes per block.
//   cpu:  what matters on the host: scatter x W {1, B, 2B}, and gather (W = B).
std::vector<assembly::FusedOptions> fused_candidates(Target target, int block, int vertices,
                                                     bool jacobian = true);

// The heuristic without a record.
//   cuda: staged scatter (direct Aoff stores where each slot has one writer), no
//         pre-reduction, the strategy's default W (all of an element's directions in one chunk
//         while they are at most 10, else B), one thread per element, 64 elements per block,
//         no min_blocks: the Roe Jacobian's best on an H100 and an H200 (bench/RESULTS.md).
//   cpu:  scatter, W = B (each chunk one vertex's directions; no GPU layout).
assembly::FusedOptions fused_heuristic(Target target, int block, int vertices,
                                       bool jacobian = true);

}  // namespace dualjit::tuning

// How an Assembler sums its element terms' outputs in one mode (AssemblerOptions' element
// fields: the strategy of the mode's kind, node vectors or block matrices, the dual width and
// the GPU layout) as tuning-database fields, the candidates the autotuner times and the
// documented heuristic.
#pragma once

#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/tuning/fused_config.h"

namespace dualjit::tuning {

// The element fields of `o` that `mode` uses, and back onto `into` (other fields kept).
// Missing fields keep `into`'s values; a bad value throws std::invalid_argument naming the
// field.
jit::TuningConfig element_assembly_config(const assembly::AssemblerOptions& o, Mode mode);
void apply_element_assembly_config(const jit::TuningConfig& config, Mode mode,
                                   assembly::AssemblerOptions& into);
// "node-gather W0 1x128".
std::string describe_element_assembly(const assembly::AssemblerOptions& o, Mode mode);

// For elements of n_inputs directions over a B-wide field, in tie-break order.
//   cuda: {element-scatter, node-gather, staged-node-gather (matrices), element-gather} x
//         W {0 (one chunk), B (when B < n)} x elements (or nodes) per block {128, 64, 256}
//         (and 32 for staged-node-gather), one thread per element (or node);
//   cpu:  the same strategies x W {0, B}.
std::vector<assembly::AssemblerOptions> element_assembly_candidates(Target target, Mode mode,
                                                                    int n_inputs, int block);

// Without a record: AssemblerOptions' defaults (node-gather for vectors, staged-node-gather
// for matrices), one thread per element, 128 per block (staged-node-gather halves that where
// its tile then leaves more warps resident); all directions in one chunk (W = 0) but for
// H v, where one vertex's B directions per chunk (W = B) measured 8% faster on the spring grid
// on an H100 (bench/RESULTS.md).
assembly::AssemblerOptions element_assembly_heuristic(Target target, Mode mode, int block);

}  // namespace dualjit::tuning

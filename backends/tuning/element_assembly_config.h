// How an Assembler sums its element terms' gradient, H v, Hessian and general Jacobian
// (AssemblerOptions' element fields: element strategy, dual width, GPU layout) as tuning-
// database fields, the candidates the autotuner times and the documented heuristic.
#pragma once

#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/tuning/fused_config.h"

namespace dualjit::tuning {

// The element fields of `o`, and back onto `into` (other fields kept). Missing fields keep
// AssemblerOptions' defaults; a bad value throws std::invalid_argument naming the field.
jit::TuningConfig element_assembly_config(const assembly::AssemblerOptions& o);
void apply_element_assembly_config(const jit::TuningConfig& config,
                                   assembly::AssemblerOptions& into);
// "element-scatter W6 1x128".
std::string describe_element_assembly(const assembly::AssemblerOptions& o);

// For elements of n_inputs directions over a B-wide field, in tie-break order.
//   cuda: {element-scatter, node-gather, element-gather} x W {0 (one chunk), B (when B < n)} x
//         elements (or nodes) per block {128, 64, 256}, one thread per element (or node);
//   cpu:  {element-scatter, node-gather, element-gather} x W {0, B}.
std::vector<assembly::AssemblerOptions> element_assembly_candidates(Target target, int n_inputs,
                                                                    int block);

// Without a record: element-scatter, all directions in one chunk (W = 0), one thread per
// element, 128 elements per block: the fastest gradient, H v and Hessian of the spring grid
// on an H100 (bench/RESULTS.md).
assembly::AssemblerOptions element_assembly_heuristic(Target target);

}  // namespace dualjit::tuning

// How an element kernel's results reach global memory. Without an AssemblySpec the driver
// writes element-major local results (dsl/mode.h); with one it assembles in place:
//   ScatterAtomic   each element adds its residual rows and Jacobian blocks with atomics into
//                   the residual, the diagonal blocks (fp64) and the off-diagonal block-CSR
//                   values (fp32 or fp64) through precomputed per-element block slots;
//   GatherByColumn  one thread per node walks the node's incident elements, differentiates
//                   each with respect to that node's own state only, and writes its residual
//                   row, its diagonal block and the off-diagonal blocks of its column: no
//                   atomics, deterministic by construction (each output has one writer and a
//                   fixed summation order).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dualjit::jit {

enum class AssemblyStrategy { ScatterAtomic, GatherByColumn };
std::string_view assembly_name(AssemblyStrategy s);

struct AssemblySpec {
  AssemblyStrategy strategy = AssemblyStrategy::ScatterAtomic;
  int vertices = 2;  // k
  int block = 1;     // B: node field width (every input and output slot)
  // Per output slot: (element vertex, sign) pairs its components are added to.
  std::vector<std::vector<std::pair<int, double>>> output_scatter;
  bool jacobian = true;    // assemble dR/dQ (else the residual only)
  bool off_single = true;  // off-diagonal blocks in fp32 (FUN3D); fp64 otherwise
};

}  // namespace dualjit::jit

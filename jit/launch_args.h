// The arrays of one launch over a set of elements, and their packing into the argument
// block of a lowered kernel (jit/lowering.h, ArgsLayout). Pointers are host pointers for
// the CPU backend and device pointers for the CUDA backend.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/lowering.h"

namespace dualjit::jit {

struct LaunchArgs {
  int64_t n_elements = 0;
  const int32_t* conn = nullptr;  // n_elements x vertices_per_element; null: element e = node e
  int64_t vertices_per_element = 1;
  std::vector<const double*> fields;      // per active input slot: node-major, slot-size wide
  std::vector<const double*> directions;  // HVP: per slot, like fields
  const double* params = nullptr;         // n_elements x n_params
  std::vector<double> uniforms;
  double* values = nullptr;  // n_elements x n_outputs
  double* first = nullptr;   // n_elements x first_size
  double* second = nullptr;  // n_elements x second_size
};

// Throws std::invalid_argument naming the kernel and the missing or mis-sized piece.
std::vector<uint64_t> pack_args(const LoweredKernel& kernel, const LaunchArgs& args);

}  // namespace dualjit::jit

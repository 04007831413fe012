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
  // Assembly (jit/assembly_spec.h): node-major residual (n_nodes x B) and diagonal blocks
  // (n_nodes x B x B), off-diagonal block values (float or double, n_blocks x B x B), the
  // per-element block slots (n_elements x k x k, mesh::BlockPattern::element_slots) and,
  // for GatherByColumn, the node -> element incidence (mesh::Incidence).
  double* residual = nullptr;
  double* diag = nullptr;
  void* off = nullptr;
  const int64_t* slots = nullptr;
  const int64_t* inc_ptr = nullptr;
  const int64_t* inc_element = nullptr;
  const int8_t* inc_vertex = nullptr;
  int64_t n_nodes = 0;
  // Staged GatherByColumn on CUDA (mesh::SideIncidence and mesh::node_blocks): per side
  // offsets, elements and off-diagonal slots, and the node range of each block (begin, end
  // pairs: n_node_blocks blocks, the grid).
  const int64_t* side_ptr = nullptr;
  const int32_t* side_element = nullptr;
  const int32_t* side_slot = nullptr;
  const int64_t* node_blocks = nullptr;
  int64_t n_node_blocks = 0;
};

// Throws std::invalid_argument naming the kernel and the missing or mis-sized piece.
std::vector<uint64_t> pack_args(const LoweredKernel& kernel, const LaunchArgs& args);

}  // namespace dualjit::jit

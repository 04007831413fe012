// A ready-made ProblemInstance for one kernel over one element set with element-local
// results (values, first and second derivatives per element, no assembly): what a plugin or
// user problem needs to be emitted, warmed, autotuned (dual width, layout) and benchmarked.
// The spring problem is one.
#pragma once

#include <memory>

#include "tools/registry/problem_registry.h"

namespace dualjit::tools {

struct ElementProblemData {
  std::string summary;  // what was built, one line
  int64_t n_nodes = 0;
  int field_width = 0;            // every active input slot reads this node field
  std::vector<double> field;      // n_nodes x field_width
  int vertices = 1;               // per element
  std::vector<int32_t> conn;      // n_elements x vertices
  std::vector<int> input_vertex;  // element vertex of each input slot; empty: slot s <- s
  std::vector<double> params;     // n_elements x n_params
  std::vector<double> uniforms;
};

// Validates sizes against the kernel; throws std::invalid_argument naming the kernel.
// value_kernel (optional): a cheaper graph of the same function, with the same slots, that Mode::
// Value lowers, runs and checks, as assembly::Term::value_kernel; kernels() lists both. Throws
// std::invalid_argument naming the slot where the two differ.
std::unique_ptr<ProblemInstance> make_element_problem(
    std::shared_ptr<const Kernel> kernel, ElementProblemData data,
    std::shared_ptr<const Kernel> value_kernel = nullptr);

}  // namespace dualjit::tools

// Derivative modes and the per-element layout of their results, shared by the reference
// evaluator and every backend so that results compare array to array.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dualjit {

enum class Mode { Value, Jacobian, Gradient, Hessian, Hvp };

std::string_view mode_name(Mode mode);
Mode parse_mode(std::string_view name);  // throws std::invalid_argument listing the modes
bool mode_needs_scalar_output(Mode mode);
bool mode_is_second_order(Mode mode);

// Per element, three arrays:
//   values: n_out components;
//   first:  Jacobian / gradient, n_out x n_in row-major (Value: none);
//   second: Hessian upper triangle packed row by row (i <= j), or H*v (n_in) for Hvp.
size_t first_size(Mode mode, int n_in, int n_out);
size_t second_size(Mode mode, int n_in);
// Position of H(i, j), i <= j, in the packed upper triangle of an n x n matrix.
inline size_t packed_upper_index(int n, int i, int j) {
  return static_cast<size_t>(i) * n - static_cast<size_t>(i) * (i - 1) / 2 + (j - i);
}

}  // namespace dualjit

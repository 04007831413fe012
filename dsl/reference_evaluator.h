// The reference evaluator: runs a kernel's graph node by node with plain, complex or dual
// scalars. It is the ground truth every backend is compared against, so it stays simple:
// sparse multivariate duals for first derivatives, nested duals for second.
#pragma once

#include <span>
#include <vector>

#include "dsl/dual.h"
#include "dsl/kernel.h"
#include "dsl/mode.h"

namespace dualjit {

// One element's data, flat per kind in slot order.
struct ElementArgs {
  std::span<const double> inputs;
  std::span<const double> params;
  std::span<const double> uniforms;
};

// Outputs of the graph evaluated with scalar type T (double, std::complex<double>, Dual<...>).
template <class T>
std::vector<T> evaluate_graph(const Kernel& kernel, std::span<const T> inputs,
                              std::span<const double> params, std::span<const double> uniforms);

std::vector<double> evaluate_values(const Kernel& kernel, const ElementArgs& args);

struct JacobianResult {
  std::vector<double> values;    // n_out
  std::vector<double> jacobian;  // n_out x n_in, row-major
};
// Multivariate duals of width `width`: the n input directions in ceil(n / width) passes.
JacobianResult evaluate_jacobian(const Kernel& kernel, const ElementArgs& args, int width);

struct HessianResult {
  double value = 0;
  std::vector<double> gradient;  // n_in
  std::vector<double> hessian;   // n_in x n_in, full, row-major
};
HessianResult evaluate_hessian(const Kernel& kernel, const ElementArgs& args);

struct HvpResult {
  double value = 0;
  std::vector<double> gradient;  // n_in
  std::vector<double> hvp;       // H * direction
};
HvpResult evaluate_hvp(const Kernel& kernel, const ElementArgs& args,
                       std::span<const double> direction);

// A batch of elements in the backends' layout (dsl/mode.h): arrays are element-major.
struct ElementBatch {
  int64_t n_elements = 0;
  std::vector<double> inputs;      // n_elements x n_in
  std::vector<double> params;      // n_elements x n_params
  std::vector<double> uniforms;    // n_uniforms
  std::vector<double> directions;  // Hvp only: n_elements x n_in
};
struct BatchResult {
  std::vector<double> values;  // n_elements x n_out
  std::vector<double> first;   // n_elements x first_size
  std::vector<double> second;  // n_elements x second_size
};
// Serial loop over elements; `width` applies to first-order modes.
BatchResult evaluate_batch(const Kernel& kernel, Mode mode, const ElementBatch& batch,
                           int width = 0);

// Throws DslError naming the kernel and slot kind when array sizes do not match it.
void check_element_args(const Kernel& kernel, const ElementArgs& args);

}  // namespace dualjit

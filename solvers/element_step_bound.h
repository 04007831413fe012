// A max-step rule (line_search.h) evaluated element by element where the solver's vectors live:
// each element's bound from its nodes' values of x and of the direction dx (and constant data
// per node), the rule's value the smallest over the elements. The bound of a parameterization
// (the step before a triangle flips) or of a spherical map (before a face inverts) is such a rule.
//
// The element function is written once, as C++ that is also CUDA: the program calls its compiled
// copy on host vectors (OpenMP over the elements), and for device vectors NVRTC compiles its text
// (with -default-device, --fmad=false) into a kernel that gathers each element's values, calls it
// and reduces the bounds with an atomic minimum, so that the device gives the host's bounds and
// only two numbers come back. The text includes nothing under NVRTC (<cmath> only on the host) and
// names an infinite bound 1.0 / 0.0.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "jit/nvrtc_compiler.h"
#include "solvers/vector_space.h"

namespace dualjit::solvers {

// bound(x, dx, data): x and dx hold the element's nodes' values node by node (nodes x width), data
// their constant data (nodes x data_width; unused when data_width is 0). Returns the largest
// admissible step along dx in (0, +inf], or a value <= 0 or NaN when no step is admissible (the
// element is already inverted or degenerate).
using ElementBound = double (*)(const double* x, const double* dx, const double* data);

struct StepBoundFunction {
  std::string name;             // for messages, e.g. "flip-free"
  std::string symbol;           // the function's qualified name in `source`
  std::string source;           // its definition: C++ and CUDA
  ElementBound host = nullptr;  // the same definition, compiled into the program
  int nodes = 0;                // per element
  int width = 0;                // values per node in x and dx
  int data_width = 0;           // constant values per node (0: none)
};

class ElementStepBound {
 public:
  // elements: n x function.nodes node indices in [0, n_nodes); node_data: n_nodes x
  // function.data_width. Device vectors when space.on_device() (the CUDA module is compiled or
  // loaded from the kernel cache here). Throws SolverError naming the function, and the element
  // for an index out of range. Copies share the uploaded structure.
  ElementStepBound(const VectorSpace& space, StepBoundFunction function, int64_t n_nodes,
                   std::span<const int32_t> elements, std::span<const double> node_data = {});

  // The smallest element bound at x along dx (+inf when no element bounds the step), x and dx
  // of n_nodes x width values in the space's memory. Throws SolverError naming the function
  // and the first element that admits no step, and for vectors of another size or memory.
  double operator()(const Vector& x, const Vector& dx) const;

  int64_t n_elements() const;
  const StepBoundFunction& function() const;

 private:
  struct State;
  std::shared_ptr<const State> state_;
};

// The CUDA source of `function`'s kernel and the NVRTC options it is compiled with, but for the
// architecture (for compiling without a GPU).
std::string element_step_bound_source(const StepBoundFunction& function);
jit::CompileOptions element_step_bound_options();
inline constexpr const char* kElementStepBoundEntry = "dj_element_step_bound";

}  // namespace dualjit::solvers

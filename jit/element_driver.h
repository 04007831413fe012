// The element-local driver: each element's values and derivatives written to memory,
// element-major, as dsl/mode.h lays them out (values n_outputs, first first_size, second
// second_size per element). Used when LoweringOptions::driver is unset.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "jit/driver.h"
#include "jit/kernel_args.h"

namespace dualjit::jit {

std::shared_ptr<const Driver> element_local_driver();

// The arrays of one launch of an element-local kernel, by role.
struct ElementLaunch {
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
  // Kernels that keep tapes (LoweredKernel::tape_size > 0): jit::tape_doubles(tape_size,
  // n_elements) doubles, written by the launch that writes_tape, read by the others.
  double* tape = nullptr;
  // By argument field name, for CudaKernel::launch / CpuKernel::run: the inputs alone (for
  // drivers with outputs of their own), or with the element-local outputs.
  ArgValues inputs() const;
  ArgValues args() const;
  bool operator==(const ElementLaunch&) const = default;
};

}  // namespace dualjit::jit

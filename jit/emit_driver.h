// The thin target drivers around the element functions: the argument block, the gather of
// an element's inputs through the connectivity, the dispatch of chunks, and the entry
// points (a CUDA kernel per launch layout, a host loop with OpenMP).
#pragma once

#include <string>
#include <vector>

#include "jit/lowering.h"

namespace dualjit::jit {

struct DriverSpec {
  std::string symbol;
  int n_chunks = 1;
  std::vector<int> slot_size;     // per active input slot
  std::vector<int> slot_offset;   // first flat input of each slot
  std::vector<int> input_vertex;  // element vertex per slot
  int n_inputs = 0, n_params = 0, n_uniforms = 0, n_outputs = 0;
  size_t first_size = 0, second_size = 0;
  bool hvp = false;
  LaunchLayout layout;
};

std::string emit_args_struct(const DriverSpec& spec);
// ", N" for __launch_bounds__ when the layout asks for N blocks per multiprocessor.
std::string bounds_min(const DriverSpec& spec);
// Declares and fills x, v, p, u for element `e` of argument block `a` (shared by drivers).
std::string emit_element_loads(const DriverSpec& spec);
// DJ_FN void <symbol>_element(const DjArgs_<symbol>& a, long long e, int group, int groups)
std::string emit_element_driver(const DriverSpec& spec);
std::string cuda_prelude();
std::string host_prelude();
std::string emit_cuda_entry(const DriverSpec& spec);  // extern "C" __global__ <symbol>
std::string emit_host_entry(const DriverSpec& spec);  // extern "C" <symbol>_host

}  // namespace dualjit::jit

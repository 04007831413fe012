#include "jit/launch_args.h"

#include <stdexcept>
#include <string>

namespace dualjit::jit {

PackedLaunch pack_launch(const LoweredKernel& k, const ArgValues& values) {
  const std::string& label = k.label;  // built once in lower(): launches allocate no text
  const int64_t items = values.int64(k.launch.items);
  if (items < 0 || values.int64("n_elements") < 0) {
    throw std::invalid_argument(label + ": negative " + k.launch.items);
  }
  const int64_t k_vertices = values.int64("vertices_per_element");
  if (values.pointer("conn")) {
    for (int v : k.input_vertex) {
      if (v >= k_vertices) {
        throw std::invalid_argument(label + ": input slot bound to vertex " + std::to_string(v) +
                                    " but elements have " + std::to_string(k_vertices) +
                                    " vertices");
      }
    }
  }
  return {pack_args(k.args, values, label, items > 0), items};
}

}  // namespace dualjit::jit

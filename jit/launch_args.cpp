#include "jit/launch_args.h"

#include <bit>
#include <stdexcept>
#include <string>

namespace dualjit::jit {
namespace {

uint64_t word(const void* p) {
  return reinterpret_cast<uint64_t>(p);
}

}  // namespace

std::vector<uint64_t> pack_args(const LoweredKernel& k, const LaunchArgs& a) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("kernel '" + k.kernel_name + "' (" + k.symbol + "): " + what);
  };
  const size_t ns = static_cast<size_t>(k.args.n_slots);
  if (a.n_elements < 0) fail("negative element count");
  if (a.fields.size() != ns) {
    fail("expected " + std::to_string(ns) + " input fields, got " +
         std::to_string(a.fields.size()));
  }
  const bool hvp = k.plan.mode == Mode::Hvp;
  if (hvp && a.directions.size() != ns) {
    fail("HVP needs " + std::to_string(ns) + " direction fields, got " +
         std::to_string(a.directions.size()));
  }
  if (a.uniforms.size() != static_cast<size_t>(k.args.n_uniforms)) {
    fail("expected " + std::to_string(k.args.n_uniforms) + " uniforms, got " +
         std::to_string(a.uniforms.size()));
  }
  if (const auto& spec = k.options.assembly) {
    if (a.n_elements > 0 && !a.residual) fail("assembly needs a residual array");
    if (spec->jacobian && a.n_elements > 0 && (!a.diag || !a.off || !a.slots)) {
      fail("Jacobian assembly needs diagonal and off-diagonal arrays and element slots");
    }
    if (spec->strategy == AssemblyStrategy::GatherByColumn && !spec->staged && a.n_nodes > 0 &&
        (!a.inc_ptr || !a.inc_element || !a.inc_vertex)) {
      fail("gather-by-column assembly needs the node-element incidence");
    }
    if (spec->strategy == AssemblyStrategy::GatherByColumn && spec->staged && a.n_node_blocks > 0 &&
        (!a.side_ptr || !a.side_element || !a.node_blocks ||
         (spec->jacobian && spec->vertices > 1 && !a.side_slot))) {
      fail("staged gather-by-column assembly needs the side incidence and node blocks");
    }
  } else if (a.n_elements > 0) {
    if (k.plan.n_outputs > 0 && !a.values) fail("values array is null");
    if (k.first_size > 0 && !a.first) fail("first-derivative array is null");
    if (k.second_size > 0 && !a.second) fail("second-derivative array is null");
  }
  if (a.n_elements > 0) {
    for (size_t s = 0; s < ns; ++s) {
      if (!a.fields[s]) fail("input field " + std::to_string(s) + " is null");
      if (hvp && !a.directions[s]) fail("direction field " + std::to_string(s) + " is null");
    }
    if (k.args.n_params > 0 && !a.params) fail("params array is null");
  }
  for (int v : k.input_vertex) {
    if (a.conn && v >= a.vertices_per_element) {
      fail("input slot bound to vertex " + std::to_string(v) + " but elements have " +
           std::to_string(a.vertices_per_element) + " vertices");
    }
  }
  std::vector<uint64_t> w;
  w.reserve(k.args.words());
  w.push_back(static_cast<uint64_t>(a.n_elements));
  w.push_back(word(a.conn));
  w.push_back(static_cast<uint64_t>(a.vertices_per_element));
  for (size_t s = 0; s < std::max<size_t>(ns, 1); ++s) w.push_back(s < ns ? word(a.fields[s]) : 0);
  for (size_t s = 0; s < std::max<size_t>(ns, 1); ++s) {
    w.push_back(hvp && s < ns ? word(a.directions[s]) : 0);
  }
  w.push_back(word(a.params));
  w.push_back(word(a.values));
  w.push_back(word(a.first));
  w.push_back(word(a.second));
  for (const void* ptr :
       {static_cast<const void*>(a.residual), static_cast<const void*>(a.diag),
        static_cast<const void*>(a.off), static_cast<const void*>(a.slots),
        static_cast<const void*>(a.inc_ptr), static_cast<const void*>(a.inc_element),
        static_cast<const void*>(a.inc_vertex)}) {
    w.push_back(word(ptr));
  }
  w.push_back(static_cast<uint64_t>(a.n_nodes));
  for (const void* ptr :
       {static_cast<const void*>(a.side_ptr), static_cast<const void*>(a.side_element),
        static_cast<const void*>(a.side_slot), static_cast<const void*>(a.node_blocks)}) {
    w.push_back(word(ptr));
  }
  w.push_back(static_cast<uint64_t>(a.n_node_blocks));
  for (double u : a.uniforms) w.push_back(std::bit_cast<uint64_t>(u));
  if (a.uniforms.empty()) w.push_back(0);
  return w;
}

}  // namespace dualjit::jit

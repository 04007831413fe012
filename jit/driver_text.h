// Text every driver shares: the target preludes, the gather of an element's inputs through
// the connectivity, the calls of chunk functions and __launch_bounds__'s second argument.
#pragma once

#include <string>
#include <vector>

#include "jit/driver.h"

namespace dualjit::jit {

std::string cuda_prelude();
std::string host_prelude();
// The dj_exp, dj_log, ... that element functions emitted with outline_specials call
// (jit/emit_element.h): out of line on the GPU, where a straight-line kernel of hundreds of
// inlined exp and log outgrows the instruction cache and stalls on instruction fetch
// (bench/RESULTS.md); inline on the host. Placed after the prelude, before the element code.
// On the GPU, dj_exp is Tang's table method, within 1 ulp of CUDA's exp and a shorter chain;
// dj_rcp is 1 / x inline without a branch, within 1 ulp of CUDA's where x is normal and
// |x| <= 2^1022 (subnormal x and results flushed beyond); the others call CUDA's functions.
std::string cuda_outlined_specials();
std::string host_outlined_specials();
// ", N" for __launch_bounds__ when the layout asks for N blocks per multiprocessor.
std::string bounds_min(const DriverSpec& spec);
// Declares and fills x, v, p, u for element `e` of argument block `a`. The element's nodes come
// from a.conn, or, where `nodes` names an int array in scope, from nodes[local vertex]. Where
// `own_vertex` names an int in scope, the local vertex of a node whose values the caller holds
// in own_x (and own_v for an HVP; emit_own_loads), the slots bound to that vertex copy them
// instead of loading: a node-owning kernel reads its own node once, not once per element.
std::string emit_element_loads(const DriverSpec& spec, const std::string& nodes = "",
                               const std::string& own_vertex = "");
// Declares and fills own_x (and own_v) with node `node`'s values, for emit_element_loads'
// own_vertex. Every input slot must read the same field of the same width (a node field, as
// assembly binds it); empty without input slots.
std::string emit_own_loads(const DriverSpec& spec, const std::string& node);
// The fields every kernel's argument block starts with (what emit_element_loads reads):
//   n_elements, conn, vertices_per_element, field[n_slots], direction[n_slots], params
// and the one it ends with: uniform[max(n_uniforms, 1)].
std::vector<ArgField> common_fields(const DriverSpec& spec);
ArgField uniform_field(const DriverSpec& spec);
// "<symbol>_c<c>(x, v, p, u, val, d1, d2);\n"
std::string chunk_call(const DriverSpec& spec, int chunk);

}  // namespace dualjit::jit

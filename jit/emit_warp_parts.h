// The element functions of a chunk split over the warps of a block (jit/warp_parts.h): for warp
// w, <fn>_stage<w> and <fn>_part<w>, each a function of its own (emit_element_function, in
// pieces as max_statements says), and the two that the driver calls with the warp's index:
//   void <fn>_stage(x, v, p, u, val, d1, d2[, tp], double* sh, int warp)
//   void <fn>(x, v, p, u, val, d1, d2[, tp], const volatile double* sh, int warp)
// the first writing the warp's staged values, the second, after every warp's first, its stores.
#pragma once

#include <string>

#include "jit/emit_element.h"
#include "jit/warp_parts.h"

namespace dualjit::jit {

std::string emit_warp_parts(const WarpParts& parts, const std::string& fn_name,
                            size_t max_statements, bool single_tangents, bool outline_specials,
                            ElementIndex first, bool tape);

}  // namespace dualjit::jit

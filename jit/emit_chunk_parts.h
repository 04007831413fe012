// The element functions of a chunk in parts (jit/chunk_parts.h), for one of its two launches:
// the stage's, `void <fn>(x, v, p, u, val, d1, d2[, tp], double* sh)`, writing the element's
// staged values; or the parts', <fn>_part<i> for each part (a function of its own, in pieces as
// max_statements says) and `void <fn>(x, v, p, u, val, d1, d2[, tp], const double* sh, int
// part)`, which runs part `part`.
#pragma once

#include <string>

#include "jit/chunk_parts.h"
#include "jit/emit_element.h"

namespace dualjit::jit {

std::string emit_chunk_parts(const ChunkParts& parts, bool stage, const std::string& fn_name,
                             size_t max_statements, bool single_tangents, bool outline_specials,
                             ElementIndex first, bool tape);

}  // namespace dualjit::jit

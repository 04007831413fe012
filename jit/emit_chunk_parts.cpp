#include "jit/emit_chunk_parts.h"

namespace dualjit::jit {

std::string emit_chunk_parts(const ChunkParts& parts, bool stage, const std::string& fn_name,
                             size_t max_statements, bool single_tangents, bool outline_specials,
                             ElementIndex first, bool tape) {
  if (stage) {
    first.shared = SharedValues::Stores;
    return emit_element_function(parts.stage, fn_name, max_statements, single_tangents,
                                 /*own_function=*/false, outline_specials, first, tape);
  }
  // Each part a function of its own, so that ptxas allocates its registers for its code alone.
  first.shared = SharedValues::Loads;
  std::string text, calls;
  for (size_t i = 0; i < parts.parts.size(); ++i) {
    const std::string f = fn_name + "_part" + std::to_string(i);
    text += emit_element_function(parts.parts[i], f, max_statements, single_tangents,
                                  /*own_function=*/true, outline_specials, first, tape);
    calls += "    case ";
    calls += std::to_string(i);
    calls += ": ";
    calls += f;
    calls += element_call_args(tape, first.shared);
    calls += "); break;\n";
  }
  text += "DJ_FN void ";
  text += fn_name;
  text += '(';
  text += element_params(tape, first.shared);
  text += ", int part) {\n  switch (part) {\n";
  text += calls;
  text += "  }\n}\n";
  return text;
}

}  // namespace dualjit::jit

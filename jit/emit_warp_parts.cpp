#include "jit/emit_warp_parts.h"

namespace dualjit::jit {

std::string emit_warp_parts(const WarpParts& parts, const std::string& fn_name,
                            size_t max_statements, bool single_tangents, bool outline_specials,
                            ElementIndex first, bool tape) {
  std::string text;
  // One phase's functions, each its own so that ptxas allocates a warp's registers for its code
  // alone, and the switch that calls the warp's.
  const auto phase = [&](const std::vector<ScalarProgram>& programs, SharedValues shared,
                         const std::string& name, const std::string& each) {
    first.shared = shared;
    std::string calls;
    for (size_t w = 0; w < programs.size(); ++w) {
      const std::string f = fn_name + each + std::to_string(w);
      text += emit_element_function(programs[w], f, max_statements, single_tangents,
                                    /*own_function=*/true, outline_specials, first, tape);
      calls += "    case ";
      calls += std::to_string(w);
      calls += ": ";
      calls += f;
      calls += element_call_args(tape, shared);
      calls += "); break;\n";
    }
    text += "DJ_FN void ";
    text += name;
    text += '(';
    text += element_params(tape, shared);
    text += ", int warp) {\n  switch (warp) {\n";
    text += calls;
    text += "  }\n}\n";
  };
  phase(parts.stage, SharedValues::Stores, fn_name + "_stage", "_stage");
  phase(parts.parts, SharedValues::Loads, fn_name, "_part");
  return text;
}

}  // namespace dualjit::jit

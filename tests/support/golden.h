// Golden files of generated source: a codegen change shows as a reviewable diff. The argument
// block's struct is left out (it comes from the driver's field table, jit/kernel_args.h, and a
// new common field would otherwise change every golden at once); so are the element chunk
// functions where `driver_only` (an assembly strategy's golden shows its driver; the element
// code has goldens of its own). DUALJIT_UPDATE_GOLDEN=1 rewrites the files instead of comparing.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "jit/lowering.h"

namespace dualjit::test {

inline std::string golden_text(const jit::LoweredKernel& k, const std::string& source,
                               bool driver_only) {
  std::string s = source;
  const std::string head = "struct " + std::string("DjArgs_") + k.symbol + " {";
  if (const size_t a = s.find(head); a != std::string::npos) {
    const size_t b = s.find("\n};\n", a);
    s.replace(a, b + 4 - a, "// (argument block: the driver's field table)\n");
  }
  if (driver_only) {
    // Everything from the first chunk function to the end of the last one.
    const std::string chunk = "DJ_FN void " + k.symbol + "_c";
    const std::string piece = "DJ_NOINLINE void " + k.symbol + "_c";
    size_t first = std::min(s.find(chunk), s.find(piece));
    size_t last = std::max(s.rfind(chunk), s.find(piece) == std::string::npos ? 0 : s.rfind(piece));
    if (first != std::string::npos && last != std::string::npos) {
      const size_t end = s.find("\n}\n", last) + 3;
      s.replace(first, end - first,
                "// (element chunk functions: " + std::to_string(k.plan.chunks.size()) + ")\n");
    }
  }
  return s;
}

inline void check_golden(const std::filesystem::path& file, const std::string& text) {
  CAPTURE(file.string());
  if (std::getenv("DUALJIT_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  REQUIRE(std::filesystem::exists(file));
  std::ifstream f(file);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == text);
}

}  // namespace dualjit::test

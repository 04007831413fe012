// The check a hand-written CUDA module gets without a GPU: NVRTC compiles it for sm_90 to a
// CUBIN (with the options given, but for the architecture), and every named entry point has a
// ptxas report and spills nothing.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>

#include "jit/nvrtc_compiler.h"

namespace dualjit::test {

inline jit::CompiledImage check_module_compiles(const std::string& name, const std::string& source,
                                                std::initializer_list<const char*> entries,
                                                jit::CompileOptions o = {}) {
  o.arch = "sm_90";
  jit::CompiledImage img = jit::nvrtc_compile(name, source, o);
  CHECK(img.is_cubin);
  for (const char* entry : entries) {
    CAPTURE(std::string(entry));
    const jit::PtxasReport r = jit::parse_ptxas_report(img.log, entry);
    CHECK(r.registers > 0);
    CHECK(r.spill_store_bytes == 0);
  }
  return img;
}

}  // namespace dualjit::test

// Constant tables (jit/constant_tables.h): the tapes' chunk of a large tape kernel reads its
// fp64 constants and its selects between two constants from tables that NVRTC compiles; other
// chunks keep their literals; a table stops at its byte budget. That the values are exact: the
// large tape kernel's cases in tests/backends/cpu_kernel_test.cpp and cuda_kernel_test.cpp.
#include "jit/constant_tables.h"
#include "support/matches.h"

#include <doctest/doctest.h>

#include <regex>
#include <string>

#include "jit/cuda_image.h"
#include "jit/kernel_cache.h"
#include "jit/lowering.h"
#include "support/test_kernels.h"

using namespace dualjit;
using namespace dualjit::jit;

namespace {

// The entry count N of `decl` N]... in src, 0 when src does not declare it.
size_t table_entries(const std::string& src, const std::string& decl) {
  const size_t at = src.find(decl);
  if (at == std::string::npos) return 0;
  return static_cast<size_t>(std::stoul(src.substr(at + decl.size())));
}

// Chunk `fn`'s text: its segments (jit/emit_element.h) if it is split, and the function.
std::string chunk_text(const std::string& src, const std::string& fn) {
  const size_t at = src.find("void " + fn), whole = src.find("void " + fn + "(");
  REQUIRE(whole != std::string::npos);
  return src.substr(at, src.find("\n}\n", whole) - at);
}

}  // namespace

TEST_CASE("the tapes' chunk reads fp64 constants and constant selects from constant tables") {
  LoweringOptions o;
  o.mode = Mode::Jacobian;
  o.rows = 1;
  const LoweredKernel l = lower(test::large_tape_kernel(), o);
  REQUIRE(l.plan.chunks.size() >= 2);
  REQUIRE(l.plan.chunks[0].tape);
  REQUIRE(l.chunk_statements[0] > kOutlineSpecials);
  const std::string& src = l.element_source;
  const std::string fn = l.symbol + "_c0";
  const size_t values = table_entries(src, "DJ_TABLE double " + fn + "_k[");
  const size_t selects = table_entries(src, "DJ_TABLE double " + fn + "_ks[2][");
  // Every reaction's coefficients (none an immediate), and its range's select: a value and its
  // tangent read the same select.
  CHECK(values >= 400);
  CHECK(selects == 200);
  CHECK(8 * (values + 2 * selects) <= kConstantTableBytes);
  CHECK(test::count_matches(src, std::regex(fn + R"(_ks_at\(t\d+, \d+\))")) == selects);
  // Every literal left in the tapes' chunk's statements is an fp64 immediate (1000.0 among
  // them); the tables are read.
  const std::string body = chunk_text(src, fn);
  size_t literals = 0, costly = 0;
  const std::regex literal(R"([ (-](\d+\.\d*(?:e[-+]?\d+)?))");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), literal);
       it != std::sregex_iterator(); ++it) {
    ++literals;
    costly += ConstantTables::worth_a_slot(std::stod((*it)[1].str()));
  }
  CHECK(literals > 0);
  CHECK(costly == 0);
  CHECK(body.find("> 1000.0") != std::string::npos);
  CHECK(test::count_matches(body, std::regex(fn + R"(_k\[\d+\])")) >= values);
  // The rows' chunks keep literals.
  for (size_t c = 1; c < l.plan.chunks.size(); ++c) {
    CHECK_FALSE(l.plan.chunks[c].tape);
    CHECK(src.find(l.symbol + "_c" + std::to_string(c) + "_k") == std::string::npos);
  }
  CHECK(l.cuda_source.find("#define DJ_TABLE extern \"C\" __constant__\n") != std::string::npos);
  CHECK(l.host_source.find("#define DJ_TABLE static const\n") != std::string::npos);
  CompileOptions co;
  co.arch = "sm_90";
  KernelCache cache(std::nullopt);
  CHECK(cuda_image(l, co, cache).is_cubin);  // the PTX that picks a row assembles

  // Without tapes, the same function keeps its literals.
  const LoweredKernel plain = lower(test::large_tape_kernel(false), o);
  REQUIRE(plain.chunk_statements[0] > kOutlineSpecials);
  CHECK(plain.element_source.find("DJ_TABLE") == std::string::npos);
}

TEST_CASE("a constant table shares a slot per value, skips immediates and stops at its budget") {
  ConstantTables t("f", 5 * 8);
  std::string a, b;
  CHECK_FALSE(t.value(1000.0, a));  // low 32 bits zero: an immediate
  CHECK_FALSE(ConstantTables::worth_a_slot(0.5));
  CHECK(ConstantTables::worth_a_slot(0.1));
  REQUIRE(t.value(0.1, a));
  REQUIRE(t.value(0.1, b));
  CHECK(a == "f_k[0]");
  CHECK(a == b);
  std::string pick;
  REQUIRE(t.select("t7", 0.3, 0.7, pick));
  CHECK(pick == "f_ks_at(t7, 0)");
  CHECK(t.value(0.2, a));  // 1 + 2 + 1 + ... of 5 slots
  CHECK(a == "f_k[1]");
  std::string full;
  CHECK_FALSE(t.select("t8", 0.3, 0.7, full));  // two more slots do not fit
  CHECK(full.empty());
  CHECK(t.value(0.4, a));
  CHECK_FALSE(t.value(0.6, a));
  const std::string d = t.declarations();
  CHECK(d.find("DJ_TABLE double f_k[3] = {") != std::string::npos);
  CHECK(d.find("DJ_TABLE double f_ks[2][1] = {{") != std::string::npos);
  CHECK(d.find("DJ_FN double f_ks_at(bool first_row, int i)") != std::string::npos);
  CHECK(d.find("return f_ks[first_row ? 0 : 1][i];") != std::string::npos);
}

#include "backends/cpu/host_compiler.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace dualjit::cpu;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* kSinKernel = R"(#include <cmath>

extern "C" void sin_times_x(const double* x, double* y, long n) {
#pragma omp parallel for
  for (long i = 0; i < n; ++i) y[i] = std::sin(x[i]) * x[i];
}
)";

}  // namespace

TEST_CASE("host compiler options and identity") {
  HostCompileOptions options;
  CHECK_FALSE(options.compiler.empty());
  const std::string canonical = options.canonical();
  CHECK(contains(canonical, options.compiler));
  CHECK(contains(canonical, "-fno-fast-math"));
  HostCompileOptions o3 = options;
  o3.flags[0] = "-O3";
  CHECK(o3.canonical() != canonical);  // every option is part of the key

  const std::string identity = host_compiler_identity(options);
  MESSAGE("host compiler: ", identity);
  CHECK(identity.find('\n') == std::string::npos);
  CHECK((contains(identity, "g++") || contains(identity, "gcc") || contains(identity, "clang")));
  CHECK(host_compiler_identity(options) == identity);  // cached, stable

  HostCompileOptions missing;
  missing.compiler = "dualjit-no-such-compiler";
  CHECK_THROWS_AS(host_compiler_identity(missing), HostCompileError);
}

TEST_CASE("host_compile builds an OpenMP function that matches the host") {
  HostCompileOptions options;
  HostCompileResult result = host_compile("sin_times_x", kSinKernel, options);
  CHECK(result.shared_object.size() > 1000);
  CHECK(result.compile_seconds > 0.0);
  MESSAGE("compiled in ", result.compile_seconds, " s");

  SharedObject library(result.shared_object, "sin_times_x");
  auto* fn = library.function<void(const double*, double*, long)>("sin_times_x");
  REQUIRE(static_cast<bool>(fn));

  const long n = 100003;
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-20.0, 20.0);
  std::vector<double> x(n), y(n, std::nan(""));
  for (auto& v : x) v = dist(rng);
  fn(x.data(), y.data(), n);
  long bad = 0;
  for (long i = 0; i < n; ++i)
    if (!(std::abs(y[i] - std::sin(x[i]) * x[i]) <= 1e-13 * (1.0 + std::abs(x[i])))) ++bad;
  CHECK(bad == 0);

  bool threw = false;
  try {
    library.symbol("no_such_symbol");
  } catch (const std::runtime_error& e) {
    threw = true;
    CHECK(contains(e.what(), "no_such_symbol"));
    CHECK(contains(e.what(), "sin_times_x"));
  }
  CHECK(threw);

  // A second load of the same bytes is an independent library.
  SharedObject again(result.shared_object, "sin_times_x (again)");
  CHECK(again.symbol("sin_times_x") != nullptr);
}

TEST_CASE("a compile error names the kernel and shows the numbered source line") {
  const std::string source =
      "extern \"C\" double broken(double x) {\n"
      "  double y = x * 2.0;\n"
      "  return y +* ;\n"
      "}\n";
  bool threw = false;
  try {
    host_compile("broken_flux", source, HostCompileOptions{});
  } catch (const HostCompileError& e) {
    threw = true;
    const std::string message = e.what();
    MESSAGE(message);
    CHECK(e.kernel() == "broken_flux");
    CHECK_FALSE(e.log().empty());
    CHECK(contains(message, "broken_flux"));
    CHECK(contains(message, "error"));
    CHECK(contains(message, ">    3 |   return y +* ;"));       // the offending line, marked
    CHECK(contains(message, "    2 |   double y = x * 2.0;"));  // and its neighbours
    CHECK_FALSE(contains(message, "/dualjit-host-"));           // no dangling temporary paths
  }
  CHECK(threw);
}

TEST_CASE("loading bytes that are not a shared object throws with its name") {
  std::vector<char> garbage(4096, 'z');
  bool threw = false;
  try {
    SharedObject library(garbage, "garbage_library");
  } catch (const std::runtime_error& e) {
    threw = true;
    CHECK(contains(e.what(), "garbage_library"));
  }
  CHECK(threw);
  CHECK_THROWS_AS(SharedObject(std::vector<char>{}, "empty_library"), std::runtime_error);
}

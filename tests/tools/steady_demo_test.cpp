// `dualjit demo --problem cfd-steady` as users run it (the built executable, the CPU backend, a
// fresh cache): the smallest channel converges, the explicit comparison takes far more steps,
// the .vtu holds the mesh and the fields, the residual plot is a PNG; JSON; bad options.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "tools/tool_runner.h"

using dualjit::test::run_tool;
using dualjit::test::TempCacheDir;

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

std::optional<double> json_number(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\":(-?[0-9.eE+-]+)")))
    return std::nullopt;
  return std::stod(m[1]);
}

}  // namespace

TEST_CASE("demo --problem cfd-steady: converges, writes the .vtu and the residual plot") {
  TempCacheDir dir;
  const fs::path out = dir.path() / "steady-out";
  const auto r = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--cpu", "--size", "1",
                                       "--output", out.string(), "--json"});
  INFO(r.out, r.err);
  REQUIRE(r.rc == 0);
  CHECK(contains(r.out, "\"ok\":true"));
  CHECK(contains(r.out, "\"converged\":true"));
  const auto steps = json_number(r.out, "iterations");
  const auto explicit_steps = json_number(r.out, "explicit_steps");
  REQUIRE(steps);
  REQUIRE(explicit_steps);
  CHECK(*steps <= 20);
  CHECK(*explicit_steps > 50 * *steps);
  CHECK(*json_number(r.out, "relative_residual") <= 1e-10);
  const auto nodes = json_number(r.out, "nodes");
  REQUIRE(nodes);

  std::ifstream vtu(out / "cfd_steady.vtu");
  REQUIRE(vtu);
  std::stringstream text;
  text << vtu.rdbuf();
  const std::string v = text.str();
  CHECK(contains(v, "<VTKFile type=\"UnstructuredGrid\""));
  CHECK(contains(v, "NumberOfPoints=\"" + std::to_string(static_cast<int64_t>(*nodes)) + "\""));
  for (const char* field : {"\"density\"", "\"velocity\"", "\"pressure\"", "\"mach\""})
    CHECK(contains(v, field));
  CHECK(contains(v, "</VTKFile>"));
  std::ifstream png(out / "cfd_steady_residual.png", std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  CHECK(std::string(magic + 1, 3) == "PNG");

  const auto text_run = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--cpu", "--size",
                                              "1", "--output", out.string()});
  CHECK(contains(text_run.out, "implicit:\n  iter      |R|/|R0|"));
  CHECK(contains(text_run.out, "demo: ok\n"));

  const auto bad = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--size", "0"});
  CHECK(bad.rc != 0);
  CHECK(contains(bad.err, "--size"));
  const auto wrong = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--T0", "1200"});
  CHECK(wrong.rc != 0);
  CHECK(contains(wrong.err, "--T0"));
}

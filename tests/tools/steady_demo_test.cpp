// `dualjit demo --problem cfd-steady` as users run it (the built executable, the CPU backend, a
// fresh cache): the smallest channel converges, the explicit comparison takes far more steps,
// the .vtu holds the mesh and the fields, the residual plot is a PNG; JSON; bad options; the
// sphere (meshed by gmsh) converges, and so does a Gmsh mesh given by --mesh.
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
  const auto r = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--cpu", "--geometry",
                                       "bump", "--size", "1", "--output", out.string(), "--json"});
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

  const auto text_run =
      run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--cpu", "--geometry", "bump",
                            "--size", "1", "--output", out.string()});
  CHECK(contains(text_run.out, "implicit:\n  iter      |R|/|R0|"));
  CHECK(contains(text_run.out, "demo: ok\n"));

  const auto bad = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--size", "0"});
  const auto both = run_tool(
      dir.path(), {"demo", "--problem", "cfd-steady", "--geometry", "bump", "--mesh", "x.msh"});
  CHECK(both.rc != 0);
  CHECK(contains(both.err, "exclude each other"));
  const auto elsewhere = run_tool(dir.path(), {"demo", "--problem", "cloth", "--mach", "0.3"});
  CHECK(elsewhere.rc != 0);
  CHECK(contains(elsewhere.err, "--mach applies to the demo cfd-steady"));
  CHECK(bad.rc != 0);
  CHECK(contains(bad.err, "--size"));
  const auto wrong = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--T0", "1200"});
  CHECK(wrong.rc != 0);
  CHECK(contains(wrong.err, "--T0"));
}

TEST_CASE("demo --problem cfd-steady: the sphere, meshed by gmsh, then the same mesh by --mesh") {
  TempCacheDir dir;
  const fs::path out = dir.path() / "sphere-out";
  const auto r =
      run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--cpu", "--size", "1",
                            "--explicit-steps", "0", "--output", out.string(), "--json"});
  INFO(r.out, r.err);
  REQUIRE(r.rc == 0);
  CHECK(contains(r.out, "\"converged\":true"));
  CHECK(contains(r.out, "sphere (radius 0.5)"));
  CHECK(*json_number(r.out, "iterations") <= 20);
  const double entropy = *json_number(r.out, "entropy_error");
  CHECK(entropy > 0);
  CHECK(entropy < 5e-3);
  REQUIRE(fs::exists(out / "sphere_1.msh"));
  const auto again = run_tool(dir.path(), {"demo", "--problem", "cfd-steady", "--cpu", "--mesh",
                                           (out / "sphere_1.msh").string(), "--explicit-steps", "0",
                                           "--output", out.string(), "--json"});
  INFO(again.out, again.err);
  REQUIRE(again.rc == 0);
  CHECK(*json_number(again.out, "nodes") == *json_number(r.out, "nodes"));
  CHECK(*json_number(again.out, "iterations") == *json_number(r.out, "iterations"));
}

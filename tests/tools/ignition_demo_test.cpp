// `dualjit demo --problem ignition` as users run it (the built executable, the CPU backend, a
// fresh cache per test, h2o2: its kernels compile in seconds, unlike GRI-3.0's): the single
// case against Cantera's delay (tests/data/kinetics/ignition.ref.txt) and equilibrium
// temperature, a small sweep writing ignition.csv and ignition.png with and without Cantera,
// and the errors. Skipped in builds without yaml-cpp (no kinetics).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

#include "tools/tool_runner.h"

#ifndef DUALJIT_TEST_PYTHON
#define DUALJIT_TEST_PYTHON ""  // tests/CMakeLists.txt: the Python with Cantera, where configured
#endif

using dualjit::test::run_tool;
using dualjit::test::TempCacheDir;

namespace {

namespace fs = std::filesystem;

const std::string kComposition = "H2:2, O2:1, AR:3.76";

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

bool has_ignition_demo(const TempCacheDir& dir) {
  return contains(run_tool(dir.path(), {"list"}).out, "\nignition ");
}

// The number after "key": in a JSON text, if any.
std::optional<double> json_number(const std::string& json, const std::string& key) {
  std::smatch m;
  if (!std::regex_search(json, m, std::regex("\"" + key + "\":(-?[0-9.eE+-]+)")))
    return std::nullopt;
  return std::stod(m[1]);
}

// A value of a case in ignition.ref.txt ("tau", "T_eq", ...).
double reference(const std::string& case_name, const std::string& key) {
  const std::string path = std::string(DUALJIT_TEST_DATA_DIR) + "/kinetics/ignition.ref.txt";
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  bool in_case = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    std::string k, v;
    s >> k >> v;
    if (k == "case") in_case = v == case_name;
    if (in_case && k == key) return std::stod(v);
  }
  FAIL("no " << key << " for " << case_name << " in " << path);
  return 0;
}

// Sets an environment variable for the tools run in its scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<std::string> sweep_args(const fs::path& out) {
  return {"demo",       "--problem", "ignition",      "--cpu",      "--mechanism", "h2o2.yaml",
          "--pressure", "101325",    "--composition", kComposition, "--size",      "4",
          "--t-end",    "0.01",      "--t-range",     "1000:1500",  "--output",    out.string()};
}

}  // namespace

TEST_CASE("demo --problem ignition --T0: one case, tau and T_final against Cantera's") {
  TempCacheDir dir;
  if (!has_ignition_demo(dir)) {
    MESSAGE("built without yaml-cpp: no ignition demo");
    return;
  }
  const std::vector<std::string> args = {
      "demo", "--problem",  "ignition", "--cpu",         "--mechanism", "h2o2.yaml",   "--T0",
      "1000", "--pressure", "101325",   "--composition", kComposition,  "--no-cantera"};
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const auto j = run_tool(dir.path(), json_args);
  INFO(j.out, j.err);
  REQUIRE(j.rc == 0);
  const double tau_ref = reference("h2o2_1000K_1atm", "tau");  // s, Cantera 3.2 at rtol 1e-10
  const double T_eq = reference("h2o2_1000K_1atm", "T_eq");
  const auto tau_ms = json_number(j.out, "tau_ms");
  const auto T_final = json_number(j.out, "T_final_K");
  REQUIRE(tau_ms);
  REQUIRE(T_final);
  CHECK(std::abs(*tau_ms / (tau_ref * 1e3) - 1) < 5e-3);
  CHECK(std::abs(*T_final - T_eq) < 1.0);
  CHECK(std::abs(*T_final - 2844.51) < 1.0);
  CHECK(contains(j.out, "\"mode\":\"single\""));
  CHECK(contains(j.out, "\"ignited\":true"));
  CHECK(contains(j.out, "\"rtol\":1e-09,\"atol\":1e-15"));
  CHECK(contains(j.out, "\"cantera\":\"\""));
  CHECK(contains(j.out, "\"ok\":true"));

  // The text (the kernels now from the cache).
  const auto t = run_tool(dir.path(), args);
  INFO(t.out, t.err);
  CHECK(t.rc == 0);
  CHECK(contains(t.out, "phase ohmech (10 species, 29 reactions): " + kComposition +
                            " at 101325 Pa, constant pressure; 1 reactor, T0 1000 K, to 10 s"));
  // Every kernel the first run compiled (the rates' and the Jacobian's launches) from the cache.
  const auto compiled = json_number(j.out, "kernels_compiled");
  REQUIRE(compiled);
  CHECK(*compiled >= 2);
  CHECK(contains(t.out, "kernels: 0 compiled, " + std::to_string(static_cast<int>(*compiled)) +
                            " from the disk cache"));
  CHECK(contains(t.out, "\ntau: 0.2344"));
  CHECK(contains(t.out, "\nT_final: 2844."));
  CHECK(contains(t.out, "demo: ok\n"));
}

TEST_CASE("demo --problem ignition: a sweep, its table, ignition.csv and ignition.png") {
  TempCacheDir dir;
  if (!has_ignition_demo(dir)) {
    MESSAGE("built without yaml-cpp: no ignition demo");
    return;
  }
  const fs::path out = dir.path() / "ignition-out";
  {
    // A Python that is not there: the demo says so and goes on.
    ScopedEnv python("DUALJIT_PYTHON", "/no/such/python3");
    const auto r = run_tool(dir.path(), sweep_args(out));
    INFO(r.out, r.err);
    REQUIRE(r.rc == 0);
    CHECK(contains(r.out, "Cantera not found (/no/such/python3): plot without it\n"));
    CHECK(contains(r.out, "4 reactors, T0 1000-1500 K, to 0.01 s, rtol 1e-06, atol 1e-12"));
    CHECK(contains(r.out, "T0 (K)  tau (ms)  T_final (K)\n"));
    // The 1000 K row's delay against Cantera's (the reference case is that reactor), within
    // the 0.5 % the ignition tests allow at these tolerances.
    std::smatch row;
    REQUIRE(std::regex_search(r.out, row, std::regex("\n1000\\.0  ([0-9.]+)  ")));
    const double tau_ms = std::stod(row[1]);
    CHECK(std::abs(tau_ms / (1e3 * reference("h2o2_1000K_1atm", "tau")) - 1) < 5e-3);
    CHECK(contains(r.out, "\n1500.0  0.0127"));
    CHECK(contains(r.out, "reactors: 4\n"));
    CHECK(contains(r.out, "reactors per second: "));
    CHECK(contains(r.out, "reactors failed                             0"));
    CHECK(contains(r.out, (out / "ignition.png").string()));
    CHECK(contains(r.out, "demo: ok\n"));
  }
  std::ifstream csv(out / "ignition.csv");
  REQUIRE(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "T0_K,tau_s,T_final_K");
  REQUIRE(lines[1].rfind("1000,", 0) == 0);
  CHECK(std::stod(lines[1].substr(5)) ==
        doctest::Approx(reference("h2o2_1000K_1atm", "tau")).epsilon(5e-3));
  std::ifstream png(out / "ignition.png", std::ios::binary);
  char magic[8] = {};
  png.read(magic, 8);
  CHECK(std::string(magic + 1, 3) == "PNG");

  // With Cantera (the build's Python, where it has it): its delays beside ours, within 2 %.
  const std::string python = DUALJIT_TEST_PYTHON;
  if (python.empty() || !fs::exists(python)) {
    MESSAGE("no Python with Cantera at '" << python << "': the sweep ran without it");
    return;
  }
  ScopedEnv env("DUALJIT_PYTHON", python);
  std::vector<std::string> args = sweep_args(out);
  args.push_back("--json");
  const auto c = run_tool(dir.path(), args);
  INFO(c.out, c.err);
  CHECK(c.rc == 0);
  if (contains(c.out, "Cantera not found")) {
    MESSAGE(python << " cannot import cantera: the sweep ran without it");
    return;
  }
  CHECK(contains(c.out, "\"cantera\":\"Cantera 3."));
  CHECK(contains(c.out, "\"cantera_tau_ms\":0.2344"));
  const auto deviation = json_number(c.out, "largest_deviation");
  REQUIRE(deviation);
  CHECK(*deviation < 0.02);
  CHECK(contains(c.out, "\"ok\":true"));
}

TEST_CASE("demo --problem ignition: errors name the species, the option or the file") {
  TempCacheDir dir;
  if (!has_ignition_demo(dir)) {
    MESSAGE("built without yaml-cpp: no ignition demo");
    return;
  }
  const std::vector<std::string> single = {"demo",        "--problem", "ignition",     "--cpu",
                                           "--mechanism", "h2o2.yaml", "--no-cantera", "--T0"};
  const auto with = [](std::vector<std::string> a, std::initializer_list<std::string> more) {
    a.insert(a.end(), more);
    return a;
  };
  // An unknown species: the composition parser's message (exit 1).
  const auto species =
      run_tool(dir.path(), with(single, {"1000", "--composition", "H2:2, O2:1, XE:3"}));
  CHECK(species.rc == 1);
  CHECK(contains(species.err, "no species 'XE' in phase ohmech"));
  const auto missing = run_tool(
      dir.path(), {"demo", "--problem", "ignition", "--cpu", "--mechanism", "no-such.yaml"});
  CHECK(missing.rc == 1);
  CHECK(contains(missing.err, "no-such.yaml: mechanism file not found"));
  // Bad values and options that do not apply: usage errors (exit 2).
  const std::vector<std::pair<std::vector<std::string>, std::string>> usage = {
      {with(single, {"0"}), "--T0 must be finite and positive"},
      {with(single, {"hot"}), "'hot' is not a number (--T0)"},
      {with(single, {"1000", "--size", "4"}), "--size applies to the sweep"},
      {{"demo", "--problem", "ignition", "--t-range", "1500:900"}, "--t-range takes LO:HI"},
      {{"demo", "--problem", "ignition", "--t-range", "900"}, "--t-range takes LO:HI"},
      {{"demo", "--problem", "ignition", "--mode", "value"}, "--mode does not apply"},
      {{"demo", "--problem", "cloth", "--T0", "1000"},
       "--T0 applies to the demo ignition, not to the application cloth"},
      {{"demo", "--problem", "spring", "--composition", "H2:1"},
       "--composition applies to the demo ignition, not to the problem spring"}};
  for (const auto& [args, message] : usage) {
    const auto r = run_tool(dir.path(), args);
    CAPTURE(message);
    CHECK(r.rc == 2);
    CHECK(contains(r.err, message));
  }
}

TEST_CASE("list shows the ignition demo beside the applications") {
  TempCacheDir dir;
  if (!has_ignition_demo(dir)) {
    MESSAGE("built without yaml-cpp: no ignition demo");
    return;
  }
  const auto r = run_tool(dir.path(), {"list"});
  CHECK(r.out.find("\nignition ") > r.out.find("applications ('dualjit demo --problem NAME'):"));
  CHECK(contains(run_tool(dir.path(), {"list", "--json"}).out, "{\"name\":\"ignition\""));
  const auto help = run_tool(dir.path(), {"demo", "--help"});
  CHECK(contains(help.out, "--T0 K"));
  CHECK(contains(help.out, "--t-range LO:HI"));
}

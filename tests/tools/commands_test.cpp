// Every dualjit command, run as users run it: the built executable, a fresh cache directory
// per test, the CPU backend (CI has no GPU) or an explicit CUDA architecture.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "backends/cpu/host_compiler.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc_compiler.h"
#include "jit/tuning_db.h"
#include "tools/tool_runner.h"

using namespace dualjit;
using test::run_tool;
using test::TempCacheDir;

namespace {

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The emitted translation units: text between "// ===== " headers.
std::vector<std::string> split_units(const std::string& text) {
  std::vector<std::string> units;
  size_t pos = text.find("// ===== ");
  while (pos != std::string::npos) {
    const size_t next = text.find("// ===== ", pos + 1);
    units.push_back(text.substr(pos, next - pos));
    pos = next;
  }
  return units;
}

}  // namespace

TEST_CASE("list shows the built-in problems, as a table and as JSON") {
  TempCacheDir dir;
  const auto r = run_tool(dir.path(), {"list"});
  REQUIRE(r.rc == 0);
  CHECK(contains(r.out, "cfd-roe"));
  CHECK(contains(r.out, "spring"));
  CHECK(contains(r.out, "jacobian,value"));
  const auto j = run_tool(dir.path(), {"list", "--json"});
  REQUIRE(j.rc == 0);
  CHECK(j.out.rfind("{\"problems\":[", 0) == 0);
  CHECK(contains(j.out, "\"name\":\"cfd-roe\""));
  // The energy applications, after the problems.
  const size_t apps = r.out.find("applications ('dualjit demo --problem NAME'):");
  REQUIRE(apps != std::string::npos);
  CHECK(apps > r.out.find("spring-grid"));
  for (const char* name : {"cloth", "param", "sphere", "smooth", "neohookean"}) {
    CAPTURE(name);
    CHECK(r.out.find(std::string("\n") + name + " ", apps) != std::string::npos);
    CHECK(contains(j.out, std::string("{\"name\":\"") + name + "\",\"size\":"));
  }
  CHECK(contains(j.out, "],\"applications\":[{\"name\":\"cloth\""));
}

TEST_CASE("info reports the compilers, the cache directory and the tuning records") {
  TempCacheDir dir;
  const auto r = run_tool(dir.path(), {"info"});
  REQUIRE(r.rc == 0);
  CHECK(contains(r.out, "NVRTC: nvrtc"));
  CHECK(contains(r.out, "cache: " + dir.path().string()));
  CHECK(contains(r.out, "0 entries"));
  CHECK(contains(r.out, "tuning records: 0"));
  const auto j = run_tool(dir.path(), {"info", "--json"});
  REQUIRE(j.rc == 0);
  CHECK(contains(j.out, "\"dir\":\"" + dir.path().string() + "\""));
}

TEST_CASE("emit prints source that compiles: NVRTC for sm_90 and the host compiler") {
  TempCacheDir dir;
  const auto r = run_tool(dir.path(), {"emit", "cfd-roe", "--width", "10", "--layout", "1x32"});
  REQUIRE(r.rc == 0);
  CHECK(contains(r.out, "operation counts"));
  CHECK(contains(r.out, "W=10"));
  const auto units = split_units(r.out);
  REQUIRE(units.size() == 2);  // interior edges and far-field nodes
  jit::CompileOptions o;
  o.arch = "sm_90";
  for (const std::string& u : units) {
    CHECK(contains(u, "__global__"));
    CHECK_NOTHROW(jit::nvrtc_compile("emitted", u, o));
  }
  const auto h = run_tool(dir.path(), {"emit", "spring", "--target", "cpu", "--mode", "gradient"});
  REQUIRE(h.rc == 0);
  const auto host_units = split_units(h.out);
  REQUIRE(host_units.size() == 1);
  CHECK_NOTHROW(cpu::host_compile("emitted", host_units[0], {}));
}

TEST_CASE("cache warm --arch sm_90 fills the cache; a second warm compiles nothing") {
  TempCacheDir dir;
  const auto w = run_tool(dir.path(), {"cache", "warm", "cfd-roe", "spring", "--arch", "sm_90"});
  REQUIRE(w.rc == 0);
  CHECK(contains(w.out, "3 compiled, 0 already cached, 0 failed"));
  CHECK(contains(w.err, "warming ["));  // progress
  const auto l = run_tool(dir.path(), {"cache", "list"});
  REQUIRE(l.rc == 0);
  // Three images, and the three kernels' lowered chunks (jit/lowering_memo.h).
  CHECK(contains(l.out, "6 entries"));
  CHECK(contains(l.out, "lowering"));
  CHECK(contains(l.out, "dj_roe_flux_jacobian"));
  CHECK(contains(l.out, "dj_roe_farfield_jacobian"));
  CHECK(contains(l.out, "dj_spring_energy_hessian"));
  CHECK(contains(l.out, "sm_90"));
  // --all: the spring grid's two staged-node-gather kernels are new, and the kinetics' Jacobian
  // where the project has the kinetics (yaml-cpp); the rest is cached.
  const bool kinetics = contains(run_tool(dir.path(), {"list"}).out, "\nkinetics ");
  const auto again = run_tool(dir.path(), {"cache", "warm", "--all", "--arch", "sm_90"});
  REQUIRE(again.rc == 0);
  CHECK(contains(again.out,
                 kinetics ? "3 compiled, 3 already cached" : "2 compiled, 3 already cached"));
  CHECK(contains(again.out, "dj_spring_energy_hessian_w6_t1_b128_df_sngb"));

  // prune keeps the cache under the cap (least recently used out), clear empties it.
  jit::DiskStore store({dir.path(), 2ull << 30, false});
  const uint64_t before = store.total_bytes();
  const uint64_t cap = before / 2;
  const auto p =
      run_tool(dir.path(), {"cache", "prune", "--max-size", std::to_string(cap / 1024) + "K"});
  REQUIRE(p.rc == 0);
  CHECK(store.total_bytes() <= cap);
  CHECK(store.total_bytes() < before);
  const auto c = run_tool(dir.path(), {"cache", "clear"});
  REQUIRE(c.rc == 0);
  CHECK(store.list().empty());
  CHECK(contains(run_tool(dir.path(), {"cache", "list"}).out, "0 entries"));
}

TEST_CASE("demo runs cfd-roe on the CPU backend, checked, and starts warm the second time") {
  TempCacheDir dir;
  const auto cold = run_tool(dir.path(), {"demo", "--cpu", "--size", "3000"});
  INFO(cold.out, cold.err);
  REQUIRE(cold.rc == 0);
  CHECK(contains(cold.out, "backend: CPU"));
  CHECK(contains(cold.out, "problem cfd-roe (jacobian)"));
  CHECK(contains(cold.out, "the host compiler compiled"));
  // Start-up in parts: the kernel step's own count (both kernels), then the structure.
  CHECK(contains(cold.out, "(2 compiled, 0 from the disk cache, 0 from memory)"));
  CHECK(contains(cold.out, "structure (patterns, incidences, allocations, uploads): "));
  CHECK(contains(cold.out, "prepared in "));
  CHECK(!contains(cold.out, "not timed apart"));
  CHECK(contains(cold.out, "Jacobian off-diagonal blocks (fp32)"));
  CHECK(contains(cold.out, "cache: " + dir.path().string()));
  CHECK(contains(cold.out, "demo: ok"));
  const auto warm = run_tool(dir.path(), {"demo", "--cpu", "--size", "3000", "--json"});
  REQUIRE(warm.rc == 0);
  CHECK(contains(warm.out, "\"compiled_now\":false"));
  CHECK(contains(warm.out, "\"cache_misses\":0"));
  CHECK(contains(warm.out, "\"kernels_compiled\":0,\"kernels_from_disk\":2"));
  CHECK(contains(warm.out, "\"kernel_seconds\":"));
  CHECK(contains(warm.out, "\"structure_seconds\":"));
  CHECK(!contains(warm.out, "_seconds\":-1"));
  CHECK(contains(warm.out, "\"ok\":true"));
  const auto spring =
      run_tool(dir.path(), {"demo", "--cpu", "--problem", "spring", "--size", "2000"});
  INFO(spring.out);
  CHECK(spring.rc == 0);
  CHECK(contains(spring.out, "assembled gradient (CPU Assembler)"));
  CHECK(contains(spring.out, "(1 compiled, 0 from the disk cache, 0 from memory)"));
  CHECK(contains(spring.out, "structure (patterns, incidences, allocations, uploads): "));
}

TEST_CASE("demo --problem kinetics: GRI-3.0's rates per cell, checked against the reference") {
  TempCacheDir dir;
  if (!contains(run_tool(dir.path(), {"list"}).out, "\nkinetics ")) {
    MESSAGE("built without yaml-cpp: no kinetics problem");
    return;
  }
  // The rates (two seconds of host compile); the Jacobian's takes tens of seconds on 2 cores.
  const auto r = run_tool(
      dir.path(), {"demo", "--cpu", "--problem", "kinetics", "--mode", "value", "--size", "64"});
  INFO(r.out);
  CHECK(r.rc == 0);
  CHECK(contains(r.out, "GRI-3.0 (53 species, 325 reactions): 64 cells, (T, Y) at 10 atm"));
  CHECK(contains(r.out, "demo: ok"));
}

TEST_CASE("kinetics --mechanism FILE[:PHASE]: listed, in demo, emit, cache warm, bench, autotune") {
  TempCacheDir dir;
  const auto l = run_tool(dir.path(), {"list"});
  if (!contains(l.out, "\nkinetics ")) {
    MESSAGE("built without yaml-cpp: no kinetics problem");
    return;
  }
  CHECK(contains(l.out, "--mechanism FILE[:PHASE]"));
  CHECK(contains(run_tool(dir.path(), {"list", "--json"}).out,
                 "\"options\":[{\"name\":\"--mechanism\",\"metavar\":\"FILE[:PHASE]\""));
  const auto help = run_tool(dir.path(), {"emit", "--help"});
  CHECK(help.rc == 0);
  CHECK(contains(help.out, "--mechanism FILE[:PHASE]"));

  // h2o2 (10 species): its rates compile in about a second, unlike GRI-3.0's.
  const std::string h2o2 = "phase ohmech (10 species, 29 reactions)";
  const auto d = run_tool(dir.path(), {"demo", "--cpu", "--problem", "kinetics", "--mechanism",
                                       "h2o2.yaml", "--mode", "value", "--size", "64"});
  INFO(d.out, d.err);
  CHECK(d.rc == 0);
  CHECK(contains(d.out, "h2o2.yaml, " + h2o2 + ": 64 cells, (T, Y) at 10 atm"));
  CHECK(contains(d.out, "kinetics_ohmech"));
  CHECK(contains(d.out, "_values"));  // the value mode runs the rates' own graph
  CHECK(contains(d.out, "demo: ok"));
  // The phase named, and the --NAME=VALUE form.
  const auto e = run_tool(dir.path(), {"emit", "kinetics", "--mechanism=h2o2.yaml:ohmech",
                                       "--target", "cpu", "--report-only"});
  INFO(e.out, e.err);
  CHECK(e.rc == 0);
  CHECK(contains(e.out, h2o2));
  CHECK(contains(e.out, "// ===== dj_kinetics_ohmech_"));
  // Warmed for the CPU backend (the value kernel the demo compiled: cached), then benched.
  const auto w = run_tool(dir.path(), {"cache", "warm", "kinetics", "--mechanism", "h2o2.yaml",
                                       "--cpu", "--mode", "value"});
  INFO(w.out, w.err);
  CHECK(w.rc == 0);
  CHECK(contains(w.out, "0 compiled, 1 already cached, 0 failed"));
  const auto b = run_tool(dir.path(), {"bench", "--cpu", "kinetics", "--mechanism", "h2o2.yaml",
                                       "--mode", "value", "--size", "64", "--repeats", "1"});
  INFO(b.out, b.err);
  CHECK(b.rc == 0);
  CHECK(contains(b.out, h2o2));
  CHECK(contains(b.out, "run 'dualjit autotune kinetics --mechanism h2o2.yaml'"));
  // The tuning record names the mechanism: GRI-3.0's would otherwise read the same.
  const auto a = run_tool(dir.path(), {"autotune", "--cpu", "kinetics", "--mechanism", "h2o2.yaml",
                                       "--mode", "value", "--size", "64", "--repeats", "1"});
  INFO(a.out, a.err);
  CHECK(a.rc == 0);
  CHECK(contains(a.out, h2o2));
  CHECK(contains(run_tool(dir.path(), {"info"}).out, "\nkinetics --mechanism h2o2.yaml  value"));

  // Errors name the file: exit 1 with the loader's message.
  const auto missing = run_tool(
      dir.path(), {"demo", "--cpu", "--problem", "kinetics", "--mechanism", "no-such-mech.yaml"});
  CHECK(missing.rc == 1);
  CHECK(contains(missing.err, "no-such-mech.yaml: mechanism file not found (tried "));
  const auto rk = run_tool(dir.path(), {"emit", "kinetics", "--mechanism",
                                        "nDodecane_Reitz.yaml:nDodecane_RK", "--report-only"});
  CHECK(rk.rc == 1);
  CHECK(contains(rk.err,
                 "nDodecane_Reitz.yaml: phase 'nDodecane_RK': thermo 'Redlich-Kwong' is "
                 "not supported (only ideal-gas phases are)"));
  const auto phase = run_tool(dir.path(), {"emit", "kinetics", "--mechanism", "h2o2.yaml:nope"});
  CHECK(phase.rc == 1);
  CHECK(contains(phase.err, "h2o2.yaml: no phase 'nope' (phases: ohmech, "));
  // Another problem's option is a usage error.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"emit", "spring", "--mechanism", "h2o2.yaml"},
        {"demo", "--problem", "cloth", "--mechanism", "h2o2.yaml"},
        {"cache", "warm", "spring", "--mechanism", "h2o2.yaml"}}) {
    const auto r = run_tool(dir.path(), args);
    CAPTURE(args[0]);
    CHECK(r.rc == 2);
    CHECK(contains(r.err, "--mechanism applies to the problem kinetics, not to "));
  }
}

TEST_CASE("demo --problem cloth runs the energy application: table, facts, files, JSON") {
  TempCacheDir dir;
  const std::filesystem::path out = dir.path() / "demo-out";
  const auto t = run_tool(
      dir.path(), {"demo", "--problem", "cloth", "--cpu", "--size", "5", "--output", out.string()});
  INFO(t.out, t.err);
  REQUIRE(t.rc == 0);
  CHECK(contains(t.out, "backend: CPU"));
  CHECK(contains(t.out, "cloth: cloth grid 5 x 5 (25 vertices"));
  CHECK(contains(t.out, " iter                   energy         |g|"));  // the table
  CHECK(contains(t.out, "newton: gradient norm after "));
  CHECK(contains(t.out, "pinned corners exactly fixed           yes"));
  CHECK(contains(t.out, "files:\n  " + (out / "cloth.obj").string() + "\n"));
  CHECK(contains(t.out, "demo: ok\n"));

  std::filesystem::remove_all(out);
  const auto j =
      run_tool(dir.path(), {"demo", "--problem", "cloth", "--cpu", "--size", "5", "--json",
                            "--output", out.string(), "--max-iterations", "20"});
  INFO(j.out, j.err);
  REQUIRE(j.rc == 0);
  CHECK(j.out.rfind("{\"name\":\"cloth\",\"backend\":\"cpu\",\"summary\":\"cloth grid 5 x 5", 0) ==
        0);
  CHECK(contains(j.out, "\"converged\":true"));
  CHECK(contains(j.out, "\"iterations\":"));
  CHECK(contains(j.out, "\"energy\":"));
  CHECK(contains(j.out, "\"gradient_norm\":"));
  CHECK(contains(j.out, "\"facts\":{\"vertices\":\"25\""));
  CHECK(contains(j.out, "\"pinned corners exactly fixed\":\"yes\""));
  const std::string files = "\"files\":[\"" + (out / "cloth.obj").string() + "\",\"" +
                            (out / "cloth.png").string() + "\",\"" +
                            (out / "convergence.png").string() + "\"]";
  CHECK(contains(j.out, files));
  CHECK(contains(j.out, "\"ok\":true}"));
  for (const char* f : {"cloth.obj", "cloth.png", "convergence.png"}) {
    CAPTURE(f);
    CHECK(std::filesystem::file_size(out / f) > 100);
  }
  CHECK(slurp(out / "cloth.png").rfind("\x89PNG\r\n\x1a\n", 0) == 0);

  // Options of the other kind are usage errors; a size the demo refuses is a runtime failure.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"demo", "--problem", "cloth", "--mode", "value"},
        {"demo", "--problem", "cloth", "--mesh", "bunny.off"},
        {"demo", "--problem", "neohookean", "--set", "width=2"},
        {"demo", "--output", out.string()},
        {"demo", "--problem", "cloth", "--max-iterations", "-3"}}) {
    const auto u = run_tool(dir.path(), args);
    CAPTURE(args[args.size() - 2]);
    CHECK(u.rc == 2);
    CHECK(!u.err.empty());
  }
  const auto bad = run_tool(
      dir.path(), {"demo", "--problem", "cloth", "--cpu", "--size", "2", "--output", out.string()});
  CHECK(bad.rc == 1);
  CHECK(contains(bad.err, "cloth demo: the grid side must be in [3, 40000], got 2"));
}

TEST_CASE("autotune on the CPU backend writes a record that later runs use; --pin holds") {
  TempCacheDir dir;
  const auto t =
      run_tool(dir.path(), {"autotune", "--cpu", "spring", "--size", "3000", "--repeats", "3"});
  INFO(t.out, t.err);
  REQUIRE(t.rc == 0);
  CHECK(contains(t.out, "winner: "));
  CHECK(contains(t.out, "speed-up"));
  jit::TuningDb db(dir.path());
  auto records = db.list();
  REQUIRE(records.size() == 1);
  const jit::TuningRecord rec = records[0];
  CHECK(rec.problem == "spring");
  CHECK(rec.key.backend == "cpu");
  CHECK(rec.key.mode == "hessian");
  CHECK(rec.candidates.size() == 4);  // widths 6, 3, 2, 1
  CHECK(!rec.pinned);

  // The next run uses the record: make its winner a configuration the heuristic never picks.
  jit::TuningRecord edited = rec;
  edited.winner["width"] = "1";
  REQUIRE(db.store(edited) == jit::TuningDb::StoreResult::stored);
  const auto d = run_tool(dir.path(), {"demo", "--cpu", "--problem", "spring", "--size", "3000"});
  INFO(d.out);
  REQUIRE(d.rc == 0);
  CHECK(contains(d.out,
                 "configuration (tuned): elements_per_block=128 min_blocks=0 "
                 "threads_per_element=1 width=1"));
  CHECK(contains(d.out, "dj_spring_energy_hessian_w1"));
  // Another size bucket has no record: the heuristic.
  const auto other =
      run_tool(dir.path(), {"demo", "--cpu", "--problem", "spring", "--size", "100"});
  CHECK(contains(other.out, "configuration (heuristic)"));
  const auto b =
      run_tool(dir.path(), {"bench", "--cpu", "spring", "--size", "3000", "--repeats", "2"});
  INFO(b.out);
  CHECK(b.rc == 0);
  CHECK(contains(b.out, "heuristic default"));
  CHECK(contains(b.out, "tuned"));

  // --pin: the record is pinned; a later autotune leaves it byte for byte.
  const auto pin = run_tool(
      dir.path(), {"autotune", "--cpu", "spring", "--size", "3000", "--repeats", "2", "--pin"});
  REQUIRE(pin.rc == 0);
  records = db.list();
  REQUIRE(records.size() == 1);
  CHECK(records[0].pinned);
  const std::string pinned_text = slurp(db.record_path(records[0].key));
  const auto again = run_tool(dir.path(), {"autotune", "--cpu", "spring", "--size", "3000"});
  REQUIRE(again.rc == 0);
  CHECK(contains(again.out, "is pinned"));
  CHECK(slurp(db.record_path(records[0].key)) == pinned_text);
  const auto info = run_tool(dir.path(), {"info"});
  CHECK(contains(info.out, "tuning records: 1"));
  const auto unpin = run_tool(
      dir.path(), {"autotune", "--cpu", "spring", "--size", "3000", "--repeats", "2", "--unpin"});
  REQUIRE(unpin.rc == 0);
  CHECK(!db.list().at(0).pinned);
}

TEST_CASE("bench times and checks the registered baselines beside the configurations") {
  TempCacheDir dir;
  const auto b = run_tool(
      dir.path(), {"bench", "--cpu", "cfd-roe", "--size", "3000", "--repeats", "2", "--json"});
  INFO(b.out, b.err);
  REQUIRE(b.rc == 0);
  CHECK(contains(b.out, "\"source\":\"heuristic default\""));
  CHECK(contains(b.out, "\"source\":\"baseline\""));
  CHECK(contains(b.out, "\"config\":\"two-pass\""));
  CHECK(!contains(b.out, "\"ok\":false"));
  const auto t = run_tool(dir.path(), {"bench", "--cpu", "cfd-roe", "--size", "3000", "--repeats",
                                       "1", "--mode", "value"});
  INFO(t.out, t.err);
  REQUIRE(t.rc == 0);
  CHECK(contains(t.out, "two-pass"));
  CHECK(contains(t.out, "baselines:"));
  CHECK(!contains(t.out, "FAILED"));
}

TEST_CASE("bad arguments are usage errors (exit 2); runtime failures exit 1") {
  TempCacheDir dir;
  const std::vector<std::vector<std::string>> usage_errors = {
      {"frobnicate"},
      {"demo", "--bogus"},
      {"demo", "--cpu", "--size", "lots"},
      {"demo", "--problem", "no-such-problem"},
      {"emit"},
      {"emit", "cfd-roe", "--target", "fpga"},
      {"emit", "cfd-roe", "--layout", "2by64"},
      {"emit", "cfd-roe", "--set", "colour=blue"},
      {"autotune", "spring", "--mode", "jacobian"},
      {"autotune", "spring", "--budget", "-1"},
      {"cache"},
      {"cache", "shrink"},
      {"cache", "prune"},
      {"cache", "prune", "--max-size", "12Q"},
      {"cache", "warm"},
      {"cache", "warm", "spring", "--arch", "volta"},
  };
  for (const auto& args : usage_errors) {
    const auto r = run_tool(dir.path(), args);
    CAPTURE(args.size() > 1 ? args[0] + " " + args[1] : args[0]);
    CHECK(r.rc == 2);
    CHECK(!r.err.empty());
  }
  const auto help = run_tool(dir.path(), {"autotune", "--help"});
  CHECK(help.rc == 0);
  CHECK(contains(help.out, "--budget SECONDS"));
  const auto missing = run_tool(dir.path(), {"--plugin", "/nonexistent/plugin.so", "list"});
  CHECK(missing.rc == 1);
  CHECK(contains(missing.err, "cannot load plugin '/nonexistent/plugin.so'"));
}

TEST_CASE("a plugin's problem is loaded, listed, emitted and run") {
  TempCacheDir dir;
  const auto l = run_tool(dir.path(), {"--plugin", DUALJIT_TEST_PLUGIN, "list"});
  INFO(l.err);
  REQUIRE(l.rc == 0);
  CHECK(contains(l.out, "plugin-quartic"));
  CHECK(contains(l.out, DUALJIT_TEST_PLUGIN));  // origin
  CHECK(contains(l.out, "cfd-roe"));
  // The CPU backend, so that on a GPU machine the CUDA kernel is not cached before the warm.
  const auto d = run_tool(dir.path(), {"demo", "--cpu", "--problem", "plugin-quartic", "--size",
                                       "200", "--plugin", DUALJIT_TEST_PLUGIN});
  INFO(d.out, d.err);
  CHECK(d.rc == 0);
  CHECK(contains(d.out, "chain of 200 edges"));
  CHECK(contains(d.out, "demo: ok"));
  const auto w = run_tool(dir.path(), {"--plugin", DUALJIT_TEST_PLUGIN, "cache", "warm",
                                       "plugin-quartic", "--arch", "sm_90"});
  CHECK(w.rc == 0);
  CHECK(contains(w.out, "1 compiled"));
}

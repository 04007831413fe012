// `dualjit demo`: the main job on a built-in problem (default cfd-roe: the Roe flux residual
// and FUN3D Jacobian on a box of tetrahedra). Builds the mesh, compiles the kernels or loads
// them from the cache, runs the assembly on the GPU (the CPU backend without one), checks a
// sample against the reference evaluator, and says what it did and where the cache is.
// Start-up is timed in parts (driver, context, problem, kernels, assembly structure), so that
// a warm start shows what the cache saves and what it cannot. An energy application's name
// (applications.h: cloth, param, sphere, smooth, neohookean) runs that application's demo
// instead (application_demo.h); "ignition" runs the kinetics' ignition-delay demo
// (ignition_demo_command.h); "cfd-steady" the steady Euler solve (steady_demo_command.h).
#include <chrono>

#include "backends/cuda/driver.h"
#include "jit/kernel_cache.h"
#include "tools/application_demo.h"
#include "tools/command_support.h"
#include "tools/commands.h"
#include "tools/ignition_demo_command.h"
#include "tools/steady_demo_command.h"

namespace dualjit::tools {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Milliseconds below a tenth of a second (a disk-cache hit), seconds above.
std::string duration_text(double s) {
  return s < 0.1 ? fmt("%.1f ms", s * 1e3) : fmt("%.2f s", s);
}

}  // namespace

int demo(int argc, char** argv) {
  Args args("demo", "[options]",
            "Builds the problem's mesh, compiles its kernels (or loads them from the cache),\n"
            "runs them on the GPU (on the CPU backend where there is none), checks a sample\n"
            "against the reference evaluator, and prints timings and the cache's location.\n"
            "The configuration is the tuned one when 'dualjit autotune' recorded one.\n"
            "An energy application (cloth, param, sphere, smooth, neohookean) instead minimises\n"
            "its energy, prints the convergence table and what it checked, and writes the\n"
            "result mesh (OBJ) and pictures (PNG). The demo ignition integrates a sweep of\n"
            "reactors (or one case with --T0) and prints their ignition delays beside\n"
            "Cantera's. The demo cfd-steady solves the steady Euler flow over a sphere (or\n"
            "through a channel with a bump) and writes the solution (.vtu) and its residual\n"
            "history (PNG).");
  args.option("--problem", "NAME", "the problem or application (default cfd-roe; 'dualjit list')")
      .option("--size", "N", "problem size (default: small on the CPU, ~6M edges on a GPU)")
      .option("--mode", "MODE", "derivative mode (default: the problem's first)")
      .option("--repeats", "N", "timed runs (default 10 GPU, 3 CPU)")
      .option("--elements", "N", "same as --size (kept for older scripts)")
      .flag("--cpu", "the CPU backend even when a GPU is present");
  add_config_options(args);
  add_application_options(args);
  add_problem_options(args);
  add_ignition_options(args);
  add_steady_options(args);
  if (!args.parse(argc, argv)) return 0;
  const std::string name = args.get("--problem", "cfd-roe");
  if (name != kSteadyDemo) {
    refuse_steady_options(args, name == kIgnitionDemo    ? "the demo " + name
                                : find_application(name) ? "the application " + name
                                                         : "the problem " + name);
  }
  // Every rank would run the whole job and write the same files.
  if (name != kSteadyDemo && launcher_ranks() > 1)
    throw UsageError("under mpirun only the demo " + std::string(kSteadyDemo) +
                     " runs distributed; run " + name + " as one process");
  if (name == kIgnitionDemo) return ignition_demo(args);
  refuse_ignition_options(
      args, name == kSteadyDemo
                ? std::string("the demo ") + name
                : (find_application(name) ? "the application " : "the problem ") + name);
  if (name == kSteadyDemo) return steady_demo(args);
  if (const Application* app = find_application(name)) return application_demo(*app, args);
  refuse_application_options(args, name);
  const ProblemRecipe& recipe = recipe_named(name);
  const ProblemOptionValues options = pick_problem_options(recipe, args);
  const Mode mode = pick_mode(recipe, args.get("--mode"));
  std::string why_cpu;
  const auto t_driver = std::chrono::steady_clock::now();
  const Target target = pick_target(args.has("--cpu"), &why_cpu);  // loads the CUDA driver
  const double driver_s = seconds_since(t_driver);
  int64_t size = pick_size(recipe, args, target);
  if (args.has("--elements")) size = args.get_int("--elements", size);
  const int repeats = static_cast<int>(args.get_int("--repeats", target == Target::Cuda ? 10 : 3));
  if (repeats < 1) throw UsageError("--repeats must be at least 1");
  const bool json = args.has("--json");
  std::string text;
  const auto say = [&](const std::string& line) {
    text += line;
    if (!json) {
      std::fputs(line.c_str(), stdout);
      std::fflush(stdout);
    }
  };
  Json j = Json::object().set("problem", recipe.name).set("mode", std::string(mode_name(mode)));

  j.set("driver_seconds", driver_s);
  if (target == Target::Cuda) {
    const auto t_context = std::chrono::steady_clock::now();
    const auto& d = cuda::Context::primary().device();
    const double context_s = seconds_since(t_context);
    say(fmt("backend: CUDA on %s (%s); driver loaded in %s, primary context created in %s\n",
            d.name.c_str(), d.arch().c_str(), duration_text(driver_s).c_str(),
            duration_text(context_s).c_str()));
    j.set("backend", "cuda").set("device", d.name).set("arch", d.arch());
    j.set("context_seconds", context_s);
  } else {
    say("backend: CPU (host compiler + OpenMP); " + why_cpu + "\n");
    j.set("backend", "cpu").set("cpu_reason", why_cpu);
  }
  const auto t_build = std::chrono::steady_clock::now();
  auto instance = build_problem(recipe, size, options);
  const double build_s = seconds_since(t_build);
  say(fmt("problem %s (%s): %s; built in %.2f s\n", recipe.name.c_str(),
          std::string(mode_name(mode)).c_str(), instance->summary().c_str(), build_s));

  const tuning::ConfigChoice choice = choose_run_config(*instance, target, mode, args);
  say(fmt("configuration (%s): %s\n",
          std::string(tuning::choice_source_name(choice.source)).c_str(),
          jit::format_config(choice.config).c_str()));

  jit::KernelCache::global().reset_stats();
  const auto t_prepare = std::chrono::steady_clock::now();
  auto run = instance->prepare(mode, choice.config, target);
  const double prepare_s = seconds_since(t_prepare);
  const RunStats st = run->stats();
  const auto cs = jit::KernelCache::global().stats();
  const jit::DiskStore* disk = jit::KernelCache::global().disk();
  const std::string cache_dir = disk ? disk->dir().string() : "memory only";
  const char* compiler = target == Target::Cuda ? "NVRTC" : "the host compiler";
  // The run's own count of its kernel step where it times it apart, else the whole preparation.
  const bool parts = st.kernel_seconds >= 0 && st.structure_seconds >= 0;
  const jit::KernelCache::Stats& lookups = parts ? st.kernel_lookups : cs;
  say(fmt("kernels %s: %s in %s (%llu compiled, %llu from the disk cache, %llu from memory)\n",
          st.kernels.c_str(),
          st.compiled_now ? fmt("%s compiled", compiler).c_str() : "loaded from the cache",
          duration_text(parts ? st.kernel_seconds : prepare_s).c_str(),
          static_cast<unsigned long long>(lookups.misses),
          static_cast<unsigned long long>(lookups.disk_hits),
          static_cast<unsigned long long>(lookups.memory_hits)));
  if (parts) {
    say(fmt("structure (patterns, incidences, allocations, uploads): %s\n",
            duration_text(st.structure_seconds).c_str()));
  }
  say(fmt("prepared in %s%s\n", duration_text(prepare_s).c_str(),
          parts ? "" : " (kernels and structure, not timed apart)"));
  say("cache: " + cache_dir + "\n");

  const double ms = time_run(*run, target, 1, repeats);
  const double gbps = st.bytes / (ms * 1e-3) / 1e9;
  say(fmt("run: %s ms per evaluation (median of %d%s), %.1f GB/s effective\n", ms_text(ms).c_str(),
          repeats, target == Target::Cuda ? ", CUDA events" : ", wall clock", gbps));
  if (st.registers >= 0) say(fmt("registers %d, spill bytes %d\n", st.registers, st.spill_bytes));

  std::string check_text;
  Json jc = Json::array();
  const auto t_check = std::chrono::steady_clock::now();
  const bool ok = checks_pass(run->check(64), &check_text, &jc);
  say(fmt("check against the reference evaluator (%.2f s):\n", seconds_since(t_check)) +
      check_text);
  say(ok ? "demo: ok\n" : "demo: FAILED\n");

  j.set("summary", instance->summary())
      .set("n_elements", instance->n_elements())
      .set("config", jit::format_config(choice.config))
      .set("config_source", std::string(tuning::choice_source_name(choice.source)))
      .set("kernels", st.kernels)
      .set("compiled_now", st.compiled_now)
      .set("cache_misses", cs.misses)
      .set("cache_disk_hits", cs.disk_hits)
      .set("cache_dir", cache_dir)
      .set("build_seconds", build_s)
      .set("prepare_seconds", prepare_s)
      .set("kernel_seconds", st.kernel_seconds)
      .set("structure_seconds", st.structure_seconds)
      .set("kernels_compiled", lookups.misses)
      .set("kernels_from_disk", lookups.disk_hits)
      .set("kernels_from_memory", lookups.memory_hits)
      .set("run_ms", ms)
      .set("gbps", gbps)
      .set("registers", st.registers)
      .set("spill_bytes", st.spill_bytes)
      .set("checks", jc)
      .set("ok", ok);
  if (json) std::printf("%s\n", j.dump().c_str());
  return ok ? 0 : 1;
}

}  // namespace dualjit::tools

// The problem registry of the dualjit command: named recipes that build kernels, a mesh or
// data of a requested size, and whatever runs them. Built-in problems (cfd-roe, spring) are
// registered by the tool; user code registers with one call, or statically with
// DUALJIT_REGISTER_PROBLEM in a shared library loaded by `dualjit --plugin lib.so`.
//
// Plugins: the dualjit executable exports its symbols, so a plugin's register_problem() call
// lands in the tool's registry. Link the plugin (MODULE library) against dualjit,
// dualjit_registry and whatever it uses; see tests/tools/plugin_problem.cpp.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/tuning/autotuner.h"
#include "backends/tuning/fused_config.h"
#include "dsl/kernel.h"
#include "dsl/mode.h"
#include "jit/kernel_cache.h"
#include "jit/lowering.h"

namespace dualjit::tools {

using tuning::Target;

struct RunStats {
  double bytes = 0;                      // bytes one run must move at least (for effective GB/s)
  int registers = -1, spill_bytes = -1;  // GPU: largest over the kernels; -1 on the CPU
  bool compiled_now = false;             // some kernel was compiled rather than loaded
  std::string kernels;                   // the kernel symbols, comma-separated
  // Where prepare() spent its time, for runs that measure the parts apart (-1 where not): a warm
  // start is cheap in kernels, and what remains is the structure, not the cache.
  double kernel_seconds = -1;              // compiling, or loading from the cache, the kernels
  double structure_seconds = -1;           // patterns, incidences, device allocations and uploads
  jit::KernelCache::Stats kernel_lookups;  // the global kernel cache's answers for the kernels
};

// Measures a run's kernel step for RunStats: its wall time and the global kernel cache's
// answers while it ran.
class KernelStepTimer {
 public:
  KernelStepTimer();
  void stop(RunStats& into) const;  // sets kernel_seconds and kernel_lookups

 private:
  std::chrono::steady_clock::time_point start_;
  jit::KernelCache::Stats before_;
};

struct CheckResult {
  std::string what;     // "residual rows", "Jacobian blocks (Aoff fp32)", ...
  int64_t checked = 0;  // values compared
  double worst = 0;     // largest relative error
  double tolerance = 0;
  bool ok() const { return checked > 0 && worst <= tolerance; }
};

struct BaselineInfo {
  std::string name;         // short, shown in the configuration column
  std::string description;  // one line: what it computes and how
};

// One configuration of a built problem, compiled (or loaded) and ready to run repeatedly.
class ProblemRun {
 public:
  virtual ~ProblemRun() = default;
  // One evaluation: synchronous on the CPU, enqueued on the null stream on the GPU.
  virtual void run() = 0;
  virtual RunStats stats() const = 0;
  // After run(): results on a sample of about `samples` elements or rows against the
  // reference evaluator (or the host Problem).
  virtual std::vector<CheckResult> check(int samples) = 0;
};

// A problem built at one size.
class ProblemInstance {
 public:
  virtual ~ProblemInstance() = default;
  virtual std::string summary() const = 0;  // what was built, one line
  virtual int64_t n_elements() const = 0;   // the size the tuning bucket is taken from
  virtual std::vector<const Kernel*> kernels() const = 0;
  // Configurations the autotuner times, in tie-break order, and the untuned default.
  virtual std::vector<tuning::TuningCandidate> candidates(Mode mode, Target target) const = 0;
  virtual tuning::TuningCandidate heuristic(Mode mode, Target target) const = 0;
  // The kernels a configuration runs, lowered for `target` (what emit prints, warm compiles).
  virtual std::vector<jit::LoweredKernel> lower(Mode mode, const jit::TuningConfig& config,
                                                Target target) = 0;
  // Compiles or loads the kernels and allocates what a run needs; throws naming the kernel.
  virtual std::unique_ptr<ProblemRun> prepare(Mode mode, const jit::TuningConfig& config,
                                              Target target) = 0;
  // Other implementations of the same outputs that `dualjit bench` times and checks beside the
  // generated configurations (e.g. a two-pass or hand-written path); none by default.
  virtual std::vector<BaselineInfo> baselines(Mode mode, Target target) const;
  // Throws std::invalid_argument for a name baselines() does not list.
  virtual std::unique_ptr<ProblemRun> prepare_baseline(const std::string& name, Mode mode,
                                                       Target target);
};

// An option of one problem beyond --size (e.g. kinetics' --mechanism FILE[:PHASE]). Every
// command that builds problems (demo, emit, autotune, bench, cache warm) declares the options
// of the registered problems and hands the given values to the problem's build_with_options,
// so that a problem adds an option here rather than in each command.
struct ProblemOption {
  std::string name;     // "--mechanism": starts with "--"
  std::string metavar;  // "FILE[:PHASE]"
  std::string help;     // one line, saying the default
};
// The options given on the command line, by name (absent: not given; the problem's default).
using ProblemOptionValues = std::map<std::string, std::string>;

struct ProblemRecipe {
  std::string name;         // command-line name, e.g. "cfd-roe"
  std::string description;  // one line
  std::string size_unit;    // what --size counts: "edges", "springs", ...
  std::vector<Mode> modes;  // the first is the default
  int64_t cpu_size = 0;     // default size on the CPU backend: seconds, not minutes
  int64_t gpu_size = 0;     // default size on a GPU
  int64_t small_size = 0;   // enough to lower the kernels (emit, cache warm)
  // One of the two: build for a problem without options, build_with_options for one with.
  std::function<std::unique_ptr<ProblemInstance>(int64_t size)> build;
  std::vector<ProblemOption> options;
  std::function<std::unique_ptr<ProblemInstance>(int64_t size, const ProblemOptionValues&)>
      build_with_options;
  std::string origin = "built-in";  // set by the registry: "built-in" or the plugin path
};

// Adds a recipe; throws std::invalid_argument for an empty or duplicate name, no modes, not
// exactly one build function, options without build_with_options, or a malformed or repeated
// option.
void register_problem(ProblemRecipe recipe);
// The recipe's instance at `size` with `values` (which build_with_options receives; build
// takes none). Throws std::invalid_argument naming a value's option that the recipe does not
// declare.
std::unique_ptr<ProblemInstance> build_problem(const ProblemRecipe& recipe, int64_t size,
                                               const ProblemOptionValues& values = {});
// Throws std::invalid_argument listing the registered names when `name` is unknown.
const ProblemRecipe& find_problem(const std::string& name);
std::vector<const ProblemRecipe*> registered_problems();  // sorted by name

// Loads a shared library whose static initialisers register problems. Throws
// std::runtime_error naming the file when it does not load, a registration in it failed, or
// it registered nothing.
std::vector<std::string> load_plugin(const std::string& path);

// Static registration. Errors are kept (a static initialiser must not throw) and reported by
// load_plugin, or by take_registration_errors().
struct ProblemRegistration {
  explicit ProblemRegistration(ProblemRecipe recipe);
};
std::vector<std::string> take_registration_errors();

}  // namespace dualjit::tools

// DUALJIT_REGISTER_PROBLEM(my_problem, recipe_expression): registers at load time.
#define DUALJIT_REGISTER_PROBLEM(id, ...) \
  static const ::dualjit::tools::ProblemRegistration dualjit_problem_registration_##id(__VA_ARGS__)

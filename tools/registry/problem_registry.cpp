#include "tools/registry/problem_registry.h"

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

namespace dualjit::tools {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, ProblemRecipe> recipes;
  std::vector<std::string> errors;
  std::string origin = "built-in";  // where registrations come from right now
  std::vector<std::string> added;   // names added since the last plugin load began
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

KernelStepTimer::KernelStepTimer()
    : start_(std::chrono::steady_clock::now()), before_(jit::KernelCache::global().stats()) {}

void KernelStepTimer::stop(RunStats& into) const {
  into.kernel_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const jit::KernelCache::Stats after = jit::KernelCache::global().stats();
  into.kernel_lookups.memory_hits = after.memory_hits - before_.memory_hits;
  into.kernel_lookups.disk_hits = after.disk_hits - before_.disk_hits;
  into.kernel_lookups.misses = after.misses - before_.misses;
  into.kernel_lookups.corrupt = after.corrupt - before_.corrupt;
}

std::vector<BaselineInfo> ProblemInstance::baselines(Mode, Target) const {
  return {};
}

std::unique_ptr<ProblemRun> ProblemInstance::prepare_baseline(const std::string& name, Mode mode,
                                                              Target target) {
  std::string known;
  for (const BaselineInfo& b : baselines(mode, target))
    known += (known.empty() ? "" : ", ") + b.name;
  throw std::invalid_argument("no baseline '" + name + "' for mode " +
                              std::string(mode_name(mode)) + " on " +
                              std::string(tuning::target_name(target)) +
                              (known.empty() ? " (none registered)" : " (known: " + known + ")"));
}

void register_problem(ProblemRecipe recipe) {
  if (recipe.name.empty()) throw std::invalid_argument("register_problem: empty problem name");
  if (recipe.modes.empty() || !recipe.build == !recipe.build_with_options) {
    throw std::invalid_argument("register_problem: problem '" + recipe.name +
                                "' needs at least one mode and one build function (build or "
                                "build_with_options)");
  }
  if (!recipe.options.empty() && !recipe.build_with_options) {
    throw std::invalid_argument("register_problem: problem '" + recipe.name +
                                "' declares options: it needs build_with_options");
  }
  for (size_t i = 0; i < recipe.options.size(); ++i) {
    const ProblemOption& o = recipe.options[i];
    const std::string where =
        "register_problem: problem '" + recipe.name + "': option '" + o.name + "'";
    if (o.name.size() < 3 || o.name.rfind("--", 0) != 0 || o.name.find('=') != std::string::npos)
      throw std::invalid_argument(where + ": the name must be --NAME");
    if (o.metavar.empty() || o.help.empty())
      throw std::invalid_argument(where + ": needs a metavar and a help line");
    for (size_t j = 0; j < i; ++j)
      if (recipe.options[j].name == o.name) throw std::invalid_argument(where + ": declared twice");
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.recipes.count(recipe.name)) {
    throw std::invalid_argument("register_problem: problem '" + recipe.name +
                                "' is already registered (" + r.recipes[recipe.name].origin + ")");
  }
  recipe.origin = r.origin;
  r.added.push_back(recipe.name);
  const std::string name = recipe.name;
  r.recipes.emplace(name, std::move(recipe));
}

const ProblemRecipe& find_problem(const std::string& name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.recipes.find(name);
  if (it != r.recipes.end()) return it->second;
  std::string names;
  for (const auto& [n, _] : r.recipes) names += (names.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown problem '" + name + "' (registered: " + names + ")");
}

std::unique_ptr<ProblemInstance> build_problem(const ProblemRecipe& recipe, int64_t size,
                                               const ProblemOptionValues& values) {
  for (const auto& [name, _] : values) {
    const bool declared = std::any_of(recipe.options.begin(), recipe.options.end(),
                                      [&](const ProblemOption& o) { return o.name == name; });
    if (!declared)
      throw std::invalid_argument("problem '" + recipe.name + "' takes no option " + name);
  }
  return recipe.build_with_options ? recipe.build_with_options(size, values) : recipe.build(size);
}

std::vector<const ProblemRecipe*> registered_problems() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<const ProblemRecipe*> out;
  for (const auto& [_, recipe] : r.recipes) out.push_back(&recipe);
  return out;
}

ProblemRegistration::ProblemRegistration(ProblemRecipe recipe) {
  try {
    register_problem(std::move(recipe));
  } catch (const std::exception& e) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.errors.push_back(e.what());
  }
}

std::vector<std::string> take_registration_errors() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return std::exchange(r.errors, {});
}

std::vector<std::string> load_plugin(const std::string& path) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    r.origin = path;
    r.added.clear();
  }
  // RTLD_NOW: a missing symbol is reported here, not at the first call.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::vector<std::string> added;
  {
    std::lock_guard lock(r.mutex);
    r.origin = "built-in";
    added = std::exchange(r.added, {});
  }
  if (!handle) {
    const char* why = dlerror();
    throw std::runtime_error("cannot load plugin '" + path + "': " + (why ? why : "unknown error"));
  }
  // The library stays loaded: its recipes' code lives in it.
  const auto errors = take_registration_errors();
  if (!errors.empty()) {
    throw std::runtime_error("plugin '" + path + "': " + errors.front());
  }
  if (added.empty()) {
    throw std::runtime_error("plugin '" + path +
                             "' registered no problems (DUALJIT_REGISTER_PROBLEM in it?)");
  }
  return added;
}

}  // namespace dualjit::tools

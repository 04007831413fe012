#include "tools/command_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "backends/cuda/driver.h"

namespace dualjit::tools {

const ProblemRecipe& recipe_named(const std::string& name) {
  try {
    return find_problem(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int launcher_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
  return 0;
}

Target pick_target(bool force_cpu, std::string* why_cpu) {
  if (force_cpu) {
    if (why_cpu) *why_cpu = "--cpu";
    return Target::Cpu;
  }
  if (cuda::driver_available()) return Target::Cuda;
  if (why_cpu) *why_cpu = "no GPU: " + cuda::driver_unavailable_reason();
  return Target::Cpu;
}

tuning::TuningTarget tuning_target(Target t) {
  return t == Target::Cuda ? tuning::cuda_target() : tuning::cpu_target();
}

Mode pick_mode(const ProblemRecipe& r, const std::string& text) {
  if (text.empty()) return r.modes.front();
  Mode m;
  try {
    m = parse_mode(text);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--mode: ") + e.what());
  }
  std::string names;
  for (Mode ok : r.modes) {
    if (ok == m) return m;
    names += (names.empty() ? "" : ", ") + std::string(mode_name(ok));
  }
  throw UsageError("problem '" + r.name + "' has no mode '" + text + "' (modes: " + names + ")");
}

int64_t pick_size(const ProblemRecipe& r, const Args& args, Target t) {
  const int64_t n = args.get_int("--size", t == Target::Cuda ? r.gpu_size : r.cpu_size);
  if (n < 1) throw UsageError("--size must be at least 1");
  return n;
}

void add_problem_options(Args& args) {
  // Problem options in order of first declaration; the help names every problem taking one.
  std::vector<std::pair<const ProblemOption*, std::string>> options;
  for (const ProblemRecipe* r : registered_problems()) {
    for (const ProblemOption& o : r->options) {
      auto it = std::find_if(options.begin(), options.end(),
                             [&](const auto& p) { return p.first->name == o.name; });
      if (it == options.end()) {
        if (args.declares(o.name))
          throw std::invalid_argument("problem '" + r->name + "' declares the option " + o.name +
                                      ", which the command already has");
        options.push_back({&o, r->name});
      } else {
        it->second += ", " + r->name;
      }
    }
  }
  for (const auto& [o, names] : options) args.option(o->name, o->metavar, names + ": " + o->help);
}

void refuse_problem_options(const Args& args, const std::vector<const ProblemRecipe*>& problems,
                            const std::string& what) {
  const auto declares = [](const ProblemRecipe& r, const std::string& name) {
    return std::any_of(r.options.begin(), r.options.end(),
                       [&](const ProblemOption& o) { return o.name == name; });
  };
  std::vector<std::string> seen;
  for (const ProblemRecipe* r : registered_problems()) {
    for (const ProblemOption& o : r->options) {
      if (!args.has(o.name) || std::find(seen.begin(), seen.end(), o.name) != seen.end()) continue;
      seen.push_back(o.name);
      if (std::any_of(problems.begin(), problems.end(),
                      [&](const ProblemRecipe* p) { return declares(*p, o.name); }))
        continue;
      std::string takers;
      for (const ProblemRecipe* t : registered_problems())
        if (declares(*t, o.name)) takers += (takers.empty() ? "" : ", ") + t->name;
      throw UsageError(o.name + " applies to the problem " + takers + ", not to " + what);
    }
  }
}

ProblemOptionValues pick_problem_options(const ProblemRecipe& r, const Args& args) {
  refuse_problem_options(args, {&r}, "the problem " + r.name);
  return problem_option_values(r, args);
}

ProblemOptionValues problem_option_values(const ProblemRecipe& r, const Args& args) {
  ProblemOptionValues values;
  for (const ProblemOption& o : r.options)
    if (args.has(o.name)) values[o.name] = args.get(o.name);
  return values;
}

std::string problem_label(const ProblemRecipe& r, const ProblemOptionValues& values) {
  std::string label = r.name;
  for (const auto& [name, value] : values) label += " " + name + " " + value;
  return label;
}

void add_config_options(Args& args) {
  args.option("--width", "W", "dual width (directions per chunk)")
      .option("--layout", "TxB",
              "GPU layout: threads per element x elements per block [xMIN_BLOCKS]")
      .option("--set", "FIELD=VALUE", "set a configuration field (see autotune's table)", true);
}

bool has_config_options(const Args& args) {
  return args.has("--width") || args.has("--layout") || args.has("--set");
}

jit::TuningConfig apply_config_options(jit::TuningConfig c, const Args& args) {
  if (args.has("--width")) c["width"] = std::to_string(args.get_int("--width", 0));
  if (args.has("--layout")) {
    const std::string l = args.get("--layout");
    std::vector<int> parts;
    size_t start = 0;
    try {
      while (start <= l.size()) {
        const size_t x = l.find('x', start);
        const std::string part = l.substr(start, x - start);
        size_t used = 0;
        parts.push_back(std::stoi(part, &used));
        if (used != part.size() || parts.back() < 0) throw std::invalid_argument(part);
        if (x == std::string::npos) break;
        start = x + 1;
      }
    } catch (const std::exception&) {
      throw UsageError("--layout '" + l + "' is not TxB or TxBxMIN_BLOCKS (e.g. 2x64)");
    }
    if (parts.size() < 2 || parts.size() > 3 || parts[0] < 1 || parts[1] < 1) {
      throw UsageError("--layout '" + l + "' is not TxB or TxBxMIN_BLOCKS (e.g. 2x64)");
    }
    c["threads_per_element"] = std::to_string(parts[0]);
    c["elements_per_block"] = std::to_string(parts[1]);
    if (parts.size() == 3) c["min_blocks"] = std::to_string(parts[2]);
  }
  for (const std::string& s : args.all("--set")) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      throw UsageError("--set '" + s + "' is not FIELD=VALUE");
    }
    const std::string field = s.substr(0, eq);
    if (!c.empty() && !c.count(field)) {
      std::string known;
      for (const auto& [k, _] : c) known += (known.empty() ? "" : ", ") + k;
      throw UsageError("--set: unknown field '" + field + "' (fields: " + known + ")");
    }
    c[field] = s.substr(eq + 1);
  }
  return c;
}

jit::TuningKey tuning_key_for(ProblemInstance& p, Target t, Mode m) {
  return tuning::tuning_key(tuning_target(t), tuning::kernels_hash(p.kernels()),
                            std::string(mode_name(m)), p.n_elements());
}

tuning::ConfigChoice choose_run_config(ProblemInstance& p, Target t, Mode m, const Args& args) {
  const jit::TuningConfig heuristic = p.heuristic(m, t).config;
  std::optional<jit::TuningConfig> explicit_config;
  if (has_config_options(args)) explicit_config = apply_config_options(heuristic, args);
  return tuning::choose_config(jit::TuningDb::from_env(), tuning_key_for(p, t, m), heuristic,
                               explicit_config);
}

std::string ms_text(double ms) {
  if (ms < 0) return "-";
  return fmt(ms < 10 ? "%.4f" : "%.2f", ms);
}

Progress::Progress(std::string title, size_t total, bool enabled)
    : title_(std::move(title)), total_(total), enabled_(enabled), tty_(isatty(2) != 0) {}

void Progress::step(size_t index, const std::string& label, const std::string& status) {
  if (!enabled_) return;
  const int bar = 20;
  const int filled = total_ ? static_cast<int>((index + 1) * bar / total_) : bar;
  const std::string line =
      fmt("%s [%s%s] %zu/%zu %s: %s", title_.c_str(), std::string(filled, '#').c_str(),
          std::string(bar - filled, '.').c_str(), index + 1, total_, label.c_str(), status.c_str());
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void Progress::done() {
  if (enabled_ && tty_) std::fprintf(stderr, "\n");
}

void emit_output(const Args& args, const Json& json, const std::string& text) {
  if (args.has("--json")) {
    std::printf("%s\n", json.dump().c_str());
  } else {
    std::fputs(text.c_str(), stdout);
  }
  std::fflush(stdout);
}

}  // namespace dualjit::tools

#include "backends/tuning/timing.h"

namespace dualjit::tools {

double time_run(ProblemRun& run, Target t, int warmup, int repeats) {
  const auto once = [&] { run.run(); };
  return t == Target::Cuda ? tuning::median_gpu_ms(once, warmup, repeats)
                           : tuning::median_wall_ms(once, warmup, repeats);
}

bool checks_pass(const std::vector<CheckResult>& checks, std::string* text, Json* json) {
  bool ok = !checks.empty();
  for (const CheckResult& c : checks) {
    ok = ok && c.ok();
    if (text) {
      *text += fmt("  %-52s %8lld values, worst relative error %.2e (tolerance %.0e): %s\n",
                   c.what.c_str(), static_cast<long long>(c.checked), c.worst, c.tolerance,
                   c.ok() ? "ok" : "FAILED");
    }
    if (json) {
      json->push(Json::object()
                     .set("what", c.what)
                     .set("checked", c.checked)
                     .set("worst_relative_error", c.worst)
                     .set("tolerance", c.tolerance)
                     .set("ok", c.ok()));
    }
  }
  return ok;
}

}  // namespace dualjit::tools

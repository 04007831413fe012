// What several sub-commands share: choosing the backend, mode, size and configuration of a
// problem, the tuning key, and a progress bar.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "backends/tuning/tuned_choice.h"
#include "tools/cli_args.h"
#include "tools/output.h"
#include "tools/registry/problem_registry.h"

namespace dualjit::tools {

// find_problem(), with an unknown name as a usage error.
const ProblemRecipe& recipe_named(const std::string& name);

// The GPU when one is usable and --cpu was not given; `why_cpu` says why not otherwise.
Target pick_target(bool force_cpu, std::string* why_cpu = nullptr);

// The ranks of the MPI launch that started this process (Open MPI's mpirun, or a PMI
// launcher), from the launcher's environment; 0 when no launcher started it.
int launcher_ranks();
tuning::TuningTarget tuning_target(Target t);
// --mode, checked against the recipe's modes (UsageError); default: the recipe's first.
Mode pick_mode(const ProblemRecipe& r, const std::string& text);
// --size (counts like 6M), else the recipe's default for the backend.
int64_t pick_size(const ProblemRecipe& r, const Args& args, Target t);

// The options the registered problems declare (ProblemRecipe::options, e.g. kinetics'
// --mechanism), each declared once on `args`, its help naming the problems that take it.
// Call after the command's own options; throws std::invalid_argument when a problem's option
// has the name of one of them.
void add_problem_options(Args& args);
// UsageError for a problem option given on `args` that none of `problems` declares.
void refuse_problem_options(const Args& args, const std::vector<const ProblemRecipe*>& problems,
                            const std::string& what);
// The values given on `args` of the options `r` declares, for build_problem(); UsageError for
// another problem's option.
ProblemOptionValues pick_problem_options(const ProblemRecipe& r, const Args& args);
// The same without the refusal: for a command of several problems, after
// refuse_problem_options over all of them.
ProblemOptionValues problem_option_values(const ProblemRecipe& r, const Args& args);
// The problem as a command line names it: "kinetics --mechanism h2o2.yaml" (the name alone
// without options), for tuning records and hints, which the name alone would not tell apart.
std::string problem_label(const ProblemRecipe& r, const ProblemOptionValues& values);

// --set FIELD=VALUE (repeatable), --width W, --layout TxB[xMIN_BLOCKS]: declared on `args`.
void add_config_options(Args& args);
bool has_config_options(const Args& args);
// `base` with the options applied (UsageError for malformed ones).
jit::TuningConfig apply_config_options(jit::TuningConfig base, const Args& args);

jit::TuningKey tuning_key_for(ProblemInstance& p, Target t, Mode m);

// The configuration a run uses: explicit options, else the tuning record, else the heuristic.
tuning::ConfigChoice choose_run_config(ProblemInstance& p, Target t, Mode m, const Args& args);

std::string ms_text(double ms);  // "1.234 ms", or "-" for a negative time

// One line per step on stderr ("[ 3/31] label: status"); redrawn in place on a terminal.
class Progress {
 public:
  Progress(std::string title, size_t total, bool enabled);
  void step(size_t index, const std::string& label, const std::string& status);
  void done();

 private:
  std::string title_;
  size_t total_;
  bool enabled_, tty_;
};

// Prints the JSON value or the text to stdout.
void emit_output(const Args& args, const Json& json, const std::string& text);

}  // namespace dualjit::tools

namespace dualjit::tools {
// Median milliseconds of `run` (CUDA events on the GPU, wall clock on the CPU).
double time_run(ProblemRun& run, Target t, int warmup, int repeats);
// All checks passed; `text` gets one line per check.
bool checks_pass(const std::vector<CheckResult>& checks, std::string* text, Json* json);
}  // namespace dualjit::tools

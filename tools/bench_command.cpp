// `dualjit bench PROBLEM`: the configuration a run uses (tuned, if recorded) against the
// heuristic default and the problem's registered baselines, on the same problem and device.
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {

int bench(int argc, char** argv) {
  Args args("bench", "PROBLEM [options]",
            "Times the configuration a run would use (explicit options, else the tuning record,\n"
            "else the heuristic) against the heuristic default and the problem's registered\n"
            "baselines (other implementations of the same outputs), checks each, and prints\n"
            "the speed-up over the heuristic default.");
  args.positionals("PROBLEM", "a registered problem", 1, 1)
      .option("--size", "N", "problem size (default: the problem's GPU or CPU size)")
      .option("--mode", "MODE", "derivative mode (default: the problem's first)")
      .option("--repeats", "N", "timed runs (default 20 GPU, 5 CPU)")
      .flag("--cpu", "the CPU backend even when a GPU is present");
  add_config_options(args);
  add_problem_options(args);
  if (!args.parse(argc, argv)) return 0;
  const ProblemRecipe& recipe = recipe_named(args.positional()[0]);
  const ProblemOptionValues options = pick_problem_options(recipe, args);
  const Mode mode = pick_mode(recipe, args.get("--mode"));
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  const int64_t size = pick_size(recipe, args, target);
  const int repeats = static_cast<int>(args.get_int("--repeats", target == Target::Cuda ? 20 : 5));
  if (repeats < 1) throw UsageError("--repeats must be at least 1");
  auto instance = build_problem(recipe, size, options);
  const tuning::ConfigChoice chosen = choose_run_config(*instance, target, mode, args);
  const tuning::TuningCandidate heuristic = instance->heuristic(mode, target);

  struct Row {
    std::string name;  // source column
    jit::TuningConfig config;
    std::string baseline;  // non-empty: a registered baseline, not a configuration
  };
  std::vector<Row> rows = {{"heuristic default", heuristic.config, ""}};
  if (chosen.config != heuristic.config) {
    rows.push_back({std::string(tuning::choice_source_name(chosen.source)), chosen.config, ""});
  }
  std::string baseline_notes;
  for (const BaselineInfo& b : instance->baselines(mode, target)) {
    rows.push_back({"baseline", {}, b.name});
    baseline_notes += "  " + b.name + ": " + b.description + "\n";
  }
  Table t({"configuration", "source", "ms", "GB/s", "speed-up", "check"});
  Json jr = Json::array();
  double base_ms = -1;
  bool all_ok = true;
  for (const Row& r : rows) {
    auto run = r.baseline.empty() ? instance->prepare(mode, r.config, target)
                                  : instance->prepare_baseline(r.baseline, mode, target);
    const std::string what = r.baseline.empty() ? jit::format_config(r.config) : r.baseline;
    const double ms = time_run(*run, target, target == Target::Cuda ? 3 : 1, repeats);
    const double gbps = run->stats().bytes / (ms * 1e-3) / 1e9;
    if (base_ms < 0) base_ms = ms;
    Json jc = Json::array();
    const bool ok = checks_pass(run->check(32), nullptr, &jc);
    all_ok = all_ok && ok;
    t.row({what, r.name, ms_text(ms), fmt("%.1f", gbps), fmt("%.2fx", base_ms / ms),
           ok ? "ok" : "FAILED"});
    jr.push(Json::object()
                .set("source", r.name)
                .set("config", what)
                .set("ms", ms)
                .set("gbps", gbps)
                .set("speedup", base_ms / ms)
                .set("checks", jc));
  }
  std::string text =
      fmt("bench %s (%s) on %s: %s\n", recipe.name.c_str(), std::string(mode_name(mode)).c_str(),
          target == Target::Cuda ? "the GPU" : ("the CPU backend (" + why_cpu + ")").c_str(),
          instance->summary().c_str());
  text += t.str();
  if (!baseline_notes.empty()) text += "baselines:\n" + baseline_notes;
  if (chosen.source == tuning::ChoiceSource::Heuristic) {
    text +=
        "no tuning record for this problem, mode, device and size bucket: run 'dualjit "
        "autotune " +
        problem_label(recipe, options) + "'\n";
  }
  emit_output(args,
              Json::object()
                  .set("problem", recipe.name)
                  .set("backend", std::string(tuning::target_name(target)))
                  .set("n_elements", instance->n_elements())
                  .set("choice", std::string(tuning::choice_source_name(chosen.source)))
                  .set("rows", jr),
              text);
  return all_ok ? 0 : 1;
}

}  // namespace dualjit::tools

// `dualjit bench PROBLEM`: the configuration a run uses (tuned, if recorded) against the
// heuristic default, on the same problem and device.
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {

int bench(int argc, char** argv) {
  Args args("bench", "PROBLEM [options]",
            "Times the configuration a run would use (explicit options, else the tuning record,\n"
            "else the heuristic) against the heuristic default, checks both, and prints the\n"
            "speed-up.");
  args.positionals("PROBLEM", "a registered problem", 1, 1)
      .option("--size", "N", "problem size (default: the problem's GPU or CPU size)")
      .option("--mode", "MODE", "derivative mode (default: the problem's first)")
      .option("--repeats", "N", "timed runs (default 20 GPU, 5 CPU)")
      .flag("--cpu", "the CPU backend even when a GPU is present");
  add_config_options(args);
  if (!args.parse(argc, argv)) return 0;
  const ProblemRecipe& recipe = recipe_named(args.positional()[0]);
  const Mode mode = pick_mode(recipe, args.get("--mode"));
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  const int64_t size = pick_size(recipe, args, target);
  const int repeats = static_cast<int>(args.get_int("--repeats", target == Target::Cuda ? 20 : 5));
  if (repeats < 1) throw UsageError("--repeats must be at least 1");
  auto instance = recipe.build(size);
  const tuning::ConfigChoice chosen = choose_run_config(*instance, target, mode, args);
  const tuning::TuningCandidate heuristic = instance->heuristic(mode, target);

  struct Row {
    std::string name;
    jit::TuningConfig config;
  };
  std::vector<Row> rows = {{"heuristic default", heuristic.config}};
  if (chosen.config != heuristic.config) {
    rows.push_back({std::string(tuning::choice_source_name(chosen.source)), chosen.config});
  }
  Table t({"configuration", "source", "ms", "GB/s", "speed-up", "check"});
  Json jr = Json::array();
  double base_ms = -1;
  bool all_ok = true;
  for (const Row& r : rows) {
    auto run = instance->prepare(mode, r.config, target);
    const double ms = time_run(*run, target, target == Target::Cuda ? 3 : 1, repeats);
    const double gbps = run->stats().bytes / (ms * 1e-3) / 1e9;
    if (base_ms < 0) base_ms = ms;
    Json jc = Json::array();
    const bool ok = checks_pass(run->check(32), nullptr, &jc);
    all_ok = all_ok && ok;
    t.row({jit::format_config(r.config), r.name, ms_text(ms), fmt("%.1f", gbps),
           fmt("%.2fx", base_ms / ms), ok ? "ok" : "FAILED"});
    jr.push(Json::object()
                .set("source", r.name)
                .set("config", jit::format_config(r.config))
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
  if (chosen.source == tuning::ChoiceSource::Heuristic) {
    text +=
        "no tuning record for this problem, mode, device and size bucket: run 'dualjit "
        "autotune " +
        recipe.name + "'\n";
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

// `dualjit emit PROBLEM`: the generated source of a problem's kernels and their op counts.
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {

int emit(int argc, char** argv) {
  Args args("emit", "PROBLEM [options]",
            "Prints the generated source of the problem's kernels for a configuration (the\n"
            "heuristic default, changed by --width, --layout and --set) and the operation-count\n"
            "report of each. Needs no GPU.");
  args.positionals("PROBLEM", "a registered problem (see 'dualjit list')", 1, 1)
      .option("--mode", "MODE", "derivative mode (default: the problem's first)")
      .option("--target", "cuda|cpu", "NVRTC translation unit (cuda, default) or host source (cpu)")
      .flag("--report-only", "print the operation counts without the source");
  add_config_options(args);
  add_problem_options(args);
  if (!args.parse(argc, argv)) return 0;
  const ProblemRecipe& r = recipe_named(args.positional()[0]);
  const ProblemOptionValues options = pick_problem_options(r, args);
  const Mode mode = pick_mode(r, args.get("--mode"));
  const std::string target_text = args.get("--target", "cuda");
  if (target_text != "cuda" && target_text != "cpu") {
    throw UsageError("--target must be cuda or cpu, not '" + target_text + "'");
  }
  const Target target = target_text == "cuda" ? Target::Cuda : Target::Cpu;
  auto instance = build_problem(r, r.small_size, options);
  const jit::TuningConfig config =
      apply_config_options(instance->heuristic(mode, target).config, args);
  const auto lowered = instance->lower(mode, config, target);
  Json j = Json::object()
               .set("problem", r.name)
               .set("mode", std::string(mode_name(mode)))
               .set("target", target_text)
               .set("config", jit::format_config(config))
               .set("summary", instance->summary());
  Json ks = Json::array();
  // The problem's summary heads the text: the source alone does not say which inputs (e.g.
  // which mechanism) it was emitted for.
  std::string text = "// " + r.name + ": " + instance->summary() + "\n";
  for (const jit::LoweredKernel& l : lowered) {
    const std::string& src = target == Target::Cuda ? l.cuda_source : l.host_source;
    ks.push(Json::object()
                .set("kernel", l.kernel_name)
                .set("symbol", l.symbol)
                .set("entry", target == Target::Cuda ? l.cuda_entry : l.host_entry)
                .set("source", src)
                .set("report", l.report())
                .set("flops", l.ops.flops())
                .set("statements", static_cast<uint64_t>(l.statements)));
    text += "// ===== " + l.symbol + " (" + r.name + ", " + std::string(mode_name(mode)) + ", " +
            target_text + ", " + jit::format_config(config) + ")\n";
    if (!args.has("--report-only")) text += src + "\n";
    std::string report = l.report();
    text += "/* operation counts\n" + report +
            (report.empty() || report.back() == '\n' ? "" : "\n") + "*/\n";
  }
  j.set("kernels", ks);
  emit_output(args, j, text);
  return 0;
}

}  // namespace dualjit::tools

// `dualjit autotune PROBLEM`: time the candidate configurations on the real problem, record
// the fastest in the tuning database.
#include "backends/cuda/driver.h"
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {
namespace {

Json record_json(const jit::TuningRecord& r, const std::string& path) {
  Json cands = Json::array();
  for (const auto& c : r.candidates) {
    cands.push(Json::object()
                   .set("label", c.label)
                   .set("config", jit::format_config(c.config))
                   .set("ms", c.ms)
                   .set("gbps", c.gbps)
                   .set("registers", c.registers)
                   .set("spill_bytes", c.spill_bytes)
                   .set("status", c.status));
  }
  return Json::object()
      .set("problem", r.problem)
      .set("n_elements", r.n_elements)
      .set("mode", r.key.mode)
      .set("backend", r.key.backend)
      .set("device", r.key.device)
      .set("arch", r.key.arch)
      .set("bucket", r.key.bucket)
      .set("winner", jit::format_config(r.winner))
      .set("winner_ms", r.winner_ms)
      .set("heuristic", jit::format_config(r.heuristic))
      .set("heuristic_ms", r.heuristic_ms)
      .set("pinned", r.pinned)
      .set("file", path)
      .set("candidates", cands);
}

}  // namespace

int autotune(int argc, char** argv) {
  Args args("autotune", "PROBLEM [options]",
            "Times every candidate configuration of the problem at the given size (on the GPU\n"
            "with CUDA events; on the CPU backend, the dual width and chunking, wall clock):\n"
            "warm-up, then medians; re-times the fastest, breaks ties towards the heuristic\n"
            "default and then the earlier candidate; checks each candidate's results; and\n"
            "records the winner with every candidate's figures in the tuning database. Runs\n"
            "of the same kernels, mode, device and size bucket then use it.");
  args.positionals("PROBLEM", "a registered problem", 1, 1)
      .option("--size", "N", "problem size (default: the problem's GPU or CPU size)")
      .option("--mode", "MODE", "derivative mode (default: the problem's first)")
      .option("--budget", "SECONDS", "stop timing new candidates after this long (default 300)")
      .option("--repeats", "N", "timed runs per candidate (default 10 GPU, 5 CPU)")
      .flag("--pin", "pin the result: later autotune runs never change it")
      .flag("--unpin", "release a pinned record first, then tune")
      .flag("--cpu", "tune the CPU backend even when a GPU is present");
  add_problem_options(args);
  if (!args.parse(argc, argv)) return 0;
  if (args.has("--pin") && args.has("--unpin")) throw UsageError("--pin and --unpin conflict");
  const ProblemRecipe& recipe = recipe_named(args.positional()[0]);
  const ProblemOptionValues options = pick_problem_options(recipe, args);
  const Mode mode = pick_mode(recipe, args.get("--mode"));
  const double budget = args.get_double("--budget", 300);
  if (budget <= 0) throw UsageError("--budget must be positive");
  std::string why_cpu;
  const Target target = pick_target(args.has("--cpu"), &why_cpu);
  const int64_t size = pick_size(recipe, args, target);
  const int repeats = static_cast<int>(args.get_int("--repeats", target == Target::Cuda ? 10 : 5));
  if (repeats < 1) throw UsageError("--repeats must be at least 1");
  const bool json = args.has("--json");

  auto instance = build_problem(recipe, size, options);
  const jit::TuningKey key = tuning_key_for(*instance, target, mode);
  jit::TuningDb db = jit::TuningDb::from_env();
  const std::string path = db.record_path(key).string();
  if (args.has("--unpin")) db.unpin(key);
  if (const auto old = db.load(key); old && old->pinned) {
    emit_output(args, record_json(*old, path).set("kept_pinned", true),
                fmt("%s: the record for %s is pinned (%s, %.4f ms); not re-tuning "
                    "(--unpin releases it)\n  %s\n",
                    recipe.name.c_str(), key.describe().c_str(),
                    jit::format_config(old->winner).c_str(), old->winner_ms, path.c_str()));
    return 0;
  }
  if (!json) {
    std::printf("autotune %s (%s) on %s: %s\n", recipe.name.c_str(),
                std::string(mode_name(mode)).c_str(),
                target == Target::Cuda ? ("GPU " + key.device).c_str()
                                       : ("the CPU backend (" + why_cpu + ")").c_str(),
                instance->summary().c_str());
    std::fflush(stdout);
  }

  const tuning::TuningCandidate heuristic = instance->heuristic(mode, target);
  const auto candidates = instance->candidates(mode, target);
  double bytes = 0;
  // Each candidate: compile or load, time, then check a sample of its results, so that a
  // fast but wrong configuration can never win.
  const tuning::CandidateTimer timer = [&](const jit::TuningConfig& config, int warmup, int reps) {
    auto run = instance->prepare(mode, config, target);
    const RunStats st = run->stats();
    bytes = st.bytes;
    tuning::CandidateTiming t;
    t.ms = time_run(*run, target, warmup, reps);
    t.registers = st.registers;
    t.spill_bytes = st.spill_bytes;
    const auto checks = run->check(16);
    for (const CheckResult& c : checks) {
      if (!c.ok()) {
        throw std::runtime_error(
            fmt("wrong results: %s worst relative error %.2e", c.what.c_str(), c.worst));
      }
    }
    return t;
  };
  // Bytes per run are known after the first preparation; measure it once up front.
  bytes = instance->prepare(mode, heuristic.config, target)->stats().bytes;

  tuning::AutotuneSettings s;
  s.budget_seconds = budget;
  s.repeats = repeats;
  s.warmup = target == Target::Cuda ? 3 : 1;
  s.finalist_repeats = repeats * 3;
  s.bytes_per_run = bytes;
  Progress progress("autotune", candidates.size() + 1, !json);
  s.on_progress = [&](const tuning::AutotuneProgress& p) {
    if (p.phase == "finalists" && p.index == 0) {
      progress.done();
      progress = Progress("finalists", p.total, !json);
    }
    progress.step(p.index, p.result->label,
                  p.result->ms > 0 ? ms_text(p.result->ms) + " ms" : p.result->status);
  };
  jit::TuningRecord rec = tuning::autotune(key, heuristic, candidates, timer, s);
  progress.done();
  rec.problem = problem_label(recipe, options);
  rec.n_elements = instance->n_elements();
  rec.pinned = args.has("--pin");
  const auto stored = db.store(rec);

  Table t({"candidate", "registers", "spills", "ms", "GB/s", "speed-up", "status"});
  for (const auto& c : rec.candidates) {
    const bool winner = c.config == rec.winner;
    t.row({(winner ? "* " : "  ") + c.label, c.registers < 0 ? "-" : std::to_string(c.registers),
           c.spill_bytes < 0 ? "-" : std::to_string(c.spill_bytes), ms_text(c.ms),
           c.ms > 0 ? fmt("%.1f", c.gbps) : "-",
           c.ms > 0 && rec.heuristic_ms > 0 ? fmt("%.2fx", rec.heuristic_ms / c.ms) : "-",
           c.status});
  }
  std::string text = t.str();
  std::string winner_label;
  for (const auto& c : rec.candidates) {
    if (c.config == rec.winner) winner_label = c.label;
  }
  text +=
      fmt("winner: %s, %s ms; heuristic default %s ms (default/tuned = %.2f)\n",
          winner_label.c_str(), ms_text(rec.winner_ms).c_str(), ms_text(rec.heuristic_ms).c_str(),
          rec.winner_ms > 0 && rec.heuristic_ms > 0 ? rec.heuristic_ms / rec.winner_ms : 0.0);
  text += stored == jit::TuningDb::StoreResult::stored
              ? fmt("recorded%s in %s\n", rec.pinned ? " (pinned)" : "", path.c_str())
              : "a pinned record appeared meanwhile; kept it\n";
  emit_output(
      args, record_json(rec, path).set("kept_pinned", stored != jit::TuningDb::StoreResult::stored),
      text);
  return 0;
}

}  // namespace dualjit::tools

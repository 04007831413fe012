// `dualjit cache warm | list | clear | prune`.
#include <chrono>

#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/driver.h"
#include "jit/cuda_image.h"
#include "jit/kernel_cache.h"
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {
namespace {

// One kernel to have in the cache: for a CUDA architecture, or for the host (arch "host").
struct WarmItem {
  std::string problem, mode, arch, config_label;
  jit::LoweredKernel lowered;
};

int warm(int argc, char** argv) {
  Args args("cache warm", "[PROBLEM... | --all] [options]",
            "Compiles ahead of time into the disk cache, so that a later run compiles nothing.\n"
            "Per problem and mode: the heuristic default configuration and every tuned one\n"
            "recorded for the architecture (--candidates: every autotune candidate).\n"
            "Targets: each --arch (CUDA, no GPU needed), and --cpu for the CPU backend; without\n"
            "either, what a run here uses (this GPU's architecture, else the CPU backend).");
  args.positionals("PROBLEM...", "registered problems", 0, -1)
      .flag("--all", "every registered problem")
      .option("--arch", "sm_XX", "CUDA architecture to compile for", true)
      .flag("--cpu", "the CPU backend (host compiler)")
      .option("--mode", "MODE", "derivative mode (default: the problem's first)", true)
      .flag("--candidates", "also every autotune candidate");
  add_problem_options(args);
  if (!args.parse(argc, argv)) return 0;
  std::vector<const ProblemRecipe*> problems;
  if (args.has("--all")) {
    if (!args.positional().empty()) throw UsageError("give problems or --all, not both");
    problems = registered_problems();
  } else {
    for (const std::string& name : args.positional()) problems.push_back(&recipe_named(name));
  }
  if (problems.empty()) throw UsageError("name the problems to warm, or --all");
  // A problem option goes to the problems that declare it (with --all: those among all).
  refuse_problem_options(args, problems, "the problems warmed");
  std::vector<std::string> archs = args.all("--arch");
  for (const std::string& a : archs) {
    if (a.rfind("sm_", 0) != 0 || a.size() < 5) {
      throw UsageError("--arch '" + a + "' is not a CUDA architecture like sm_90");
    }
  }
  bool cpu = args.has("--cpu");
  if (archs.empty() && !cpu) {
    if (pick_target(false) == Target::Cuda) {
      archs.push_back(cuda::Context::primary().device().arch());
    } else {
      cpu = true;
    }
  }
  const jit::TuningDb db = jit::TuningDb::from_env();
  const auto records = db.list();
  std::vector<WarmItem> items;
  for (const ProblemRecipe* r : problems) {
    std::vector<Mode> modes;
    for (const std::string& m : args.all("--mode")) modes.push_back(pick_mode(*r, m));
    if (modes.empty()) modes.push_back(r->modes.front());
    auto instance = build_problem(*r, r->small_size, problem_option_values(*r, args));
    const std::string khash = tuning::kernels_hash(instance->kernels());
    std::vector<std::pair<Target, std::string>> targets;
    for (const auto& a : archs) targets.emplace_back(Target::Cuda, a);
    if (cpu) targets.emplace_back(Target::Cpu, "host");
    for (Mode m : modes) {
      for (const auto& [target, arch] : targets) {
        std::vector<tuning::TuningCandidate> configs = {instance->heuristic(m, target)};
        for (const auto& rec : records) {
          const bool same_arch =
              target == Target::Cuda ? rec.key.arch == arch : rec.key.backend == "cpu";
          if (rec.key.kernel_hash == khash && rec.key.mode == mode_name(m) && same_arch) {
            configs.push_back({"tuned " + jit::format_config(rec.winner), rec.winner});
          }
        }
        if (args.has("--candidates")) {
          for (auto& c : instance->candidates(m, target)) configs.push_back(c);
        }
        std::vector<jit::TuningConfig> seen;
        for (const auto& c : configs) {
          if (std::find(seen.begin(), seen.end(), c.config) != seen.end()) continue;
          seen.push_back(c.config);
          for (jit::LoweredKernel& l : instance->lower(m, c.config, target)) {
            items.push_back({r->name, std::string(mode_name(m)), arch, c.label, std::move(l)});
          }
        }
      }
    }
  }
  Progress progress("warming", items.size(), !args.has("--json"));
  size_t compiled = 0, cached = 0, failed = 0;
  Json ji = Json::array();
  Table t({"problem", "mode", "target", "kernel", "result", "seconds"});
  for (size_t i = 0; i < items.size(); ++i) {
    WarmItem& it = items[i];
    const auto t0 = std::chrono::steady_clock::now();
    std::string result;
    bool now = false;
    try {
      if (it.arch == "host") {
        const cpu::CpuKernel k(it.lowered);
        now = k.compiled_now();
      } else {
        now = jit::cuda_image(it.lowered, jit::default_compile_options(it.lowered, it.arch))
                  .compiled_now;
      }
      result = now ? "compiled" : "cached";
      (now ? compiled : cached) += 1;
    } catch (const std::exception& e) {
      std::string what = e.what();
      what = what.substr(0, what.find('\n'));
      result = "failed: " + what;
      ++failed;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress.step(i, it.lowered.symbol + " (" + it.arch + ")", result);
    t.row({it.problem, it.mode, it.arch, it.lowered.symbol, result, fmt("%.2f", s)});
    ji.push(Json::object()
                .set("problem", it.problem)
                .set("mode", it.mode)
                .set("target", it.arch)
                .set("config", it.config_label)
                .set("symbol", it.lowered.symbol)
                .set("result", result)
                .set("seconds", s));
  }
  progress.done();
  jit::DiskStore* disk = jit::KernelCache::global().disk();
  const std::string dir = disk ? disk->dir().string() : "memory only";
  emit_output(args,
              Json::object()
                  .set("items", ji)
                  .set("compiled", static_cast<uint64_t>(compiled))
                  .set("cached", static_cast<uint64_t>(cached))
                  .set("failed", static_cast<uint64_t>(failed))
                  .set("cache_dir", dir),
              t.str() + fmt("%zu compiled, %zu already cached, %zu failed; cache: %s\n", compiled,
                            cached, failed, dir.c_str()));
  return failed ? 1 : 0;
}

int list_entries(int argc, char** argv) {
  Args args("cache list", "[options]", "The entries of the disk cache, most recently used first.");
  if (!args.parse(argc, argv)) return 0;
  jit::DiskStore store = jit::DiskStore::from_env();
  auto entries = store.list();
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.last_use > b.last_use; });
  const auto meta = [](const jit::DiskStore::Listing& l, const char* k) {
    const auto it = l.metadata.find(k);
    return it == l.metadata.end() ? std::string("-") : it->second;
  };
  Table t({"key", "kernel", "symbol", "mode", "width", "layout", "target", "registers", "size"});
  Json je = Json::array();
  uint64_t total = 0;
  for (const auto& e : entries) {
    total += e.bytes;
    const std::string target = meta(e, "arch") != "-" ? meta(e, "arch") : meta(e, "key.target");
    t.row({e.key.substr(0, 12), meta(e, "kernel"), meta(e, "symbol"), meta(e, "mode"),
           meta(e, "width"), meta(e, "layout"), target, meta(e, "registers"),
           format_bytes(e.bytes)});
    Json m = Json::object();
    for (const auto& [k, v] : e.metadata) m.set(k, v);
    je.push(Json::object().set("key", e.key).set("bytes", e.bytes).set("metadata", m));
  }
  emit_output(
      args, Json::object().set("dir", store.dir().string()).set("entries", je).set("bytes", total),
      t.str() + fmt("%zu entries, %s in %s\n", entries.size(), format_bytes(total).c_str(),
                    store.dir().c_str()));
  return 0;
}

int clear(int argc, char** argv) {
  Args args("cache clear", "[options]", "Removes every kernel cache entry.");
  args.flag("--tuning", "also remove the tuning records (pinned ones included)");
  if (!args.parse(argc, argv)) return 0;
  jit::DiskStore store = jit::DiskStore::from_env();
  const size_t n = store.list().size();
  const uint64_t bytes = store.clear();
  size_t records = 0;
  if (args.has("--tuning")) {
    jit::TuningDb db = jit::TuningDb::from_env();
    records = db.clear();
  }
  emit_output(
      args,
      Json::object()
          .set("removed_entries", static_cast<uint64_t>(n))
          .set("removed_bytes", bytes)
          .set("removed_tuning_records", static_cast<uint64_t>(records)),
      fmt("removed %zu entries (%s) from %s", n, format_bytes(bytes).c_str(), store.dir().c_str()) +
          (args.has("--tuning") ? fmt(" and %zu tuning records\n", records) : "\n"));
  return 0;
}

int prune(int argc, char** argv) {
  Args args("cache prune", "--max-size SIZE [options]",
            "Removes least recently used entries until the cache is at most SIZE\n"
            "(bytes, or with a unit: 512K, 100M, 2G).");
  args.option("--max-size", "SIZE", "the cap");
  if (!args.parse(argc, argv)) return 0;
  if (!args.has("--max-size")) throw UsageError("--max-size is required");
  const uint64_t cap = parse_byte_size(args.get("--max-size"));
  jit::DiskStore store = jit::DiskStore::from_env();
  const size_t before = store.list().size();
  const uint64_t removed = store.prune(cap);
  const size_t after = store.list().size();
  const uint64_t left = store.total_bytes();
  emit_output(args,
              Json::object()
                  .set("removed_entries", static_cast<uint64_t>(before - after))
                  .set("removed_bytes", removed)
                  .set("entries", static_cast<uint64_t>(after))
                  .set("bytes", left)
                  .set("max_bytes", cap),
              fmt("removed %zu entries (%s); %zu entries, %s left (cap %s)\n", before - after,
                  format_bytes(removed).c_str(), after, format_bytes(left).c_str(),
                  format_bytes(cap).c_str()));
  return 0;
}

}  // namespace

int cache(int argc, char** argv) {
  const std::string help =
      "usage: dualjit cache <warm|list|clear|prune> [options]\n"
      "  warm   compile problems' kernels ahead of time (with or without a GPU)\n"
      "  list   the cache entries\n"
      "  clear  remove every entry (--tuning: and the tuning records)\n"
      "  prune  remove least recently used entries down to --max-size SIZE\n";
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::fputs(help.c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string sub = argv[1];
  if (sub == "warm") return warm(argc - 1, argv + 1);
  if (sub == "list") return list_entries(argc - 1, argv + 1);
  if (sub == "clear") return clear(argc - 1, argv + 1);
  if (sub == "prune") return prune(argc - 1, argv + 1);
  throw UsageError("unknown cache command '" + sub + "' (warm, list, clear, prune)");
}

}  // namespace dualjit::tools

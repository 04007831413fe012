// `dualjit info`: devices, compilers, the cache and the tuning records.
#include "backends/cpu/host_compiler.h"
#include "backends/cuda/driver.h"
#include "jit/kernel_cache.h"
#include "jit/nvrtc_compiler.h"
#include "jit/tuning_db.h"
#include "tools/command_support.h"
#include "tools/commands.h"

namespace dualjit::tools {

int info(int argc, char** argv) {
  Args args("info", "[options]",
            "GPUs (name, compute capability, memory), NVRTC and driver versions, the host\n"
            "compiler, the cache directory (size, entries) and the tuning records.");
  if (!args.parse(argc, argv)) return 0;
  Json j = Json::object();
  std::string text;

  Json gpus = Json::array();
  if (cuda::driver_available()) {
    const int v = cuda::driver_version();
    const std::string dv = fmt("%d.%d", v / 1000, (v % 1000) / 10);
    j.set("driver_version", dv);
    text += "CUDA driver " + dv + "\n";
    for (const cuda::DeviceInfo& d : cuda::devices()) {
      gpus.push(Json::object()
                    .set("ordinal", d.ordinal)
                    .set("name", d.name)
                    .set("arch", d.arch())
                    .set("compute_capability", fmt("%d.%d", d.cc_major, d.cc_minor))
                    .set("memory_bytes", static_cast<uint64_t>(d.total_memory))
                    .set("multiprocessors", d.multiprocessors));
      text += fmt("GPU %d: %s, compute capability %d.%d (%s), %s, %d SMs\n", d.ordinal,
                  d.name.c_str(), d.cc_major, d.cc_minor, d.arch().c_str(),
                  format_bytes(d.total_memory).c_str(), d.multiprocessors);
    }
  } else {
    const std::string why = cuda::driver_unavailable_reason();
    j.set("driver_version", Json()).set("no_gpu_reason", why);
    text += "no GPU: " + why + " (the CPU backend runs everything)\n";
  }
  j.set("gpus", gpus);

  std::string nvrtc, archs;
  try {
    nvrtc = jit::nvrtc_identity();
    for (const auto& a : jit::nvrtc_supported_archs()) archs += (archs.empty() ? "" : " ") + a;
  } catch (const std::exception& e) {
    nvrtc = std::string("unavailable: ") + e.what();
  }
  j.set("nvrtc", nvrtc).set("nvrtc_archs", archs);
  text += "NVRTC: " + nvrtc + "\n  architectures: " + archs + "\n";
  std::string host;
  try {
    host = cpu::host_compiler_identity({});
  } catch (const std::exception& e) {
    host = std::string("unavailable: ") + e.what();
  }
  j.set("host_compiler", host);
  text += "host compiler: " + host + "\n";

  jit::DiskStore store = jit::DiskStore::from_env();
  const auto entries = store.list();
  const uint64_t bytes = store.total_bytes();
  j.set("cache", Json::object()
                     .set("dir", store.dir().string())
                     .set("entries", static_cast<uint64_t>(entries.size()))
                     .set("bytes", bytes)
                     .set("max_bytes", store.options().max_bytes)
                     .set("read_only", store.options().read_only)
                     .set("writable", store.writable()));
  text += fmt("cache: %s\n  %zu entries, %s of %s%s\n", store.dir().c_str(), entries.size(),
              format_bytes(bytes).c_str(), format_bytes(store.options().max_bytes).c_str(),
              store.options().read_only ? " (read-only)" : "");

  const jit::TuningDb db = jit::TuningDb::from_env();
  const auto records = db.list();
  Table t({"problem", "mode", "backend", "device", "size bucket", "winner", "ms", "default ms",
           "pinned"});
  Json jr = Json::array();
  for (const auto& r : records) {
    t.row({r.problem, r.key.mode, r.key.backend, r.key.device + " (" + r.key.arch + ")",
           fmt("2^%d", r.key.bucket), jit::format_config(r.winner), ms_text(r.winner_ms),
           ms_text(r.heuristic_ms), r.pinned ? "yes" : "no"});
    jr.push(Json::object()
                .set("problem", r.problem)
                .set("mode", r.key.mode)
                .set("backend", r.key.backend)
                .set("device", r.key.device)
                .set("arch", r.key.arch)
                .set("bucket", r.key.bucket)
                .set("winner", jit::format_config(r.winner))
                .set("winner_ms", r.winner_ms)
                .set("heuristic_ms", r.heuristic_ms)
                .set("pinned", r.pinned)
                .set("file", db.record_path(r.key).string()));
  }
  j.set("tuning_records", jr).set("tuning_dir", db.dir().string());
  text += fmt("tuning records: %zu in %s\n", records.size(), db.dir().c_str());
  if (!records.empty()) text += t.str();
  emit_output(args, j, text);
  return 0;
}

}  // namespace dualjit::tools

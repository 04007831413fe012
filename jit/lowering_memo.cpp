#include "jit/lowering_memo.h"

#include <dlfcn.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <typeinfo>

#include "dsl/sha256.h"
#include "jit/kernel_cache.h"

namespace dualjit::jit {
namespace {

constexpr const char* kKeyTag = "dualjit-lowering-memo-v1";
constexpr const char* kPayloadTag = "dualjit-lowered-chunks-v1\n";

void put(std::string& s, long long v) {
  s += std::to_string(v);
  s += ' ';
}

void put(std::string& s, const std::string& text) {
  put(s, static_cast<long long>(text.size()));  // length first: no two fields run together
  s += text;
  s += '\n';
}

std::string identity_of_this_binary() {
  Dl_info info{};
  std::string path;
  if (dladdr(reinterpret_cast<void*>(&lowering_code_identity), &info) && info.dli_fname)
    path = info.dli_fname;
  struct stat st {};
  if (path.empty() || path[0] != '/' || stat(path.c_str(), &st) != 0) {
    // The main program may be named as it was started, relative to a directory it may have
    // left; its link names the file.
    std::error_code ec;
    path = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec || stat(path.c_str(), &st) != 0) return {};
  }
  return path + " " + std::to_string(static_cast<long long>(st.st_size)) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
         std::to_string(static_cast<long long>(st.st_mtim.tv_nsec));
}

bool memo_enabled(const LoweringOptions& options) {
  if (const char* env = std::getenv("DUALJIT_LOWERING_MEMO"); env && std::strcmp(env, "0") == 0)
    return false;
  if (!options.dump_dir.empty()) return false;
  if (const char* env = std::getenv("DUALJIT_DUMP_DIR"); env && *env) return false;
  return !lowering_code_identity().empty() && KernelCache::global().disk() != nullptr;
}

// Reads a decimal field followed by one space; false when the text does not hold one.
bool take(std::string_view& s, long long& v) {
  const size_t space = s.find(' ');
  if (space == std::string_view::npos || space == 0 || space > 20) return false;
  char* end = nullptr;
  const std::string digits(s.substr(0, space));
  v = std::strtoll(digits.c_str(), &end, 10);
  if (end != digits.c_str() + digits.size() || v < 0) return false;
  s.remove_prefix(space + 1);
  return true;
}

}  // namespace

const std::string& lowering_code_identity() {
  static const std::string identity = identity_of_this_binary();
  return identity;
}

std::string lowering_memo_key(const Kernel& kernel, const LoweringOptions& options,
                              const DerivativePlan& plan, const std::string& symbol, bool split) {
  if (!memo_enabled(options)) return {};
  std::string m = std::string(kKeyTag) + "\n";
  put(m, std::string(kCodegenVersion));
  put(m, lowering_code_identity());
  put(m, kernel.hash());
  put(m, symbol);
  put(m, split ? 1 : 0);
  // Every option (dump_dir aside: dumps turn the memo off).
  const LoweringOptions& o = options;
  put(m, static_cast<int>(o.mode));
  put(m, o.width);
  put(m, o.rows);
  put(m, o.layout.threads_per_element);
  put(m, o.layout.elements_per_block);
  put(m, o.layout.min_blocks);
  put(m, o.layout.side_by_side ? 1 : 0);
  put(m, o.prune ? 1 : 0);
  put(m, o.schedule ? static_cast<int>(*o.schedule) : -1);
  put(m, static_cast<long long>(o.input_vertex.size()));
  for (int v : o.input_vertex) put(m, v);
  put(m, static_cast<long long>(o.max_statements_per_function));
  if (const Driver* d = o.driver.get()) {
    put(m, std::string(typeid(*d).name()) + " " + d->suffix());
  } else {
    put(m, std::string("element-local"));
  }
  put(m, o.single_tangents ? 1 : 0);
  put(m, o.sparse_jacobian ? 1 : 0);
  put(m, static_cast<int>(o.compile_effort));
  put(m, o.launches);
  put(m, outlines_specials(kOutlineSpecials + 1) ? 1 : 0);  // DUALJIT_INLINE_SPECIALS
  put(m, o.chunks.first);
  put(m, o.chunks.last);
  put(m, static_cast<int>(o.first_stores));
  put(m, static_cast<long long>(o.tiled_params.slots));
  put(m, static_cast<long long>(o.tiled_params.at.size()));
  for (int64_t at : o.tiled_params.at) put(m, static_cast<long long>(at));
  put(m, o.tiled_values ? 1 : 0);
  put(m, static_cast<long long>(o.companions.size()));
  for (const auto& c : o.companions) put(m, c->hash());
  // The plan as the driver adapted it: what every chunk computes and stores.
  put(m, static_cast<int>(plan.mode));
  put(m, plan.width);
  put(m, plan.rows);
  put(m, plan.n_inputs);
  put(m, plan.n_outputs);
  put(m, static_cast<long long>(plan.chunks.size()));
  for (const Chunk& c : plan.chunks) {
    m += "\nchunk ";
    put(m, static_cast<long long>(c.directions.size()));
    for (const Direction& d : c.directions) put(m, d.input);
    put(m, static_cast<long long>(c.pairs.size()));
    for (const auto& [i, j] : c.pairs) {
      put(m, i);
      put(m, j);
    }
    put(m, c.writes_values ? 1 : 0);
    put(m, static_cast<long long>(c.first_columns.size()));
    for (int v : c.first_columns) put(m, v);
    put(m, static_cast<long long>(c.outputs.size()));
    for (int v : c.outputs) put(m, v);
  }
  return sha256_hex(m);
}

std::optional<LoweredChunks> load_lowered_chunks(const std::string& key) {
  if (key.empty()) return std::nullopt;
  DiskStore* disk = KernelCache::global().disk();
  if (!disk) return std::nullopt;
  const std::optional<CacheEntry> entry = disk->load(key);
  if (!entry) return std::nullopt;
  std::string_view s(entry->payload.data(), entry->payload.size());
  const std::string_view tag(kPayloadTag);
  if (s.substr(0, tag.size()) != tag) return std::nullopt;
  s.remove_prefix(tag.size());
  long long n = 0;
  if (!take(s, n) || n > (1 << 24)) return std::nullopt;
  LoweredChunks out;
  for (long long c = 0; c < n; ++c) {
    long long f[12];
    for (long long& v : f) {
      if (!take(s, v)) return std::nullopt;
    }
    ChunkSummary sum;
    sum.ops = {int(f[0]), int(f[1]), int(f[2]), int(f[3]), int(f[4]),
               int(f[5]), int(f[6]), int(f[7]), int(f[8])};
    sum.live = int(f[9]);
    sum.statements = size_t(f[10]);
    const size_t bytes = size_t(f[11]);
    if (s.size() < bytes + 1 || s[bytes] != '\n') return std::nullopt;
    out.summaries.push_back(sum);
    out.texts.emplace_back(s.substr(0, bytes));
    s.remove_prefix(bytes + 1);
  }
  if (!s.empty()) return std::nullopt;
  return out;
}

void store_lowered_chunks(const std::string& key, const std::string& kernel_name,
                          const std::string& symbol, const LoweredChunks& chunks) {
  if (key.empty()) return;
  DiskStore* disk = KernelCache::global().disk();
  if (!disk) return;
  std::string p(kPayloadTag);
  put(p, static_cast<long long>(chunks.texts.size()));
  size_t bytes = p.size();
  for (const std::string& t : chunks.texts) bytes += t.size() + 128;
  p.reserve(bytes);
  for (size_t c = 0; c < chunks.texts.size(); ++c) {
    const ChunkSummary& sum = chunks.summaries[c];
    for (int v : {sum.ops.add, sum.ops.mul, sum.ops.fma_pairs, sum.ops.div, sum.ops.sqrt,
                  sum.ops.special, sum.ops.select, sum.ops.loads, sum.ops.stores, sum.live})
      put(p, v);
    put(p, static_cast<long long>(sum.statements));
    put(p, chunks.texts[c]);
  }
  CacheEntry entry;
  entry.payload.assign(p.begin(), p.end());
  entry.metadata["kernel"] = kernel_name;
  entry.metadata["symbol"] = symbol;
  entry.metadata["key.target"] = "lowering";
  if (!disk->store(key, entry))
    spdlog::debug("dualjit: could not keep the lowered chunks of {} in the cache", symbol);
}

}  // namespace dualjit::jit

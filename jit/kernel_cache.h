#pragma once
// Two-level cache of compiled artifacts (CUBIN/PTX, host shared objects): an in-process map in
// front of an on-disk store that several processes may share. Keys hash the compile inputs,
// never the output; entries carry a checksum and are rebuilt when damaged.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace dualjit::jit {

struct CacheKey {
  std::string source;
  std::string compiler_identity;  // compiler name, version and build
  std::string options;            // every option, canonical text
  std::string target;             // e.g. "sm_90", "x86_64-avx2"
  std::string codegen_version;    // bumped when emitted code or its format changes

  // sha256 of a length-prefixed serialization of all five fields.
  std::string hex() const;
  // sha256 of each field on its own, named "source", "compiler", "options", "target", "codegen";
  // used to explain misses.
  std::map<std::string, std::string> component_hashes() const;
  // One line for logs: the short hashes and the small fields in clear.
  std::string describe() const;
};

struct CacheEntry {
  std::vector<char> payload;
  // Whatever the caller records (kernel, mode, width, arch, registers, ...); the disk store adds
  // size, created and last_use (unix seconds), the kernel cache adds key and key.* hashes.
  std::map<std::string, std::string> metadata;
};

// $DUALJIT_CACHE_DIR, else $XDG_CACHE_HOME/dualjit, else $HOME/.cache/dualjit.
std::filesystem::path default_cache_dir();

// On-disk store: <dir>/kernels/<first 2 hex>/<key>.djk, each file a checksummed header, the
// metadata as key=value lines, and the payload. Every write is temp file + fsync + rename, so
// readers in any process see a whole old file or a whole new one. No method throws.
class DiskStore {
 public:
  struct Options {
    std::filesystem::path dir;
    uint64_t max_bytes = 2ull << 30;
    bool read_only = false;
  };
  enum class LoadStatus { hit, missing, corrupt };

  // default_cache_dir(); DUALJIT_CACHE_READONLY=1 sets read_only, DUALJIT_CACHE_MAX_BYTES the cap.
  static DiskStore from_env();
  explicit DiskStore(Options options);
  DiskStore(DiskStore&& other) noexcept;
  DiskStore& operator=(DiskStore&&) = delete;

  // A corrupt or truncated entry is logged, removed (unless read-only) and reported as
  // LoadStatus::corrupt; a hit refreshes the entry's last use (unless read-only).
  std::optional<CacheEntry> load(const std::string& key_hex, LoadStatus* status = nullptr);
  // False (with one warning per store) when read-only or the directory is unwritable.
  bool store(const std::string& key_hex, const CacheEntry& entry);

  struct Listing {
    std::string key;
    uint64_t bytes;
    std::filesystem::file_time_type last_use;
    std::map<std::string, std::string> metadata;
  };
  std::vector<Listing> list() const;
  // Deletes least-recently-used entries until the total is <= max_bytes; returns bytes removed.
  uint64_t prune(uint64_t max_bytes);
  uint64_t clear();
  uint64_t total_bytes() const;

  // Small per-name records (the key component hashes of the last entry built for a kernel),
  // kept under <dir>/index/ and written atomically; used to explain cache misses.
  std::optional<std::map<std::string, std::string>> read_index(const std::string& name) const;
  bool write_index(const std::string& name, const std::map<std::string, std::string>& fields);

  const std::filesystem::path& dir() const { return options_.dir; }
  bool writable() const { return writable_; }
  const Options& options() const { return options_; }
  std::filesystem::path entry_path(const std::string& key_hex) const;

 private:
  bool write_atomically(const std::filesystem::path& target, const std::string& bytes);
  void warn_once(const std::string& message);

  Options options_;
  bool writable_ = false;
  std::atomic<bool> warned_{false};
};

class KernelCache {
 public:
  explicit KernelCache(std::optional<DiskStore> disk);  // nullopt -> memory only
  static KernelCache& global();                         // process-wide, DiskStore::from_env()

  // The entry for key from memory, else disk, else by calling compile (whose exceptions
  // propagate and are never cached). Concurrent callers of one key share a single build.
  std::shared_ptr<const CacheEntry> get_or_build(const CacheKey& key,
                                                 const std::function<CacheEntry()>& compile);

  struct Stats {
    uint64_t memory_hits = 0, disk_hits = 0, misses = 0, corrupt = 0;
  };
  Stats stats() const;
  void reset_stats();
  DiskStore* disk() { return disk_ ? &*disk_ : nullptr; }
  void clear_memory();

 private:
  using EntryPtr = std::shared_ptr<const CacheEntry>;
  EntryPtr build(const CacheKey& key, const std::string& hex,
                 const std::function<CacheEntry()>& compile);
  void explain_miss(const CacheKey& key, const CacheEntry& entry);

  std::optional<DiskStore> disk_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, EntryPtr> memory_;
  std::unordered_map<std::string, std::shared_future<EntryPtr>> in_flight_;
  Stats stats_;
};

}  // namespace dualjit::jit

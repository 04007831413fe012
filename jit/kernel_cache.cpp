#include "jit/kernel_cache.h"

#include "jit/logging.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "dsl/sha256.h"
#include "jit/crc32c.h"

namespace dualjit::jit {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[8] = {'D', 'J', 'K', 'C', 'A', 'C', 'H', 'E'};
// 2: CRC-32C instead of SHA-256 over metadata and payload. Entries of another format are
// misses (and are overwritten), not damage.
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kHeaderBytes = 8 + 4 + 8 + 8 + 4;
constexpr const char* kEntrySuffix = ".djk";
// Temp files of writers that died mid-write are removed by prune once this old.
constexpr auto kStaleTempAge = std::chrono::hours(1);

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char(uint8_t(value >> (8 * i))));
}

uint64_t get_le(const char* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t(uint8_t(in[i])) << (8 * i);
  return value;
}

// Keys and values may hold any text; '\\', '\n' and '=' are escaped so each pair is one line.
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '=')
      out += "\\=";
    else
      out += c;
  }
  return out;
}

std::string serialize_metadata(const std::map<std::string, std::string>& metadata) {
  std::string text;
  for (const auto& [k, v] : metadata) text += escape(k) + "=" + escape(v) + "\n";
  return text;
}

std::map<std::string, std::string> parse_metadata(std::string_view text) {
  std::map<std::string, std::string> metadata;
  std::string key, value, *current = &key;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      *current += next == 'n' ? '\n' : next;
    } else if (c == '=' && current == &key) {
      current = &value;
    } else if (c == '\n') {
      if (current == &value) metadata[key] = value;
      key.clear();
      value.clear();
      current = &key;
    } else {
      *current += c;
    }
  }
  return metadata;
}

bool valid_key(const std::string& key_hex) {
  return key_hex.size() >= 3 && key_hex.size() <= 128 &&
         std::all_of(key_hex.begin(), key_hex.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

int64_t unix_seconds(fs::file_time_type t) {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::file_clock::to_sys(t).time_since_epoch())
      .count();
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// CRC-32C of the metadata then the payload, 4 bytes little-endian.
std::string checksum(std::string_view metadata, std::string_view payload) {
  std::string bytes;
  put_le(bytes, crc32c(payload, crc32c(metadata)), 4);
  return bytes;
}

// Opens `path` for reading from its start; its size in bytes, or nullopt when it cannot.
std::optional<uint64_t> open_sized(std::ifstream& in, const fs::path& path) {
  in.open(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  if (size < 0 || !in.seekg(0)) return std::nullopt;
  return uint64_t(size);
}

// The file's first max_bytes (all of it by default), in one read into a buffer sized once: a
// warm start reads megabytes of CUBIN, which chunked appends copied several times over.
std::optional<std::string> read_file(const fs::path& path, size_t max_bytes = SIZE_MAX) {
  std::ifstream in;
  const std::optional<uint64_t> size = open_sized(in, path);
  if (!size) return std::nullopt;
  std::string bytes(std::min<uint64_t>(*size, max_bytes), '\0');
  in.read(bytes.data(), std::streamsize(bytes.size()));
  bytes.resize(size_t(in.gcount()));  // shorter if the file shrank meanwhile
  return bytes;
}

struct Header {
  uint32_t version = 0;
  uint64_t metadata_bytes = 0;
  uint64_t payload_bytes = 0;
  std::string checksum;
};

// Parses the fixed header; an empty string means valid, otherwise what is wrong.
std::string parse_header(std::string_view bytes, uint64_t file_size, Header& header) {
  if (bytes.size() < kHeaderBytes) return "truncated header";
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return "bad magic";
  header.version = uint32_t(get_le(bytes.data() + 8, 4));
  if (header.version != kFormatVersion) {
    return "format version " + std::to_string(header.version) + " (expected " +
           std::to_string(kFormatVersion) + ")";
  }
  header.metadata_bytes = get_le(bytes.data() + 12, 8);
  header.payload_bytes = get_le(bytes.data() + 20, 8);
  header.checksum.assign(bytes.data() + 28, 4);
  if (header.metadata_bytes > file_size || header.payload_bytes > file_size ||
      kHeaderBytes + header.metadata_bytes + header.payload_bytes != file_size) {
    return "length mismatch (file " + std::to_string(file_size) + " bytes, header says " +
           std::to_string(kHeaderBytes + header.metadata_bytes + header.payload_bytes) + ")";
  }
  return {};
}

bool is_stale_temp(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  if (name.empty() || name[0] != '.' || name.find(".tmp.") == std::string::npos) return false;
  std::error_code ec;
  const auto mtime = entry.last_write_time(ec);
  return !ec && fs::file_time_type::clock::now() - mtime > kStaleTempAge;
}

// Calls f(directory_entry) for every entry file; files vanishing mid-walk (another process
// pruning) are skipped silently.
template <typename F>
void for_each_entry_file(const fs::path& kernels_dir, F&& f) {
  std::error_code ec;
  for (fs::directory_iterator shard(kernels_dir, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    std::error_code sub_ec;
    if (!shard->is_directory(sub_ec)) continue;
    for (fs::directory_iterator file(shard->path(), sub_ec); !sub_ec && file != end;
         file.increment(sub_ec)) {
      f(*file);
    }
  }
}

std::string random_suffix() {
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  const uint64_t r = (uint64_t(rd()) << 32) ^ rd() ^ counter.fetch_add(1);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(r));
  return text;
}

bool env_true(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return false;
  const std::string s = v;
  return s == "1" || s == "true" || s == "yes" || s == "on";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// CacheKey

std::string CacheKey::hex() const {
  Sha256 h;
  h.update(std::string_view("dualjit-cache-key/1"));
  for (const std::string* field :
       {&source, &compiler_identity, &options, &target, &codegen_version}) {
    std::string length;
    put_le(length, field->size(), 8);
    h.update(length);
    h.update(*field);
  }
  return h.hex_digest();
}

std::map<std::string, std::string> CacheKey::component_hashes() const {
  return {{"source", sha256_hex(source)},
          {"compiler", sha256_hex(compiler_identity)},
          {"options", sha256_hex(options)},
          {"target", sha256_hex(target)},
          {"codegen", sha256_hex(codegen_version)}};
}

std::string CacheKey::describe() const {
  return "key " + hex().substr(0, 16) + " (source " + sha256_hex(source).substr(0, 12) + ", " +
         std::to_string(source.size()) + " bytes; compiler '" + compiler_identity + "'; options " +
         sha256_hex(options).substr(0, 12) + "; target " + target + "; codegen " + codegen_version +
         ")";
}

fs::path default_cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (const auto d = env("DUALJIT_CACHE_DIR"); !d.empty()) return d;
  if (const auto d = env("XDG_CACHE_HOME"); !d.empty()) return fs::path(d) / "dualjit";
  if (const auto d = env("HOME"); !d.empty()) return fs::path(d) / ".cache" / "dualjit";
  // No home (some batch systems): a per-user directory in the temp dir.
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  return (ec ? fs::path("/tmp") : tmp) / ("dualjit-cache-" + std::to_string(getuid()));
}

// ---------------------------------------------------------------------------------------------
// DiskStore

DiskStore DiskStore::from_env() {
  Options options;
  options.dir = default_cache_dir();
  options.read_only = env_true("DUALJIT_CACHE_READONLY");
  if (const char* cap = std::getenv("DUALJIT_CACHE_MAX_BYTES"); cap && *cap) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(cap, &end, 10);
    if (end && *end == '\0' && value > 0) {
      options.max_bytes = value;
    } else {
      spdlog::warn("dualjit: ignoring DUALJIT_CACHE_MAX_BYTES='{}' (expected a byte count)", cap);
    }
  }
  return DiskStore(std::move(options));
}

DiskStore::DiskStore(Options options) : options_(std::move(options)) {
  if (options_.read_only) return;
  std::error_code ec;
  if (options_.dir.empty()) {
    ec = std::make_error_code(std::errc::invalid_argument);
  } else {
    fs::create_directories(options_.dir / "kernels", ec);
    if (!ec && !fs::is_directory(options_.dir / "kernels", ec)) {
      ec = std::make_error_code(std::errc::not_a_directory);
    }
  }
  writable_ = !ec;
  if (!writable_) {
    warn_once("dualjit: kernel cache directory '" + options_.dir.string() + "' is not usable (" +
              ec.message() + "); caching in memory only");
  }
}

DiskStore::DiskStore(DiskStore&& other) noexcept
    : options_(std::move(other.options_)),
      writable_(other.writable_),
      warned_(other.warned_.load()) {}

void DiskStore::warn_once(const std::string& message) {
  if (!warned_.exchange(true)) {
    spdlog::warn("{}", message);
  } else {
    spdlog::debug("{}", message);
  }
}

fs::path DiskStore::entry_path(const std::string& key_hex) const {
  return options_.dir / "kernels" / key_hex.substr(0, 2) / (key_hex + kEntrySuffix);
}

std::optional<CacheEntry> DiskStore::load(const std::string& key_hex, LoadStatus* status) {
  if (status) *status = LoadStatus::missing;
  if (!valid_key(key_hex)) return std::nullopt;
  const fs::path path = entry_path(key_hex);
  std::error_code ec;
  const auto last_use = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  // Header and metadata first, then the payload straight into the entry: one copy of it.
  std::ifstream in;
  const std::optional<uint64_t> file_size = open_sized(in, path);
  if (!file_size) return std::nullopt;
  std::string head(std::min<uint64_t>(*file_size, kHeaderBytes), '\0');
  in.read(head.data(), std::streamsize(head.size()));
  Header header;
  std::string problem = parse_header(head, *file_size, header);
  if (header.version != 0 && header.version != kFormatVersion) {
    // Written by another dualjit: a miss, overwritten by the entry built now.
    spdlog::debug("dualjit: kernel cache entry '{}' has format {}, this build reads {}",
                  path.string(), header.version, kFormatVersion);
    return std::nullopt;
  }
  std::string metadata_text;
  CacheEntry entry;
  if (problem.empty()) {
    metadata_text.resize(header.metadata_bytes);
    entry.payload.resize(header.payload_bytes);
    in.read(metadata_text.data(), std::streamsize(metadata_text.size()));
    in.read(entry.payload.data(), std::streamsize(entry.payload.size()));
    if (!in) {
      problem = "shorter than its header says";  // truncated while being read
    } else if (checksum(metadata_text, std::string_view(entry.payload.data(),
                                                        entry.payload.size())) != header.checksum) {
      problem = "checksum mismatch";
    }
  }
  if (!problem.empty()) {
    if (status) *status = LoadStatus::corrupt;
    spdlog::warn("dualjit: kernel cache entry '{}' is corrupt ({}); {}", path.string(), problem,
                 options_.read_only ? "ignoring it (read-only cache)" : "removing it");
    if (!options_.read_only) fs::remove(path, ec);
    return std::nullopt;
  }

  entry.metadata = parse_metadata(metadata_text);
  entry.metadata["last_use"] = std::to_string(unix_seconds(last_use));
  if (!options_.read_only) {
    // mtime is the LRU clock shared by all processes; failure (entry just pruned) is harmless.
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
  }
  if (status) *status = LoadStatus::hit;
  return entry;
}

bool DiskStore::write_atomically(const fs::path& target, const std::string& bytes) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    warn_once("dualjit: cannot create cache directory '" + target.parent_path().string() +
              "': " + ec.message());
    return false;
  }
  const std::string tid = std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  for (int attempt = 0; attempt < 4; ++attempt) {
    // Unique per process, thread and attempt, so concurrent writers never share a temp file.
    const fs::path temp =
        target.parent_path() / ("." + target.filename().string() + ".tmp." +
                                std::to_string(getpid()) + "." + tid + "." + random_suffix());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      warn_once("dualjit: cannot write kernel cache file '" + temp.string() +
                "': " + std::strerror(errno));
      return false;
    }
    size_t written = 0;
    bool ok = true;
    while (written < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = false;
        break;
      }
      written += size_t(n);
    }
    const int saved_errno = errno;
    ok = ok && ::fsync(fd) == 0;
    ok = (::close(fd) == 0) && ok;
    if (ok && ::rename(temp.c_str(), target.c_str()) == 0) {
      // Make the rename itself durable; best effort.
      const int dir_fd = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
      }
      return true;
    }
    warn_once("dualjit: writing kernel cache file '" + target.string() +
              "' failed: " + std::strerror(ok ? errno : saved_errno));
    ::unlink(temp.c_str());
    return false;
  }
  warn_once("dualjit: could not create a unique temp file for '" + target.string() + "'");
  return false;
}

bool DiskStore::store(const std::string& key_hex, const CacheEntry& entry) {
  if (!valid_key(key_hex)) {
    spdlog::warn("dualjit: refusing to store kernel cache entry with malformed key '{}'", key_hex);
    return false;
  }
  if (options_.read_only || !writable_) {
    warn_once("dualjit: kernel cache '" + options_.dir.string() + "' is " +
              (options_.read_only ? "read-only" : "not writable") + "; not storing new entries");
    return false;
  }
  auto metadata = entry.metadata;
  metadata.erase("last_use");  // the file's mtime is the one source of truth
  metadata["size"] = std::to_string(entry.payload.size());
  metadata["created"] = std::to_string(unix_now());
  const std::string metadata_text = serialize_metadata(metadata);
  const std::string_view payload(entry.payload.data(), entry.payload.size());

  std::string bytes(kMagic, sizeof kMagic);
  put_le(bytes, kFormatVersion, 4);
  put_le(bytes, metadata_text.size(), 8);
  put_le(bytes, payload.size(), 8);
  bytes += checksum(metadata_text, payload);
  bytes.reserve(bytes.size() + metadata_text.size() + payload.size());
  bytes += metadata_text;
  bytes += payload;

  if (!write_atomically(entry_path(key_hex), bytes)) return false;
  spdlog::debug("dualjit: stored kernel cache entry {} ({} bytes)", key_hex, bytes.size());
  if (total_bytes() > options_.max_bytes) prune(options_.max_bytes);
  return true;
}

std::vector<DiskStore::Listing> DiskStore::list() const {
  std::vector<Listing> listings;
  for_each_entry_file(options_.dir / "kernels", [&](const fs::directory_entry& file) {
    const fs::path& path = file.path();
    if (path.extension() != kEntrySuffix) return;
    std::error_code ec;
    Listing listing;
    listing.key = path.stem().string();
    listing.bytes = fs::file_size(path, ec);
    if (ec) return;
    listing.last_use = fs::last_write_time(path, ec);
    if (ec) return;
    // Only the header and metadata are read; a damaged entry is listed without metadata.
    const auto head = read_file(path, kHeaderBytes);
    Header header;
    if (head && parse_header(*head, listing.bytes, header).empty()) {
      std::ifstream in(path, std::ios::binary);
      std::string text(header.metadata_bytes, '\0');
      if (in.seekg(std::streamoff(kHeaderBytes)) &&
          in.read(text.data(), std::streamsize(text.size()))) {
        listing.metadata = parse_metadata(text);
      }
    }
    listing.metadata["last_use"] = std::to_string(unix_seconds(listing.last_use));
    listings.push_back(std::move(listing));
  });
  std::sort(listings.begin(), listings.end(),
            [](const Listing& a, const Listing& b) { return a.key < b.key; });
  return listings;
}

uint64_t DiskStore::total_bytes() const {
  uint64_t total = 0;
  for_each_entry_file(options_.dir / "kernels", [&](const fs::directory_entry& file) {
    if (file.path().extension() != kEntrySuffix) return;
    std::error_code ec;
    const uint64_t size = file.file_size(ec);
    if (!ec) total += size;
  });
  return total;
}

uint64_t DiskStore::prune(uint64_t max_bytes) {
  if (options_.read_only) return 0;
  struct Candidate {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type last_use;
  };
  std::vector<Candidate> entries;
  uint64_t total = 0;
  for_each_entry_file(options_.dir / "kernels", [&](const fs::directory_entry& file) {
    std::error_code ec;
    if (is_stale_temp(file)) {
      fs::remove(file.path(), ec);
      return;
    }
    if (file.path().extension() != kEntrySuffix) return;
    Candidate c{file.path(), file.file_size(ec), {}};
    if (ec) return;
    c.last_use = fs::last_write_time(file.path(), ec);
    if (ec) return;
    total += c.bytes;
    entries.push_back(std::move(c));
  });
  std::sort(entries.begin(), entries.end(), [](const Candidate& a, const Candidate& b) {
    return a.last_use != b.last_use ? a.last_use < b.last_use : a.path < b.path;
  });
  uint64_t removed = 0;
  for (const auto& c : entries) {
    if (total <= max_bytes) break;
    std::error_code ec;
    // Gone already (another process pruned it) also lowers the total.
    if (fs::remove(c.path, ec) && !ec) removed += c.bytes;
    total -= c.bytes;
  }
  if (removed > 0) {
    spdlog::debug("dualjit: pruned {} bytes from kernel cache '{}' (cap {} bytes)", removed,
                  options_.dir.string(), max_bytes);
  }
  return removed;
}

uint64_t DiskStore::clear() {
  if (options_.read_only) return 0;
  uint64_t removed = 0;
  for_each_entry_file(options_.dir / "kernels", [&](const fs::directory_entry& file) {
    std::error_code ec;
    const uint64_t size = file.file_size(ec);
    const bool is_entry = !ec && file.path().extension() == kEntrySuffix;
    if (fs::remove(file.path(), ec) && !ec && is_entry) removed += size;
  });
  std::error_code ec;
  fs::remove_all(options_.dir / "index", ec);
  return removed;
}

std::optional<std::map<std::string, std::string>> DiskStore::read_index(
    const std::string& name) const {
  const auto text = read_file(options_.dir / "index" / sha256_hex(name), 1 << 16);
  if (!text) return std::nullopt;
  auto fields = parse_metadata(*text);
  if (fields["name"] != name) return std::nullopt;  // damaged or foreign
  return fields;
}

bool DiskStore::write_index(const std::string& name,
                            const std::map<std::string, std::string>& fields) {
  if (options_.read_only || !writable_) return false;
  auto with_name = fields;
  with_name["name"] = name;
  return write_atomically(options_.dir / "index" / sha256_hex(name), serialize_metadata(with_name));
}

// ---------------------------------------------------------------------------------------------
// KernelCache

KernelCache::KernelCache(std::optional<DiskStore> disk) : disk_(std::move(disk)) {}

KernelCache& KernelCache::global() {
  init_logging_from_env();
  static KernelCache cache(DiskStore::from_env());
  return cache;
}

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void KernelCache::reset_stats() {
  std::lock_guard lock(mutex_);
  stats_ = {};
}

void KernelCache::clear_memory() {
  std::lock_guard lock(mutex_);
  memory_.clear();
}

std::shared_ptr<const CacheEntry> KernelCache::get_or_build(
    const CacheKey& key, const std::function<CacheEntry()>& compile) {
  const std::string hex = key.hex();
  std::promise<EntryPtr> promise;
  std::shared_future<EntryPtr> pending;
  {
    std::lock_guard lock(mutex_);
    if (auto it = memory_.find(hex); it != memory_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
    if (auto it = in_flight_.find(hex); it != in_flight_.end()) {
      // Another thread is building this key: wait for it rather than compiling twice.
      ++stats_.memory_hits;
      pending = it->second;
    } else {
      in_flight_.emplace(hex, promise.get_future().share());
    }
  }
  if (pending.valid()) return pending.get();

  try {
    EntryPtr entry = build(key, hex, compile);
    {
      std::lock_guard lock(mutex_);
      memory_[hex] = entry;
      in_flight_.erase(hex);
    }
    promise.set_value(entry);
    return entry;
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      in_flight_.erase(hex);
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

KernelCache::EntryPtr KernelCache::build(const CacheKey& key, const std::string& hex,
                                         const std::function<CacheEntry()>& compile) {
  if (disk_) {
    DiskStore::LoadStatus status;
    if (auto entry = disk_->load(hex, &status)) {
      spdlog::debug("dualjit: kernel cache disk hit {}", key.describe());
      std::lock_guard lock(mutex_);
      ++stats_.disk_hits;
      return std::make_shared<const CacheEntry>(std::move(*entry));
    }
    if (status == DiskStore::LoadStatus::corrupt) {
      std::lock_guard lock(mutex_);
      ++stats_.corrupt;
    }
  }
  {
    std::lock_guard lock(mutex_);
    ++stats_.misses;
  }
  spdlog::debug("dualjit: kernel cache miss, building {}", key.describe());
  CacheEntry entry = compile();  // exceptions propagate; nothing is recorded
  entry.metadata["key"] = hex;
  for (const auto& [name, hash] : key.component_hashes()) entry.metadata["key." + name] = hash;
  entry.metadata["size"] = std::to_string(entry.payload.size());
  if (disk_) {
    explain_miss(key, entry);
    disk_->store(hex, entry);
  }
  return std::make_shared<const CacheEntry>(std::move(entry));
}

void KernelCache::explain_miss(const CacheKey& key, const CacheEntry& entry) {
  const auto kernel = entry.metadata.find("kernel");
  if (kernel == entry.metadata.end()) return;
  const auto now = key.component_hashes();
  if (spdlog::should_log(spdlog::level::debug)) {
    if (const auto previous = disk_->read_index(kernel->second)) {
      std::string changed;
      for (const auto& [name, hash] : now) {
        const auto it = previous->find(name);
        if (it == previous->end() || it->second != hash) {
          changed += (changed.empty() ? "" : ", ") + name;
        }
      }
      spdlog::debug("dualjit: cache miss for kernel '{}': {} differ from its last entry {}",
                    kernel->second,
                    changed.empty() ? "no key components (entry was pruned or damaged)" : changed,
                    previous->count("key") ? previous->at("key").substr(0, 16) : "?");
    } else {
      spdlog::debug("dualjit: cache miss for kernel '{}': no earlier entry", kernel->second);
    }
  }
  auto fields = now;
  fields["key"] = entry.metadata.at("key");
  disk_->write_index(kernel->second, fields);
}

}  // namespace dualjit::jit

#include "jit/kernel_cache.h"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include "dsl/sha256.h"

using namespace dualjit::jit;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed afterwards; never the user's cache.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("dualjit-cache-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Corruption tests trigger warnings on purpose; keep the test output clean.
struct QuietLogs {
  spdlog::level::level_enum saved = spdlog::get_level();
  QuietLogs() { spdlog::set_level(spdlog::level::off); }
  ~QuietLogs() { spdlog::set_level(saved); }
};

CacheKey base_key() {
  return {"extern \"C\" __global__ void k() {}", "nvrtc 13.0 (libnvrtc.so.13)", "-arch=sm_90",
          "sm_90", "1"};
}

CacheEntry make_entry(const std::string& text, const std::string& kernel = "k") {
  CacheEntry e;
  e.payload.assign(text.begin(), text.end());
  e.metadata["kernel"] = kernel;
  e.metadata["arch"] = "sm_90";
  return e;
}

DiskStore make_store(const fs::path& dir, uint64_t max_bytes = 1ull << 30, bool ro = false) {
  DiskStore::Options o;
  o.dir = dir;
  o.max_bytes = max_bytes;
  o.read_only = ro;
  return DiskStore(o);
}

// A compile function that counts its calls.
struct Builder {
  int calls = 0;
  std::string text = "payload-bytes";
  std::function<CacheEntry()> fn() {
    return [this] {
      ++calls;
      return make_entry(text);
    };
  }
};

std::string as_string(const std::vector<char>& v) {
  return std::string(v.begin(), v.end());
}

// An entry of `text` stored through a cache over a fresh directory: where the tests of
// damaged entries start.
struct StoredEntry {
  QuietLogs quiet;
  TempDir dir;
  CacheKey key = base_key();
  Builder builder;
  fs::path file;
  explicit StoredEntry(std::string text) {
    builder.text = std::move(text);
    KernelCache(make_store(dir.path)).get_or_build(key, builder.fn());
    file = make_store(dir.path).entry_path(key.hex());
  }
};

}  // namespace

TEST_CASE("cache key: every field matters and fields cannot bleed into each other") {
  const CacheKey k = base_key();
  CHECK(k.hex().size() == 64);
  CHECK(k.hex() == base_key().hex());
  CacheKey a = k, b = k;
  a.source = "ab";
  a.compiler_identity = "c";
  b.source = "a";
  b.compiler_identity = "bc";
  CHECK(a.hex() != b.hex());  // length prefixes keep these apart
  CHECK(k.describe().find("sm_90") != std::string::npos);
  CHECK(k.component_hashes().at("source") == dualjit::sha256_hex(k.source));
}

TEST_CASE("cache: miss, then memory hit, then disk hit from a new process-level cache") {
  TempDir dir;
  Builder builder;
  const CacheKey key = base_key();
  {
    KernelCache cache(make_store(dir.path));
    auto first = cache.get_or_build(key, builder.fn());
    auto second = cache.get_or_build(key, builder.fn());
    CHECK(builder.calls == 1);
    CHECK(first == second);
    CHECK(as_string(first->payload) == builder.text);
    const auto s = cache.stats();
    CHECK(s.misses == 1);
    CHECK(s.memory_hits == 1);
    CHECK(s.disk_hits == 0);
    CHECK(fs::exists(cache.disk()->entry_path(key.hex())));
  }
  KernelCache fresh(make_store(dir.path));
  auto entry = fresh.get_or_build(key, builder.fn());
  CHECK(builder.calls == 1);
  CHECK(fresh.stats().disk_hits == 1);
  CHECK(as_string(entry->payload) == builder.text);
  CHECK(entry->metadata.at("kernel") == "k");
  CHECK(entry->metadata.at("key") == key.hex());
  CHECK(entry->metadata.at("size") == std::to_string(builder.text.size()));
  CHECK(entry->metadata.count("created") == 1);
  CHECK(entry->metadata.count("last_use") == 1);
  CHECK(entry->metadata.at("key.options") == dualjit::sha256_hex(key.options));
  // The index explains later misses for the same kernel.
  const auto index = fresh.disk()->read_index("k");
  REQUIRE(index);
  CHECK(index->at("key") == key.hex());
}

TEST_CASE("cache: concurrent requests for one key share a single build") {
  KernelCache cache(std::nullopt);
  std::atomic<int> calls{0};
  auto slow = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return make_entry("slow");
  };
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const CacheEntry>> results(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { results[t] = cache.get_or_build(base_key(), slow); });
  }
  for (auto& t : threads) t.join();
  CHECK(calls == 1);
  for (const auto& r : results) CHECK(r == results[0]);
  CHECK(cache.stats().misses == 1);
  CHECK(cache.stats().memory_hits == 3);
  CHECK(cache.disk() == nullptr);
}

TEST_CASE("cache: changing any one key component misses") {
  TempDir dir;
  KernelCache cache(make_store(dir.path));
  Builder builder;
  cache.get_or_build(base_key(), builder.fn());
  std::vector<CacheKey> variants(5, base_key());
  variants[0].source += " ";
  variants[1].compiler_identity = "nvrtc 13.1 (libnvrtc.so.13)";
  variants[2].options += " -lineinfo";
  variants[3].target = "sm_80";
  variants[4].codegen_version = "2";
  for (const auto& v : variants) {
    const int before = builder.calls;
    cache.get_or_build(v, builder.fn());
    CHECK(builder.calls == before + 1);
  }
  CHECK(cache.stats().misses == 6);
  CHECK(cache.disk()->list().size() == 6);
}

TEST_CASE("cache: garbled and truncated entries are detected, removed and rebuilt") {
  StoredEntry e(std::string(4096, 'x'));
  REQUIRE(fs::exists(e.file));
  const auto good_size = fs::file_size(e.file);

  SUBCASE("garbled payload") {
    std::fstream f(e.file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(good_size - 100));
    f.write("GARBAGE", 7);
  }
  SUBCASE("truncated") {
    fs::resize_file(e.file, good_size - 10);
  }
  SUBCASE("truncated inside the header") {
    fs::resize_file(e.file, 20);
  }

  {
    DiskStore store = make_store(e.dir.path);
    DiskStore::LoadStatus status;
    CHECK_FALSE(store.load(e.key.hex(), &status));
    CHECK(status == DiskStore::LoadStatus::corrupt);
    CHECK_FALSE(fs::exists(e.file));  // removed
  }
  // Damage it again and go through the cache: counted, rebuilt and rewritten.
  KernelCache(make_store(e.dir.path)).get_or_build(e.key, e.builder.fn());
  fs::resize_file(e.file, good_size - 1);
  KernelCache cache(make_store(e.dir.path));
  const int before = e.builder.calls;
  auto entry = cache.get_or_build(e.key, e.builder.fn());
  CHECK(e.builder.calls == before + 1);
  CHECK(as_string(entry->payload) == e.builder.text);
  const auto s = cache.stats();
  CHECK(s.corrupt == 1);
  CHECK(s.misses == 1);
  DiskStore::LoadStatus status;
  CHECK(make_store(e.dir.path).load(e.key.hex(), &status));
  CHECK(status == DiskStore::LoadStatus::hit);
}

TEST_CASE("cache: an entry of another format version is a miss, then overwritten") {
  StoredEntry e(std::string(1000, 'y'));
  REQUIRE(fs::exists(e.file));
  {  // As an older dualjit wrote it: the version field (after the 8-byte magic) says 1.
    std::fstream f(e.file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    f.write("\x01\x00\x00\x00", 4);
  }
  DiskStore::LoadStatus status;
  CHECK_FALSE(make_store(e.dir.path).load(e.key.hex(), &status));
  CHECK(status == DiskStore::LoadStatus::missing);
  CHECK(fs::exists(e.file));  // not damage: left for the rebuild to overwrite
  KernelCache cache(make_store(e.dir.path));
  const int before = e.builder.calls;
  CHECK(as_string(cache.get_or_build(e.key, e.builder.fn())->payload) == e.builder.text);
  CHECK(e.builder.calls == before + 1);
  CHECK(cache.stats().corrupt == 0);
  CHECK(make_store(e.dir.path).load(e.key.hex(), &status));
  CHECK(status == DiskStore::LoadStatus::hit);
}

TEST_CASE("cache: a failing compile throws and stores nothing") {
  TempDir dir;
  KernelCache cache(make_store(dir.path));
  auto failing = []() -> CacheEntry { throw std::runtime_error("kernel 'k': NVRTC said no"); };
  CHECK_THROWS_WITH_AS(cache.get_or_build(base_key(), failing), "kernel 'k': NVRTC said no",
                       std::runtime_error);
  CHECK(cache.disk()->list().empty());
  CHECK(cache.disk()->total_bytes() == 0);
  // The failure is not remembered: the next call compiles again.
  Builder builder;
  cache.get_or_build(base_key(), builder.fn());
  CHECK(builder.calls == 1);
}

TEST_CASE("disk store: prune removes least recently used entries first") {
  TempDir dir;
  DiskStore store = make_store(dir.path);
  const std::string payload(1000, 'p');
  const auto now = fs::file_time_type::clock::now();
  // Key i gets last use now - age[i] minutes: LRU order is k2, k0, k3, k1.
  const int age[4] = {30, 10, 40, 20};
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) {
    keys.push_back(dualjit::sha256_hex("key" + std::to_string(i)));
    REQUIRE(store.store(keys[i], make_entry(payload)));
    fs::last_write_time(store.entry_path(keys[i]), now - std::chrono::minutes(age[i]));
  }
  const uint64_t one = fs::file_size(store.entry_path(keys[0]));
  CHECK(store.total_bytes() == 4 * one);
  CHECK(store.list().size() == 4);

  const uint64_t removed = store.prune(2 * one + one / 2);
  CHECK(removed == 2 * one);
  CHECK_FALSE(fs::exists(store.entry_path(keys[2])));
  CHECK_FALSE(fs::exists(store.entry_path(keys[0])));
  CHECK(fs::exists(store.entry_path(keys[1])));
  CHECK(fs::exists(store.entry_path(keys[3])));
  CHECK(store.total_bytes() <= 2 * one + one / 2);

  // A load refreshes last use, so the loaded entry survives the next prune.
  fs::last_write_time(store.entry_path(keys[1]), now - std::chrono::minutes(50));
  REQUIRE(store.load(keys[1]));
  CHECK(store.prune(one) == one);
  CHECK(fs::exists(store.entry_path(keys[1])));
  CHECK_FALSE(fs::exists(store.entry_path(keys[3])));

  // store() prunes automatically once the cap is exceeded.
  DiskStore capped = make_store(dir.path, 2 * one + one / 2);
  for (int i = 4; i < 7; ++i) {
    REQUIRE(capped.store(dualjit::sha256_hex("key" + std::to_string(i)), make_entry(payload)));
  }
  CHECK(capped.total_bytes() <= 2 * one + one / 2);

  const uint64_t before_clear = store.total_bytes();
  CHECK(before_clear > 0);
  CHECK(store.clear() == before_clear);
  CHECK(store.list().empty());
  CHECK(store.total_bytes() == 0);
}

TEST_CASE("disk store: metadata round-trips, including awkward characters") {
  QuietLogs quiet;
  TempDir dir;
  DiskStore store = make_store(dir.path);
  CacheEntry e = make_entry("abc");
  e.metadata["log"] = "line one\nline=two\\three";
  e.metadata["we=ird"] = "";
  const std::string key = dualjit::sha256_hex("meta");
  REQUIRE(store.store(key, e));
  const auto loaded = store.load(key);
  REQUIRE(loaded);
  CHECK(loaded->metadata.at("log") == e.metadata["log"]);
  CHECK(loaded->metadata.at("we=ird").empty());
  const auto listing = store.list();
  REQUIRE(listing.size() == 1);
  CHECK(listing[0].key == key);
  CHECK(listing[0].metadata.at("kernel") == "k");
  CHECK(listing[0].metadata.at("size") == "3");
  // Keys that could escape the directory are refused.
  CHECK_FALSE(store.store("../../etc", e));
  CHECK_FALSE(store.load("../../etc"));
}

TEST_CASE("disk store: read-only mode never writes") {
  QuietLogs quiet;
  TempDir dir;
  const std::string key = dualjit::sha256_hex("ro");
  REQUIRE(make_store(dir.path).store(key, make_entry("shared")));
  const fs::path file = make_store(dir.path).entry_path(key);
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(5);
  fs::last_write_time(file, old_time);

  DiskStore ro = make_store(dir.path, 1, /*ro=*/true);
  CHECK_FALSE(ro.writable());
  REQUIRE(ro.load(key));
  CHECK(fs::last_write_time(file) == old_time);  // last use not touched
  CHECK_FALSE(ro.store(dualjit::sha256_hex("new"), make_entry("x")));
  CHECK(ro.prune(0) == 0);
  CHECK(ro.clear() == 0);
  CHECK(fs::exists(file));

  // A corrupt entry is reported but left in place.
  fs::resize_file(file, fs::file_size(file) - 1);
  DiskStore::LoadStatus status;
  CHECK_FALSE(ro.load(key, &status));
  CHECK(status == DiskStore::LoadStatus::corrupt);
  CHECK(fs::exists(file));

  // Through the cache: builds, serves from memory, writes nothing.
  setenv("DUALJIT_CACHE_READONLY", "1", 1);
  setenv("DUALJIT_CACHE_DIR", dir.path.c_str(), 1);
  KernelCache cache(DiskStore::from_env());
  unsetenv("DUALJIT_CACHE_READONLY");
  unsetenv("DUALJIT_CACHE_DIR");
  REQUIRE(cache.disk());
  CHECK(cache.disk()->options().read_only);
  Builder builder;
  cache.get_or_build(base_key(), builder.fn());
  cache.get_or_build(base_key(), builder.fn());
  CHECK(builder.calls == 1);
  CHECK(cache.disk()->list().size() == 1);
  CHECK_FALSE(fs::exists(dir.path / "index"));
}

TEST_CASE("disk store: an unusable directory degrades to memory-only without throwing") {
  QuietLogs quiet;
  TempDir dir;
  // Tests run as root, so permissions do not stop writes; a regular file as parent does.
  std::ofstream(dir.path / "file") << "not a directory";
  DiskStore store = make_store(dir.path / "file" / "sub");
  CHECK_FALSE(store.writable());
  CHECK_FALSE(store.store(dualjit::sha256_hex("x"), make_entry("x")));
  CHECK_FALSE(store.load(dualjit::sha256_hex("x")));
  CHECK(store.list().empty());
  CHECK(store.total_bytes() == 0);
  CHECK(store.prune(0) == 0);

  KernelCache cache(std::move(store));
  Builder builder;
  auto a = cache.get_or_build(base_key(), builder.fn());
  auto b = cache.get_or_build(base_key(), builder.fn());
  CHECK(builder.calls == 1);
  CHECK(a == b);
}

TEST_CASE("default cache dir follows DUALJIT_CACHE_DIR, XDG_CACHE_HOME, HOME") {
  auto saved = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto d = saved("DUALJIT_CACHE_DIR"), x = saved("XDG_CACHE_HOME"), h = saved("HOME");
  setenv("DUALJIT_CACHE_DIR", "/a/b", 1);
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  CHECK(default_cache_dir() == fs::path("/a/b"));
  unsetenv("DUALJIT_CACHE_DIR");
  CHECK(default_cache_dir() == fs::path("/xdg/dualjit"));
  unsetenv("XDG_CACHE_HOME");
  CHECK(default_cache_dir() == fs::path("/home/u/.cache/dualjit"));
  auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v)
      setenv(name, v->c_str(), 1);
    else
      unsetenv(name);
  };
  restore("DUALJIT_CACHE_DIR", d);
  restore("XDG_CACHE_HOME", x);
  restore("HOME", h);
}

TEST_CASE("disk store: processes writing one key concurrently leave a valid entry") {
  TempDir dir;
  const std::string key = dualjit::sha256_hex("shared-key");
  std::string payload(256 * 1024, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = char(i * 131 + 7);
  const CacheEntry entry = make_entry(payload);

  std::vector<pid_t> children;
  constexpr int kWriters = 4;
  for (int c = 0; c < kWriters + 1; ++c) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int code = 0;
      DiskStore store = make_store(dir.path);
      if (c < kWriters) {
        for (int i = 0; i < 20; ++i) code |= store.store(key, entry) ? 0 : 1;
      } else {
        // A reader racing the writers sees a missing or a whole entry, never a partial one.
        for (int i = 0; i < 200; ++i) {
          DiskStore::LoadStatus status;
          auto got = store.load(key, &status);
          if (status == DiskStore::LoadStatus::corrupt) code |= 2;
          if (got && std::string(got->payload.begin(), got->payload.end()) != payload) code |= 4;
        }
      }
      _exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  DiskStore store = make_store(dir.path);
  DiskStore::LoadStatus status;
  const auto loaded = store.load(key, &status);
  REQUIRE(loaded);
  CHECK(status == DiskStore::LoadStatus::hit);
  CHECK(std::string(loaded->payload.begin(), loaded->payload.end()) == payload);
  // Exactly one file in the shard: no temp files left behind.
  int files = 0;
  for (const auto& f : fs::directory_iterator(store.entry_path(key).parent_path())) {
    (void)f;
    ++files;
  }
  CHECK(files == 1);
}

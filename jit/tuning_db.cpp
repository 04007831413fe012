#include "jit/tuning_db.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "dsl/sha256.h"
#include "jit/kernel_cache.h"
#include "jit/logging.h"

namespace dualjit::jit {
namespace fs = std::filesystem;
namespace {

constexpr const char* kMagic = "dualjit-tuning 1";
constexpr const char* kSuffix = ".tune";

// Free text (device names, failure messages) must not break the tab/line structure.
std::string clean(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Temporary file + fsync + rename: readers in any process see a whole old or new record.
void write_atomically(const fs::path& target, const std::string& bytes) {
  fs::create_directories(target.parent_path());
  std::random_device rd;
  const fs::path temp =
      target.parent_path() / ("." + target.filename().string() + ".tmp." +
                              std::to_string(getpid()) + "." + std::to_string(rd()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error("tuning database: cannot write '" + temp.string() +
                             "': " + std::strerror(errno));
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
    written += static_cast<size_t>(n);
  }
  ok = ::fsync(fd) == 0 && ok;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temp.c_str(), target.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw std::runtime_error("tuning database: cannot write '" + target.string() + "': " + why);
  }
}

}  // namespace

std::string format_config(const TuningConfig& config) {
  std::string out;
  for (const auto& [k, v] : config) {
    if (k.empty() || k.find_first_of("= \t\n") != std::string::npos ||
        v.find_first_of(" \t\n") != std::string::npos) {
      throw std::invalid_argument("tuning config: field '" + k + "=" + v +
                                  "' has a space or '=' where it cannot");
    }
    if (!out.empty()) out += ' ';
    out += k + "=" + v;
  }
  return out;
}

TuningConfig parse_config(const std::string& text) {
  TuningConfig config;
  std::istringstream in(text);
  std::string token;
  while (in >> token) {
    const size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::invalid_argument("tuning config: '" + token + "' is not field=value");
    }
    config[token.substr(0, eq)] = token.substr(eq + 1);
  }
  return config;
}

int size_bucket(int64_t n_elements) {
  if (n_elements <= 1) return 0;
  return static_cast<int>(std::bit_width(static_cast<uint64_t>(n_elements))) - 1;
}

std::string TuningKey::hex() const {
  // Over the fields as stored (cleaned), so that a record read back has the same key.
  std::string text = "kernel=" + clean(kernel_hash) + "\nmode=" + clean(mode) +
                     "\nbackend=" + clean(backend) + "\ndevice=" + clean(device) +
                     "\narch=" + clean(arch) + "\nbucket=" + std::to_string(bucket) + "\n";
  return sha256_hex(text);
}

std::string TuningKey::describe() const {
  return kernel_hash.substr(0, 12) + " " + mode + " on " + backend + " " + device + " (" + arch +
         "), size bucket 2^" + std::to_string(bucket);
}

std::string serialize_record(const TuningRecord& r) {
  std::ostringstream s;
  s << kMagic << "\n";
  s << "kernel_hash\t" << clean(r.key.kernel_hash) << "\n";
  s << "mode\t" << clean(r.key.mode) << "\n";
  s << "backend\t" << clean(r.key.backend) << "\n";
  s << "device\t" << clean(r.key.device) << "\n";
  s << "arch\t" << clean(r.key.arch) << "\n";
  s << "bucket\t" << r.key.bucket << "\n";
  s << "problem\t" << clean(r.problem) << "\n";
  s << "n_elements\t" << r.n_elements << "\n";
  s << "pinned\t" << (r.pinned ? 1 : 0) << "\n";
  s << "created\t" << r.created << "\n";
  s << "winner\t" << format_config(r.winner) << "\n";
  s << "winner_ms\t" << number(r.winner_ms) << "\n";
  s << "heuristic\t" << format_config(r.heuristic) << "\n";
  s << "heuristic_ms\t" << number(r.heuristic_ms) << "\n";
  for (const CandidateResult& c : r.candidates) {
    s << "candidate\t" << clean(c.label) << "\t" << number(c.ms) << "\t" << number(c.gbps) << "\t"
      << c.registers << "\t" << c.spill_bytes << "\t" << clean(c.status) << "\t"
      << format_config(c.config) << "\n";
  }
  const std::string body = s.str();
  return body + "sha256\t" + sha256_hex(body) + "\n";
}

TuningRecord parse_record(const std::string& text) {
  const size_t tail = text.rfind("sha256\t");
  if (text.rfind(kMagic, 0) != 0) throw std::runtime_error("not a dualjit tuning record");
  if (tail == std::string::npos) throw std::runtime_error("truncated (no checksum line)");
  const std::string body = text.substr(0, tail);
  std::string sum = text.substr(tail + 7);
  while (!sum.empty() && (sum.back() == '\n' || sum.back() == '\r')) sum.pop_back();
  if (sha256_hex(body) != sum) throw std::runtime_error("checksum mismatch");

  TuningRecord r;
  std::istringstream in(body);
  std::string line;
  std::getline(in, line);  // magic
  while (std::getline(in, line)) {
    const auto f = split_tabs(line);
    const std::string& name = f[0];
    const std::string value = f.size() > 1 ? f[1] : "";
    try {
      if (name == "kernel_hash")
        r.key.kernel_hash = value;
      else if (name == "mode")
        r.key.mode = value;
      else if (name == "backend")
        r.key.backend = value;
      else if (name == "device")
        r.key.device = value;
      else if (name == "arch")
        r.key.arch = value;
      else if (name == "bucket")
        r.key.bucket = std::stoi(value);
      else if (name == "problem")
        r.problem = value;
      else if (name == "n_elements")
        r.n_elements = std::stoll(value);
      else if (name == "pinned")
        r.pinned = value == "1";
      else if (name == "created")
        r.created = std::stoll(value);
      else if (name == "winner")
        r.winner = parse_config(value);
      else if (name == "winner_ms")
        r.winner_ms = std::stod(value);
      else if (name == "heuristic")
        r.heuristic = parse_config(value);
      else if (name == "heuristic_ms")
        r.heuristic_ms = std::stod(value);
      else if (name == "candidate") {
        if (f.size() != 8)
          throw std::runtime_error("candidate line with " + std::to_string(f.size()) + " fields");
        CandidateResult c;
        c.label = f[1];
        c.ms = std::stod(f[2]);
        c.gbps = std::stod(f[3]);
        c.registers = std::stoi(f[4]);
        c.spill_bytes = std::stoi(f[5]);
        c.status = f[6];
        c.config = parse_config(f[7]);
        r.candidates.push_back(std::move(c));
      }
      // Unknown lines are ignored: a newer writer may add fields.
    } catch (const std::logic_error& e) {
      throw std::runtime_error("bad line '" + line + "': " + e.what());
    }
  }
  if (r.key.kernel_hash.empty() || r.winner.empty()) {
    throw std::runtime_error("no kernel hash or winner");
  }
  return r;
}

TuningDb::TuningDb(fs::path cache_dir) : dir_(std::move(cache_dir) / "tuning") {}

TuningDb TuningDb::from_env() {
  return TuningDb(default_cache_dir());
}

fs::path TuningDb::record_path(const TuningKey& key) const {
  return dir_ / (key.hex() + kSuffix);
}

std::optional<TuningRecord> TuningDb::load(const TuningKey& key) const {
  init_logging_from_env();
  const fs::path path = record_path(key);
  const auto text = read_text(path);
  if (!text) return std::nullopt;
  try {
    TuningRecord r = parse_record(*text);
    if (r.key.hex() != key.hex()) throw std::runtime_error("record is for another key");
    return r;
  } catch (const std::exception& e) {
    spdlog::warn("dualjit: ignoring damaged tuning record '{}': {}", path.string(), e.what());
    return std::nullopt;
  }
}

TuningDb::StoreResult TuningDb::store(const TuningRecord& record) {
  if (const auto old = load(record.key); old && old->pinned) {
    spdlog::debug("dualjit: tuning record for {} is pinned; kept", record.key.describe());
    return StoreResult::kept_pinned;
  }
  write_atomically(record_path(record.key), serialize_record(record));
  spdlog::debug("dualjit: stored tuning record for {}", record.key.describe());
  return StoreResult::stored;
}

bool TuningDb::unpin(const TuningKey& key) {
  auto r = load(key);
  if (!r) return false;
  r->pinned = false;
  write_atomically(record_path(key), serialize_record(*r));
  return true;
}

std::vector<TuningRecord> TuningDb::list() const {
  std::vector<TuningRecord> out;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return out;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != kSuffix) continue;
    const auto text = read_text(entry.path());
    if (!text) continue;
    try {
      out.push_back(parse_record(*text));
    } catch (const std::exception& e) {
      spdlog::warn("dualjit: ignoring damaged tuning record '{}': {}", entry.path().string(),
                   e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const TuningRecord& a, const TuningRecord& b) {
    return std::tie(a.problem, a.key.mode, a.key.backend, a.key.bucket) <
           std::tie(b.problem, b.key.mode, b.key.backend, b.key.bucket);
  });
  return out;
}

size_t TuningDb::clear() {
  size_t n = 0;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return 0;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) files.push_back(entry.path());
  for (const fs::path& p : files) {
    if (p.extension() == kSuffix && fs::remove(p, ec)) ++n;
  }
  return n;
}

uint64_t TuningDb::total_bytes() const {
  uint64_t total = 0;
  std::error_code ec;
  if (!fs::is_directory(dir_, ec)) return 0;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() == kSuffix) total += entry.file_size(ec);
  }
  return total;
}

}  // namespace dualjit::jit

// The tuning database: which launch configuration won on which device for which kernel, mode
// and problem size, with the measured figures of every candidate. Records live in the cache
// directory (<dir>/tuning/<key hash>.tune), one text file each, written atomically (temporary
// file + rename) and checksummed, so several processes may share the directory and a damaged
// record is ignored (logged), never trusted.
//
// A configuration is a set of named fields (strategy=scatter_atomic, width=5, ...): the JIT
// does not know what the backends tune, the backends map fields to their own options.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dualjit::jit {

using TuningConfig = std::map<std::string, std::string>;

// "k1=v1 k2=v2" in key order, and back (throws std::invalid_argument naming the bad token).
std::string format_config(const TuningConfig& config);
TuningConfig parse_config(const std::string& text);

// Problem-size bucket: b with 2^b <= n < 2^(b+1) (0 for n <= 1). A record tuned at 6.1 M
// elements serves 4.2 M .. 8.4 M.
int size_bucket(int64_t n_elements);

struct TuningKey {
  std::string kernel_hash;  // of every kernel the configuration applies to
  std::string mode;         // "jacobian", "value", "hessian", ...
  std::string backend;      // "cuda" or "cpu"
  std::string device;       // GPU name, or the CPU model
  std::string arch;         // "sm_90", or "cpu-x86_64"
  int bucket = 0;           // size_bucket(n_elements)

  // SHA-256 of the canonical text of all fields: the record's file name.
  std::string hex() const;
  std::string describe() const;  // one line for logs and tables
};

struct CandidateResult {
  std::string label;    // short human name of the configuration
  TuningConfig config;  // the fields
  double ms = -1;       // median time, -1 when not timed
  double gbps = 0;      // effective bandwidth (bytes the problem must move / time)
  int registers = -1;   // per thread (GPU); -1 when not known
  int spill_bytes = -1;
  std::string status = "ok";  // "ok", or why it was skipped ("compile failed: ...", "budget")
};

struct TuningRecord {
  TuningKey key;
  std::string problem;  // registry name, for listings
  int64_t n_elements = 0;
  TuningConfig winner;
  double winner_ms = -1;
  TuningConfig heuristic;  // the default the winner was measured against
  double heuristic_ms = -1;
  bool pinned = false;
  int64_t created = 0;  // unix seconds
  std::vector<CandidateResult> candidates;
};

class TuningDb {
 public:
  // <cache_dir>/tuning; nothing is created until the first store.
  explicit TuningDb(std::filesystem::path cache_dir);
  // The directory of jit::default_cache_dir().
  static TuningDb from_env();

  // The record for key; nullopt when there is none or it is damaged (logged at warn level).
  std::optional<TuningRecord> load(const TuningKey& key) const;

  enum class StoreResult { stored, kept_pinned };
  // Writes the record atomically unless a pinned record exists for its key (a pinned choice
  // never changes under a user). Throws std::runtime_error naming the file when it cannot write.
  StoreResult store(const TuningRecord& record);
  // Clears the pinned flag of an existing record; false when there is none.
  bool unpin(const TuningKey& key);

  std::vector<TuningRecord> list() const;  // damaged records are skipped
  size_t clear();                          // removes every record; returns how many
  uint64_t total_bytes() const;
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path record_path(const TuningKey& key) const;

 private:
  std::filesystem::path dir_;
};

// The record as text, and back (throws std::runtime_error describing what is wrong).
std::string serialize_record(const TuningRecord& record);
TuningRecord parse_record(const std::string& text);

}  // namespace dualjit::jit

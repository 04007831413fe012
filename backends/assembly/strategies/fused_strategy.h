// The FUN3D family of assembly strategies: kernels that assemble a Problem's vector terms in
// place into the residual (n_nodes x B), the diagonal blocks (fp64, n_nodes x B x B) and the
// off-diagonal block values (fp32 or fp64, over the problem's off-diagonal pattern) of a split
// block-CSR Jacobian (mesh::SplitBlockCsr).
//
// A strategy is a jit::Driver (its emitted text, argument fields, launch policy, compile flags
// and validation) plus what it needs on the host: the per-term arrays its kernel reads
// (structure()) and whether it stores or adds its outputs (so the assembler zeroes only what is
// added). The list of strategies is strategies.h; each one is a file of this folder.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/mesh/block_pattern.h"
#include "jit/driver.h"
#include "jit/lowering.h"

namespace dualjit::assembly {

class Problem;

// What a strategy's kernel is emitted from for one term.
struct FusedSpec {
  int vertices = 2;  // k
  int block = 1;     // B: node field width (every input and output slot)
  // Per output slot: (element vertex, sign) pairs its components are added to.
  std::vector<std::vector<std::pair<int, double>>> output_scatter;
  bool jacobian = true;    // assemble dR/dQ (else the residual only)
  bool off_single = true;  // off-diagonal blocks in fp32 (FUN3D); fp64 otherwise
  // Facts about the problem a strategy may use:
  // every off-diagonal slot receives exactly one element's block (no repeated edges);
  bool single_writer = false;
  // this is the first vector term launched (nothing has written the outputs yet).
  bool first_term = false;
  // Options a strategy may honour: runs of elements sharing vertex 0 summed before the
  // atomics (staged-scatter).
  bool pre_reduce = false;
  // What the kernel does, decided by the strategy from the above (its constructor): store
  // Aoff instead of adding (so it needs no zeroing), store every node's rows and diagonal
  // blocks instead of adding.
  bool off_direct = false;
  bool store_rows = false;
};

// The arrays a term's kernel reads besides the common ones (connectivity, fields, params) and
// the assembled outputs, by argument field name, as host bytes; the assembler puts them where
// the kernel runs.
struct TermStructure {
  struct Array {
    std::string field;
    std::vector<std::byte> bytes;
  };
  std::vector<Array> arrays;
  std::vector<std::pair<std::string, int64_t>> counts;  // Int64 fields

  template <class T>
  void add(std::string field, std::span<const T> values) {
    Array a{std::move(field), std::vector<std::byte>(values.size() * sizeof(T))};
    if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
    arrays.push_back(std::move(a));
  }
  template <class T>
  void add(std::string field, const std::vector<T>& values) {
    add(std::move(field), std::span<const T>(values));
  }
};

// One term of a problem as a strategy sees it when it builds the term's structure.
struct TermContext {
  const Problem& problem;
  size_t term;
  // Off-diagonal storage slot of each element's (row vertex, column vertex) pair, laid out as
  // mesh::BlockPattern::element_slots: the off pattern's own (Aoff by rows) or the edge-based
  // storage order (off_element_order.h).
  std::span<const int64_t> element_slots;
  const jit::LoweredKernel& kernel;
};

// A strategy's refusal of a layout whose resources (shared memory per block) it cannot have;
// its unstaged form (host_form()) computes the same without them.
class StrategyUnfit : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class FusedStrategy : public jit::Driver {
 public:
  explicit FusedStrategy(FusedSpec spec) : spec_(std::move(spec)) {}
  const FusedSpec& spec() const { return spec_; }

  // The strategy's name ("staged-scatter"), as options, tuning records and logs spell it.
  virtual std::string_view name() const = 0;
  virtual TermStructure structure(const TermContext& term) const = 0;
  // W when the options leave it open: one chunk per vertex's directions (B), the gathers'
  // only choice; the scatters put all of an element's directions in one chunk while they are
  // at most 10 (Roe edge: W = 10 is the measured best on an H100, bench/RESULTS.md).
  virtual int default_width(int /*vertices*/, int block) const { return block; }
  // The strategy that computes the same on the host backend (itself, or the unstaged form of a
  // CUDA-only one).
  virtual std::string_view host_form() const = 0;
  bool stores_rows() const { return spec_.store_rows; }
  bool stores_off() const { return spec_.off_direct; }

  // Driver: the common part of each, then the strategy's own.
  std::string suffix() const final;
  void check(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
             const std::string& kernel) const final;
  std::vector<jit::ArgField> fields(const jit::DriverSpec& s) const final;

 protected:
  // The symbol suffix is prefix() (the family: "_sa" scatter, "_gc" gather by column), the
  // off-diagonal precision ("32", "64") and letters() (the strategy's options: "sd").
  virtual std::string prefix() const = 0;
  virtual std::string letters() const = 0;
  // Throws through fail() when the kernel or layout does not suit the strategy.
  virtual void check_strategy(const jit::DriverSpec& s, const jit::DerivativePlan& plan,
                              const std::string& kernel) const = 0;
  virtual std::vector<jit::ArgField> own_fields(const jit::DriverSpec& s) const = 0;
  [[noreturn]] void fail(const std::string& kernel, const std::string& what) const;
  // The layout does not fit (StrategyUnfit): the assembly falls back to host_form().
  [[noreturn]] void unfit(const std::string& kernel, const std::string& what) const;

 private:
  FusedSpec spec_;
};

}  // namespace dualjit::assembly

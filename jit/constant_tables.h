// A large element function's fp64 constants read from tables in constant memory instead of
// spelled as literals. A literal whose low 32 bits are not zero is no SASS immediate: ptxas
// makes it with two moves before each use, where a table entry is one constant-bank operand or
// ULDC; and a select between two constants (the NASA polynomials' ranges) is one indexed LDC
// from a two-row table instead of two moves and two FSELs. GRI-3.0's tapes' launch: 39,008 ->
// 31,696 SASS instructions, and NVVM 3.4 s longer (bench/RESULTS.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dualjit::jit {

class ConstantTables {
 public:
  // `<fn_name>_k[]` and `<fn_name>_ks[2][]`, at most `bytes` together: a module's constant
  // memory (64 KB) is shared by the functions it holds.
  ConstantTables(const std::string& fn_name, size_t bytes);

  // Whether a constant's literal costs instructions that a table read saves.
  static bool worth_a_slot(double value);
  // Sets `spelling` to `<fn>_k[i]` for `value`; false when the table is full or the literal is
  // free.
  bool value(double value, std::string& spelling);
  // Appends `<fn>_ks_at(<condition>, i)`, row 0 of `<fn>_ks[2][]` where the condition holds,
  // for a select between two constants; false when the table is full.
  bool select(std::string_view condition, double if_true, double if_false, std::string& out);
  // The tables' definitions (DJ_TABLE, defined by the preludes: extern "C" on the GPU, so that
  // PTX names them as written) and `<fn>_ks_at`, to precede the function.
  std::string declarations() const;

 private:
  size_t used() const { return values_.size() + 2 * selects_.size(); }
  std::string values_name_, selects_name_;
  size_t capacity_;
  std::unordered_map<uint64_t, size_t> index_;
  std::vector<double> values_;
  std::vector<std::array<double, 2>> selects_;
};

}  // namespace dualjit::jit

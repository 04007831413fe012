#include "jit/constant_tables.h"

#include <cmath>
#include <cstring>

#include "jit/emit_element.h"

namespace dualjit::jit {
namespace {

uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

ConstantTables::ConstantTables(const std::string& fn_name, size_t bytes)
    : values_name_(fn_name + "_k"), selects_name_(fn_name + "_ks"), capacity_(bytes / 8) {}

bool ConstantTables::worth_a_slot(double value) {
  return std::isfinite(value) && (bits_of(value) & 0xffffffffu) != 0;
}

bool ConstantTables::value(double value, std::string& spelling) {
  if (!worth_a_slot(value)) return false;
  auto it = index_.find(bits_of(value));
  if (it == index_.end()) {
    if (used() + 1 > capacity_) return false;
    it = index_.emplace(bits_of(value), values_.size()).first;
    values_.push_back(value);
  }
  spelling = values_name_;
  spelling += '[';
  spelling += std::to_string(it->second);
  spelling += ']';
  return true;
}

bool ConstantTables::select(std::string_view condition, double if_true, double if_false,
                            std::string& out) {
  if (used() + 2 > capacity_) return false;
  out += selects_name_;
  out += "_at(";
  out += condition;
  out += ", ";
  out += std::to_string(selects_.size());
  out += ')';
  selects_.push_back({if_true, if_false});
  return true;
}

std::string ConstantTables::declarations() const {
  std::string out;
  auto list = [&](auto value_of, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      out += i % 4 == 0 ? "\n" : " ";
      out += c_literal(value_of(i));
      out += ',';
    }
  };
  if (!values_.empty()) {
    out += "DJ_TABLE double " + values_name_ + '[';
    out += std::to_string(values_.size());
    out += "] = {";
    list([&](size_t i) { return values_[i]; }, values_.size());
    out += "\n};\n";
  }
  if (!selects_.empty()) {
    out += "DJ_TABLE double " + selects_name_ + "[2][";
    out += std::to_string(selects_.size());
    out += "] = {{";
    list([&](size_t i) { return selects_[i][0]; }, selects_.size());
    out += "\n}, {";
    list([&](size_t i) { return selects_[i][1]; }, selects_.size());
    out += "\n}};\n";
    // On the GPU the row is picked in PTX: NVVM took three times as long over GRI-3.0's tapes'
    // launch (2,051 selects) with the table indexed in C, for the same code.
    const std::string row_bytes = std::to_string(8 * selects_.size());
    out += "DJ_FN double " + selects_name_ + "_at(bool first_row, int i) {\n";
    out += "#ifdef __CUDA_ARCH__\n  double r;\n";
    out += "  asm(\"{\\n .reg .u64 a;\\n .reg .pred p;\\n setp.ne.u32 p, %2, 0;\\n mov.u64 a, ";
    out += selects_name_;
    out += ";\\n @!p add.u64 a, a, " + row_bytes + ";\\n add.u64 a, a, %1;\\n";
    out += " ld.const.f64 %0, [a];\\n}\"\n";
    out += "      : \"=d\"(r) : \"l\"(8LL * i), \"r\"((unsigned)first_row));\n";
    out += "  return r;\n#else\n  return " + selects_name_ + "[first_row ? 0 : 1][i];\n#endif\n}\n";
  }
  return out;
}

}  // namespace dualjit::jit

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

void append_size(std::string& out, size_t v) {
  out += std::to_string(v);
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
  append_size(spelling, it->second);
  spelling += ']';
  return true;
}

bool ConstantTables::select(std::string_view condition, double if_true, double if_false,
                            std::string& out) {
  if (used() + 2 > capacity_) return false;
  out += selects_name_;
  out += '[';
  out += condition;
  out += " ? 0 : 1][";
  append_size(out, selects_.size());
  out += ']';
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
    append_size(out, values_.size());
    out += "] = {";
    list([&](size_t i) { return values_[i]; }, values_.size());
    out += "\n};\n";
  }
  if (!selects_.empty()) {
    out += "DJ_TABLE double " + selects_name_ + "[2][";
    append_size(out, selects_.size());
    out += "] = {{";
    list([&](size_t i) { return selects_[i][0]; }, selects_.size());
    out += "\n}, {";
    list([&](size_t i) { return selects_[i][1]; }, selects_.size());
    out += "\n}};\n";
  }
  return out;
}

}  // namespace dualjit::jit

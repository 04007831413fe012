#include "tools/output.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace dualjit::tools {
namespace {

std::string escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string Table::str() const {
  std::vector<size_t> width(header_.size(), 0);
  const auto measure = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], r[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  std::string out;
  const auto line = [&](const std::vector<std::string>& r) {
    std::string l;
    for (size_t i = 0; i < width.size(); ++i) {
      std::string cell = i < r.size() ? r[i] : "";
      if (i + 1 < width.size()) cell.resize(width[i], ' ');
      l += cell + (i + 1 < width.size() ? "  " : "");
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(header_);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& r : rows_) line(r);
  return out;
}

Json::Json(bool v) : kind_(Kind::Bool), scalar_(v ? "true" : "false") {}
Json::Json(int v) : Json(static_cast<int64_t>(v)) {}
Json::Json(int64_t v) : kind_(Kind::Number), scalar_(std::to_string(v)) {}
Json::Json(uint64_t v) : kind_(Kind::Number), scalar_(std::to_string(v)) {}
Json::Json(double v) : kind_(Kind::Number) {
  if (!std::isfinite(v)) {
    kind_ = Kind::Null;  // JSON has no inf/nan
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  scalar_ = buf;
}
Json::Json(const char* v) : Json(std::string(v)) {}
Json::Json(std::string v) : kind_(Kind::String), scalar_(escape(v)) {}

Json Json::object() {
  Json j;
  j.kind_ = Kind::Object;
  return j;
}

Json Json::array() {
  Json j;
  j.kind_ = Kind::Array;
  return j;
}

Json& Json::set(const std::string& key, Json value) {
  for (auto& [k, v] : members_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  members_.emplace_back(key, std::move(value));
  return *this;
}

Json& Json::push(Json value) {
  items_.push_back(std::move(value));
  return *this;
}

std::string Json::dump() const {
  switch (kind_) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
    case Kind::Number:
    case Kind::String:
      return scalar_;
    case Kind::Object: {
      std::string s = "{";
      for (size_t i = 0; i < members_.size(); ++i) {
        s += (i ? "," : "") + escape(members_[i].first) + ":" + members_[i].second.dump();
      }
      return s + "}";
    }
    case Kind::Array: {
      std::string s = "[";
      for (size_t i = 0; i < items_.size(); ++i) s += (i ? "," : "") + items_[i].dump();
      return s + "]";
    }
  }
  return "null";
}

std::string fmt(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return buf;
}

}  // namespace dualjit::tools

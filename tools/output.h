// Output of the dualjit command: aligned text tables for people, JSON for scripts.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dualjit::tools {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  size_t size() const { return rows_.size(); }
  std::string str() const;  // columns padded to their widest cell

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A JSON value built in memory and written in one go.
class Json {
 public:
  Json() = default;  // null
  Json(bool v);
  Json(int v);
  Json(int64_t v);
  Json(uint64_t v);
  Json(double v);
  Json(const char* v);
  Json(std::string v);
  static Json object();
  static Json array();

  Json& set(const std::string& key, Json value);  // object member (insertion order kept)
  Json& push(Json value);                         // array element
  std::string dump() const;                       // compact, one line

 private:
  enum class Kind { Null, Bool, Number, String, Object, Array } kind_ = Kind::Null;
  std::string scalar_;  // the literal text of a bool, number or (escaped) string
  std::vector<std::pair<std::string, Json>> members_;
  std::vector<Json> items_;
};

std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace dualjit::tools

#include "tools/cli_args.h"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace dualjit::tools {
namespace {

// Number with an optional unit suffix from `units` (case-insensitive), e.g. "1.5G".
double with_suffix(const std::string& text, const std::map<char, double>& units,
                   const std::string& what) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError("'" + text + "' is not " + what);
  }
  std::string rest = text.substr(used);
  // Accept 100M, 100MB and 100MiB alike.
  for (const char* tail : {"iB", "ib", "B", "b"}) {
    const std::string t = tail;
    if (rest.size() > t.size() && rest.compare(rest.size() - t.size(), t.size(), t) == 0) {
      rest.resize(rest.size() - t.size());
      break;
    }
  }
  double scale = 1;
  if (rest.size() == 1) {
    const auto it = units.find(static_cast<char>(std::toupper(rest[0])));
    if (it == units.end()) throw UsageError("'" + text + "' is not " + what);
    scale = it->second;
  } else if (!rest.empty()) {
    throw UsageError("'" + text + "' is not " + what);
  }
  if (!(v >= 0) || !std::isfinite(v)) throw UsageError("'" + text + "' is not " + what);
  return v * scale;
}

}  // namespace

Args::Args(std::string command, std::string synopsis, std::string description)
    : command_(std::move(command)),
      synopsis_(std::move(synopsis)),
      description_(std::move(description)) {
  flag("--help", "show this help");
  flag("--json", "machine-readable output (JSON on stdout)");
  option("--plugin", "LIB.so", "load problems from a shared library first", true);
}

Args& Args::flag(const std::string& name, const std::string& help) {
  specs_.push_back({name, {"", help, false, false}});
  return *this;
}

Args& Args::option(const std::string& name, const std::string& metavar, const std::string& help,
                   bool repeatable) {
  specs_.push_back({name, {metavar, help, true, repeatable}});
  return *this;
}

Args& Args::positionals(const std::string& metavar, const std::string& help, int min, int max) {
  pos_metavar_ = metavar;
  pos_help_ = help;
  pos_min_ = min;
  pos_max_ = max;
  return *this;
}

bool Args::parse(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && !(a.size() > 1 && std::isdigit(a[1]))) {
      std::string value;
      bool inline_value = false;
      if (const size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        inline_value = true;
      }
      const Spec* spec = nullptr;
      for (const auto& [name, s] : specs_) {
        if (name == a) spec = &s;
      }
      if (!spec) throw UsageError("unknown option '" + a + "'");
      if (!spec->takes_value) {
        if (inline_value) throw UsageError("option '" + a + "' takes no value");
        values_[a].push_back("1");
        continue;
      }
      if (!inline_value) {
        if (i + 1 >= argc)
          throw UsageError("option '" + a + "' needs a value (" + spec->metavar + ")");
        value = argv[++i];
      }
      auto& v = values_[a];
      if (!v.empty() && !spec->repeatable) throw UsageError("option '" + a + "' given twice");
      v.push_back(value);
      continue;
    }
    positional_.push_back(a);
  }
  if (has("--help")) {
    std::fputs(help().c_str(), stdout);
    return false;
  }
  const int n = static_cast<int>(positional_.size());
  if (n < pos_min_) {
    throw UsageError(pos_metavar_.empty() ? "missing argument" : "missing " + pos_metavar_);
  }
  if (pos_max_ >= 0 && n > pos_max_) {
    throw UsageError("unexpected argument '" + positional_[pos_max_] + "'");
  }
  return true;
}

bool Args::declares(const std::string& name) const {
  for (const auto& [n, _] : specs_)
    if (n == name) return true;
  return false;
}

bool Args::has(const std::string& name) const {
  return values_.count(name) > 0;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::all(const std::string& name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int64_t Args::get_int(const std::string& name, int64_t fallback) const {
  if (!has(name)) return fallback;
  try {
    return parse_count(get(name));
  } catch (const UsageError& e) {
    throw UsageError(name + ": " + e.what());
  }
}

double Args::get_double(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  return with_suffix(get(name), {}, "a number (" + name + ")");
}

std::string Args::help() const {
  std::string s = "usage: dualjit " + command_ + " " + synopsis_ + "\n\n" + description_ + "\n";
  if (!pos_metavar_.empty()) s += "\n  " + pos_metavar_ + "\n      " + pos_help_ + "\n";
  s += "\noptions:\n";
  for (const auto& [name, spec] : specs_) {
    std::string head = "  " + name + (spec.takes_value ? " " + spec.metavar : "");
    if (head.size() < 24)
      head.resize(24, ' ');
    else
      head += "\n" + std::string(24, ' ');
    s += head + spec.help + (spec.repeatable ? " (repeatable)" : "") + "\n";
  }
  return s;
}

uint64_t parse_byte_size(const std::string& text) {
  const double k = 1024;
  return static_cast<uint64_t>(
      with_suffix(text, {{'K', k}, {'M', k * k}, {'G', k * k * k}, {'T', k * k * k * k}},
                  "a size (bytes, or with K, M, G, T)"));
}

int64_t parse_count(const std::string& text) {
  const double v =
      with_suffix(text, {{'K', 1e3}, {'M', 1e6}, {'G', 1e9}}, "a count (e.g. 20000, 100k, 6M)");
  if (v != std::floor(v)) throw UsageError("'" + text + "' is not a whole number");
  return static_cast<int64_t>(v);
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace dualjit::tools

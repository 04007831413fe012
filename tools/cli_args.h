// Command-line parsing for the dualjit sub-commands: declared options, generated --help,
// usage errors as exceptions (exit code 2).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualjit::tools {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  Args(std::string command, std::string synopsis, std::string description);

  Args& flag(const std::string& name, const std::string& help);
  // An option with a value; `repeatable` collects every occurrence.
  Args& option(const std::string& name, const std::string& metavar, const std::string& help,
               bool repeatable = false);
  // Positional arguments: at most `max` (-1: any number), described in the help.
  Args& positionals(const std::string& metavar, const std::string& help, int min, int max);

  // Parses argv[1..argc) (argv[0] is the command). Returns false when --help was given (the
  // help is printed). Throws UsageError naming the bad argument.
  bool parse(int argc, char** argv);

  bool declares(const std::string& name) const;  // an option or flag of this command
  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> all(const std::string& name) const;
  int64_t get_int(const std::string& name, int64_t fallback) const;  // accepts 6M, 100k
  double get_double(const std::string& name, double fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }
  std::string help() const;

 private:
  struct Spec {
    std::string metavar, help;
    bool takes_value = false, repeatable = false;
  };
  std::string command_, synopsis_, description_;
  std::vector<std::pair<std::string, Spec>> specs_;
  std::string pos_metavar_, pos_help_;
  int pos_min_ = 0, pos_max_ = 0;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

// "2G" -> 2 << 30, "100M", "512K", "123" (bytes); throws UsageError.
uint64_t parse_byte_size(const std::string& text);
// "6M" -> 6,000,000, "100k" -> 100,000, "12345"; throws UsageError.
int64_t parse_count(const std::string& text);
std::string format_bytes(uint64_t bytes);  // "1.5 MiB"

}  // namespace dualjit::tools

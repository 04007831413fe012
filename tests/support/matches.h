// How many times a regular expression matches in emitted text.
#pragma once

#include <cstddef>
#include <iterator>
#include <regex>
#include <string>

namespace dualjit::test {

inline size_t count_matches(const std::string& s, const std::regex& re) {
  return static_cast<size_t>(
      std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator()));
}

}  // namespace dualjit::test

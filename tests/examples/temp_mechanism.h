// A mechanism file for one test: rate_types.yaml's species and header, and as its reactions one
// elementary reaction (H + O2 <=> O + OH) followed by the test's own, written to a temporary
// file that is removed at the end.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace dualjit::test {

struct TempMechanism {
  std::filesystem::path path;
  explicit TempMechanism(const std::string& reactions) {
    const std::string source = std::string(DUALJIT_TEST_DATA_DIR) + "/kinetics/rate_types.yaml";
    std::ifstream in(source);
    std::string text, line;
    while (std::getline(in, line) && line != "reactions:") text += line + "\n";
    path = std::filesystem::temp_directory_path() /
           ("dualjit_temp_mechanism_" + std::to_string(getpid()) + "_" +
            std::to_string(counter()++) + ".yaml");
    std::ofstream(path) << text << "reactions:\n"
                        << "- equation: H + O2 <=> O + OH\n"
                        << "  rate-constant: {A: 2.65e+16, b: -0.6707, Ea: 1.7041e+04}\n"
                        << reactions;
  }
  ~TempMechanism() { std::filesystem::remove(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

}  // namespace dualjit::test

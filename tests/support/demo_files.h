// What the demo tests (examples/mesh_energy/*_demo.h) check their output with: a temporary
// output folder, the PNG signature, and a fact of a report by name.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "examples/mesh_energy/demo.h"

namespace dualjit::test {

// A folder under the system's temporary one, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix)
      : path_(std::filesystem::temp_directory_path() /
              (prefix + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The file starts with the 8-byte PNG signature.
inline bool is_png(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[8] = {};
  in.read(head, 8);
  return in.gcount() == 8 && std::string(head, 8) == "\x89PNG\r\n\x1a\n";
}

// The value of the report's fact `name`; fails the test when there is none.
inline std::string fact(const mesh_energy::DemoReport& r, const std::string& name) {
  for (const auto& [k, v] : r.facts)
    if (k == name) return v;
  FAIL("no fact named '" << name << "'");
  return "";
}

// A demo run with the same options on the CPU and then on the GPU, each writing into its own
// folder under `dir`: what the GPU cases compare.
struct CpuAndGpu {
  mesh_energy::DemoReport cpu, gpu;
};
template <class Run>
CpuAndGpu run_on_cpu_and_gpu(Run run, mesh_energy::DemoOptions o,
                             const std::filesystem::path& dir) {
  CpuAndGpu r;
  o.output_dir = dir / "cpu";
  o.backend = assembly::Backend::Cpu;
  r.cpu = run(o);
  o.output_dir = dir / "gpu";
  o.backend = assembly::Backend::Cuda;
  r.gpu = run(o);
  return r;
}

}  // namespace dualjit::test

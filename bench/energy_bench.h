// What the energy benchmarks (sd_hvp, smooth_gradient, nh_hessian) share: medians of
// CUDA-event timings, the copy bandwidth for the byte floor, the bumpy disk they run on, the
// arrays file their Python peers read (so that both sides use identical data), the checksums
// both sides print, and the command line.
//
// Arrays file (little endian), written by ArraysFile, read by bench/peers/energy_common.py:
//   magic "DJARRS1\0" (8 bytes), int64 n_arrays, then per array: name (24 bytes, NUL-padded),
//   dtype (8 bytes, NUL-padded numpy string "<i4" or "<f8"), int64 rows, int64 cols, the
//   rows x cols values row-major.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/mesh/block_csr.h"
#include "backends/tuning/timing.h"
#include "examples/mesh_energy/mesh_generators.h"
#include "examples/mesh_energy/parameterization.h"
#include "examples/mesh_energy/tri_mesh.h"

namespace dualjit::bench {

inline double median_ms(const std::function<void()>& run, int reps) {
  return tuning::median_gpu_ms(run, 3, reps);
}

// Device-to-device copy of 1 GiB, read + write, in bytes per second: the bandwidth the byte
// floors are divided by, measured in the same run as the timings.
inline double copy_bandwidth() {
  cuda::DeviceBuffer src(1ull << 30), dst(1ull << 30);
  src.fill_bytes(1);
  return 2.0 * double(src.bytes()) /
         (median_ms([&] { dst.copy_from(src, src.bytes()); }, 15) * 1e-3);
}

// The GPU run's preamble: false after saying why when there is no GPU; else prints the device
// and the copy bandwidth and returns it in *bandwidth (0 on the CPU backend).
inline bool open_device(bool cpu, double* bandwidth) {
  *bandwidth = 0;
  if (cpu) return true;
  if (!cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return false;
  }
  const auto& dev = cuda::Context::primary().device();
  *bandwidth = copy_bandwidth();
  std::printf("device %s (%s); copy bandwidth %.0f GB/s\n", dev.name.c_str(), dev.arch().c_str(),
              *bandwidth / 1e9);
  return true;
}

// The direction of Hessian-vector products and the weights of g . v: a fixed formula, written
// to the peers' file too.
inline std::vector<double> direction(int64_t n) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * double(i) + 0.2);
  return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

inline double norm(const std::vector<double>& a) {
  return std::sqrt(dot(a, a));
}

// v^T H v over a block CSR matrix (both triangles stored): it checks where the blocks went,
// which the Frobenius norm does not.
inline double vhv(const mesh::BlockCsr<double>& h, const std::vector<double>& v) {
  const auto& rp = h.pattern->row_ptr();
  const auto& ci = h.pattern->col_idx();
  const int b = h.block_rows;
  double s = 0;
  for (int64_t r = 0; r + 1 < int64_t(rp.size()); ++r) {
    for (int64_t k = rp[r]; k < rp[r + 1]; ++k) {
      const double* blk = h.block(k);
      for (int i = 0; i < b; ++i)
        for (int j = 0; j < b; ++j) s += v[r * b + i] * blk[i * b + j] * v[int64_t(ci[k]) * b + j];
    }
  }
  return s;
}

// The translation-invariant energies' gradients and Hessians sum to zero up to round-off, so
// the checksums are norms and products with v, never plain sums.
inline double frobenius(const std::vector<double>& values) {
  return norm(values);
}

// A unit disk (mesh_generators.h) with the fewest rings that `levels` midpoint subdivisions
// take to at least `vertices`, subdivided so, then lifted by smooth bumps in z, so that the rest
// triangles are neither flat nor alike. With `tutte_uv`, the coarse disk's Tutte embedding
// (uniform weights) is subdivided along as the mesh's UVs: a flip-free start (each triangle's
// four children are images of its own affine map), in seconds where Tutte's sparse solve on
// the fine mesh takes minutes (about 200 s at 1.8 M vertices on one core).
inline mesh_energy::TriMesh bumpy_disk(int64_t vertices, int levels = 2, bool tutte_uv = false) {
  const auto count = [levels](int64_t r) {
    int64_t v = 3 * r * r + 3 * r + 1, f = 6 * r * r;
    for (int l = 0; l < levels; ++l) v += v + f - 1, f *= 4;  // V' = V + E, E = V + F - 1
    return v;
  };
  int64_t r = 1;
  while (count(r) < vertices) ++r;
  mesh_energy::TriMesh m = mesh_energy::disk(int(r));
  if (tutte_uv) m.uv = mesh_energy::tutte_embedding(m, "disk " + std::to_string(r));
  for (int l = 0; l < levels; ++l) m = mesh_energy::subdivide(m);
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    const double x = m.x[v * 3], y = m.x[v * 3 + 1];
    m.x[v * 3 + 2] = 0.3 * std::exp(-6.0 * ((x - 0.2) * (x - 0.2) + y * y)) +
                     0.04 * std::sin(7.0 * x) * std::cos(5.0 * y);
  }
  return m;
}

class ArraysFile {
 public:
  void add(const std::string& name, const std::vector<int32_t>& values, int64_t cols) {
    add_raw(name, "<i4", values.data(), values.size(), sizeof(int32_t), cols);
  }
  void add(const std::string& name, const std::vector<double>& values, int64_t cols) {
    add_raw(name, "<f8", values.data(), values.size(), sizeof(double), cols);
  }
  void add_scalar(const std::string& name, double value) {
    add(name, std::vector<double>{value}, 1);
  }

  // Throws std::runtime_error naming the file when it cannot be written.
  void write(const std::string& path) const {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write " + path);
    out.write("DJARRS1\0", 8);
    const int64_t n = int64_t(arrays_.size());
    out.write(reinterpret_cast<const char*>(&n), 8);
    for (const Array& a : arrays_) {
      char name[24] = {}, dtype[8] = {};
      std::strncpy(name, a.name.c_str(), sizeof name - 1);
      std::strncpy(dtype, a.dtype.c_str(), sizeof dtype - 1);
      out.write(name, sizeof name);
      out.write(dtype, sizeof dtype);
      out.write(reinterpret_cast<const char*>(&a.rows), 8);
      out.write(reinterpret_cast<const char*>(&a.cols), 8);
      out.write(a.bytes.data(), std::streamsize(a.bytes.size()));
    }
    if (!out) throw std::runtime_error("cannot write " + path);
  }

 private:
  struct Array {
    std::string name, dtype;
    int64_t rows = 0, cols = 0;
    std::vector<char> bytes;
  };
  void add_raw(const std::string& name, const char* dtype, const void* data, size_t n, size_t item,
               int64_t cols) {
    if (name.size() > 23 || cols <= 0 || n % size_t(cols) != 0)
      throw std::invalid_argument("ArraysFile: bad array " + name);
    Array a{name, dtype, int64_t(n) / cols, cols, std::vector<char>(n * item)};
    if (n) std::memcpy(a.bytes.data(), data, n * item);
    arrays_.push_back(std::move(a));
  }
  std::vector<Array> arrays_;
};

// Command line shared by the energy benchmarks:
//   PROGRAM [--write DIR] [--cpu] [--reps N] [other flags the program reads] SIZE ...
// --write DIR: each size's data goes to DIR/<prefix>_<SIZE>.bin for the peers. --cpu: no
// timing; the checksums from the CPU backend, so that the peers' numbers can be checked on a
// machine without a GPU.
struct Args {
  std::vector<int64_t> sizes;
  std::string write_dir;
  bool cpu = false;
  int reps = 15;
  std::vector<std::string> flags;  // "--name value" pairs the program reads itself, flattened

  // The value after `--name`, or `fallback`.
  std::string flag(const std::string& name, const std::string& fallback) const {
    for (size_t i = 0; i + 1 < flags.size(); i += 2)
      if (flags[i] == name) return flags[i + 1];
    return fallback;
  }
};

// `valued` lists the program's own flags that take a value; exits 2 on an unknown flag.
inline Args parse_args(int argc, char** argv, const std::vector<int64_t>& default_sizes,
                       const std::vector<std::string>& valued) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const bool has_value = i + 1 < argc;
    if (s == "--write" && has_value) {
      a.write_dir = argv[++i];
    } else if (s == "--cpu") {
      a.cpu = true;
    } else if (s == "--reps" && has_value) {
      a.reps = std::max(1, std::atoi(argv[++i]));
    } else if (std::find(valued.begin(), valued.end(), s) != valued.end() && has_value) {
      a.flags.push_back(s);
      a.flags.push_back(argv[++i]);
    } else if (!s.empty() && s[0] != '-') {
      a.sizes.push_back(std::atoll(s.c_str()));
    } else {
      std::fprintf(stderr, "%s: unknown or incomplete option %s\n", argv[0], s.c_str());
      std::exit(2);
    }
  }
  if (a.sizes.empty()) a.sizes = default_sizes;
  return a;
}

inline std::string data_path(const Args& a, const char* prefix, int64_t size) {
  return a.write_dir + "/" + prefix + "_" + std::to_string(size) + ".bin";
}

}  // namespace dualjit::bench

// Batched dense LU for the stiff integrator (issue 17): the integrator's own kernels (a thread
// block per system, the matrix in shared memory, partial pivoting; the solve a warp per
// system: solvers/device_rosenbrock_engine.h's module, the same code as the BDF's) against
// cuBLAS's cublasDgetrfBatched and cublasDgetrsBatched, for the same matrices I - J (J random,
// entries uniform in +-2/sqrt(n), so rows do swap) at sizes of the kinetics systems (n = 11
// h2o2, 54 GRI-3.0, 101 nDodecane). Median of 9 runs after a warm-up, host wall clock around
// synchronised launches; the matrices are restored (untimed) before each factorisation.
// cuBLAS is loaded at run time (libcublas.so from the CUDA toolkit), like the driver.
// Checks: both solutions of (I - J) x = b agree (max relative difference printed).
//
//   batched_lu [SYSTEMS ...]   (default 10000 100000)
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "solvers/device_lu_source.h"
#include "solvers/device_rosenbrock_engine.h"
#include "solvers/rosenbrock_method.h"

using namespace dualjit;

namespace {

using Handle = void*;
using Create = int (*)(Handle*);
using Destroy = int (*)(Handle);
using Getrf = int (*)(Handle, int, double* const[], int, int*, int*, int);
using Getrs = int (*)(Handle, int, int, int, const double* const[], int, const int*,
                      double* const[], int, int*, int);

struct Cublas {
  void* library = nullptr;
  Create create = nullptr;
  Destroy destroy = nullptr;
  Getrf getrf = nullptr;
  Getrs getrs = nullptr;
  bool load() {
    for (const char* name : {"libcublas.so", "libcublas.so.13", "libcublas.so.12"})
      if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!library) return false;
    create = reinterpret_cast<Create>(dlsym(library, "cublasCreate_v2"));
    destroy = reinterpret_cast<Destroy>(dlsym(library, "cublasDestroy_v2"));
    getrf = reinterpret_cast<Getrf>(dlsym(library, "cublasDgetrfBatched"));
    getrs = reinterpret_cast<Getrs>(dlsym(library, "cublasDgetrsBatched"));
    return create && destroy && getrf && getrs;
  }
};

template <class F>
double median_ms(F&& run, const std::function<void()>& reset) {
  std::vector<double> t;
  reset();
  run();  // warm-up
  for (int rep = 0; rep < 9; ++rep) {
    reset();
    cuda::Context::primary().synchronize();
    const auto t0 = std::chrono::steady_clock::now();
    run();
    cuda::Context::primary().synchronize();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (!cuda::driver_available()) {
    std::printf("no GPU: %s\n", cuda::driver_unavailable_reason().c_str());
    return 1;
  }
  std::vector<long long> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {10000, 100000};
  Cublas cublas;
  const bool have_cublas = cublas.load();
  Handle handle = nullptr;
  if (have_cublas && cublas.create(&handle) != 0) {
    std::printf("cublasCreate failed\n");
    return 1;
  }
  const std::string device = cuda::Context::primary().device().name;
  std::printf("batched_lu on %s; cuBLAS %s\n", device.c_str(), have_cublas ? "loaded" : "absent");
  std::printf("%5s %8s %12s %12s %12s %12s %10s\n", "n", "systems", "own_lu_ms", "own_solve_ms",
              "cublas_lu_ms", "cublas_rs_ms", "max_rel");
  const solvers::RosenbrockMethod& method = solvers::rodas4();
  for (int n : {11, 54, 101}) {
    cuda::SourceModule module("batched_lu_n" + std::to_string(n),
                              solvers::device_rosenbrock_source(method, n));
    const int shared = solvers::lu_factor_shared_bytes(n, sizeof(double));
    const unsigned factor_threads = solvers::lu_factor_threads(n);
    CUfunction factor = module.function("dj_rb_factor"), solve = module.function("dj_rb_solve");
    if (shared > 48 * 1024) cuda::set_max_dynamic_shared(factor, shared);
    for (long long m : sizes) {
      const size_t nn = static_cast<size_t>(n) * n;
      std::mt19937_64 rng(7);
      std::uniform_real_distribution<double> u(-2.0 / std::sqrt(n), 2.0 / std::sqrt(n));
      std::vector<double> J(m * nn), At(m * nn), b(m * n);
      for (long long s = 0; s < m; ++s)
        for (int i = 0; i < n; ++i) {
          b[s * n + i] = u(rng);
          for (int j = 0; j < n; ++j) J[s * nn + i * n + j] = u(rng);
        }
      // cuBLAS is column-major: A = I - J stored transposed.
      for (long long s = 0; s < m; ++s)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            At[s * nn + j * n + i] = (i == j ? 1.0 : 0.0) - J[s * nn + i * n + j];
      // Own: LU of I / (h gamma) - J with h gamma = 1, then k = (.)^-1 b (stage 0).
      cuda::DeviceBuffer jac = cuda::DeviceBuffer::from(J), lu(m * nn * sizeof(double)),
                         perm(m * n * sizeof(int)), singular(m), f = cuda::DeviceBuffer::from(b),
                         k(m * n * sizeof(double) * method.stages);
      std::vector<double> h(m, 1.0 / method.gamma);
      cuda::DeviceBuffer hd = cuda::DeviceBuffer::from(h);
      CUdeviceptr pj = jac.get(), plu = lu.get(), pperm = perm.get(), psing = singular.get(),
                  pf = f.get(), pk = k.get(), ph = hd.get();
      int stage = 0;
      void* fargs[] = {&pj, &ph, &plu, &pperm, &psing, &m};
      void* sargs[] = {&plu, &pperm, &pf, &pk, &ph, &stage, &m};
      const double own_lu = median_ms(
          [&] {
            cuda::launch(factor, cuda::Dim3{unsigned(m)}, cuda::Dim3{factor_threads}, shared,
                         fargs);
          },
          [] {});
      const double own_solve = median_ms(
          [&] {
            cuda::launch(solve, cuda::Dim3{unsigned((m + 3) / 4)}, cuda::Dim3{128}, 0, sargs);
          },
          [] {});
      std::vector<double> x_own(m * n);
      k.download(x_own.data(), x_own.size() * sizeof(double));
      double cublas_lu = NAN, cublas_rs = NAN, worst = NAN;
      if (have_cublas) {
        cuda::DeviceBuffer pristine = cuda::DeviceBuffer::from(At), a(m * nn * sizeof(double)),
                           rhs(m * n * sizeof(double)), cpiv(m * n * sizeof(int)),
                           info(m * sizeof(int));
        std::vector<CUdeviceptr> aptr(m), bptr(m);
        for (long long s = 0; s < m; ++s) {
          aptr[s] = a.get() + s * nn * sizeof(double);
          bptr[s] = rhs.get() + s * n * sizeof(double);
        }
        cuda::DeviceBuffer aarr = cuda::DeviceBuffer::from(aptr),
                           barr = cuda::DeviceBuffer::from(bptr);
        auto* A = reinterpret_cast<double* const*>(aarr.get());
        auto* B = reinterpret_cast<double* const*>(barr.get());
        auto* P = reinterpret_cast<int*>(cpiv.get());
        auto* I = reinterpret_cast<int*>(info.get());
        cublas_lu = median_ms([&] { cublas.getrf(handle, n, A, n, P, I, int(m)); },
                              [&] { a.copy_from(pristine, pristine.bytes()); });
        int host_info = 0;
        cublas_rs = median_ms(
            [&] {
              cublas.getrs(handle, 0, n, 1, reinterpret_cast<const double* const*>(A), n, P, B, n,
                           &host_info, int(m));
            },
            [&] { rhs.copy_from(f, f.bytes()); });
        std::vector<double> x_cublas(m * n);
        rhs.download(x_cublas.data(), x_cublas.size() * sizeof(double));
        worst = 0;
        for (size_t i = 0; i < x_own.size(); ++i)
          worst = std::max(worst, std::abs(x_own[i] - x_cublas[i]) /
                                      std::max(1e-300, std::abs(x_cublas[i]) + 1e-12));
      }
      std::printf("%5d %8lld %12.3f %12.3f %12.3f %12.3f %10.2e\n", n, m, own_lu, own_solve,
                  cublas_lu, cublas_rs, worst);
      std::printf(
          "RESULT n=%d systems=%lld own_lu_ms=%.4f own_solve_ms=%.4f cublas_getrf_ms=%.4f "
          "cublas_getrs_ms=%.4f max_rel_diff=%.3e device=\"%s\"\n",
          n, m, own_lu, own_solve, cublas_lu, cublas_rs, worst, device.c_str());
      std::fflush(stdout);
    }
  }
  if (handle) cublas.destroy(handle);
  return 0;
}

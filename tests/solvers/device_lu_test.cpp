// The stiff engines' device LU (solvers/device_lu_source.h) on its own: factors of random
// matrices that need row swaps, stored as double (RODAS4's) or float (the BDF's Newton
// matrix), solved by a warp from memory and from its registers, against Eigen's partial-pivoting
// LU; a zero column is reported as singular. The module also compiles without a GPU.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <random>
#include <string>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "jit/nvrtc_compiler.h"
#include "solvers/device_lu_source.h"
#include "support/gpu.h"
#include "support/nvrtc_module.h"

using namespace dualjit;

namespace {

// A module that factors each system's matrix (a block each) and solves with it (a warp each).
std::string lu_test_source(int n, const char* lu_type) {
  return "constexpr int N = " + std::to_string(n) + ";\ntypedef " + lu_type + " LuT;\n" +
         solvers::device_lu_functions(n) + R"(
extern "C" __global__ void __launch_bounds__(FT) t_factor(const double* A, LuT* lu, int* perm,
                                                          unsigned char* singular) {
  const long long s = blockIdx.x;
  const double* As = A + s * N * N;
  const int bad = lu_factor([&](int i, int j) { return As[i * N + j]; }, lu + s * N * N,
                            perm + s * N);
  if (threadIdx.x == 0) singular[s] = bad;
}

// b := A^-1 b by a warp a system, from the factors in memory, or (registers != 0, N <= 64) from
// the factors loaded into the lanes' registers (the BDF's Newton solve).
extern "C" __global__ void __launch_bounds__(128) t_solve(const LuT* lu, const int* perm,
                                                          double* b, long long m, int registers) {
  __shared__ double xs[4][N];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long s = (long long)blockIdx.x * 4 + w;
  if (s >= m) return;
  double* x = xs[w];
  for (int i = lane; i < N; i += 32) x[i] = b[s * N + i];
  __syncwarp();
  if constexpr (N <= 64) {
    if (registers) {
      LuT rows[(N + 31) / 32][N];
      lu_load_rows(lu + s * N * N, lane, rows);
      lu_solve_rows(rows, perm + s * N, x, lane);
    } else {
      lu_solve_warp(lu + s * N * N, perm + s * N, x, lane);
    }
  } else {
    lu_solve_warp(lu + s * N * N, perm + s * N, x, lane);
  }
  for (int i = lane; i < N; i += 32) b[s * N + i] = x[i];
}
)";
}

// x: solved by lu_solve_warp; x_registers: by lu_load_rows and lu_solve_rows (n <= 64, else empty).
struct Solved {
  std::vector<double> x, x_registers;
  std::vector<unsigned char> singular;
};

Solved device_solve(int n, const char* lu_type, const std::vector<double>& A,
                    const std::vector<double>& b) {
  const long long m = static_cast<long long>(b.size()) / n;
  cuda::SourceModule module("lu_test_" + std::string(lu_type) + std::to_string(n),
                            lu_test_source(n, lu_type));
  const size_t lu_bytes = std::string(lu_type) == "float" ? sizeof(float) : sizeof(double);
  cuda::DeviceBuffer dA = cuda::DeviceBuffer::from(A), lu(m * n * n * lu_bytes),
                     perm(m * n * sizeof(int)), singular(m), x = cuda::DeviceBuffer::from(b),
                     xr = cuda::DeviceBuffer::from(b);
  const int shared = solvers::lu_factor_shared_bytes(n, static_cast<int>(lu_bytes));
  CUfunction factor = module.function("t_factor");
  if (shared > 48 * 1024) cuda::set_max_dynamic_shared(factor, shared);
  CUdeviceptr pa = dA.get(), plu = lu.get(), pp = perm.get(), ps = singular.get(), px = x.get(),
              pxr = xr.get();
  void* fargs[] = {&pa, &plu, &pp, &ps};
  cuda::launch(factor, cuda::Dim3{unsigned(m)}, cuda::Dim3{unsigned(solvers::lu_factor_threads(n))},
               shared, fargs);
  long long mm = m;
  int from_memory = 0, from_registers = 1;
  const cuda::Dim3 grid{unsigned((m + 3) / 4)};
  void* sargs[] = {&plu, &pp, &px, &mm, &from_memory};
  cuda::launch(module.function("t_solve"), grid, cuda::Dim3{128}, 0, sargs);
  void* rargs[] = {&plu, &pp, &pxr, &mm, &from_registers};
  if (n <= 64) cuda::launch(module.function("t_solve"), grid, cuda::Dim3{128}, 0, rargs);
  cuda::Context::primary().synchronize();
  Solved out{x.to_vector<double>(), {}, singular.to_vector<unsigned char>()};
  if (n <= 64) out.x_registers = xr.to_vector<double>();
  return out;
}

// m random systems of size n (entries in [-1, 1]: pivoting is needed) and right-hand sides.
void random_systems(int n, int m, std::vector<double>& A, std::vector<double>& b) {
  std::mt19937_64 rng(20261125 + n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  A.resize(size_t(m) * n * n);
  b.resize(size_t(m) * n);
  for (double& v : A) v = u(rng);
  for (double& v : b) v = u(rng);
}

}  // namespace

TEST_CASE("the device LU module compiles under NVRTC for sm_90, double and float factors") {
  for (const char* type : {"double", "float"}) {
    for (int n : {3, 54, 101}) {
      CAPTURE(type);
      CAPTURE(n);
      test::check_module_compiles("lu_test", lu_test_source(n, type), {"t_factor", "t_solve"});
    }
  }
}

TEST_SUITE("gpu") {
  TEST_CASE("the device LU solves random systems like Eigen's, in double and float factors" *
            test::needs_gpu()) {
    for (const char* type : {"double", "float"}) {
      for (int n : {3, 11, 54, 101}) {
        CAPTURE(type);
        CAPTURE(n);
        const int m = 37;
        std::vector<double> A, b;
        random_systems(n, m, A, b);
        const Solved got = device_solve(n, type, A, b);
        // An elimination in fp32 is backward stable to some n eps32 (a residual near 1e-7 of
        // |A| |x|); its solution's error is that times the condition (Eigen's own fp32 LU on
        // these systems: up to 9e-5). fp64 agrees with Eigen to round-off times the condition.
        const bool fp32 = std::string(type) == "float";
        const double tol = fp32 ? 5e-4 : 1e-10, residual_tol = fp32 ? 1e-6 : 1e-10;
        for (int s = 0; s < m; ++s) {
          CAPTURE(s);
          CHECK(got.singular[s] == 0);
          Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>
              As(&A[size_t(s) * n * n], n, n);
          Eigen::Map<const Eigen::VectorXd> bs(&b[size_t(s) * n], n), xs(&got.x[size_t(s) * n], n);
          const Eigen::VectorXd want = As.partialPivLu().solve(bs);
          CHECK((xs - want).norm() <= tol * want.norm());
          CHECK((As * xs - bs).norm() <= residual_tol * As.norm() * xs.norm());
          if (n <= 64) {
            // lu_solve_rows substitutes in the factors' precision: fp32 ones are held to the
            // fp32 bounds, fp64 ones agree with lu_solve_warp's fp64 substitution.
            Eigen::Map<const Eigen::VectorXd> xr(&got.x_registers[size_t(s) * n], n);
            if (fp32) {
              CHECK((xr - want).norm() <= tol * want.norm());
              CHECK((As * xr - bs).norm() <= residual_tol * As.norm() * xr.norm());
            } else {
              CHECK((xr - xs).norm() <= 1e-10 * xs.norm());
            }
          }
        }
      }
    }
  }

  TEST_CASE("the device LU reports a zero column as singular" * test::needs_gpu()) {
    const int n = 11, m = 3;
    std::vector<double> A, b;
    random_systems(n, m, A, b);
    for (int i = 0; i < n; ++i) A[size_t(1) * n * n + i * n + 4] = 0.0;  // system 1, column 4
    const Solved got = device_solve(n, "double", A, b);
    CHECK(got.singular == std::vector<unsigned char>{0, 1, 0});
  }
}

#include "solvers/device_rosenbrock_engine.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "solvers/device_lu_source.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::solvers {
namespace {

constexpr int kWarpsPerBlock = 4;  // systems per block of the warp-per-system kernels
constexpr int kThreads = 256;      // element-wise kernels

std::string table(const char* name, const RosenbrockMethod& r, bool matrix,
                  const std::array<double, RosenbrockMethod::kMaxStages>* row,
                  const std::array<std::array<double, RosenbrockMethod::kMaxStages>,
                                   RosenbrockMethod::kMaxStages>* rows) {
  std::ostringstream out;
  out.precision(17);
  out << "__constant__ double " << name << (matrix ? "[S][S]" : "[S]") << " = {";
  for (int i = 0; i < r.stages; ++i) {
    if (matrix) {
      out << (i ? ", {" : "{");
      for (int j = 0; j < r.stages; ++j) out << (j ? ", " : "") << (*rows)[i][j];
      out << "}";
    } else {
      out << (i ? ", " : "") << (*row)[i];
    }
  }
  out << "};\n";
  return out.str();
}

template <class T>
T* dptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<T*>(b.get());
}

}  // namespace

std::string device_rosenbrock_source(const RosenbrockMethod& r, int n) {
  std::ostringstream head;
  head.precision(17);
  head << "constexpr int N = " << n << ";\nconstexpr int S = " << r.stages
       << ";\nconstexpr double GAMMA = " << r.gamma << ";\nconstexpr int WPB = " << kWarpsPerBlock
       << ";\n// A Rosenbrock method's order rests on exact solves with I / (h gamma) - J.\n"
       << "typedef double LuT;\n";
  head << table("A", r, true, nullptr, &r.a) << table("C", r, true, nullptr, &r.c)
       << table("M", r, false, &r.m, nullptr) << table("E", r, false, &r.e, nullptr);
  return head.str() + R"(
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
)" + device_lu_functions(n) +
         R"(
// lu = the LU factors of I / (h gamma) - J (lu_factor); singular[r] = 1 at a zero pivot. A
// block per system.
extern "C" __global__ void __launch_bounds__(FT) dj_rb_factor(
    const double* jac, const double* h, LuT* lu, int* perm, unsigned char* singular,
    long long m) {
  const long long r = blockIdx.x;
  if (r >= m) return;
  const double* J = jac + r * N * N;
  const double d = 1.0 / (h[r] * GAMMA);
  const int bad = lu_factor([&](int i, int j) { return (i == j ? d : 0.0) - J[i * N + j]; },
                            lu + r * N * N, perm + r * N);
  if (threadIdx.x == 0) singular[r] = bad;
}

// k_s = (I / (h gamma) - J)^-1 (f + sum_{j<s} C[s][j] / h k_j), a warp per system.
extern "C" __global__ void __launch_bounds__(32 * WPB) dj_rb_solve(
    const LuT* lu, const int* perm, const double* f, double* k, const double* h, int s,
    long long m) {
  __shared__ double xs[WPB][N];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long r = (long long)blockIdx.x * WPB + w;
  if (r >= m) return;
  const long long rows = m * N;
  double* x = xs[w];
  const double inv_h = 1.0 / h[r];
  for (int i = lane; i < N; i += 32) {
    double b = f[r * N + i];
    for (int j = 0; j < s; ++j) b += C[s][j] * inv_h * k[j * rows + r * N + i];
    x[i] = b;
  }
  __syncwarp();
  lu_solve_warp(lu + r * N * N, perm + r * N, x, lane);
  for (int i = lane; i < N; i += 32) k[s * rows + r * N + i] = x[i];
}

// out = y + sum_{j<s} coef_j k_j, coef = A[s] (a stage's point) or M (s = S: the new state).
extern "C" __global__ void dj_rb_combine(const double* y, const double* k, double* out, int s,
                                         long long rows) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows;
       i += (long long)gridDim.x * blockDim.x) {
    double v = y[i];
    for (int j = 0; j < s; ++j) {
      const double c = s == S ? M[j] : A[s][j];
      if (c != 0.0) v += c * k[j * rows + i];
    }
    out[i] = v;
  }
}

// err[r] = the weighted RMS norm of sum_j E[j] k_j; inf for a singular step matrix, NaN when
// the new state is not finite. A warp per system.
extern "C" __global__ void __launch_bounds__(32 * WPB) dj_rb_error(
    const double* y, const double* y_new, const double* k, const unsigned char* singular,
    double* err, double rtol, double atol, long long m) {
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long r = (long long)blockIdx.x * WPB + w;
  if (r >= m) return;
  const long long rows = m * N;
  double sum = 0.0;
  for (int i = lane; i < N; i += 32) {
    const long long at = r * N + i;
    double e = 0.0;
    for (int j = 0; j < S; ++j)
      if (E[j] != 0.0) e += E[j] * k[j * rows + at];
    const double scale = atol + rtol * fmax(fabs(y[at]), fabs(y_new[at]));
    sum += (e / scale) * (e / scale);
    if (!isfinite(y_new[at])) sum = __longlong_as_double(0x7ff8000000000000ll);
  }
  sum = warp_sum(sum);
  if (lane == 0) err[r] = singular[r] ? __longlong_as_double(0x7ff0000000000000ll) : sqrt(sum / N);
}

extern "C" __global__ void dj_rb_accept(double* y, const double* y_new,
                                        const unsigned char* accepted, long long rows) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows;
       i += (long long)gridDim.x * blockDim.x)
    if (accepted[i / N]) y[i] = y_new[i];
}

extern "C" __global__ void dj_rb_gather(const double* src, double* dst, const int* keep,
                                        long long rows) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < rows;
       i += (long long)gridDim.x * blockDim.x)
    dst[i] = src[(long long)keep[i / N] * N + i % N];
}

extern "C" __global__ void dj_rb_column(const double* f, double* out, int c, long long m) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m;
       r += (long long)gridDim.x * blockDim.x)
    out[r] = f[r * N + c];
}
)";
}

namespace {

class DeviceRosenbrockEngine final : public RosenbrockEngine {
 public:
  DeviceRosenbrockEngine(StiffSystem& system, const RosenbrockMethod& method,
                         const StiffOptions& options, int64_t capacity)
      : system_(system), method_(method), options_(options), n_(system.size()) {
    const int n = n_;
    module_ =
        compile_lu_module("rosenbrock_n" + std::to_string(n), device_rosenbrock_source(method, n),
                          n, sizeof(double), "dj_rb_factor", &factor_shared_);
    const size_t rows = static_cast<size_t>(capacity) * n * sizeof(double);
    y_ = cuda::DeviceBuffer(rows);
    y_new_ = cuda::DeviceBuffer(rows);
    stage_ = cuda::DeviceBuffer(rows);
    k_ = cuda::DeviceBuffer(rows * method.stages);
    lu_ = cuda::DeviceBuffer(rows * n);
    perm_ = cuda::DeviceBuffer(static_cast<size_t>(capacity) * n * sizeof(int));
    singular_ = cuda::DeviceBuffer(static_cast<size_t>(capacity));
    accepted_ = cuda::DeviceBuffer(static_cast<size_t>(capacity));
    h_ = cuda::DeviceBuffer(static_cast<size_t>(capacity) * sizeof(double));
    err_ = cuda::DeviceBuffer(static_cast<size_t>(capacity) * sizeof(double));
    peak_ = cuda::DeviceBuffer(static_cast<size_t>(capacity) * sizeof(double));
    keep_ = cuda::DeviceBuffer(static_cast<size_t>(capacity) * sizeof(int));
  }

  void load(std::span<const double> y) override {
    m_ = static_cast<int64_t>(y.size()) / n_;
    y_.upload(y.data(), y.size_bytes());
  }

  void store(std::span<double> y) override { y_.download(y.data(), y.size_bytes()); }

  void attempt(std::span<const double> h, std::span<double> err, std::span<double> peak) override {
    long long m = m_, rows = m_ * n_;
    h_.upload(h.data(), h.size_bytes());
    double *y = dptr<double>(y_), *y_new = dptr<double>(y_new_), *stage = dptr<double>(stage_),
           *k = dptr<double>(k_), *lu = dptr<double>(lu_), *hd = dptr<double>(h_),
           *errd = dptr<double>(err_), *peakd = dptr<double>(peak_);
    int* perm = dptr<int>(perm_);
    unsigned char* singular = dptr<unsigned char>(singular_);
    cuda::Context& ctx = cuda::Context::primary();

    Stopwatch jw;
    const double* jac = system_.jacobian(m, y);
    ctx.synchronize();
    times_.jacobian += jw.seconds();

    Stopwatch fw;
    {
      void* args[] = {&jac, &hd, &lu, &perm, &singular, &m};
      cuda::launch(module_->function("dj_rb_factor"), cuda::Dim3{unsigned(m)},
                   cuda::Dim3{unsigned(lu_factor_threads(n_))}, factor_shared_, args);
    }
    ctx.synchronize();
    times_.factor += fw.seconds();

    Stopwatch sw;
    const unsigned warp_grid = unsigned((m + kWarpsPerBlock - 1) / kWarpsPerBlock);
    for (int s = 0; s < method_.stages; ++s) {
      const double* f;
      if (s == 0) {
        f = system_.rhs(m, y);
        if (options_.peak_component >= 0) {
          int c = options_.peak_component;
          void* args[] = {&f, &peakd, &c, &m};
          cuda::launch(module_->function("dj_rb_column"), grid(m), cuda::Dim3{kThreads}, 0, args);
        }
      } else {
        combine(y, k, stage, s, rows);
        f = system_.rhs(m, stage);
      }
      void* args[] = {&lu, &perm, &f, &k, &hd, &s, &m};
      cuda::launch(module_->function("dj_rb_solve"), cuda::Dim3{warp_grid},
                   cuda::Dim3{32 * kWarpsPerBlock}, 0, args);
    }
    combine(y, k, y_new, method_.stages, rows);
    {
      double rtol = options_.rtol, atol = options_.atol;
      void* args[] = {&y, &y_new, &k, &singular, &errd, &rtol, &atol, &m};
      cuda::launch(module_->function("dj_rb_error"), cuda::Dim3{warp_grid},
                   cuda::Dim3{32 * kWarpsPerBlock}, 0, args);
    }
    err_.download(err.data(), err.size_bytes());
    if (options_.peak_component >= 0) peak_.download(peak.data(), peak.size_bytes());
    times_.stages += sw.seconds();
  }

  void accept(std::span<const uint8_t> accepted) override {
    long long rows = m_ * n_;
    accepted_.upload(accepted.data(), accepted.size_bytes());
    double *y = dptr<double>(y_), *y_new = dptr<double>(y_new_);
    unsigned char* acc = dptr<unsigned char>(accepted_);
    void* args[] = {&y, &y_new, &acc, &rows};
    cuda::launch(module_->function("dj_rb_accept"), grid(rows), cuda::Dim3{kThreads}, 0, args);
  }

  void compact(std::span<const int32_t> keep) override {
    long long rows = static_cast<long long>(keep.size()) * n_;
    keep_.upload(keep.data(), keep.size_bytes());
    double *src = dptr<double>(y_), *dst = dptr<double>(y_new_);
    int* kp = dptr<int>(keep_);
    void* args[] = {&src, &dst, &kp, &rows};
    cuda::launch(module_->function("dj_rb_gather"), grid(rows), cuda::Dim3{kThreads}, 0, args);
    std::swap(y_, y_new_);
    m_ = static_cast<int64_t>(keep.size());
  }

  RosenbrockTimes times() const override { return times_; }

 private:
  static cuda::Dim3 grid(long long items) {
    return cuda::Dim3{unsigned(std::clamp<long long>((items + kThreads - 1) / kThreads, 1, 65535))};
  }

  void combine(double* y, double* k, double* out, int s, long long rows) {
    void* args[] = {&y, &k, &out, &s, &rows};
    cuda::launch(module_->function("dj_rb_combine"), grid(rows), cuda::Dim3{kThreads}, 0, args);
  }

  StiffSystem& system_;
  const RosenbrockMethod& method_;
  StiffOptions options_;
  int n_;
  int64_t m_ = 0;
  int factor_shared_ = 0;
  std::unique_ptr<cuda::SourceModule> module_;
  cuda::DeviceBuffer y_, y_new_, stage_, k_, lu_, perm_, singular_, accepted_, h_, err_, peak_,
      keep_;
  RosenbrockTimes times_;
};

}  // namespace

std::unique_ptr<RosenbrockEngine> make_device_rosenbrock_engine(StiffSystem& system,
                                                                const RosenbrockMethod& method,
                                                                const StiffOptions& options,
                                                                int64_t capacity) {
  return std::make_unique<DeviceRosenbrockEngine>(system, method, options, capacity);
}

}  // namespace dualjit::solvers

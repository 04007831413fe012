#include "solvers/device_vector_space.h"

#include <algorithm>
#include <string>

#include "solvers/device_solver_source.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxGrid = 1024;

// Blocks of a grid-stride kernel over n values: fixed by n, so a dot's order is too.
unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(
      std::clamp<int64_t>((n + kThreads - 1) / kThreads, int64_t{1}, kMaxGrid));
}

void check_sizes(const Vector& a, const Vector& b, const char* op) {
  if (a.size() != b.size() || !a.on_device() || !b.on_device()) {
    throw SolverError(std::string("DeviceSpace::") + op + ": vectors of " +
                      std::to_string(a.size()) + (a.on_device() ? "" : " (host)") + " and " +
                      std::to_string(b.size()) + (b.on_device() ? "" : " (host)") +
                      " values; expected equal sizes in device memory");
  }
}

}  // namespace

std::string device_vector_space_source() {
  return "constexpr int T = " + std::to_string(kThreads) + ";\n" + device_block_sum_source() +
         R"(
extern "C" __global__ void __launch_bounds__(T) dj_vs_axpby(
    double a, const double* x, double b, double* y, long long n) {
  for (long long i = (long long)blockIdx.x * T + threadIdx.x; i < n; i += (long long)gridDim.x * T)
    y[i] = b == 0.0 ? a * x[i] : a * x[i] + b * y[i];
}

extern "C" __global__ void __launch_bounds__(T) dj_vs_add_scaled(
    const double* x, double a, const double* d, double* out, long long n) {
  for (long long i = (long long)blockIdx.x * T + threadIdx.x; i < n; i += (long long)gridDim.x * T)
    out[i] = x[i] + a * d[i];
}

extern "C" __global__ void __launch_bounds__(T) dj_vs_mask(const double* mask, double* v,
                                                          long long n) {
  for (long long i = (long long)blockIdx.x * T + threadIdx.x; i < n; i += (long long)gridDim.x * T)
    if (mask[i] == 0.0) v[i] = 0.0;
}

// partial[block] = this block's share of a . b (grid-stride, then a tree).
extern "C" __global__ void __launch_bounds__(T) dj_vs_dot(
    const double* a, const double* b, double* partial, long long n) {
  __shared__ double sh[T];
  double s = 0.0;
  for (long long i = (long long)blockIdx.x * T + threadIdx.x; i < n; i += (long long)gridDim.x * T)
    s += a[i] * b[i];
  s = block_sum(s, sh);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// One block: *out = the sum of partial[0 .. groups) in a fixed order.
extern "C" __global__ void __launch_bounds__(T) dj_vs_sum(const double* partial, int groups,
                                                         double* out) {
  __shared__ double sh[T];
  double v = 0.0;
  for (int g = threadIdx.x; g < groups; g += T) v += partial[g];
  v = block_sum(v, sh);
  if (threadIdx.x == 0) *out = v;
}
)";
}

DeviceSpace::DeviceSpace()
    : module_(std::make_unique<cuda::SourceModule>("dualjit_vector_space",
                                                   device_vector_space_source())),
      partial_(kMaxGrid * sizeof(double)),
      result_(sizeof(double)) {}

DeviceSpace::~DeviceSpace() = default;

Vector DeviceSpace::zeros(int64_t n) const {
  cuda::DeviceBuffer b(std::max<size_t>(size_t(n) * sizeof(double), sizeof(double)));
  b.fill_bytes(0);
  return Vector(std::move(b), n);
}

Vector DeviceSpace::from_host(std::span<const double> values) const {
  Vector v = zeros(int64_t(values.size()));
  if (!values.empty()) cuda::upload(v.data(), values.data(), values.size() * sizeof(double));
  return v;
}

std::vector<double> DeviceSpace::to_host(const Vector& v) const {
  if (!v.on_device()) throw SolverError("DeviceSpace::to_host: a vector in host memory");
  std::vector<double> out(v.size());
  if (!out.empty()) cuda::download(out.data(), v.data(), out.size() * sizeof(double));
  return out;
}

void DeviceSpace::copy(const Vector& x, Vector& y) const {
  check_sizes(x, y, "copy");
  if (x.size() > 0) cuda::copy_on_device(y.data(), x.data(), x.size() * sizeof(double));
}

double DeviceSpace::dot(const Vector& a, const Vector& b) const {
  check_sizes(a, b, "dot");
  const double *pa = a.data(), *pb = b.data();
  double* partial = reinterpret_cast<double*>(partial_.get());
  double* out = reinterpret_cast<double*>(result_.get());
  long long n = a.size();
  int groups = static_cast<int>(grid_for(n));
  void* dot_args[] = {&pa, &pb, &partial, &n};
  cuda::launch(module_->function("dj_vs_dot"), cuda::Dim3{unsigned(groups)}, cuda::Dim3{kThreads},
               0, dot_args);
  void* sum_args[] = {&partial, &groups, &out};
  cuda::launch(module_->function("dj_vs_sum"), cuda::Dim3{1}, cuda::Dim3{kThreads}, 0, sum_args);
  double s = 0;
  result_.download(&s, sizeof s);
  return s;
}

void DeviceSpace::axpby(double a, const Vector& x, double b, Vector& y) const {
  check_sizes(x, y, "axpby");
  const double* px = x.data();
  double* py = y.data();
  long long n = x.size();
  void* args[] = {&a, &px, &b, &py, &n};
  cuda::launch(module_->function("dj_vs_axpby"), cuda::Dim3{grid_for(n)}, cuda::Dim3{kThreads}, 0,
               args);
}

void DeviceSpace::add_scaled(const Vector& x, double a, const Vector& d, Vector& out) const {
  check_sizes(x, d, "add_scaled");
  check_sizes(x, out, "add_scaled");
  const double *px = x.data(), *pd = d.data();
  double* po = out.data();
  long long n = x.size();
  void* args[] = {&px, &a, &pd, &po, &n};
  cuda::launch(module_->function("dj_vs_add_scaled"), cuda::Dim3{grid_for(n)}, cuda::Dim3{kThreads},
               0, args);
}

void DeviceSpace::apply_mask(const Vector& mask, Vector& v) const {
  check_sizes(mask, v, "apply_mask");
  const double* pm = mask.data();
  double* pv = v.data();
  long long n = v.size();
  void* args[] = {&pm, &pv, &n};
  cuda::launch(module_->function("dj_vs_mask"), cuda::Dim3{grid_for(n)}, cuda::Dim3{kThreads}, 0,
               args);
}

}  // namespace dualjit::solvers

#include "solvers/device_vector_space.h"

#include <algorithm>
#include <string>

#include "solvers/device_solver_source.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxGrid = 1024;
// Dots or terms per launch (the kernels' parameter structs; more are split into launches).
constexpr int kMaxTerms = 40;

// The kernels' parameter structs, laid out as in the source.
struct DotPairs {
  const double* a[kMaxTerms];
  const double* b[kMaxTerms];
  int count;
};
struct Terms {
  const double* x[kMaxTerms];
  double c[kMaxTerms];
  int count;
};

// The counts of dots or terms the kernels are compiled for: a launch takes the smallest that
// holds its count (the last is kMaxTerms).
constexpr int kCounts[] = {1, 2, 4, 8, 16, kMaxTerms};
constexpr int kMaxElementwiseGrid = 1 << 20;

int count_for(int count) {
  for (int c : kCounts)
    if (count <= c) return c;
  return kMaxTerms;
}

// Blocks of the dots' grid-stride kernel over n values: fixed by n, so a dot's order is too.
unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(
      std::clamp<int64_t>((n + kThreads - 1) / kThreads, int64_t{1}, kMaxGrid));
}

// Blocks of an elementwise kernel: a thread per value up to 2^28 values.
unsigned elementwise_grid(int64_t n) {
  return static_cast<unsigned>(
      std::clamp<int64_t>((n + kThreads - 1) / kThreads, int64_t{1}, kMaxElementwiseGrid));
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
  std::string entries;
  for (int c : kCounts) {
    const std::string n = std::to_string(c);
    entries += "extern \"C\" __global__ void __launch_bounds__(T) dj_vs_dots_" + n +
               "(DotPairs p, double* partial, long long n, double* out, unsigned int* done) "
               "{ dots<" +
               n + ">(p, partial, n, out, done); }\n" +
               "extern \"C\" __global__ void __launch_bounds__(T) dj_vs_combine_" + n +
               "(Terms t, double c_y, double* y, long long n) { combine<" + n +
               ">(t, c_y, y, n); }\n";
  }
  return "constexpr int T = " + std::to_string(kThreads) +
         ";\nconstexpr int K = " + std::to_string(kMaxTerms) + ";\n" + device_block_sum_source() +
         R"(
extern "C" __global__ void __launch_bounds__(T) dj_vs_mask(const double* mask, double* v,
                                                          long long n) {
  for (long long i = (long long)blockIdx.x * T + threadIdx.x; i < n; i += (long long)gridDim.x * T)
    if (mask[i] == 0.0) v[i] = 0.0;
}

// Up to C <= K dots at once (C fixed per entry point, so that a single dot keeps few registers
// and the SMs full): each thread accumulates every pair over its grid-stride range, in
// ascending order (for C <= 2 four strides' values are loaded before they are added, the same
// order with more loads in flight); a vector read by several pairs comes from DRAM once. Warp
// trees and the warps in order give partial[k * gridDim.x + block]. The last block to finish (a
// counter it resets) sums each pair's partials in a fixed order: out[k] = block_sum over g of
// partial[k * gridDim.x + g], thread t taking g = t, t + T, ... So a batch of dots is one
// launch, and repeats are bit-identical.
struct DotPairs {
  const double* a[K];
  const double* b[K];
  int count;
};

template <int C>
__device__ __forceinline__ void dots(const DotPairs& p, double* partial, long long n, double* out,
                                     unsigned int* done) {
  constexpr int U = C <= 2 ? 4 : 1;
  __shared__ double sh[T / 32][C];
  __shared__ double tree[T];
  __shared__ bool last;
  double acc[C];
#pragma unroll
  for (int k = 0; k < C; ++k) acc[k] = 0.0;
  const long long stride = (long long)gridDim.x * T;
  long long i = (long long)blockIdx.x * T + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
#pragma unroll
    for (int k = 0; k < C; ++k) {
      if (k < p.count) {
        double a[U], b[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          a[u] = p.a[k][i + u * stride];
          b[u] = p.b[k][i + u * stride];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) acc[k] += a[u] * b[u];
      }
    }
  }
  for (; i < n; i += stride) {
#pragma unroll
    for (int k = 0; k < C; ++k)
      if (k < p.count) acc[k] += p.a[k][i] * p.b[k][i];
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < C; ++k) {
    if (k < p.count) {
      double v = acc[k];
      for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
      if (lane == 0) sh[warp][k] = v;
    }
  }
  __syncthreads();
  if (threadIdx.x < p.count) {
    double v = 0.0;
    for (int w = 0; w < T / 32; ++w) v += sh[w][threadIdx.x];
    partial[(long long)threadIdx.x * gridDim.x + blockIdx.x] = v;
  }
  // Every writer's partial is visible device-wide before the block counts itself done.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  const int groups = gridDim.x;
  for (int k = 0; k < p.count; ++k) {
    double v = 0.0;
    for (int g = threadIdx.x; g < groups; g += T) v += __ldcg(partial + (long long)k * groups + g);
    v = block_sum(v, tree);
    if (threadIdx.x == 0) out[k] = v;
  }
  if (threadIdx.x == 0) *done = 0;
}

struct Terms {
  const double* x[K];
  double c[K];
  int count;
};

// y = c_y y + sum_k c_k x_k over up to C <= K terms (c_y = 0: y is not read).
template <int C>
__device__ __forceinline__ void combine(const Terms& t, double c_y, double* y, long long n) {
  for (long long i = (long long)blockIdx.x * T + threadIdx.x; i < n; i += (long long)gridDim.x * T) {
    double v = c_y == 0.0 ? 0.0 : c_y * y[i];
#pragma unroll
    for (int k = 0; k < C; ++k)
      if (k < t.count) v += t.c[k] * t.x[k][i];
    y[i] = v;
  }
}
)" + entries;
}

DeviceSpace::DeviceSpace()
    : module_(std::make_unique<cuda::SourceModule>("dualjit_vector_space",
                                                   device_vector_space_source())),
      partial_(size_t(kMaxTerms) * kMaxGrid * sizeof(double)),
      result_(kMaxTerms * sizeof(double)),
      done_(sizeof(unsigned int)) {
  done_.fill_bytes(0);
}

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

std::vector<double> DeviceSpace::dots(std::span<const Vector* const> a,
                                      std::span<const Vector* const> b) const {
  if (a.size() != b.size()) throw SolverError("DeviceSpace::dots: unequal lists");
  std::vector<double> out(a.size());
  if (a.empty()) return out;
  const int64_t n = a[0]->size();
  for (size_t k = 0; k < a.size(); ++k) {
    check_sizes(*a[k], *b[k], "dots");
    check_sizes(*a[k], *a[0], "dots");
  }
  double* partial = reinterpret_cast<double*>(partial_.get());
  double* result = reinterpret_cast<double*>(result_.get());
  long long len = n;
  int groups = static_cast<int>(grid_for(n));
  for (size_t first = 0; first < a.size(); first += kMaxTerms) {
    DotPairs p{};
    p.count = static_cast<int>(std::min<size_t>(kMaxTerms, a.size() - first));
    for (int k = 0; k < p.count; ++k) {
      p.a[k] = a[first + k]->data();
      p.b[k] = b[first + k]->data();
    }
    unsigned int* done = reinterpret_cast<unsigned int*>(done_.get());
    void* args[] = {&p, &partial, &len, &result, &done};
    cuda::launch(module_->function("dj_vs_dots_" + std::to_string(count_for(p.count))),
                 cuda::Dim3{unsigned(groups)}, cuda::Dim3{kThreads}, 0, args);
    result_.download(out.data() + first, p.count * sizeof(double));
  }
  return out;
}

void DeviceSpace::combine(std::span<const double> c, std::span<const Vector* const> x, double c_y,
                          Vector& y) const {
  if (c.size() != x.size()) throw SolverError("DeviceSpace::combine: unequal lists");
  for (const Vector* v : x) check_sizes(*v, y, "combine");
  double* py = y.data();
  long long n = y.size();
  // Terms that are y itself go into the first launch, which reads y before any launch writes.
  std::vector<size_t> order(x.size());
  for (size_t k = 0; k < x.size(); ++k) order[k] = k;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t k) { return x[k]->data() == y.data(); });
  size_t first = 0;
  do {
    Terms t{};
    t.count = static_cast<int>(std::min<size_t>(kMaxTerms, x.size() - first));
    for (int k = 0; k < t.count; ++k) {
      t.x[k] = x[order[first + k]]->data();
      t.c[k] = c[order[first + k]];
    }
    double cy = first == 0 ? c_y : 1.0;  // later launches add to what the first wrote
    void* args[] = {&t, &cy, &py, &n};
    cuda::launch(module_->function("dj_vs_combine_" + std::to_string(count_for(t.count))),
                 cuda::Dim3{elementwise_grid(n)}, cuda::Dim3{kThreads}, 0, args);
    first += t.count;
  } while (first < x.size());
}

void DeviceSpace::apply_mask(const Vector& mask, Vector& v) const {
  check_sizes(mask, v, "apply_mask");
  const double* pm = mask.data();
  double* pv = v.data();
  long long n = v.size();
  void* args[] = {&pm, &pv, &n};
  cuda::launch(module_->function("dj_vs_mask"), cuda::Dim3{elementwise_grid(n)},
               cuda::Dim3{kThreads}, 0, args);
}

}  // namespace dualjit::solvers

#include "solvers/element_step_bound.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cuda/source_module.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;
// Host threads: one per this many elements (a thread's start costs about as much as its bounds).
constexpr int64_t kElementsPerThread = 16384;

std::string describe(const StepBoundFunction& f) {
  return "step bound '" + f.name + "'";
}

void check_function(const StepBoundFunction& f) {
  if (f.symbol.empty() || f.source.empty() || f.host == nullptr || f.nodes < 1 || f.width < 1 ||
      f.data_width < 0) {
    throw SolverError(describe(f) + ": incomplete function (symbol '" + f.symbol + "', " +
                      std::to_string(f.source.size()) + " characters of source, " +
                      (f.host ? "a" : "no") + " host function, " + std::to_string(f.nodes) +
                      " nodes, width " + std::to_string(f.width) + ", data width " +
                      std::to_string(f.data_width) + ")");
  }
}

}  // namespace

std::string element_step_bound_source(const StepBoundFunction& f) {
  const int data = std::max(f.nodes * f.data_width, 1);
  return f.source + "\nconstexpr int K = " + std::to_string(f.nodes) +
         ", W = " + std::to_string(f.width) + ", D = " + std::to_string(f.data_width) +
         ", T = " + std::to_string(kThreads) + ";\n" +
         R"(
// out[0]: the largest ~bits of a positive bound (bit patterns of positive doubles order as the
// values; the complement turns the minimum into a maximum, so that zeroed memory means "none").
// out[1]: the largest ~e over elements that admit no step (the first such element).
extern "C" __global__ void __launch_bounds__(T) dj_element_step_bound(
    const int* elements, long long n, const double* x, const double* dx, const double* data,
    unsigned long long* out) {
  double xe[K * W], de[K * W], ge[)" +
         std::to_string(data) + R"(];
  double best = 1.0 / 0.0;
  for (long long e = (long long)blockIdx.x * T + threadIdx.x; e < n;
       e += (long long)gridDim.x * T) {
#pragma unroll
    for (int a = 0; a < K; ++a) {
      const long long v = elements[e * K + a];
#pragma unroll
      for (int c = 0; c < W; ++c) {
        xe[a * W + c] = x[v * W + c];
        de[a * W + c] = dx[v * W + c];
      }
#pragma unroll
      for (int c = 0; c < D; ++c) ge[a * D + c] = data[v * D + c];
    }
    const double b = )" +
         f.symbol + R"((xe, de, ge);
    if (b > 0) {
      best = b < best ? b : best;
    } else {
      atomicMax(out + 1, ~(unsigned long long)e);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    const double other = __shfl_down_sync(0xffffffffu, best, o);
    best = other < best ? other : best;
  }
  if ((threadIdx.x & 31) == 0 && best < 1.0 / 0.0)
    atomicMax(out, ~(unsigned long long)__double_as_longlong(best));
}
)";
}

jit::CompileOptions element_step_bound_options() {
  jit::CompileOptions options;
  options.fused_multiply_add = false;   // each operation rounded as on the host
  options.extra = {"-default-device"};  // the function's text has no __device__
  return options;
}

struct ElementStepBound::State {
  StepBoundFunction f;
  int64_t n_nodes = 0, n_elements = 0;
  bool device = false;
  std::vector<int32_t> elements;  // host
  std::vector<double> data;       // host
  std::unique_ptr<cuda::SourceModule> module;
  cuda::DeviceBuffer d_elements, d_data;
  mutable cuda::DeviceBuffer d_out;
};

ElementStepBound::ElementStepBound(const VectorSpace& space, StepBoundFunction f, int64_t n_nodes,
                                   std::span<const int32_t> elements,
                                   std::span<const double> node_data) {
  check_function(f);
  if (n_nodes < 0 || elements.size() % f.nodes != 0 ||
      node_data.size() != size_t(n_nodes) * f.data_width) {
    throw SolverError(describe(f) + ": " + std::to_string(elements.size()) +
                      " element indices (a multiple of " + std::to_string(f.nodes) +
                      " expected) and " + std::to_string(node_data.size()) + " data values for " +
                      std::to_string(n_nodes) + " nodes (" + std::to_string(f.data_width) +
                      " each expected)");
  }
  auto s = std::make_shared<State>();
  s->n_nodes = n_nodes;
  s->n_elements = int64_t(elements.size()) / f.nodes;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i] < 0 || elements[i] >= n_nodes) {
      throw SolverError(describe(f) + ": element " + std::to_string(i / f.nodes) + " has node " +
                        std::to_string(elements[i]) + ", outside [0, " + std::to_string(n_nodes) +
                        ")");
    }
  }
  s->device = space.on_device();
  if (s->device) {
    s->module = std::make_unique<cuda::SourceModule>(
        "dualjit_step_bound_" + f.name, element_step_bound_source(f), element_step_bound_options());
    if (!elements.empty()) {
      s->d_elements = cuda::DeviceBuffer(elements.size() * sizeof(int32_t));
      s->d_elements.upload(elements.data(), elements.size() * sizeof(int32_t));
    }
    if (!node_data.empty()) {
      s->d_data = cuda::DeviceBuffer(node_data.size() * sizeof(double));
      s->d_data.upload(node_data.data(), node_data.size() * sizeof(double));
    }
    s->d_out = cuda::DeviceBuffer(2 * sizeof(unsigned long long));
  } else {
    s->elements.assign(elements.begin(), elements.end());
    s->data.assign(node_data.begin(), node_data.end());
  }
  s->f = std::move(f);
  state_ = std::move(s);
}

int64_t ElementStepBound::n_elements() const {
  return state_->n_elements;
}
const StepBoundFunction& ElementStepBound::function() const {
  return state_->f;
}

double ElementStepBound::operator()(const Vector& x, const Vector& dx) const {
  const State& s = *state_;
  const int64_t n_values = s.n_nodes * s.f.width;
  if (x.size() != n_values || dx.size() != n_values || x.on_device() != s.device ||
      dx.on_device() != s.device) {
    throw SolverError(describe(s.f) + ": x of " + std::to_string(x.size()) + " and dx of " +
                      std::to_string(dx.size()) + " values; " + std::to_string(n_values) +
                      " expected in " + (s.device ? "device" : "host") + " memory");
  }
  const int64_t n = s.n_elements;
  double bound = std::numeric_limits<double>::infinity();
  int64_t blocked = n;
  if (s.device) {
    if (n > 0) {
      s.d_out.fill_bytes_async(0, nullptr);
      const int32_t* elements = reinterpret_cast<const int32_t*>(s.d_elements.get());
      const double* px = x.data();
      const double* pd = dx.data();
      const double* data = reinterpret_cast<const double*>(s.d_data.get());
      unsigned long long* out = reinterpret_cast<unsigned long long*>(s.d_out.get());
      long long count = n;
      void* args[] = {&elements, &count, &px, &pd, &data, &out};
      const auto blocks = static_cast<unsigned>(
          std::clamp<int64_t>((n + kThreads - 1) / kThreads, int64_t{1}, kMaxBlocks));
      cuda::launch(s.module->function(kElementStepBoundEntry), cuda::Dim3{blocks},
                   cuda::Dim3{kThreads}, 0, args);
      unsigned long long r[2];
      s.d_out.download(r, sizeof(r));
      if (r[0] != 0) {
        const unsigned long long bits = ~r[0];
        std::memcpy(&bound, &bits, sizeof(bound));
      }
      if (r[1] != 0) blocked = static_cast<int64_t>(~r[1]);
    }
  } else {
    const double* px = x.data();
    const double* pd = dx.data();
    const int k = s.f.nodes, w = s.f.width, dw = s.f.data_width;
    const int threads =
        static_cast<int>(std::clamp<int64_t>(n / kElementsPerThread, 1, omp_get_max_threads()));
#pragma omp parallel reduction(min : bound, blocked) num_threads(threads)
    {
      std::vector<double> scratch(size_t(k) * (2 * w + dw));
      double* xe = scratch.data();
      double* de = xe + k * w;
      double* ge = de + k * w;
#pragma omp for
      for (int64_t e = 0; e < n; ++e) {
        for (int a = 0; a < k; ++a) {
          const int64_t v = s.elements[e * k + a];
          for (int c = 0; c < w; ++c) {
            xe[a * w + c] = px[v * w + c];
            de[a * w + c] = pd[v * w + c];
          }
          for (int c = 0; c < dw; ++c) ge[a * dw + c] = s.data[v * dw + c];
        }
        const double b = s.f.host(xe, de, ge);
        if (b > 0) {
          bound = std::min(bound, b);
        } else {
          blocked = std::min(blocked, e);
        }
      }
    }
  }
  if (blocked < n) {
    throw SolverError(describe(s.f) + ": element " + std::to_string(blocked) +
                      " admits no step (inverted or degenerate at x)");
  }
  return bound;
}

}  // namespace dualjit::solvers

#include "examples/cfd/device_pseudo_time.h"

#include <stdexcept>
#include <vector>

namespace dualjit::cfd {
namespace {

constexpr int kThreads = 256;

}  // namespace

std::string device_pseudo_time_source() {
  return R"(
constexpr int T = 256;

__device__ double pressure_of(const double* s, double gamma) {
  return (gamma - 1.0) * (s[4] - 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / s[0]);
}

// lambda of node i at state q; 0 with status set when its density or pressure is not positive.
__device__ double spectral_radius_sum(const long long* node_ptr, const int* node_edge,
                                      const double* area, const double* bnode_area,
                                      const double* q, double gamma, long long i,
                                      long long* status) {
  const double* s = q + i * 5;
  const double rho = s[0];
  const double p = pressure_of(s, gamma);
  if (!(rho > 0.0) || !(p > 0.0)) {
    atomicCAS((unsigned long long*)status, 0ull, (unsigned long long)(i + 1));
    return 0.0;
  }
  const double c = sqrt(gamma * p / rho);
  double lambda = 0.0;
  for (long long k = node_ptr[i]; k <= node_ptr[i + 1]; ++k) {
    const double* S = k < node_ptr[i + 1] ? area + (long long)node_edge[k] * 3 : bnode_area + i * 3;
    const double un = (s[1] * S[0] + s[2] * S[1] + s[3] * S[2]) / rho;
    lambda += fabs(un) + c * sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
  }
  return lambda;
}

// diag given (the split form): node i's block there; else found in its row.
extern "C" __global__ void __launch_bounds__(T) dj_euler_shift(
    const long long* node_ptr, const int* node_edge, const double* area,
    const double* bnode_area, const double* q, double gamma, double cfl, const int* row_ptr,
    const int* col_idx, double* vals, double* diag, long long* status, long long n) {
  const long long i = (long long)blockIdx.x * T + threadIdx.x;
  if (i >= n) return;
  const double shift =
      spectral_radius_sum(node_ptr, node_edge, area, bnode_area, q, gamma, i, status) / cfl;
  double* d = diag ? diag + i * 25 : nullptr;
  for (int k = row_ptr[i]; !d && k < row_ptr[i + 1]; ++k)
    if (col_idx[k] == i) d = vals + (long long)k * 25;
  if (!d) {
    atomicCAS((unsigned long long*)status, 0ull, (unsigned long long)(n + i + 1));
    return;
  }
  for (int c = 0; c < 5; ++c) d[c * 6] += shift;
}

extern "C" __global__ void __launch_bounds__(T) dj_euler_explicit(
    const long long* node_ptr, const int* node_edge, const double* area,
    const double* bnode_area, double* q, const double* r, double gamma, double cfl,
    long long* status, long long n) {
  const long long i = (long long)blockIdx.x * T + threadIdx.x;
  if (i >= n) return;
  const double lambda =
      spectral_radius_sum(node_ptr, node_edge, area, bnode_area, q, gamma, i, status);
  if (!(lambda > 0.0)) return;
  const double f = cfl / lambda;
  for (int c = 0; c < 5; ++c) q[i * 5 + c] -= f * r[i * 5 + c];
}

extern "C" __global__ void __launch_bounds__(T) dj_euler_physical(const double* q, double gamma,
                                                                  long long* status, long long n) {
  const long long i = (long long)blockIdx.x * T + threadIdx.x;
  if (i >= n) return;
  const double* s = q + i * 5;
  const double p = pressure_of(s, gamma);
  if (!(s[0] > 0.0) || !(p > 0.0) || !isfinite(s[0]) || !isfinite(p))
    atomicCAS((unsigned long long*)status, 0ull, (unsigned long long)(i + 1));
}

extern "C" __global__ void __launch_bounds__(T) dj_euler_subtract(double* q, const double* dq,
                                                                  long long n) {
  const long long k = (long long)blockIdx.x * T + threadIdx.x;
  if (k < n) q[k] -= dq[k];
}
)";
}

DevicePseudoTime::DevicePseudoTime(const EdgeMesh& em, double gamma)
    : n_nodes_(em.n_nodes), gamma_(gamma) {
  // Each node's edges in ascending edge order (counting sort by node).
  std::vector<int64_t> ptr(em.n_nodes + 1, 0);
  for (int32_t v : em.edges) ++ptr[v + 1];
  for (int64_t i = 0; i < em.n_nodes; ++i) ptr[i + 1] += ptr[i];
  std::vector<int32_t> edge(em.edges.size());
  std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);
  for (int64_t e = 0; e < em.n_edges(); ++e) {
    edge[next[em.edges[2 * e]]++] = static_cast<int32_t>(e);
    edge[next[em.edges[2 * e + 1]]++] = static_cast<int32_t>(e);
  }
  module_ = std::make_unique<cuda::SourceModule>("dualjit_euler_pseudo_time",
                                                 device_pseudo_time_source());
  node_ptr_ = cuda::DeviceBuffer::from(ptr);
  node_edge_ = cuda::DeviceBuffer::from(edge);
  area_ = cuda::DeviceBuffer::from(em.area);
  bnode_area_ = cuda::DeviceBuffer::from(em.bnode_area);
  status_ = cuda::DeviceBuffer(sizeof(long long));
  // Zero between calls: a kernel sets it on a bad node, check() and physical() reset it.
  status_.fill_bytes(0);
}

DevicePseudoTime::~DevicePseudoTime() = default;

void DevicePseudoTime::check(const char* who) {
  long long bad = 0;
  status_.download(&bad, sizeof bad);
  if (bad == 0) return;
  status_.fill_bytes(0);
  if (bad > n_nodes_) {
    throw std::invalid_argument(std::string(who) + ": node " + std::to_string(bad - 1 - n_nodes_) +
                                " has no diagonal block in the Jacobian");
  }
  throw std::invalid_argument(std::string(who) + ": node " + std::to_string(bad - 1) +
                              " has a density or pressure that is not positive");
}

void DevicePseudoTime::shift_diagonal(const assembly::DeviceBsr& a, const double* q, double cfl) {
  if (a.mb != n_nodes_ || a.block_dim != 5) {
    throw std::invalid_argument("DevicePseudoTime::shift_diagonal: a matrix of " +
                                std::to_string(a.mb) + " block rows of " +
                                std::to_string(a.block_dim) + " for " + std::to_string(n_nodes_) +
                                " nodes of 5");
  }
  shift(a.row_ptr, a.col_idx, a.values, nullptr, q, cfl);
}

void DevicePseudoTime::shift_diagonal(const assembly::DeviceSplitJacobian<double>& a,
                                      const double* q, double cfl) {
  if (a.block_dim != 5 || !a.diag) {
    throw std::invalid_argument("DevicePseudoTime::shift_diagonal: a split matrix of blocks of " +
                                std::to_string(a.block_dim) +
                                (a.diag ? "" : " without diagonal blocks"));
  }
  shift(a.off_row_ptr, a.off_col_idx, nullptr, a.diag, q, cfl);
}

DevicePseudoTime::Args DevicePseudoTime::args() const {
  return {reinterpret_cast<const long long*>(node_ptr_.get()),
          reinterpret_cast<const int*>(node_edge_.get()),
          reinterpret_cast<const double*>(area_.get()),
          reinterpret_cast<const double*>(bnode_area_.get()),
          reinterpret_cast<long long*>(status_.get()),
          n_nodes_,
          gamma_};
}

void DevicePseudoTime::shift(const int* row_ptr, const int* col_idx, double* vals, double* diag,
                             const double* q, double cfl) {
  Args m = args();
  void* a[] = {&m.ptr,   &m.edge,  &m.area, &m.barea, &q,        &m.gamma, &cfl,
               &row_ptr, &col_idx, &vals,   &diag,    &m.status, &m.n};
  cuda::launch(module_->function("dj_euler_shift"),
               cuda::Dim3{unsigned((m.n + kThreads - 1) / kThreads)}, cuda::Dim3{kThreads}, 0, a);
  check("solve_steady");
}

void DevicePseudoTime::explicit_step(double* q, const double* r, double cfl, bool check_now) {
  Args m = args();
  void* a[] = {&m.ptr, &m.edge, &m.area, &m.barea, &q, &r, &m.gamma, &cfl, &m.status, &m.n};
  cuda::launch(module_->function("dj_euler_explicit"),
               cuda::Dim3{unsigned((m.n + kThreads - 1) / kThreads)}, cuda::Dim3{kThreads}, 0, a);
  if (check_now) check("solve_steady_explicit");
}

void DevicePseudoTime::subtract(double* q, const double* dq) {
  long long n = n_nodes_ * 5;
  void* args[] = {&q, &dq, &n};
  cuda::launch(module_->function("dj_euler_subtract"),
               cuda::Dim3{unsigned((n + kThreads - 1) / kThreads)}, cuda::Dim3{kThreads}, 0, args);
}

bool DevicePseudoTime::physical(const double* q) {
  long long* status = reinterpret_cast<long long*>(status_.get());
  long long n = n_nodes_;
  double gamma = gamma_;
  void* args[] = {&q, &gamma, &status, &n};
  cuda::launch(module_->function("dj_euler_physical"),
               cuda::Dim3{unsigned((n + kThreads - 1) / kThreads)}, cuda::Dim3{kThreads}, 0, args);
  long long bad = 0;
  status_.download(&bad, sizeof bad);
  if (bad) status_.fill_bytes(0);
  return bad == 0;
}

}  // namespace dualjit::cfd

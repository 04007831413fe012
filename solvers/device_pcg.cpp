#include "solvers/device_pcg.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "solvers/device_solver_source.h"
#include "solvers/solver_error.h"

namespace dualjit::solvers {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxGrid = 1024;
// Scalars on the device: p.Ap, r.z, r.r and the previous r.z (the kernels' text uses these
// indices).
enum Scalar { kPq = 0, kRz = 1, kRr = 2, kRzOld = 3 };

}  // namespace

std::string device_pcg_source(int B) {
  // One thread per block row everywhere; sums go to per-GPU-block partials, then one block sums
  // those in a fixed order.
  return "constexpr int B = " + std::to_string(B) + ";\n" + device_block_inverse_source() +
         "constexpr int T = 256;\n" + device_block_sum_source() + R"(

__device__ __forceinline__ double free_dof(const double* mask, long long i) {
  return mask ? mask[i] : 1.0;
}

// inv[node] = the inverse of the node's diagonal block with pinned rows and columns made
// identity (Gauss-Jordan, partial pivoting); identity blocks for plain CG. status[0] = 1 + a
// node without a diagonal block or with a singular one.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_jacobi(
    const int* row_ptr, const int* col_idx, const double* vals, const double* mask,
    double* inv, long long* status, long long mb, int identity, double shift) {
  const long long node = (long long)blockIdx.x * T + threadIdx.x;
  if (node >= mb) return;
  if (identity) {
    for (int i = 0; i < B; ++i)
      for (int j = 0; j < B; ++j) inv[node * B * B + i * B + j] = i == j ? 1.0 : 0.0;
    return;
  }
  int s = -1;
  for (int k = row_ptr[node]; k < row_ptr[node + 1]; ++k)
    if (col_idx[k] == node) { s = k; break; }
  if (s < 0) { atomicCAS((unsigned long long*)status, 0ull, (unsigned long long)(node + 1)); return; }
  double a[B][B], m[B][B];
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < B; ++j) {
      const bool pinned = free_dof(mask, node * B + i) == 0.0 || free_dof(mask, node * B + j) == 0.0;
      a[i][j] = pinned ? (i == j ? 1.0 : 0.0)
                       : vals[(long long)s * B * B + i * B + j] + (i == j ? shift : 0.0);
    }
  if (!dj_invert_block(a, m)) {
    atomicCAS((unsigned long long*)status, 0ull, (unsigned long long)(node + 1));
    return;
  }
  for (int i = 0; i < B; ++i)
    for (int j = 0; j < B; ++j) inv[node * B * B + i * B + j] = m[i][j];
}

__device__ __forceinline__ void precondition(const double* inv, const double* mask, const double* r,
                                             double* z, long long node) {
  for (int i = 0; i < B; ++i) {
    double s = 0.0;
    for (int j = 0; j < B; ++j) s += inv[node * B * B + i * B + j] * r[node * B + j];
    z[node * B + i] = s * free_dof(mask, node * B + i);
  }
}

// x = 0, r = mask b, z = M^-1 r, p = z; partials of r.z and r.r.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_start(
    const double* b, const double* mask, const double* inv, double* x, double* r, double* z,
    double* p, double* partial, long long mb) {
  __shared__ double sh[T];
  double rz = 0.0, rr = 0.0;
  for (long long node = (long long)blockIdx.x * T + threadIdx.x; node < mb;
       node += (long long)gridDim.x * T) {
    for (int i = 0; i < B; ++i) {
      const long long k = node * B + i;
      x[k] = 0.0;
      r[k] = b[k] * free_dof(mask, k);
    }
    precondition(inv, mask, r, z, node);
    for (int i = 0; i < B; ++i) {
      const long long k = node * B + i;
      p[k] = z[k];
      rz += r[k] * z[k];
      rr += r[k] * r[k];
    }
  }
  rz = block_sum(rz, sh);
  rr = block_sum(rr, sh);
  if (threadIdx.x == 0) { partial[blockIdx.x] = rz; partial[gridDim.x + blockIdx.x] = rr; }
}

// q = mask ((A + shift I) p); partial of p.q.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_spmv(
    const int* row_ptr, const int* col_idx, const double* vals, const double* mask,
    const double* p, double* q, double* partial, long long mb, double shift) {
  __shared__ double sh[T];
  double pq = 0.0;
  for (long long node = (long long)blockIdx.x * T + threadIdx.x; node < mb;
       node += (long long)gridDim.x * T) {
    double y[B];
    for (int i = 0; i < B; ++i) y[i] = 0.0;
    for (int k = row_ptr[node]; k < row_ptr[node + 1]; ++k) {
      const double* v = vals + (long long)k * B * B;
      const double* pc = p + (long long)col_idx[k] * B;
      double pj[B];
      for (int j = 0; j < B; ++j) pj[j] = pc[j];
      for (int i = 0; i < B; ++i)
        for (int j = 0; j < B; ++j) y[i] += v[i * B + j] * pj[j];
    }
    for (int i = 0; i < B; ++i) {
      const long long k = node * B + i;
      const double yi = (y[i] + shift * p[k]) * free_dof(mask, k);
      q[k] = yi;
      pq += p[k] * yi;
    }
  }
  pq = block_sum(pq, sh);
  if (threadIdx.x == 0) partial[blockIdx.x] = pq;
}

// With alpha = r.z / p.q (nothing when p.q <= 0: the caller stops): x += alpha p,
// r -= alpha q, z = M^-1 r; partials of r.z and r.r.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_update(
    const double* scalars, const double* mask, const double* inv, double* x, double* r,
    double* z, const double* p, const double* q, double* partial, long long mb) {
  __shared__ double sh[T];
  const double pq = scalars[0], rz_prev = scalars[1];
  if (!(pq > 0.0)) return;
  const double alpha = rz_prev / pq;
  double rz = 0.0, rr = 0.0;
  for (long long node = (long long)blockIdx.x * T + threadIdx.x; node < mb;
       node += (long long)gridDim.x * T) {
    for (int i = 0; i < B; ++i) {
      const long long k = node * B + i;
      x[k] += alpha * p[k];
      r[k] -= alpha * q[k];
    }
    precondition(inv, mask, r, z, node);
    for (int i = 0; i < B; ++i) {
      const long long k = node * B + i;
      rz += r[k] * z[k];
      rr += r[k] * r[k];
    }
  }
  rz = block_sum(rz, sh);
  rr = block_sum(rr, sh);
  if (threadIdx.x == 0) { partial[blockIdx.x] = rz; partial[gridDim.x + blockIdx.x] = rr; }
}

// Partial sums of |A_ii|.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_diagonal(
    const int* row_ptr, const int* col_idx, const double* vals, double* partial, long long mb) {
  __shared__ double sh[T];
  double sum = 0.0;
  for (long long node = (long long)blockIdx.x * T + threadIdx.x; node < mb;
       node += (long long)gridDim.x * T) {
    for (int k = row_ptr[node]; k < row_ptr[node + 1]; ++k) {
      if (col_idx[k] != node) continue;
      for (int i = 0; i < B; ++i) sum += fabs(vals[(long long)k * B * B + i * B + i]);
    }
  }
  sum = block_sum(sum, sh);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

// p = z + (r.z / previous r.z) p.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_direction(
    const double* scalars, const double* z, double* p, long long n) {
  const double beta = scalars[1] / scalars[3];
  for (long long k = (long long)blockIdx.x * T + threadIdx.x; k < n; k += (long long)gridDim.x * T)
    p[k] = z[k] + beta * p[k];
}

// One block: scalars[first + s] = the sum of partial[s * groups .. (s + 1) * groups) for each
// of n_sums sums, in a fixed order. rotate: scalars[3] = scalars[1] first (r.z's old value),
// unless p.q <= 0 stopped the update.
extern "C" __global__ void __launch_bounds__(T) dj_pcg_reduce(
    const double* partial, int groups, int n_sums, double* scalars, int first, int rotate) {
  __shared__ double sh[T];
  const bool skip = rotate && !(scalars[0] > 0.0);
  for (int s = 0; s < n_sums; ++s) {
    double v = 0.0;
    for (int g = threadIdx.x; g < groups; g += T) v += partial[s * groups + g];
    v = block_sum(v, sh);
    if (threadIdx.x == 0 && !skip) {
      if (rotate && first + s == 1) scalars[3] = scalars[1];
      scalars[first + s] = v;
    }
  }
}
)";
}

namespace {

template <class T>
T* dptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<T*>(b.get());
}

}  // namespace

DevicePcg::DevicePcg(int64_t n_nodes, int block) : n_nodes_(n_nodes), block_(block) {
  if (n_nodes < 1 || block < 1 || block > 8) {
    throw SolverError("DevicePcg: " + std::to_string(n_nodes) + " nodes of block " +
                      std::to_string(block) + " (block 1..8, at least one node)");
  }
  grid_ = static_cast<int>(std::min<int64_t>((n_nodes + kThreads - 1) / kThreads, kMaxGrid));
  module_ = std::make_unique<cuda::SourceModule>("dualjit_pcg_b" + std::to_string(block),
                                                 device_pcg_source(block));
  const size_t vec = size_t(n_nodes) * block * sizeof(double);
  r_ = cuda::DeviceBuffer(vec);
  z_ = cuda::DeviceBuffer(vec);
  p_ = cuda::DeviceBuffer(vec);
  q_ = cuda::DeviceBuffer(vec);
  inv_ = cuda::DeviceBuffer(vec * block);
  partial_ = cuda::DeviceBuffer(size_t(2) * grid_ * sizeof(double));
  scalars_ = cuda::DeviceBuffer(4 * sizeof(double));
  status_ = cuda::DeviceBuffer(sizeof(long long));
}

DevicePcg::~DevicePcg() = default;

double DevicePcg::mean_abs_diagonal(const assembly::DeviceBsr& a) {
  if (a.mb != n_nodes_ || a.block_dim != block_) {
    throw SolverError("DevicePcg: mean_abs_diagonal of a matrix of " + std::to_string(a.mb) +
                      " block rows of " + std::to_string(a.block_dim));
  }
  long long mb = n_nodes_;
  const int* row_ptr = a.row_ptr;
  const int* col_idx = a.col_idx;
  const double* vals = a.values;
  double* partial = dptr<double>(partial_);
  double* scalars = dptr<double>(scalars_);
  int groups = grid_, one = 1, zero = 0;
  void* diag_args[] = {&row_ptr, &col_idx, &vals, &partial, &mb};
  cuda::launch(module_->function("dj_pcg_diagonal"), cuda::Dim3{unsigned(grid_)},
               cuda::Dim3{kThreads}, 0, diag_args);
  void* reduce_args[] = {&partial, &groups, &one, &scalars, &zero, &zero};
  cuda::launch(module_->function("dj_pcg_reduce"), cuda::Dim3{1}, cuda::Dim3{kThreads}, 0,
               reduce_args);
  double sum = 0;
  scalars_.download(&sum, sizeof sum);
  const double mean = sum / double(n_nodes_ * block_);
  return mean > 0 && std::isfinite(mean) ? mean : 1.0;
}

PcgResult DevicePcg::solve(const assembly::DeviceBsr& a, const double* b, double* x,
                           const double* mask, const PcgOptions& options, double shift) {
  if (a.mb != n_nodes_ || a.nb != n_nodes_ || a.block_dim != block_ ||
      a.symmetry != mesh::Symmetry::General) {
    throw SolverError("DevicePcg: the matrix is " + std::to_string(a.mb) + "x" +
                      std::to_string(a.nb) + " blocks of " + std::to_string(a.block_dim) +
                      (a.symmetry == mesh::Symmetry::General ? "" : ", upper only") +
                      "; expected a General " + std::to_string(n_nodes_) + "x" +
                      std::to_string(n_nodes_) + " of " + std::to_string(block_));
  }
  long long mb = n_nodes_, n = n_nodes_ * block_;  // launch arguments: addressable
  const int* row_ptr = a.row_ptr;
  const int* col_idx = a.col_idx;
  const double* vals = a.values;
  double *r = dptr<double>(r_), *z = dptr<double>(z_), *p = dptr<double>(p_), *q = dptr<double>(q_),
         *inv = dptr<double>(inv_), *partial = dptr<double>(partial_),
         *scalars = dptr<double>(scalars_);
  long long* status = dptr<long long>(status_);
  const auto run = [&](const char* entry, unsigned grid, std::initializer_list<void*> args) {
    std::vector<void*> params(args);
    cuda::launch(module_->function(entry), cuda::Dim3{grid}, cuda::Dim3{kThreads}, 0,
                 params.data());
  };
  const unsigned rows_grid = static_cast<unsigned>((mb + kThreads - 1) / kThreads);
  const unsigned g = static_cast<unsigned>(grid_);
  int groups = grid_, two = 2, one = 1, zero = 0, rot = 1, slot_rz = kRz, slot_pq = kPq;
  status_.fill_bytes(0);
  scalars_.fill_bytes(0);
  int identity = options.block_jacobi ? 0 : 1;
  run("dj_pcg_jacobi", rows_grid,
      {&row_ptr, &col_idx, &vals, &mask, &inv, &status, &mb, &identity, &shift});
  long long bad = 0;
  status_.download(&bad, sizeof bad);
  if (bad) {
    throw SolverError("DevicePcg: node " + std::to_string(bad - 1) +
                      ": diagonal block missing or singular (block-Jacobi)");
  }
  run("dj_pcg_start", g, {&b, &mask, &inv, &x, &r, &z, &p, &partial, &mb});
  run("dj_pcg_reduce", 1, {&partial, &groups, &two, &scalars, &slot_rz, &zero});
  double s[4];
  scalars_.download(s, sizeof s);
  const double rr0 = s[kRr];
  PcgResult out;
  if (!std::isfinite(rr0)) throw SolverError("DevicePcg: non-finite right-hand side");
  if (rr0 == 0.0) {
    out.converged = true;
    return out;
  }
  const double stop = options.relative_tolerance * options.relative_tolerance * rr0;
  for (int it = 1; it <= options.max_iterations; ++it) {
    run("dj_pcg_spmv", g, {&row_ptr, &col_idx, &vals, &mask, &p, &q, &partial, &mb, &shift});
    run("dj_pcg_reduce", 1, {&partial, &groups, &one, &scalars, &slot_pq, &zero});
    run("dj_pcg_update", g, {&scalars, &mask, &inv, &x, &r, &z, &p, &q, &partial, &mb});
    run("dj_pcg_reduce", 1, {&partial, &groups, &two, &scalars, &slot_rz, &rot});
    scalars_.download(s, sizeof s);
    if (!(s[kPq] > 0.0)) {
      out.negative_curvature = true;
      break;
    }
    out.iterations = it;
    if (!std::isfinite(s[kRr])) {
      throw SolverError("DevicePcg: non-finite residual at iteration " + std::to_string(it));
    }
    out.relative_residual = std::sqrt(s[kRr] / rr0);
    if (s[kRr] <= stop) {
      out.converged = true;
      break;
    }
    run("dj_pcg_direction", g, {&scalars, &z, &p, &n});
  }
  return out;
}

}  // namespace dualjit::solvers

#include "solvers/device_bdf_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "solvers/bdf_coefficients.h"
#include "solvers/bdf_step_control.nvrtc.h"
#include "solvers/device_lu_source.h"
#include "solvers/solver_error.h"
#include "solvers/stopwatch.h"

namespace dualjit::embedded {
extern const char peak_tracker_text[];
extern const char bdf_step_control_text[];
}  // namespace dualjit::embedded

namespace dualjit::solvers {
namespace {

constexpr int kWarpsPerBlock = 4;  // systems per block of the warp-per-system kernels
constexpr int kThreads = 256;      // element-wise kernels

template <class T>
T* dptr(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<T*>(b.get());
}

template <size_t L>
std::string table(const char* name, const std::array<double, L>& v) {
  std::ostringstream out;
  out.precision(17);
  out << "__constant__ double " << name << "[" << L << "] = {";
  for (size_t i = 0; i < L; ++i) out << (i ? ", " : "") << v[i];
  out << "};\n";
  return out.str();
}

// dj_bdf_newton's blocks an SM at most (its launch bound). Three with the factors in registers
// (168 registers a thread): the compiler would otherwise take 255 registers for loads it
// hoists, leaving two.
int newton_blocks_per_sm(NewtonFactors factors) {
  return factors == NewtonFactors::registers ? 3 : 1;
}

int round16(int bytes) {
  return (bytes + 15) / 16 * 16;
}

// dj_bdf_newton's shared memory a warp: the factor tile (not where the factors stay in device
// memory), and with the factors in registers two stages (NewtonStage: five vectors, three
// scalars and the permutation of a system).
int newton_factor_bytes(int n) {
  return round16(n * n * static_cast<int>(sizeof(float)));
}
int newton_stage_bytes(int n) {
  return round16(8 * (5 * n + 3) + 4 * n + 16);
}
int newton_warp_bytes(int n, NewtonFactors factors) {
  switch (factors) {
    case NewtonFactors::registers:
      return newton_factor_bytes(n) + 2 * newton_stage_bytes(n);
    case NewtonFactors::shared_memory:
      return newton_factor_bytes(n);
    default:
      return 0;
  }
}
int newton_static_bytes(int n) {
  return kWarpsPerBlock * n * static_cast<int>(sizeof(double));
}

}  // namespace

int bdf_newton_shared_bytes(int n, NewtonFactors factors) {
  return kWarpsPerBlock * newton_warp_bytes(n, factors);
}

NewtonFactors newton_factors_for(int n, int max_shared_per_block) {
  if (n <= 64) return NewtonFactors::registers;
  if (bdf_newton_shared_bytes(n, NewtonFactors::shared_memory) + newton_static_bytes(n) <=
      max_shared_per_block)
    return NewtonFactors::shared_memory;
  return NewtonFactors::device_memory;
}

jit::CompileOptions device_bdf_options() {
  jit::CompileOptions options;
  options.extra = {"-default-device"};  // the step control's text has no __device__
  return options;
}

std::string device_bdf_source(int n, NewtonFactors factors) {
  std::ostringstream head;
  head << embedded::peak_tracker_text << embedded::bdf_step_control_text
       << "using namespace dualjit::solvers::bdf;\n"
       // The host's layout, which the engine's transfers and compaction of controls assume.
       << "static_assert(sizeof(StepControl) == " << sizeof(bdf::StepControl)
       << " && alignof(StepControl) == " << alignof(bdf::StepControl) << ");\n";
  head << "constexpr int N = " << n << ";\nconstexpr int K = " << bdf::kDifferences
       << ";\nconstexpr int QMAX = " << bdf::kMaxOrder
       << ";\nconstexpr int WPB = " << kWarpsPerBlock
       << ";\n"
       // The Newton matrix factored and stored in fp32: a modified Newton iteration only
       // needs an approximate inverse (its Jacobian is already several steps old), the
       // residual it corrects stays fp64, each iteration reads the factors of every iterating
       // system (half the bytes of its largest read), and the factorisation is bound by its
       // shared-memory bytes.
       << "typedef float LuT;\n"
       << "constexpr int DEVICE = 0, SHARED = 1, REGISTERS = 2;\nconstexpr int FACTORS_IN = "
       << static_cast<int>(factors) << ";\n"
       << "constexpr int NEWTON_BLOCKS = " << newton_blocks_per_sm(factors)
       << ";\nconstexpr int NEWTON_FACTOR_BYTES = " << newton_factor_bytes(n)
       << ", NEWTON_STAGE_BYTES = " << newton_stage_bytes(n)
       << ", NEWTON_WARP_BYTES = " << newton_warp_bytes(n, factors) << ";\n";
  head << table("GAMMA", bdf::gamma) << table("ALPHA", bdf::alpha)
       << table("ERROR_CONST", bdf::error_const);
  return head.str() + R"(
#define DJ_NAN __longlong_as_double(0x7ff8000000000000ll)
#define DJ_INF __longlong_as_double(0x7ff0000000000000ll)

__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
)" + device_lu_functions(n) +
         R"(
// D_0 = y, D_1 = h f(y).
extern "C" __global__ void dj_bdf_start(const double* y, const double* f,
                                        const StepControl* control, double* D, long long rows) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < rows;
       e += (long long)gridDim.x * blockDim.x) {
    const long long r = e / N, i = e % N;
    D[(r * K) * N + i] = y[e];
    D[(r * K + 1) * N + i] = control[r].h * f[e];
    for (int j = 2; j < K; ++j) D[(r * K + j) * N + i] = 0.0;
  }
}

// Appends `value` to list (counted in *count) where `take`, with one atomic a warp: every lane of
// the warp calls it.
__device__ void warp_append(int* list, int* count, int value, bool take) {
  const unsigned mask = __ballot_sync(0xffffffffu, take);
  if (mask == 0) return;
  const int lane = threadIdx.x % 32, leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(0xffffffffu, base, leader);
  if (take) list[base + __popc(mask & ((1u << lane) - 1u))] = value;
}

// Every row's next attempt (plan_step): its order, c and rescale; the rows that need a Jacobian
// listed in refresh, those that need an LU in refactor (each ascending within a warp's rows),
// counted in counts[0] and counts[1]. A thread per row.
extern "C" __global__ void dj_bdf_plan(StepControl* control, signed char* order, double* c,
                                       double* rescale, int* refresh, int* refactor, int* counts,
                                       double max_step, long long m) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  StepPlan p;
  if (r < m) {
    StepControl s = control[r];
    p = plan_step(s, max_step, ALPHA);
    control[r] = s;
    order[r] = (signed char)p.order;
    c[r] = p.c;
    rescale[r] = p.rescale;
  }
  warp_append(refresh, counts, (int)r, (p.wants & kWantsJacobian) != 0);
  warp_append(refactor, counts + 1, (int)r, (p.wants & kWantsLu) != 0);
}

// Each row's step concluded (conclude_step) from its attempt; accepted[r] = 1 where the
// differences are to take it, runs[r] = 1 where the system goes on; the rows still running
// counted in *running. err: the three error norms, each m long. A thread per row.
extern "C" __global__ void dj_bdf_conclude(StepControl* control, const unsigned char* converged,
                                           const signed char* iterations, const double* err,
                                           const double* peak, unsigned char* accepted,
                                           unsigned char* runs, int* running, int max_steps,
                                           int track_peak, long long m) {
  const long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  bool goes_on = false;
  if (r < m) {
    StepControl s = control[r];
    StepOutcome o;
    o.converged = converged[r];
    o.iterations = iterations[r];
    o.err = err[r];
    o.err_lower = err[m + r];
    o.err_higher = err[2 * m + r];
    o.peak = peak[r];
    accepted[r] = conclude_step(s, o, max_steps, track_peak != 0);
    control[r] = s;
    goes_on = s.running;
    runs[r] = goes_on;
  }
  const unsigned mask = __ballot_sync(0xffffffffu, goes_on);
  if (threadIdx.x % 32 == 0 && mask != 0) atomicAdd(running, __popc(mask));
}

// Rescales D_0..D_Q by RU (SciPy's change_D) where factor != 1, then the prediction
// y = sum_{j<=Q} D_j, psi = sum_{1<=j<=Q} gamma_j D_j / alpha_Q, d = 0, scale = atol + rtol |y|,
// for one row, by its warp. The order is a template argument so that RU and a column of
// differences live in registers (with a run-time order they go to the stack, and the kernel
// waits on local memory).
template <int Q>
__device__ void predict_row(double* Dr, double factor, double* y, double* psi, double* d,
                            double* scale, int lane, double rtol, double atol) {
  double ru[Q + 1][Q + 1];
  if (factor != 1.0) {
    double R[Q + 1][Q + 1], U[Q + 1][Q + 1];
#pragma unroll
    for (int j = 0; j <= Q; ++j) R[0][j] = U[0][j] = 1.0;
#pragma unroll
    for (int i = 1; i <= Q; ++i) {
      R[i][0] = U[i][0] = 0.0;
#pragma unroll
      for (int j = 1; j <= Q; ++j) {
        R[i][j] = R[i - 1][j] * (i - 1 - factor * j) / i;
        U[i][j] = U[i - 1][j] * (i - 1 - 1.0 * j) / i;
      }
    }
#pragma unroll
    for (int i = 0; i <= Q; ++i)
#pragma unroll
      for (int j = 0; j <= Q; ++j) {
        double s = 0.0;
#pragma unroll
        for (int k = 0; k <= Q; ++k) s += R[i][k] * U[k][j];
        ru[i][j] = s;
      }
  }
#pragma unroll
  for (int t = 0; t < (N + 31) / 32; ++t) {
    const int i = lane + 32 * t;
    if (i >= N) break;
    double v[Q + 1];
#pragma unroll
    for (int j = 0; j <= Q; ++j) v[j] = Dr[j * N + i];
    if (factor != 1.0) {
      double w[Q + 1];
#pragma unroll
      for (int j = 0; j <= Q; ++j) {
        double s = 0.0;
#pragma unroll
        for (int k = 0; k <= Q; ++k) s += ru[k][j] * v[k];
        w[j] = s;
      }
#pragma unroll
      for (int j = 0; j <= Q; ++j) Dr[j * N + i] = v[j] = w[j];
    }
    double pred = 0.0, p = 0.0;
#pragma unroll
    for (int j = 0; j <= Q; ++j) pred += v[j];
#pragma unroll
    for (int j = 1; j <= Q; ++j) p += GAMMA[j] * v[j];
    y[i] = pred;
    psi[i] = p / ALPHA[Q];
    d[i] = 0.0;
    scale[i] = atol + rtol * fabs(pred);
  }
}

static_assert(QMAX == 5, "dj_bdf_predict and dj_bdf_accept dispatch orders 1-5");

// Every row's rescale and prediction (predict_row at its order); the Newton state: iterating
// unless the LU is singular. A warp per system.
extern "C" __global__ void __launch_bounds__(32 * WPB) dj_bdf_predict(
    double* D, const signed char* order, const double* rescale, double* y, double* psi,
    double* d, double* scale, unsigned char* state, double* norm_old, const int* slot,
    const unsigned char* singular, double rtol, double atol, long long m) {
  const int lane = threadIdx.x % 32;
  const long long r = (long long)blockIdx.x * WPB + threadIdx.x / 32;
  if (r >= m) return;
  const double factor = rescale[r];
  double* Dr = D + r * K * N;
  const long long at = r * N;
  switch (order[r]) {
    case 1: predict_row<1>(Dr, factor, y + at, psi + at, d + at, scale + at, lane, rtol, atol); break;
    case 2: predict_row<2>(Dr, factor, y + at, psi + at, d + at, scale + at, lane, rtol, atol); break;
    case 3: predict_row<3>(Dr, factor, y + at, psi + at, d + at, scale + at, lane, rtol, atol); break;
    case 4: predict_row<4>(Dr, factor, y + at, psi + at, d + at, scale + at, lane, rtol, atol); break;
    default: predict_row<5>(Dr, factor, y + at, psi + at, d + at, scale + at, lane, rtol, atol);
  }
  if (lane == 0) {
    state[r] = kNewtonIterating;
    norm_old[r] = -1.0;
  }
}

extern "C" __global__ void dj_bdf_gather_rows(const double* src, double* dst, const int* list,
                                              long long rows) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < rows;
       e += (long long)gridDim.x * blockDim.x)
    dst[e] = src[(long long)list[e / N] * N + e % N];
}

// The Jacobians of the listed rows (jac: one n x n block per list entry) into their slots.
extern "C" __global__ void dj_bdf_scatter_jacobians(const double* jac, double* store,
                                                    const int* list, const int* slot,
                                                    long long entries) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < entries;
       e += (long long)gridDim.x * blockDim.x) {
    const long long k = e / (N * N);
    store[(long long)slot[list[k]] * N * N + e % (N * N)] = jac[e];
  }
}

// The LU factors of I - c J of each listed row (lu_factor) into its slot, and that c in c_lu;
// singular = 1 at a zero pivot. A block per row.
extern "C" __global__ void __launch_bounds__(FT) dj_bdf_factor(
    const double* jac, const int* list, const int* slot, const double* c, LuT* lu, int* perm,
    unsigned char* singular, double* c_lu) {
  const int row = list[blockIdx.x];
  const long long s = slot[row];
  const double* J = jac + s * N * N;
  const double cr = c[row];
  const int bad = lu_factor([&](int i, int j) { return (i == j ? 1.0 : 0.0) - cr * J[i * N + j]; },
                            lu + s * N * N, perm + s * N);
  if (threadIdx.x == 0) singular[s] = bad, c_lu[s] = cr;
}

// Asynchronous copies into shared memory (sm_80 on; plain copies before): 16, 8 or 4 bytes,
// aligned as their size; cp_commit closes the warp's group, cp_wait waits for all of them.
template <int BYTES>
__device__ __forceinline__ void cp_async(void* to, const void* from) {
#if __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(to));
  const size_t g = __cvta_generic_to_global(from);
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(g));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(g), "n"(BYTES));
#else
  if constexpr (BYTES == 16)
    *static_cast<float4*>(to) = *static_cast<const float4*>(from);
  else if constexpr (BYTES == 8)
    *static_cast<double*>(to) = *static_cast<const double*>(from);
  else
    *static_cast<float*>(to) = *static_cast<const float*>(from);
#endif
}

__device__ __forceinline__ void cp_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

__device__ __forceinline__ void cp_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::);
#endif
  __syncwarp();
}

// A system's N x N factors into a warp's tile, 16 bytes a copy where their size allows.
__device__ __forceinline__ void copy_factors(LuT* tile, const LuT* factors, int lane) {
  if constexpr ((N * N) % 4 == 0) {
    constexpr int V = N * N / 4;
#pragma unroll
    for (int k = 0; k < (V + 31) / 32; ++k) {
      const int i = lane + 32 * k;
      if (i < V) cp_async<16>(tile + 4 * i, factors + 4 * i);
    }
  } else {
#pragma unroll 4
    for (int i = lane; i < N * N; i += 32) cp_async<4>(tile + i, factors + i);
  }
}

// What a Newton iteration of one system reads besides its factors, staged in shared memory.
struct NewtonStage {
  double f[N], psi[N], d[N], y[N], scale[N];
  double c, old, c_lu;
  int perm[N];
  // The 4 bytes of `singular` that hold the system's (slot & ~3 on), and its byte's shift.
  unsigned singular_word, singular_shift;
  int row, item;  // the system's row and its place in items
};
static_assert(sizeof(NewtonStage) <= NEWTON_STAGE_BYTES, "the host's stage size");

// The end of one system's iteration, its correction x (the warp's shared x) not yet scaled by
// `correction`: the scaled norm, SciPy's test (newton_verdict), y := y_old + dy and
// d := d_old + dy unless diverging, the state, and the row listed in still[] (counted in left,
// its place in still_row[r]) when it iterates on.
__device__ void newton_conclude(const double* x, double correction, const double* scale,
                                const double* y_old, const double* d_old, double* y_r, double* d_r,
                                double old, int r, int it, double tol, unsigned char* state,
                                double* norm_old, int* left, int* still, int* still_row,
                                int lane) {
  constexpr int T = (N + 31) / 32;
  double sum = 0.0, dx[T];
#pragma unroll
  for (int t = 0; t < T; ++t) {
    const int i = lane + 32 * t;
    dx[t] = i < N ? correction * x[i] : 0.0;
    const double v = i < N ? dx[t] / scale[i] : 0.0;
    sum += v * v;
  }
  const double norm = sqrt(warp_sum(sum) / N);
  const unsigned char verdict = newton_verdict(norm, old, it, tol);
  if (verdict == kNewtonIterating || verdict == 1)
#pragma unroll
    for (int t = 0; t < T; ++t) {
      const int i = lane + 32 * t;
      if (i >= N) continue;
      y_r[i] = y_old[i] + dx[t];
      d_r[i] = d_old[i] + dx[t];
    }
  if (lane == 0) {
    state[r] = verdict;
    norm_old[r] = norm;
    if (verdict == kNewtonIterating) {
      const int at = atomicAdd(left, 1);
      still[at] = r;
      still_row[r] = at;
    }
  }
}

// Newton iteration `it` of the rows items[0..count) (rows 0..count-1 where items is null), all
// iterating: dy = (I - c J)^-1 (c f - psi - d) with the LU of I - c_lu J, times 2 / (1 + c / c_lu)
// where c_lu != c (bdf::lu_correction_scale), the scaled norm, SciPy's convergence test, y += dy
// and d += dy unless diverging (newton_conclude). A warp per system at a time. f holds row r's f
// at row f_row[r] (at r when f_row is null). The rows still iterating are counted in `left` and
// listed in still[] (in no particular order), still_row[r] their place.
//
// With the factors in registers (N <= 64) each warp of the grid's W takes items g, g + W, ...
// The solve's 2N column steps are a dependent chain of shuffles, and a warp that loaded what a
// system needs only when it came to it waited on several memory latencies a system with no
// bytes in flight, at half the bandwidth. So everything the next system reads (its factors into
// the warp's factor tile, its vectors and scalars into the other of two stages) is copied
// asynchronously while the warp solves the current one, and the indices of the system after
// that are loaded meanwhile: a warp waits on memory only when the copies are slower than its
// solves. Otherwise (larger systems) a warp takes one system, its factors in the warp's tile of
// shared memory (SHARED) or read from device memory (DEVICE).
extern "C" __global__ void __launch_bounds__(32 * WPB, NEWTON_BLOCKS) dj_bdf_newton(
    const double* f, const LuT* lu, const int* perm, const unsigned char* singular,
    const double* c_lu, const int* slot, const double* c, const double* psi, double* d, double* y,
    const double* scale, unsigned char* state, double* norm_old, signed char* iterations,
    double* peak, int it, double tol, int peak_component, const int* f_row, const int* items,
    int count, int* left, int* still, int* still_row) {
  constexpr int T = (N + 31) / 32;
  __shared__ double xs[WPB][N];
  extern __shared__ __align__(16) unsigned char newton_tiles[];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k = blockIdx.x * WPB + w;
  if (k >= count) return;
  unsigned char* mine = newton_tiles + w * NEWTON_WARP_BYTES;
  LuT* tile = reinterpret_cast<LuT*>(mine);
  double* x = xs[w];
  const int r = items ? items[k] : k, s = slot[r];
  if constexpr (FACTORS_IN == REGISTERS) {
    auto stage_at = [&](int b) {
      return reinterpret_cast<NewtonStage*>(mine + NEWTON_FACTOR_BYTES + b * NEWTON_STAGE_BYTES);
    };
    const int stride = gridDim.x * WPB;
    // Everything a system (its row, slot and f row) reads, into `st` and the factor tile.
    auto stage = [&](NewtonStage* st, int at_item, int row, int sl, int fr) {
      copy_factors(tile, lu + (long long)sl * N * N, lane);
      const long long at = (long long)row * N;
      for (int i = lane; i < N; i += 32) {
        cp_async<8>(st->f + i, f + (long long)fr * N + i);
        cp_async<8>(st->psi + i, psi + at + i);
        cp_async<8>(st->d + i, d + at + i);
        cp_async<8>(st->y + i, y + at + i);
        cp_async<8>(st->scale + i, scale + at + i);
        cp_async<4>(st->perm + i, perm + (long long)sl * N + i);
      }
      if (lane == 0) cp_async<8>(&st->c, c + row);
      if (lane == 1) cp_async<8>(&st->old, norm_old + row);
      if (lane == 2) cp_async<8>(&st->c_lu, c_lu + sl);
      if (lane == 3) cp_async<4>(&st->singular_word, singular + (sl & ~3));
      if (lane == 4) st->singular_shift = 8 * (sl & 3), st->row = row, st->item = at_item;
      cp_commit();
    };
    auto item = [&](int j) { return j < count ? (items ? items[j] : j) : -1; };
    stage(stage_at(0), k, r, s, f_row ? f_row[r] : r);
    // (held in registers: the next system's indices; the current one's place comes from its
    // stage, as its row does)
    int next = item(k + stride), next_slot = next >= 0 ? slot[next] : 0;
    int next_fr = next >= 0 && f_row ? f_row[next] : next;
    for (int buffer = 0;; buffer ^= 1) {
      const NewtonStage* st = stage_at(buffer);
      cp_wait();
      // (a one-element array in the modules that hold the factors elsewhere)
      LuT rows[FACTORS_IN == REGISTERS ? T : 1][FACTORS_IN == REGISTERS ? N : 1];
      lu_load_rows(tile, lane, rows);
      const bool is_singular = (st->singular_word >> st->singular_shift) & 0xffu;
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int i = lane + 32 * t;
        if (i < N) x[i] = st->c * st->f[i] - st->psi[i] - st->d[i];
      }
      __syncwarp();  // the factor tile read: the next system's may come in
      const bool last = next < 0;
      if (!last) stage(stage_at(buffer ^ 1), st->item + stride, next, next_slot, next_fr);
      const int after = last ? -1 : item(st->item + 2 * stride);
      if (is_singular) {
        if (lane == 0) state[st->row] = 3;
      } else {
        if (lane == 0) {
          iterations[st->row] = it + 1;
          if (peak_component >= 0) peak[st->row] = st->f[peak_component];
        }
        lu_solve_rows(rows, st->perm, x, lane);
        // (the row and c's from the stage: held through the solve in registers, they spill)
        const int r = st->row;
        const long long at = (long long)r * N;
        const double cr = st->c, cl = st->c_lu;
        newton_conclude(x, cr == cl ? 1.0 : 2.0 / (1.0 + cr / cl), st->scale, st->y, st->d,
                        y + at, d + at, st->old, r, it, tol, state, norm_old, left, still,
                        still_row, lane);
      }
      if (last) break;
      // (after the solve: holding them through it would spill)
      const int after_slot = after >= 0 ? slot[after] : 0;
      const int after_fr = after >= 0 && f_row ? f_row[after] : after;
      __syncwarp();  // x and this stage read before they are written again
      next = after, next_slot = after_slot, next_fr = after_fr;
    }
  } else {
    const long long fr = f_row ? f_row[r] : r, at = (long long)r * N;
    const double cr = c[r], old = norm_old[r];
    const LuT* factors = lu + (long long)s * N * N;
    if constexpr (FACTORS_IN == SHARED) {
      copy_factors(tile, factors, lane);
      cp_commit();
    }
    const bool is_singular = singular[s];
    const double cl = c_lu[s];
#pragma unroll
    for (int t = 0; t < T; ++t) {
      const int i = lane + 32 * t;
      if (i < N) x[i] = cr * f[fr * N + i] - psi[at + i] - d[at + i];
    }
    if constexpr (FACTORS_IN == SHARED) {
      cp_wait();
      factors = tile;
    }
    if (is_singular) {
      if (lane == 0) state[r] = 3;
      return;
    }
    if (lane == 0) {
      iterations[r] = it + 1;
      if (peak_component >= 0) peak[r] = f[fr * N + peak_component];
    }
    __syncwarp();
    lu_solve_warp(factors, perm + (long long)s * N, x, lane);
    newton_conclude(x, cr == cl ? 1.0 : 2.0 / (1.0 + cr / cl), scale + at, y + at, d + at, y + at,
                    d + at, old, r, it, tol, state, norm_old, left, still, still_row, lane);
  }
}

// converged = the Newton state (0 when still iterating); for converged rows the error norms of
// orders q, q - 1 and q + 1 with scale atol + rtol |y_new| (NaN when y_new is not finite).
extern "C" __global__ void __launch_bounds__(32 * WPB) dj_bdf_error(
    const double* D, const double* d, const double* y, const signed char* order,
    const unsigned char* state, unsigned char* converged, double* err, double* err_lower,
    double* err_higher, double rtol, double atol, long long m) {
  const int lane = threadIdx.x % 32;
  const long long r = (long long)blockIdx.x * WPB + threadIdx.x / 32;
  if (r >= m) return;
  const unsigned char st = state[r] == kNewtonIterating ? 0 : state[r];
  if (lane == 0) converged[r] = st;
  if (st != 1) return;
  const int q = order[r];
  const double* Dr = D + r * K * N;
  double e = 0.0, lower = 0.0, higher = 0.0;
  bool finite = true;
  for (int i = lane; i < N; i += 32) {
    const long long at = r * N + i;
    const double s = atol + rtol * fabs(y[at]), di = d[at];
    e += (di / s) * (di / s);
    if (q > 1) {
      const double v = (Dr[q * N + i] + di) / s;
      lower += v * v;
    }
    if (q < QMAX) {
      const double v = (di - Dr[(q + 1) * N + i]) / s;
      higher += v * v;
    }
    finite = finite && isfinite(y[at]);
  }
  e = warp_sum(e), lower = warp_sum(lower), higher = warp_sum(higher);
  finite = __all_sync(0xffffffffu, finite);
  if (lane == 0) {
    err[r] = finite ? ERROR_CONST[q] * sqrt(e / N) : DJ_NAN;
    err_lower[r] = q > 1 ? ERROR_CONST[q - 1] * sqrt(lower / N) : DJ_INF;
    err_higher[r] = q < QMAX ? ERROR_CONST[q + 1] * sqrt(higher / N) : DJ_INF;
  }
}

// One component's differences after an accepted step of order Q: D_{Q+2} = d - D_{Q+1},
// D_{Q+1} = d, D_j += D_{j+1} for j = Q..0; every load issued before the first store.
template <int Q>
__device__ void accept_component(double* Dr, double di) {
  double v[Q + 2];
#pragma unroll
  for (int j = 0; j <= Q + 1; ++j) v[j] = Dr[j * N];
  Dr[(Q + 2) * N] = di - v[Q + 1];
  v[Q + 1] = di;
  Dr[(Q + 1) * N] = di;
#pragma unroll
  for (int j = Q; j >= 0; --j) Dr[j * N] = v[j] += v[j + 1];
}

// The accepted rows' differences (accept_component at each row's order).
extern "C" __global__ void dj_bdf_accept(double* D, const double* d, const signed char* order,
                                         const unsigned char* accepted, long long rows) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < rows;
       e += (long long)gridDim.x * blockDim.x) {
    const long long r = e / N, i = e % N;
    if (!accepted[r]) continue;
    double* Dr = D + r * K * N + i;
    const double di = d[e];
    switch (order[r]) {
      case 1: accept_component<1>(Dr, di); break;
      case 2: accept_component<2>(Dr, di); break;
      case 3: accept_component<3>(Dr, di); break;
      case 4: accept_component<4>(Dr, di); break;
      default: accept_component<5>(Dr, di);
    }
  }
}

// dst row r = src row keep[r], rows of `width` doubles.
extern "C" __global__ void dj_bdf_gather(const double* src, double* dst, const int* keep,
                                         int width, long long entries) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < entries;
       e += (long long)gridDim.x * blockDim.x)
    dst[e] = src[(long long)keep[e / width] * width + e % width];
}

extern "C" __global__ void dj_bdf_gather_int(const int* src, int* dst, const int* keep, long long m) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m;
       r += (long long)gridDim.x * blockDim.x)
    dst[r] = src[keep[r]];
}

// y row k = D_0 of row list[k].
extern "C" __global__ void dj_bdf_solution(const double* D, const int* list, double* y,
                                           long long rows) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < rows;
       e += (long long)gridDim.x * blockDim.x)
    y[e] = D[(long long)list[e / N] * K * N + e % N];
}
)";
}

namespace {

class DeviceBdfEngine final : public BdfEngine {
 public:
  DeviceBdfEngine(StiffSystem& system, const StiffOptions& options, int64_t capacity)
      : system_(system), options_(options), n_(system.size()) {
    const int n = n_;
    const cuda::DeviceInfo& device = cuda::Context::primary().device();
    const NewtonFactors factors = newton_factors_for(n, device.max_shared_per_block_optin);
    newton_shared_ = bdf_newton_shared_bytes(n, factors);
    module_ =
        compile_lu_module("bdf_n" + std::to_string(n), device_bdf_source(n, factors), n,
                          sizeof(float), "dj_bdf_factor", &factor_shared_, device_bdf_options());
    const int newton_static = newton_static_bytes(n);
    if (newton_shared_ + newton_static > 48 * 1024)
      cuda::set_max_dynamic_shared(module_->function("dj_bdf_newton"), newton_shared_);
    if (factors == NewtonFactors::registers) {
      // Each warp takes several systems: the grid is what the SMs hold at once (registers and
      // shared memory, 1 KB of which the SM reserves a block).
      cuda::prefer_shared_memory(module_->function("dj_bdf_newton"));
      const int fit = device.shared_per_multiprocessor / (newton_shared_ + newton_static + 1024);
      newton_max_blocks_ =
          device.multiprocessors * std::clamp(fit, 1, newton_blocks_per_sm(factors));
    }
    const auto cap = static_cast<size_t>(capacity);
    const size_t rows = cap * n * sizeof(double);
    diff_ = cuda::DeviceBuffer(rows * bdf::kDifferences);
    diff_spare_ = cuda::DeviceBuffer(rows * bdf::kDifferences);
    y_ = cuda::DeviceBuffer(rows);
    d_ = cuda::DeviceBuffer(rows);
    psi_ = cuda::DeviceBuffer(rows);
    scale_ = cuda::DeviceBuffer(rows);
    gathered_ = cuda::DeviceBuffer(rows);
    jac_ = cuda::DeviceBuffer(rows * n);
    lu_ = cuda::DeviceBuffer(cap * n * n * sizeof(float));
    perm_ = cuda::DeviceBuffer(cap * n * sizeof(int));
    singular_ = cuda::DeviceBuffer((cap + 3) / 4 * 4);  // read by dj_bdf_newton in words
    singular_.fill_bytes(0);
    c_lu_ = cuda::DeviceBuffer(cap * sizeof(double));
    slot_ = cuda::DeviceBuffer(cap * sizeof(int));
    slot_spare_ = cuda::DeviceBuffer(cap * sizeof(int));
    state_ = cuda::DeviceBuffer(cap);
    norm_old_ = cuda::DeviceBuffer(cap * sizeof(double));
    order_ = cuda::DeviceBuffer(cap);
    c_ = cuda::DeviceBuffer(cap * sizeof(double));
    rescale_ = cuda::DeviceBuffer(cap * sizeof(double));
    list_ = cuda::DeviceBuffer(cap * sizeof(int));
    refresh_ = cuda::DeviceBuffer(cap * sizeof(int));
    refactor_ = cuda::DeviceBuffer(cap * sizeof(int));
    counts_ = cuda::DeviceBuffer(3 * sizeof(int));
    control_ = cuda::DeviceBuffer(cap * sizeof(bdf::StepControl));
    control_spare_ = cuda::DeviceBuffer(cap * sizeof(bdf::StepControl));
    converged_ = cuda::DeviceBuffer(cap);
    iterations_ = cuda::DeviceBuffer(cap);
    err_ = cuda::DeviceBuffer(3 * cap * sizeof(double));
    peak_ = cuda::DeviceBuffer(cap * sizeof(double));
    accepted_ = cuda::DeviceBuffer(cap);
    runs_ = cuda::DeviceBuffer(cap);
    left_ = cuda::DeviceBuffer(sizeof(int));
    still_ = cuda::DeviceBuffer(cap * sizeof(int));
    still_spare_ = cuda::DeviceBuffer(cap * sizeof(int));
    still_row_ = cuda::DeviceBuffer(cap * sizeof(int));
    newton_tol_ = bdf::newton_tolerance(options.rtol);
    capacity_ = capacity;
    jacobian_rows_ = std::max<int64_t>(1, (capacity + 7) / 8);
  }

  void start(std::span<const double> y, std::span<const bdf::StepControl> control) override {
    long long m = static_cast<long long>(y.size()) / n_, rows = m * n_;
    m_ = m;
    cuda::Context& ctx = cuda::Context::primary();
    Stopwatch st;
    gathered_.upload(y.data(), y.size_bytes());
    control_.upload(control.data(), control.size_bytes());
    double* yd = dptr<double>(gathered_);
    const double* f = system_.rhs(m, yd);
    times_.rhs_rows += m;
    {
      auto* ctl = dptr<bdf::StepControl>(control_);
      double* D = dptr<double>(diff_);
      void* args[] = {&yd, &f, &ctl, &D, &rows};
      launch("dj_bdf_start", grid(rows), kThreads, 0, args);
    }
    std::vector<int> slots(static_cast<size_t>(m));
    for (long long r = 0; r < m; ++r) slots[r] = static_cast<int>(r);
    slot_.upload(slots.data(), slots.size() * sizeof(int));
    ctx.synchronize();
    times_.stages += st.seconds();
    Stopwatch jw;
    for (long long first = 0; first < m; first += jacobian_rows_) {
      const long long rows_now = std::min<long long>(jacobian_rows_, m - first);
      const double* jac = system_.jacobian(rows_now, yd + first * n_);
      cuda::copy_on_device(dptr<double>(jac_) + first * n_ * n_, jac,
                           static_cast<size_t>(rows_now) * n_ * n_ * sizeof(double));
    }
    ctx.synchronize();
    times_.jacobian += jw.seconds();
  }

  // The flags dj_bdf_conclude wrote at the last attempt (integrate_bdf asks right after one).
  void running(std::span<uint8_t> running) override {
    runs_.download(running.data(), static_cast<size_t>(m_));
  }

  void store(std::span<const int32_t> rows, std::span<double> y,
             std::span<bdf::StepControl> control) override {
    if (rows.empty()) return;
    list_.upload(rows.data(), rows.size_bytes());
    int* list = dptr<int>(list_);
    {
      long long entries = static_cast<long long>(rows.size()) * n_;
      double *D = dptr<double>(diff_), *out = dptr<double>(gathered_);
      void* args[] = {&D, &list, &out, &entries};
      launch("dj_bdf_solution", grid(entries), kThreads, 0, args);
    }
    {
      double *src = dptr<double>(control_), *dst = dptr<double>(control_spare_);
      int width = sizeof(bdf::StepControl) / sizeof(double);
      long long entries = static_cast<long long>(rows.size()) * width;
      void* args[] = {&src, &dst, &list, &width, &entries};
      launch("dj_bdf_gather", grid(entries), kThreads, 0, args);
    }
    gathered_.download(y.data(), y.size_bytes());
    control_spare_.download(control.data(), control.size_bytes());
  }

  BdfRound plan() override {
    long long m = m_;
    Stopwatch sc;
    counts_.fill_bytes(0);
    auto* ctl = dptr<bdf::StepControl>(control_);
    auto* order = dptr<signed char>(order_);
    double *c = dptr<double>(c_), *rescale = dptr<double>(rescale_), max_step = options_.max_step;
    int *refresh = dptr<int>(refresh_), *refactor = dptr<int>(refactor_),
        *counts = dptr<int>(counts_);
    void* args[] = {&ctl, &order, &c, &rescale, &refresh, &refactor, &counts, &max_step, &m};
    launch("dj_bdf_plan", grid(m), kThreads, 0, args);
    int host_counts[2];
    counts_.download(host_counts, sizeof(host_counts));
    round_ = {host_counts[0], host_counts[1]};
    times_.control += sc.seconds();
    return round_;
  }

  int64_t attempt() override {
    long long m = m_, rows = m_ * n_;
    cuda::Context& ctx = cuda::Context::primary();
    double *D = dptr<double>(diff_), *y = dptr<double>(y_), *d = dptr<double>(d_),
           *psi = dptr<double>(psi_), *scale = dptr<double>(scale_), *c = dptr<double>(c_),
           *rescale = dptr<double>(rescale_), *norm_old = dptr<double>(norm_old_),
           *jac = dptr<double>(jac_), *peak = dptr<double>(peak_), *c_lu = dptr<double>(c_lu_);
    double *err = dptr<double>(err_), *err_lower = err + m, *err_higher = err + 2 * m;
    float* lu = dptr<float>(lu_);
    int *perm = dptr<int>(perm_), *slot = dptr<int>(slot_), *left = dptr<int>(left_);
    auto *order = dptr<signed char>(order_), *iterations = dptr<signed char>(iterations_);
    auto *state = dptr<unsigned char>(state_), *singular = dptr<unsigned char>(singular_),
         *converged = dptr<unsigned char>(converged_);
    double rtol = options_.rtol, atol = options_.atol, tol = newton_tol_;
    const cuda::Dim3 warps{unsigned((m + kWarpsPerBlock - 1) / kWarpsPerBlock)};

    Stopwatch st;
    iterations_.fill_bytes(0);
    {
      void* args[] = {&D,     &order,    &rescale, &y,        &psi,  &d,    &scale,
                      &state, &norm_old, &slot,    &singular, &rtol, &atol, &m};
      launch("dj_bdf_predict", warps, 32 * kWarpsPerBlock, 0, args);
    }
    ctx.synchronize();
    times_.stages += st.seconds();

    Stopwatch jw;
    if (round_.refreshed > 0) {
      double* g = dptr<double>(gathered_);
      const long long fresh = round_.refreshed;
      for (long long first = 0; first < fresh; first += jacobian_rows_) {
        long long rows_now = std::min<long long>(jacobian_rows_, fresh - first);
        int* part = dptr<int>(refresh_) + first;
        long long part_rows = rows_now * n_;
        {
          void* args[] = {&y, &g, &part, &part_rows};
          launch("dj_bdf_gather_rows", grid(part_rows), kThreads, 0, args);
        }
        const double* fj = system_.jacobian(rows_now, g);
        long long entries = part_rows * n_;
        void* args[] = {&fj, &jac, &part, &slot, &entries};
        launch("dj_bdf_scatter_jacobians", grid(entries), kThreads, 0, args);
      }
      ctx.synchronize();
    }
    times_.jacobian += jw.seconds();

    Stopwatch fw;
    if (round_.refactored > 0) {
      int* refactor = dptr<int>(refactor_);
      void* args[] = {&jac, &refactor, &slot, &c, &lu, &perm, &singular, &c_lu};
      launch("dj_bdf_factor", cuda::Dim3{unsigned(round_.refactored)}, lu_factor_threads(n_),
             factor_shared_, args);
      ctx.synchronize();
    }
    times_.factor += fw.seconds();

    Stopwatch nw;
    int pc = options_.peak_component;
    // Sweep it works on the rows sweep it - 1 listed as still iterating (all rows at first)
    // and lists those still iterating after it in the other list.
    int* lists[2] = {dptr<int>(still_), dptr<int>(still_spare_)};
    int* still_row = dptr<int>(still_row_);
    int still_now = static_cast<int>(m);
    for (int it = 0; it < bdf::kNewtonIterations; ++it) {
      int* items = it == 0 ? nullptr : lists[(it + 1) % 2];
      int* still = lists[it % 2];
      // Once fewer than half the rows iterate, f only at theirs (gathered): most rows converge
      // in one or two iterations, and f is most of an iteration's cost.
      const double* f;
      const int* f_row = nullptr;
      rhs_begin_.record();
      if (2LL * still_now > m) {
        f = system_.rhs(m, y);
        times_.rhs_rows += m;
      } else {
        double* g = dptr<double>(gathered_);
        long long rows_now = static_cast<long long>(still_now) * n_;
        void* gargs[] = {&y, &g, &items, &rows_now};
        launch("dj_bdf_gather_rows", grid(rows_now), kThreads, 0, gargs);
        f = system_.rhs(still_now, g);
        times_.rhs_rows += still_now;
        f_row = still_row;
      }
      rhs_end_.record();
      times_.newton_sweeps += 1;
      times_.newton_rows += still_now;
      left_.fill_bytes(0);
      int count = still_now;
      void* args[] = {&f,   &lu, &perm,  &singular, &c_lu,     &slot,       &c,     &psi,
                      &d,   &y,  &scale, &state,    &norm_old, &iterations, &peak,  &it,
                      &tol, &pc, &f_row, &items,    &count,    &left,       &still, &still_row};
      long long blocks = (count + kWarpsPerBlock - 1) / kWarpsPerBlock;
      if (newton_max_blocks_ > 0) blocks = std::min<long long>(blocks, newton_max_blocks_);
      launch("dj_bdf_newton", cuda::Dim3{unsigned(blocks)}, 32 * kWarpsPerBlock, newton_shared_,
             args);
      newton_end_.record();
      left_.download(&still_now, sizeof(int));
      times_.rhs += 1e-3 * cuda::Event::elapsed_ms(rhs_begin_, rhs_end_);
      times_.newton += 1e-3 * cuda::Event::elapsed_ms(rhs_end_, newton_end_);
      if (still_now == 0) break;
    }
    {
      void* args[] = {&D,   &d,         &y,          &order, &state, &converged,
                      &err, &err_lower, &err_higher, &rtol,  &atol,  &m};
      launch("dj_bdf_error", warps, 32 * kWarpsPerBlock, 0, args);
    }
    ctx.synchronize();
    times_.stages += nw.seconds();

    Stopwatch sc;
    auto* acc = dptr<unsigned char>(accepted_);
    {
      auto* ctl = dptr<bdf::StepControl>(control_);
      auto* runs = dptr<unsigned char>(runs_);
      int max_steps = options_.max_steps, track_peak = pc >= 0, *running = dptr<int>(counts_) + 2;
      void* args[] = {&ctl,  &converged, &iterations, &err,        &peak, &acc,
                      &runs, &running,   &max_steps,  &track_peak, &m};
      launch("dj_bdf_conclude", grid(m), kThreads, 0, args);
    }
    // (the running count comes back after the accept, with the one synchronisation)
    times_.control += sc.seconds();

    Stopwatch aw;
    {
      void* args[] = {&D, &d, &order, &acc, &rows};
      launch("dj_bdf_accept", grid(rows), kThreads, 0, args);
    }
    int running = 0;
    counts_.download(&running, sizeof(int), 2 * sizeof(int));
    times_.stages += aw.seconds();
    return running;
  }

  void compact(std::span<const int32_t> keep) override {
    long long m = static_cast<long long>(keep.size());
    list_.upload(keep.data(), keep.size_bytes());
    int* kp = dptr<int>(list_);
    {
      double *src = dptr<double>(diff_), *dst = dptr<double>(diff_spare_);
      int width = bdf::kDifferences * n_;
      long long entries = m * width;
      void* args[] = {&src, &dst, &kp, &width, &entries};
      launch("dj_bdf_gather", grid(entries), kThreads, 0, args);
      std::swap(diff_, diff_spare_);
    }
    {
      int *src = dptr<int>(slot_), *dst = dptr<int>(slot_spare_);
      void* args[] = {&src, &dst, &kp, &m};
      launch("dj_bdf_gather_int", grid(m), kThreads, 0, args);
      std::swap(slot_, slot_spare_);
    }
    {
      double *src = dptr<double>(control_), *dst = dptr<double>(control_spare_);
      int width = sizeof(bdf::StepControl) / sizeof(double);
      long long entries = m * width;
      void* args[] = {&src, &dst, &kp, &width, &entries};
      launch("dj_bdf_gather", grid(entries), kThreads, 0, args);
      std::swap(control_, control_spare_);
    }
    m_ = m;
  }

  BdfTimes times() const override { return times_; }

 private:
  static cuda::Dim3 grid(long long items) {
    return cuda::Dim3{unsigned(std::clamp<long long>((items + kThreads - 1) / kThreads, 1, 65535))};
  }

  void launch(const char* kernel, cuda::Dim3 grid, unsigned threads, int shared, void** args) {
    cuda::launch(module_->function(kernel), grid, cuda::Dim3{threads}, shared, args);
  }

  StiffSystem& system_;
  StiffOptions options_;
  int n_;
  int64_t m_ = 0, capacity_ = 0;
  // Rows per system Jacobian call: the system's own Jacobian buffer then needs an eighth of
  // the batch, not all of it (1e6 GRI-3.0 reactors: 2.9 GB instead of 23).
  int64_t jacobian_rows_ = 1;
  int factor_shared_ = 0;
  int newton_shared_ = 0;      // dj_bdf_newton's dynamic shared bytes (its tiles)
  int newton_max_blocks_ = 0;  // dj_bdf_newton's grid at most (0: a warp per system)
  double newton_tol_ = 0;
  std::unique_ptr<cuda::SourceModule> module_;
  BdfRound round_;  // the last plan's counts
  // Per row: the step controls (and their compaction's target), the plan's lists and counts.
  cuda::DeviceBuffer control_, control_spare_, refresh_, refactor_, counts_;
  cuda::DeviceBuffer diff_, diff_spare_, y_, d_, psi_, scale_, gathered_, jac_, lu_, c_lu_, perm_,
      singular_, slot_, slot_spare_, state_, norm_old_, order_, c_, rescale_, list_, converged_,
      iterations_, err_, peak_, accepted_, runs_, left_, still_, still_spare_, still_row_;
  cuda::Event rhs_begin_, rhs_end_, newton_end_;  // one Newton iteration's f and solves
  BdfTimes times_;
};

}  // namespace

std::unique_ptr<BdfEngine> make_device_bdf_engine(StiffSystem& system, const StiffOptions& options,
                                                  int64_t capacity) {
  return std::make_unique<DeviceBdfEngine>(system, options, capacity);
}

}  // namespace dualjit::solvers

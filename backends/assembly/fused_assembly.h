// The residual and FUN3D-style Jacobian of a Problem's vector terms assembled in place by one
// of the strategies of backends/assembly/strategies/, on the host (CPU backend) or on the GPU.
// Internal to assembly::Assembler (assembler.h), which is the way to use them.
#pragma once

#include <memory>
#include <string>

#include "backends/assembly/off_element_order.h"
#include "backends/assembly/problem.h"
#include "backends/assembly/strategies/strategies.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/cuda_kernel.h"

namespace dualjit::assembly {

// How Aoff's blocks are stored: by rows over the off-diagonal pattern (block CSR, Problem::
// off_pattern), or element by element (edge-based storage, off_element_order.h).
enum class OffOrder { rows, elements };

struct FusedOptions {
  // A strategy of backends/assembly/strategies/strategies.h. The default, staged-scatter, is
  // the fastest on the Roe FUN3D assembly on an H100 (bench/RESULTS.md). On the host a CUDA-only
  // strategy runs its host form (FusedStrategy::host_form: the unstaged one).
  std::string strategy = "staged-scatter";
  bool jacobian = true;  // false: residual only
  int width = 0;         // W; 0: the strategy's default (FusedStrategy::default_width)
  jit::LaunchLayout layout = {1, 64};
  // staged-scatter: sum runs of elements that share vertex 0 before the atomics (measured
  // slower on the Roe FUN3D assembly: bench/RESULTS.md; a tuning candidate).
  bool pre_reduce = false;
  // Jacobian derivative arithmetic in fp32 with the primal (and so the residual) in fp64
  // (jit/emit_element.h): Adiag and Aoff accurate to about 1e-6 relative instead of 1e-15.
  // Halves the registers of the tangents; never switched on by the tuner.
  bool single_tangents = false;
  // NVRTC effort for these kernels (jit/lowering.h); the Assembler sets it from its own.
  jit::CompileEffort compile_effort = jit::CompileEffort::Auto;
  // Aoff's storage. The Assembler takes it per call (run_jacobian_split, jacobian_split) and
  // ignores this one. The kernels are the same but for the slots they read.
  OffOrder off_order = OffOrder::rows;
};

// Whether every off-diagonal slot of p's vector terms receives exactly one element block
// (counted over all terms): then staged kernels store Aoff instead of adding, and Aoff needs
// no zeroing.
bool off_blocks_single_writer(Problem& p);

// The strategy and lowered kernel of each of p's vector terms, in term order, exactly as the
// GPU path (DeviceFusedAssembly) or the host path (HostFusedAssembly) builds them under `o`: the
// one place that picks the host form and gives each strategy the facts it decides from (every
// off slot has one writer; the term is the first), so that cache warming and emitting produce
// the kernels a run loads. Throws std::invalid_argument naming the strategy when it does not
// suit the problem.
struct FusedKernel {
  std::shared_ptr<const FusedStrategy> strategy;
  jit::LoweredKernel lowered;
};
std::vector<FusedKernel> fused_kernels(Problem& p, const FusedOptions& o, bool off_single,
                                       bool gpu);

// Host: the kernels are compiled (or loaded) and the structure built once, so repeated
// assemblies (Newton steps, autotuning) pay for the assembly alone. run() adds into
// `residual` (n_nodes x B) and `jacobian` (zeroed by the caller), Aoff by rows whatever the
// storage the kernels wrote (OffOrder::elements: permuted from it).
template <class OffT>
class HostFusedAssembly {
 public:
  HostFusedAssembly(Problem& p, const FusedOptions& o);
  ~HostFusedAssembly();
  void run(std::span<const double> state, std::vector<double>& residual,
           mesh::SplitBlockCsr<OffT>& jacobian) const;
  const std::vector<std::unique_ptr<cpu::CpuKernel>>& kernels() const { return kernels_; }

 private:
  struct Term;
  Problem& problem_;
  FusedOptions options_;
  std::vector<std::unique_ptr<cpu::CpuKernel>> kernels_;
  std::vector<Term> terms_;
  std::vector<int32_t> storage_of_block_;  // OffOrder::elements
  mutable std::vector<OffT> off_elements_;
};

// GPU: the problem's connectivity, params and each strategy's structure live on the device;
// run() zeroes what the kernels add (on the stream it runs on) and assembles from a device
// state (n_nodes x B); results stay on the device (the pointers below) or are downloaded.
template <class OffT>
class DeviceFusedAssembly {
 public:
  DeviceFusedAssembly(Problem& p, const FusedOptions& o);
  ~DeviceFusedAssembly();
  // elements >= 0: only the first `elements` elements of each term contribute (a batch of
  // cells that shrinks without a new assembly), and only the rows up to the last node they
  // touch are written: later rows hold what they held. Throws ProblemError naming the kernel
  // for more elements than a term has, or a strategy whose threads are not elements.
  void run(const double* state_device, CUstream stream = nullptr, int64_t elements = -1);
  double* residual_device() const { return reinterpret_cast<double*>(residual_.get()); }
  double* diag_device() const { return reinterpret_cast<double*>(diag_.get()); }
  OffT* off_device() const { return reinterpret_cast<OffT*>(off_.get()); }
  // OffOrder::elements: the storage index of each block of the off pattern by rows (int32,
  // n_off_blocks); null for OffOrder::rows.
  const int32_t* off_storage_device() const {
    return reinterpret_cast<const int32_t*>(storage_of_block_.get());
  }
  // Synchronous downloads (they wait for the legacy stream only: synchronize a non-blocking
  // stream first); Aoff by rows whatever the storage.
  std::vector<double> residual() const;
  mesh::SplitBlockCsr<OffT> jacobian() const;
  const std::vector<std::unique_ptr<cuda::CudaKernel>>& kernels() const { return kernels_; }

 private:
  struct Term;
  Problem& problem_;
  FusedOptions options_;
  std::vector<std::unique_ptr<cuda::CudaKernel>> kernels_;
  std::vector<Term> terms_;
  bool zero_rows_ = true, zero_off_ = true;
  cuda::DeviceBuffer residual_, diag_, off_, storage_of_block_;
};

// Aoff by rows from Aoff in edge-based storage: rows[b] = elements[storage_of_block[b]],
// blocks of bb values.
template <class OffT>
void off_rows_from_elements(std::span<const OffT> elements,
                            std::span<const int32_t> storage_of_block, int bb,
                            std::span<OffT> rows);

}  // namespace dualjit::assembly

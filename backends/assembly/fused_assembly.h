// The residual and FUN3D-style Jacobian of a Problem's vector terms assembled in place by
// generated code (jit/assembly_spec.h), on the host (CPU backend) or on the GPU.
#pragma once

#include <memory>

#include "backends/assembly/problem.h"
#include "backends/cpu/cpu_kernel.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/mesh/incidence.h"
#include "backends/mesh/side_incidence.h"

namespace dualjit::assembly {

struct FusedOptions {
  jit::AssemblyStrategy strategy = jit::AssemblyStrategy::ScatterAtomic;
  bool jacobian = true;  // false: residual only
  int width = 0;         // W; 0: the block size (one vertex's directions per chunk)
  jit::LaunchLayout layout = {1, 64};
  // GatherByColumn on the GPU: staged is the node-owned tiled gather (jit/assembly_spec.h),
  // unstaged one thread per node.
  // ScatterAtomic on the GPU (jit/assembly_spec.h): shared-memory staging with coalesced
  // write-out; with it, Aoff slots that receive exactly one element's block are stored rather
  // than added (detected from the connectivity), and `pre_reduce` sums runs of elements that
  // share a vertex before the atomics. Staging is the default: on an H100 it takes the Roe
  // FUN3D assembly from 9.1 to 2.7 ms (bench/RESULTS.md); pre-reduction measured slower there.
  bool staged = true;
  bool pre_reduce = false;
  // Staged GatherByColumn on sm_90: a compute and a write-out warpgroup per block, the
  // arithmetic of one tile under the write-out of the previous (jit/assembly_spec.h).
  bool warp_specialized = false;
  // Jacobian derivative arithmetic in fp32 with the primal (and so the residual) in fp64
  // (jit/emit_element.h): Adiag and Aoff accurate to about 1e-6 relative instead of 1e-15.
  // Halves the registers of the tangents; never switched on by the tuner.
  bool single_tangents = false;
};

// Lowering options for term `t` of `p` under `o`.
// store_rows: a staged gather stores its rows (the first term launched).
jit::LoweringOptions fused_lowering(const Problem& p, const Term& t, const FusedOptions& o,
                                    bool off_single, bool off_direct = false,
                                    bool store_rows = false);

// Whether every off-diagonal slot of p's vector terms receives exactly one element block
// (counted over all terms): then staged kernels store Aoff instead of adding, and Aoff needs
// no zeroing.
bool off_blocks_single_writer(Problem& p);

// The lowered kernels of p's vector terms, in term order, exactly as the GPU path
// (DeviceAssembly) or the host path (assemble_on_host) compiles them under `o`: the one place
// that decides staging (GPU only) and direct Aoff stores (staged Jacobians of single-writer
// meshes), so that cache warming and emitting produce the kernels a run loads.
std::vector<jit::LoweredKernel> fused_kernels(Problem& p, const FusedOptions& o, bool off_single,
                                              bool gpu);

// Host: the kernels are compiled (or loaded) and the incidence built once, so repeated
// assemblies (Newton steps, autotuning) pay for the assembly alone. run() adds into
// `residual` (n_nodes x B) and `jacobian` (zeroed by the caller).
template <class OffT>
class HostAssembly {
 public:
  HostAssembly(Problem& p, const FusedOptions& o);
  void run(std::span<const double> state, std::vector<double>& residual,
           mesh::SplitBlockCsr<OffT>& jacobian) const;
  const std::vector<std::unique_ptr<cpu::CpuKernel>>& kernels() const { return kernels_; }

 private:
  Problem& problem_;
  FusedOptions options_;
  std::vector<size_t> terms_;  // vector-output terms
  std::vector<std::unique_ptr<cpu::CpuKernel>> kernels_;
  std::vector<mesh::Incidence> incidence_;  // per term, gather by column only
};

// One host assembly (a HostAssembly built and run once).
template <class OffT>
void assemble_on_host(Problem& p, std::span<const double> state, const FusedOptions& o,
                      std::vector<double>& residual, mesh::SplitBlockCsr<OffT>& jacobian);

// GPU: the problem's connectivity, params, slots and incidence live on the device; run()
// zeroes and assembles; results are downloaded on request.
template <class OffT>
class DeviceAssembly {
 public:
  DeviceAssembly(Problem& p, const FusedOptions& o);
  void set_state(std::span<const double> state);
  void run(CUstream stream = nullptr);
  std::vector<double> residual() const;
  mesh::SplitBlockCsr<OffT> jacobian() const;
  const std::vector<std::unique_ptr<cuda::CudaKernel>>& kernels() const { return kernels_; }

 private:
  struct TermData {
    cuda::DeviceBuffer conn, params, slots, inc_ptr, inc_element, inc_vertex;
    cuda::DeviceBuffer side_ptr, side_element, side_slot, node_blocks;  // staged gather
    int64_t n_elements = 0, n_node_blocks = 0;
  };
  Problem& problem_;
  FusedOptions options_;
  std::vector<size_t> terms_;  // vector-output terms
  std::vector<TermData> data_;
  std::vector<std::unique_ptr<cuda::CudaKernel>> kernels_;
  bool off_direct_ = false;
  bool rows_stored_ = false;
  cuda::DeviceBuffer state_, residual_, diag_, off_;
};

}  // namespace dualjit::assembly

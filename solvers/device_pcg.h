// Block-Jacobi preconditioned conjugate gradients on the GPU, on a block-CSR matrix in device
// memory (assembly::DeviceBsr, the Hessian the Assembler leaves there): the host twin of
// block_pcg.h, with the same options and result. The iteration stays on the device (SpMV with
// the p.Ap sum, the update with the r.z and r.r sums, fixed-order two-stage reductions so that
// repeats are bit-identical); the host reads two scalars per iteration to decide when to stop.
// Pinned DOFs come as a 0/1 mask: the solve runs on the free DOFs, as if the matrix had
// identity rows and columns there and the right-hand side zeros.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <cuda.h>

#include "backends/assembly/device_element_assembly.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "solvers/block_pcg.h"

namespace dualjit::solvers {

// The module's CUDA source for a block size (for compiling without a GPU and cache warming).
std::string device_pcg_source(int block);

class DevicePcg {
 public:
  // Workspace for n_nodes x block unknowns; compiles (or loads from the kernel cache) the
  // module for this block size.
  DevicePcg(int64_t n_nodes, int block);
  ~DevicePcg();

  // Solves A x = b from x = 0 on the legacy stream; A must be square-blocked over a General
  // pattern of n_nodes block rows (run_hessian's default). b, x and mask (n_nodes x block
  // doubles, 1 free and 0 pinned; null: none pinned) are device pointers. Throws SolverError
  // naming the node whose diagonal block is missing or singular, and the iteration at which the
  // residual became non-finite. relative_residual is CG's recurrence residual |r| / |b| (not
  // recomputed, unlike block_pcg).
  // With shift > 0 the system is (A + shift I) x = b (Newton's regularisation of an indefinite
  // Hessian), without touching A's values.
  PcgResult solve(const assembly::DeviceBsr& a, const double* b, double* x,
                  const double* mask = nullptr, const PcgOptions& options = {}, double shift = 0.0);
  // The mean |A_ii| over all DOFs (the scale of Newton's shifts); 1 when it is 0 or not finite.
  double mean_abs_diagonal(const assembly::DeviceBsr& a);

 private:
  int64_t n_nodes_;
  int block_;
  int grid_;  // blocks of every grid-stride kernel: fixed by n, so the sums' order is too
  std::unique_ptr<cuda::SourceModule> module_;
  cuda::DeviceBuffer r_, z_, p_, q_, inv_, partial_, scalars_, status_;
};

}  // namespace dualjit::solvers

// Restarted, right-preconditioned GMRES(m) on the GPU, on a block-CSR matrix in device memory
// (assembly::DeviceBsr, the Jacobian the Assembler leaves there): the device twin of gmres.h,
// with the same options, result and stopping rule. The Krylov basis stays on the device; the
// Arnoldi step orthogonalises by classical Gram-Schmidt applied twice (CGS2: each pass is one
// multi-vector dot kernel and one update kernel, where modified Gram-Schmidt would need a
// reduction per basis vector), and the host reads one column of the Hessenberg matrix per
// iteration to run the Givens rotations. Sums are fixed-order two-stage reductions, so repeats
// are bit-identical.
//
// Preconditioners: block Jacobi, and multicoloured symmetric block Gauss-Seidel
// (multicolor_gauss_seidel.h, which it matches to round-off), each colour's nodes one kernel
// with a warp per node, over a copy of the off-diagonal blocks in colour order made at
// set_matrix (so a colour's rows are read as one run; the product of edge-based storage reads
// it too). The product and block Jacobi give each node B lanes, one per row.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/assembly/device_element_assembly.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "solvers/gmres.h"
#include "solvers/node_coloring.h"

namespace dualjit::solvers {

enum class DevicePreconditioner { none, block_jacobi, multicolor_sgs };

// The module's CUDA source for a block size (for compiling without a GPU and cache warming).
std::string device_gmres_source(int block);

class DeviceGmres {
 public:
  // Workspace for n_nodes x block unknowns and `restart` Krylov vectors; compiles (or loads
  // from the kernel cache) the module for this block size.
  DeviceGmres(int64_t n_nodes, int block, int restart);
  ~DeviceGmres();

  // Takes the matrix (square, General, n_nodes block rows) and sets the preconditioner up:
  // inverts the diagonal blocks, and for multicolor_sgs colours the node graph once per
  // pattern. A pattern is known by its device arrays (row pointer, columns, block count): a
  // different pattern must come in other arrays, as each Assembler's do. The values must stay
  // unchanged until the last solve with them. Throws SolverError naming the node whose
  // diagonal block is missing, singular or not finite.
  void set_matrix(const assembly::DeviceBsr& a, DevicePreconditioner preconditioner,
                  int sweeps = 1);
  // The same for the FUN3D split form the fused assembly leaves (Assembler::run_jacobian_split:
  // the diagonal blocks apart, the off-diagonal ones fp64, by rows or in edge-based storage,
  // read by rows through DeviceSplitJacobian::off_storage).
  void set_matrix(const assembly::DeviceSplitJacobian<double>& a,
                  DevicePreconditioner preconditioner, int sweeps = 1);

  // Solves A x = b from the given x in place (device pointers, n_nodes x block doubles), with
  // options.restart no larger than the constructor's. Throws SolverError for invalid options,
  // no matrix, or a non-finite value (naming the iteration).
  GmresResult solve(const double* b, double* x, const GmresOptions& options);

  // z = M^-1 r with the current preconditioner (device pointers; z must not alias r).
  void precondition(const double* r, double* z);
  // y = A x with the current matrix.
  void multiply(const double* x, double* y);
  // The Euclidean norm of a device vector of n_nodes x block doubles (fixed-order sums).
  double norm(const double* v);
  int colors() const { return coloring_.n_colors; }

 private:
  void take(const assembly::DeviceBsr& a, const double* diag, const int32_t* blocks,
            DevicePreconditioner preconditioner, int sweeps);
  void launch(const char* entry, unsigned grid, std::initializer_list<void*> args);
  // Blocks of the block-row kernels for `nodes` rows (B lanes per node).
  unsigned node_grid(int64_t nodes) const;
  // scalars_[first + j] = V_j . w for j < k (V the basis from vector 0), fixed order.
  void dots(const double* basis, int k, const double* w, int first);

  int64_t n_nodes_;
  int block_;
  int restart_;
  int grid_;  // blocks of every grid-stride kernel: fixed by n, so the sums' order is too
  std::unique_ptr<cuda::SourceModule> module_;
  assembly::DeviceBsr a_;            // the rows (without the diagonal when diag_ is set)
  const double* diag_ = nullptr;     // the split form's diagonal blocks
  const int32_t* blocks_ = nullptr;  // edge-based storage: row position -> stored block
  DevicePreconditioner preconditioner_ = DevicePreconditioner::none;
  int sweeps_ = 1;
  // The pattern the colouring was built for, and the colouring on the device.
  struct Pattern {
    const int32_t* row_ptr = nullptr;
    const int32_t* col_idx = nullptr;
    int64_t n_blocks = -1;
    bool operator==(const Pattern&) const = default;
  };
  Pattern coloured_;
  NodeColoring coloring_;
  cuda::DeviceBuffer color_nodes_;
  // The off-diagonal blocks in colour order (the sweeps' rows, contiguous per colour): row
  // pointer and columns once per pattern, the values copied from each matrix.
  cuda::DeviceBuffer colour_rows_, colour_cols_, colour_source_, colour_values_;
  int64_t colour_blocks_ = 0;
  bool colour_current_ = false;  // the copy holds the current matrix's values
  cuda::DeviceBuffer basis_, w_, z_, inverse_, partial_, scalars_, coefficients_, status_;
};

}  // namespace dualjit::solvers

#include "solvers/petsc/petsc_device_operator.h"

#include <algorithm>
#include <stdexcept>

#include "solvers/petsc/petsc_check.h"

namespace dualjit::petsc {
namespace {

// y = (op->*f)(x) over the owned rows, in PETSc's arrays; an exception becomes PETSc's error.
PetscErrorCode apply(void* op, void (PetscDeviceOperator::*f)(const double*, double*), ::Vec x,
                     ::Vec y, const char* what) {
  const PetscScalar* in = nullptr;
  PetscScalar* out = nullptr;
  PetscCall(VecGetArrayRead(x, &in));
  PetscCall(VecGetArray(y, &out));
  try {
    (static_cast<PetscDeviceOperator*>(op)->*f)(in, out);
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "dualjit device %s: %s", what, e.what());
  }
  PetscCall(VecRestoreArray(y, &out));
  PetscCall(VecRestoreArrayRead(x, &in));
  return 0;
}

PetscErrorCode shell_multiply(::Mat a, ::Vec x, ::Vec y) {
  void* op = nullptr;
  PetscCall(MatShellGetContext(a, &op));
  return apply(op, &PetscDeviceOperator::multiply, x, y, "product");
}

PetscErrorCode shell_precondition(PC pc, ::Vec x, ::Vec y) {
  void* op = nullptr;
  PetscCall(PCShellGetContext(pc, &op));
  return apply(op, &PetscDeviceOperator::precondition, x, y, "preconditioner");
}

}  // namespace

PetscDeviceOperator::PetscDeviceOperator(MPI_Comm comm, const distributed::GhostExchange& ghosts,
                                         int64_t n_owned, int64_t n_local, int block,
                                         int64_t n_global)
    : comm_(comm), ghosts_(ghosts), n_owned_(n_owned), n_local_(n_local), block_(block) {
  if (n_owned < 0 || n_local < n_owned || block < 1)
    throw std::invalid_argument("PetscDeviceOperator: " + std::to_string(n_owned) + " owned of " +
                                std::to_string(n_local) + " local nodes of " +
                                std::to_string(block));
  // The Krylov basis is PETSc's: the engine's own restart space is one vector.
  engine_ = std::make_unique<solvers::DeviceGmres>(n_local, block, 1);
  x_ = cuda::DeviceBuffer(n_local * block * sizeof(double));
  y_ = cuda::DeviceBuffer(n_local * block * sizeof(double));
  host_.assign(n_local * block, 0.0);
  const PetscInt m = static_cast<PetscInt>(n_owned * block);
  check_petsc(MatCreateShell(comm, m, m, static_cast<PetscInt>(n_global * block),
                             static_cast<PetscInt>(n_global * block), this, &mat_),
              "MatCreateShell");
  check_petsc(MatShellSetOperation(mat_, MATOP_MULT, (void (*)(void))shell_multiply),
              "MatShellSetOperation");
}

PetscDeviceOperator::~PetscDeviceOperator() {
  MatDestroy(&mat_);
}

void PetscDeviceOperator::set(const mesh::BlockCsr<double>& local,
                              solvers::DevicePreconditioner preconditioner, int sweeps) {
  const mesh::BlockPattern& p = *local.pattern;
  if (p.n_nodes() != n_local_ || !p.has_diagonal() || local.block_rows != block_ ||
      local.block_cols != block_)
    throw std::invalid_argument("PetscDeviceOperator::set: a matrix of " +
                                std::to_string(p.n_nodes()) + " block rows for " +
                                std::to_string(n_local_) + " local nodes");
  const int64_t bb = int64_t(block_) * block_;
  // Owned rows come first in the local numbering, so their blocks are one leading range.
  const int64_t owned_values = p.row_ptr()[n_owned_] * bb;
  if (pattern_ != &p) {
    row_ptr_ = cuda::DeviceBuffer::from(p.row_ptr32());
    col_idx_ = cuda::DeviceBuffer::from(p.col_idx());
    values_ = cuda::DeviceBuffer(local.values.size() * sizeof(double));
    // The ghost rows are identity rows whatever the matrix, so they go up once per pattern.
    std::vector<double> ghost_rows(local.values.size() - owned_values, 0.0);
    for (int64_t i = n_owned_; i < n_local_; ++i) {
      double* d = &ghost_rows[p.diag_index(i) * bb - owned_values];
      for (int k = 0; k < block_; ++k) d[k * block_ + k] = 1.0;
    }
    values_.upload(ghost_rows.data(), ghost_rows.size() * sizeof(double),
                   owned_values * sizeof(double));
    pattern_ = &p;
  }
  values_.upload(local.values.data(), owned_values * sizeof(double));
  assembly::DeviceBsr a;
  a.mb = a.nb = static_cast<int>(n_local_);
  a.nnzb = static_cast<int>(p.n_blocks());
  a.block_dim = block_;
  a.row_ptr = reinterpret_cast<const int32_t*>(row_ptr_.get());
  a.col_idx = reinterpret_cast<const int32_t*>(col_idx_.get());
  a.values = reinterpret_cast<double*>(values_.get());
  engine_->set_matrix(a, preconditioner, sweeps);
}

void PetscDeviceOperator::use_in(KSP ksp) {
  check_petsc(KSPSetOperators(ksp, mat_, mat_), "KSPSetOperators");
  PC pc;
  check_petsc(KSPGetPC(ksp, &pc), "KSPGetPC");
  check_petsc(PCSetType(pc, PCSHELL), "PCSetType");
  check_petsc(PCShellSetContext(pc, this), "PCShellSetContext");
  check_petsc(PCShellSetApply(pc, shell_precondition), "PCShellSetApply");
  check_petsc(PCShellSetName(pc, "dualjit device preconditioner"), "PCShellSetName");
}

void PetscDeviceOperator::multiply(const double* x, double* y) {
  const int64_t owned = n_owned_ * block_;
  std::copy_n(x, owned, host_.begin());
  ghosts_.update(host_, block_);
  x_.upload(host_.data(), host_.size() * sizeof(double));
  engine_->multiply(reinterpret_cast<const double*>(x_.get()), reinterpret_cast<double*>(y_.get()));
  y_.download(y, owned * sizeof(double));
}

void PetscDeviceOperator::precondition(const double* x, double* y) {
  const int64_t owned = n_owned_ * block_;
  std::copy_n(x, owned, host_.begin());
  std::fill(host_.begin() + owned, host_.end(), 0.0);  // the other ranks' part: left out
  x_.upload(host_.data(), host_.size() * sizeof(double));
  engine_->precondition(reinterpret_cast<const double*>(x_.get()),
                        reinterpret_cast<double*>(y_.get()));
  y_.download(y, owned * sizeof(double));
}

}  // namespace dualjit::petsc

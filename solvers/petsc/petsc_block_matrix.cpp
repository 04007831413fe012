#include "solvers/petsc/petsc_block_matrix.h"

#include <stdexcept>
#include <string>

#include "solvers/petsc/petsc_check.h"

namespace dualjit::petsc {

PetscBlockMatrix::PetscBlockMatrix(MPI_Comm comm, const mesh::BlockPattern& pattern,
                                   std::span<const int64_t> numbers, int64_t n_owned, int block,
                                   int64_t n_global)
    : pattern_(pattern), n_owned_(n_owned), block_(block) {
  if (!pattern.has_diagonal() || pattern.symmetry() != mesh::Symmetry::General)
    throw std::invalid_argument(
        "PetscBlockMatrix: the pattern must be full and hold the diagonal blocks");
  if (static_cast<int64_t>(numbers.size()) != pattern.n_nodes() || n_owned > pattern.n_nodes() ||
      n_owned < 0 || block < 1) {
    throw std::invalid_argument("PetscBlockMatrix: " + std::to_string(numbers.size()) +
                                " numbers and " + std::to_string(n_owned) + " owned rows for a " +
                                std::to_string(pattern.n_nodes()) + "-node pattern");
  }
  const int64_t first = n_owned > 0 ? numbers[0] : 0;
  numbers_.assign(numbers.begin(), numbers.end());
  std::vector<PetscInt> d_nnz(n_owned), o_nnz(n_owned);
  for (int64_t i = 0; i < n_owned; ++i) {
    if (numbers[i] != first + i)
      throw std::invalid_argument("PetscBlockMatrix: owned row " + std::to_string(i) +
                                  " has solver number " + std::to_string(numbers[i]) + ", not " +
                                  std::to_string(first + i));
    for (int64_t s = pattern.row_ptr()[i]; s < pattern.row_ptr()[i + 1]; ++s) {
      const int64_t c = numbers[pattern.col_idx()[s]];
      (c >= first && c < first + n_owned ? d_nnz[i] : o_nnz[i])++;
    }
  }
  const PetscInt bs = block, m = static_cast<PetscInt>(n_owned * block),
                 M = static_cast<PetscInt>(n_global * block);
  check_petsc(MatCreate(comm, &mat_), "MatCreate");
  check_petsc(MatSetSizes(mat_, m, m, M, M), "MatSetSizes");
  check_petsc(MatSetType(mat_, MATMPIBAIJ), "MatSetType");
  check_petsc(MatMPIBAIJSetPreallocation(mat_, bs, 0, d_nnz.data(), 0, o_nnz.data()),
              "MatMPIBAIJSetPreallocation");
  check_petsc(MatSetOption(mat_, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE), "MatSetOption");
  check_petsc(MatSetOption(mat_, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE), "MatSetOption");
}

PetscBlockMatrix::~PetscBlockMatrix() {
  MatDestroy(&mat_);
}

void PetscBlockMatrix::set(const mesh::BlockCsr<double>& m) {
  if (m.pattern != &pattern_ || m.block_rows != block_ || m.block_cols != block_)
    throw std::invalid_argument("PetscBlockMatrix::set: a matrix over another pattern or block");
  const int b = block_;
  std::vector<PetscInt> cols;
  for (int64_t i = 0; i < n_owned_; ++i) {
    const int64_t begin = pattern_.row_ptr()[i], end = pattern_.row_ptr()[i + 1];
    const int64_t n = end - begin;
    cols.resize(n);
    row_.resize(n * b * b);
    // Block by block (each row-major) to one dense b x (n b) row-major strip.
    for (int64_t s = 0; s < n; ++s) {
      cols[s] = numbers_[pattern_.col_idx()[begin + s]];
      const double* blk = m.block(begin + s);
      for (int r = 0; r < b; ++r)
        for (int c = 0; c < b; ++c) row_[r * n * b + s * b + c] = blk[r * b + c];
    }
    const PetscInt row = numbers_[i];
    check_petsc(MatSetValuesBlocked(mat_, 1, &row, static_cast<PetscInt>(n), cols.data(),
                                    row_.data(), INSERT_VALUES),
                "MatSetValuesBlocked");
  }
  check_petsc(MatAssemblyBegin(mat_, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check_petsc(MatAssemblyEnd(mat_, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
}

}  // namespace dualjit::petsc

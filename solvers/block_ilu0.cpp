#include "solvers/block_ilu0.h"

#include <algorithm>
#include <string>

#include <Eigen/LU>

#include "solvers/solver_error.h"
#include "solvers/vector_ops.h"

namespace dualjit::solvers {

namespace {

// B is the block size when it is known at compile time (4 and 5: the Euler equations in 2-D
// and 3-D, where fixed-size Eigen products unroll), Eigen::Dynamic otherwise.
template <int B>
using Block = Eigen::Matrix<double, B, B, Eigen::RowMajor>;
template <int B>
using Vector = Eigen::Matrix<double, B, 1>;

// Row-wise (IKJ) block ILU(0) in place on f, a's values: row i is final once every L(i, k),
// k < i, has been formed from the final rows above it in ascending k, which sorted col_idx gives.
template <int B>
void factor(const mesh::BlockPattern& p, int b, std::vector<double>& f,
            std::vector<double>& pivot_inverse) {
  using Map = Eigen::Map<Block<B>>;
  using ConstMap = Eigen::Map<const Block<B>>;
  const auto& row_ptr = p.row_ptr();
  const auto& col_idx = p.col_idx();
  const int64_t n = p.n_nodes();
  const int64_t bb = static_cast<int64_t>(b) * b;
  // slot[c]: the block index of (i, c) in the row being factored, -1 off its pattern. The updates
  // that would land off it are the fill ILU(0) drops.
  std::vector<int64_t> slot(n, -1);
  Block<B> l;
  l.resize(b, b);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) slot[col_idx[k]] = k;
    const int64_t diag = p.diag_index(i);
    for (int64_t k = row_ptr[i]; k < diag; ++k) {
      const int64_t c = col_idx[k];
      Map lik(f.data() + k * bb, b, b);
      l.noalias() = lik * ConstMap(pivot_inverse.data() + c * bb, b, b);
      lik = l;
      for (int64_t j = p.diag_index(c) + 1; j < row_ptr[c + 1]; ++j) {
        const int64_t s = slot[col_idx[j]];
        if (s >= 0) Map(f.data() + s * bb, b, b).noalias() -= l * ConstMap(f.data() + j * bb, b, b);
      }
    }
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) slot[col_idx[k]] = -1;

    const ConstMap pivot(f.data() + diag * bb, b, b);
    const bool finite = all_finite(std::span<const double>(pivot.data(), bb));
    // Full pivoting for its rank decision (the threshold is relative to the largest pivot), as
    // BlockJacobi decides its diagonal blocks.
    Eigen::FullPivLU<Block<B>> lu(pivot);
    if (!finite || !lu.isInvertible()) {
      throw SolverError("BlockIlu0: the pivot block of node " + std::to_string(i) +
                        (finite ? " is singular" : " is not finite"));
    }
    Map(pivot_inverse.data() + i * bb, b, b) = lu.inverse();
  }
}

// z = U^-1 L^-1 z in place.
template <int B>
void substitute(const mesh::BlockPattern& p, int b, const std::vector<double>& f,
                const std::vector<double>& pivot_inverse, std::span<double> z) {
  using ConstMap = Eigen::Map<const Block<B>>;
  using VectorMap = Eigen::Map<Vector<B>>;
  using ConstVectorMap = Eigen::Map<const Vector<B>>;
  const auto& row_ptr = p.row_ptr();
  const auto& col_idx = p.col_idx();
  const int64_t n = p.n_nodes();
  const int64_t bb = static_cast<int64_t>(b) * b;
  for (int64_t i = 0; i < n; ++i) {
    VectorMap zi(z.data() + i * b, b);
    for (int64_t k = row_ptr[i]; k < p.diag_index(i); ++k) {
      zi.noalias() -= ConstMap(f.data() + k * bb, b, b) *
                      ConstVectorMap(z.data() + static_cast<int64_t>(col_idx[k]) * b, b);
    }
  }
  Vector<B> t;
  t.resize(b);
  for (int64_t i = n - 1; i >= 0; --i) {
    VectorMap zi(z.data() + i * b, b);
    t = zi;
    for (int64_t k = p.diag_index(i) + 1; k < row_ptr[i + 1]; ++k) {
      t.noalias() -= ConstMap(f.data() + k * bb, b, b) *
                     ConstVectorMap(z.data() + static_cast<int64_t>(col_idx[k]) * b, b);
    }
    zi.noalias() = ConstMap(pivot_inverse.data() + i * bb, b, b) * t;
  }
}

}  // namespace

BlockIlu0::BlockIlu0(const mesh::BlockCsr<double>& a) : pattern_(a.pattern), block_(a.block_rows) {
  if (!pattern_ || a.block_rows != a.block_cols || a.block_rows < 1 || !pattern_->has_diagonal() ||
      pattern_->symmetry() != mesh::Symmetry::General) {
    throw SolverError("BlockIlu0: needs square blocks over a General pattern with diagonal");
  }
  const mesh::BlockPattern& p = *pattern_;
  const int b = block_;
  const int64_t bb = static_cast<int64_t>(b) * b;
  if (static_cast<int64_t>(a.values.size()) != p.n_blocks() * bb) {
    throw SolverError("BlockIlu0: " + std::to_string(p.n_blocks()) + " blocks of " +
                      std::to_string(b) + "x" + std::to_string(b) + " but " +
                      std::to_string(a.values.size()) + " values");
  }
  // A non-finite off-diagonal block need not reach a pivot (the last rows' L blocks feed none):
  // caught here, where the block can still be named.
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    for (int64_t k = p.row_ptr()[r]; k < p.row_ptr()[r + 1]; ++k) {
      if (!all_finite(std::span<const double>(a.block(k), bb))) {
        throw SolverError("BlockIlu0: block (" + std::to_string(r) + ", " +
                          std::to_string(p.col_idx()[k]) + ") of node " + std::to_string(r) +
                          " is not finite");
      }
    }
  }
  factor_ = a.values;
  pivot_inverse_.resize(p.n_nodes() * bb);
  switch (b) {
    case 4:
      factor<4>(p, b, factor_, pivot_inverse_);
      break;
    case 5:
      factor<5>(p, b, factor_, pivot_inverse_);
      break;
    default:
      factor<Eigen::Dynamic>(p, b, factor_, pivot_inverse_);
  }
}

void BlockIlu0::apply(std::span<const double> r, std::span<double> z) const {
  const int64_t n_dofs = pattern_->n_nodes() * block_;
  if (static_cast<int64_t>(r.size()) != n_dofs || z.size() != r.size()) {
    throw SolverError("BlockIlu0::apply: " + std::to_string(n_dofs) + " DOFs, r has " +
                      std::to_string(r.size()) + " values and z " + std::to_string(z.size()));
  }
  if (z.data() != r.data()) std::copy(r.begin(), r.end(), z.begin());
  switch (block_) {
    case 4:
      substitute<4>(*pattern_, block_, factor_, pivot_inverse_, z);
      break;
    case 5:
      substitute<5>(*pattern_, block_, factor_, pivot_inverse_, z);
      break;
    default:
      substitute<Eigen::Dynamic>(*pattern_, block_, factor_, pivot_inverse_, z);
  }
}

}  // namespace dualjit::solvers

#include "backends/mesh/export.h"

#include <cstdio>
#include <limits>
#include <memory>
#include <string>

namespace dualjit::mesh {

namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// Appends a br x bc row-major block at block position (r, c), or its transpose at (c, r).
template <class T>
void emit_block(Triplets& out, int64_t r, int64_t c, const T* block, int br, int bc,
                bool transposed) {
  for (int i = 0; i < br; ++i) {
    for (int j = 0; j < bc; ++j) {
      const double v = static_cast<double>(block[i * bc + j]);
      if (transposed) {
        out.emplace_back(c * bc + j, r * br + i, v);
      } else {
        out.emplace_back(r * br + i, c * bc + j, v);
      }
    }
  }
}

bool mirrors(const BlockPattern& p, int br, int bc, Expansion expansion) {
  if (p.symmetry() != Symmetry::Upper || expansion != Expansion::Full) return false;
  if (br != bc) {
    throw MeshError(
        "to_eigen: an Upper pattern expands to a full matrix only with square blocks, "
        "got " +
        std::to_string(br) + "x" + std::to_string(bc));
  }
  return true;
}

// The off-diagonal (or all, for a pattern with diagonal) stored blocks of m, mirrored if asked.
template <class T>
void emit_stored(Triplets& out, const BlockCsr<T>& m, bool mirror) {
  const BlockPattern& p = *m.pattern;
  const auto& row_ptr = p.row_ptr();
  const auto& col_idx = p.col_idx();
  for (int64_t r = 0; r < p.n_nodes(); ++r) {
    for (int64_t i = row_ptr[r]; i < row_ptr[r + 1]; ++i) {
      const int64_t c = col_idx[i];
      emit_block(out, r, c, m.block(i), m.block_rows, m.block_cols, false);
      if (mirror && c != r) emit_block(out, r, c, m.block(i), m.block_rows, m.block_cols, true);
    }
  }
}

Eigen::SparseMatrix<double> from_triplets(int64_t rows, int64_t cols, const Triplets& t) {
  Eigen::SparseMatrix<double> a(rows, cols);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::unique_ptr<std::FILE, FileCloser> open_for_writing(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "w"));
  if (!f) throw MeshError("write_matrix_market: cannot open '" + path.string() + "' for writing");
  return f;
}

void finish(std::unique_ptr<std::FILE, FileCloser> f, const std::filesystem::path& path) {
  const bool failed = std::ferror(f.get()) != 0;
  if (std::fclose(f.release()) != 0 || failed) {
    throw MeshError("write_matrix_market: writing '" + path.string() + "' failed");
  }
}

}  // namespace

template <class T>
Eigen::SparseMatrix<double> to_eigen(const BlockCsr<T>& m, Expansion expansion) {
  const BlockPattern& p = *m.pattern;
  const bool mirror = mirrors(p, m.block_rows, m.block_cols, expansion);
  Triplets t;
  t.reserve(p.n_blocks() * m.block_size() * (mirror ? 2 : 1));
  emit_stored(t, m, mirror);
  return from_triplets(p.n_nodes() * m.block_rows, p.n_nodes() * m.block_cols, t);
}

template <class OffT>
Eigen::SparseMatrix<double> to_eigen(const SplitBlockCsr<OffT>& m, Expansion expansion) {
  const BlockPattern& p = m.pattern();
  const int br = m.block_rows();
  const int bc = m.block_cols();
  const bool mirror = mirrors(p, br, bc, expansion);
  Triplets t;
  t.reserve((p.n_nodes() + p.n_blocks() * (mirror ? 2 : 1)) * m.off.block_size());
  for (int64_t n = 0; n < p.n_nodes(); ++n) emit_block(t, n, n, m.diag_block(n), br, bc, false);
  emit_stored(t, m.off, mirror);
  return from_triplets(p.n_nodes() * br, p.n_nodes() * bc, t);
}

void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& a) {
  auto f = open_for_writing(path);
  std::fprintf(f.get(), "%%%%MatrixMarket matrix coordinate real general\n");
  std::fprintf(f.get(), "%lld %lld %lld\n", static_cast<long long>(a.rows()),
               static_cast<long long>(a.cols()), static_cast<long long>(a.nonZeros()));
  for (int64_t c = 0; c < a.outerSize(); ++c) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(a, c); it; ++it) {
      std::fprintf(f.get(), "%lld %lld %.17g\n", static_cast<long long>(it.row() + 1),
                   static_cast<long long>(it.col() + 1), it.value());
    }
  }
  finish(std::move(f), path);
}

void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& vector) {
  auto f = open_for_writing(path);
  std::fprintf(f.get(), "%%%%MatrixMarket matrix array real general\n");
  std::fprintf(f.get(), "%lld 1\n", static_cast<long long>(vector.size()));
  for (double v : vector) std::fprintf(f.get(), "%.17g\n", v);
  finish(std::move(f), path);
}

template <class T>
BsrView<T> bsr_view(const BlockCsr<T>& m, const std::vector<int32_t>& row_ptr32) {
  static_assert(sizeof(int) == sizeof(int32_t), "cuSPARSE indices are int32");
  const BlockPattern& p = *m.pattern;
  if (m.block_rows != m.block_cols) {
    throw MeshError("bsr_view: cuSPARSE BSR needs square blocks, got " +
                    std::to_string(m.block_rows) + "x" + std::to_string(m.block_cols));
  }
  if (p.symmetry() != Symmetry::General) {
    throw MeshError("bsr_view: cuSPARSE bsrmv takes general matrices, the pattern is Upper");
  }
  if (static_cast<int64_t>(row_ptr32.size()) != p.n_nodes() + 1 ||
      row_ptr32.back() != p.n_blocks()) {
    throw MeshError("bsr_view: row_ptr32 does not belong to this pattern (use row_ptr32())");
  }
  BsrView<T> v;
  v.mb = static_cast<int>(p.n_nodes());
  v.nb = static_cast<int>(p.n_nodes());
  v.nnzb = static_cast<int>(p.n_blocks());
  v.block_dim = m.block_rows;
  v.row_ptr = row_ptr32.data();
  v.col_idx = p.col_idx().data();
  v.values = m.values.data();
  return v;
}

template Eigen::SparseMatrix<double> to_eigen(const BlockCsr<float>&, Expansion);
template Eigen::SparseMatrix<double> to_eigen(const BlockCsr<double>&, Expansion);
template Eigen::SparseMatrix<double> to_eigen(const SplitBlockCsr<float>&, Expansion);
template Eigen::SparseMatrix<double> to_eigen(const SplitBlockCsr<double>&, Expansion);
template BsrView<float> bsr_view(const BlockCsr<float>&, const std::vector<int32_t>&);
template BsrView<double> bsr_view(const BlockCsr<double>&, const std::vector<int32_t>&);

}  // namespace dualjit::mesh

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "backends/mesh/export.h"
#include "mesh_test_util.h"

using namespace dualjit::mesh;
using dualjit::mesh::test::mesh_error_of;
using dualjit::mesh::test::random_element_matrices;
using dualjit::mesh::test::random_set;

namespace {

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("dualjit_mesh_" + std::to_string(::getpid()) + "_" + name);
}

// A strict Matrix Market reader: the header line, then sizes, then entries.
Eigen::MatrixXd read_matrix_market(const std::filesystem::path& path, std::string& header) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::getline(in, header);
  std::string line;
  while (std::getline(in, line) && !line.empty() && line[0] == '%') {
  }
  std::istringstream sizes(line);
  int64_t rows = 0, cols = 0, nnz = 0;
  Eigen::MatrixXd d;
  if (header.find("coordinate") != std::string::npos) {
    sizes >> rows >> cols >> nnz;
    d = Eigen::MatrixXd::Zero(rows, cols);
    for (int64_t i = 0; i < nnz; ++i) {
      int64_t r = 0, c = 0;
      double v = 0;
      REQUIRE(static_cast<bool>(in >> r >> c >> v));
      REQUIRE(r >= 1);
      REQUIRE(r <= rows);
      REQUIRE(c >= 1);
      REQUIRE(c <= cols);
      d(r - 1, c - 1) += v;
    }
  } else {
    sizes >> rows >> cols;
    d = Eigen::MatrixXd::Zero(rows, cols);
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t r = 0; r < rows; ++r) REQUIRE(static_cast<bool>(in >> d(r, c)));
    }
  }
  double extra = 0;
  CHECK_FALSE(static_cast<bool>(in >> extra));
  return d;
}

}  // namespace

TEST_CASE("mesh: Matrix Market round trip is exact") {
  std::mt19937 rng(77);
  const int32_t n = 90;
  const ElementSet tris = random_set("tris", 3, 120, n, rng);
  const BlockPattern p = BlockPattern::build(n, {&tris});
  BlockCsr<double> m = BlockCsr<double>::zeros(p, 2, 2);
  add_element_blocks(m, 0, random_element_matrices(3, 2, 2, tris.size(), rng));
  // Values that need all 17 digits, and tiny/huge magnitudes.
  m.values[0] = 1.0 / 3.0;
  m.values[1] = -1e-300;
  m.values[2] = 6.02214076e23;
  const Eigen::SparseMatrix<double> a = to_eigen(m);

  const auto path = temp_file("a.mtx");
  write_matrix_market(path, a);
  std::string header;
  const Eigen::MatrixXd back = read_matrix_market(path, header);
  CHECK(header == "%%MatrixMarket matrix coordinate real general");
  CHECK(back == Eigen::MatrixXd(a));
  std::filesystem::remove(path);

  std::vector<double> v(257);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  for (double& x : v) x = u(rng);
  v[5] = 0.1;
  const auto vpath = temp_file("v.mtx");
  write_matrix_market(vpath, v);
  const Eigen::MatrixXd vb = read_matrix_market(vpath, header);
  CHECK(header == "%%MatrixMarket matrix array real general");
  REQUIRE(vb.rows() == 257);
  REQUIRE(vb.cols() == 1);
  for (size_t i = 0; i < v.size(); ++i) CHECK(vb(i, 0) == v[i]);
  std::filesystem::remove(vpath);

  const std::string msg = mesh_error_of(
      [&] { write_matrix_market("/nonexistent_dir_dualjit/x.mtx", std::vector<double>{1.0}); });
  CHECK(msg.find("/nonexistent_dir_dualjit/x.mtx") != std::string::npos);
}

TEST_CASE("mesh: BsrView describes the cuSPARSE BSR layout") {
  std::mt19937 rng(78);
  const int32_t n = 70;
  const ElementSet edges = random_set("edges", 2, 200, n, rng);
  const BlockPattern p = BlockPattern::build(n, {&edges});
  BlockCsr<float> m = BlockCsr<float>::zeros(p, 5, 5);
  add_element_blocks(m, 0, random_element_matrices(2, 5, 5, edges.size(), rng));
  const std::vector<int32_t> rp = p.row_ptr32();
  const BsrView<float> v = bsr_view(m, rp);
  CHECK(v.mb == n);
  CHECK(v.nb == n);
  CHECK(v.nnzb == p.n_blocks());
  CHECK(v.block_dim == 5);
  CHECK(v.row_ptr == rp.data());
  CHECK(v.col_idx == p.col_idx().data());
  CHECK(v.values == m.values.data());

  // A BSR matrix-vector product over the view (row-major blocks, zero-based) equals Eigen's.
  Eigen::VectorXd x = Eigen::VectorXd::Random(n * 5);
  Eigen::VectorXd y = Eigen::VectorXd::Zero(n * 5);
  for (int r = 0; r < v.mb; ++r) {
    for (int i = v.row_ptr[r]; i < v.row_ptr[r + 1]; ++i) {
      const float* blk = v.values + int64_t(i) * 25;
      for (int a = 0; a < 5; ++a) {
        for (int b = 0; b < 5; ++b) y(r * 5 + a) += blk[a * 5 + b] * x(v.col_idx[i] * 5 + b);
      }
    }
  }
  CHECK((y - to_eigen(m) * x).norm() <= 1e-12 * y.norm());

  const BlockPattern up = BlockPattern::build(n, {&edges}, Symmetry::Upper);
  const auto up_rp = up.row_ptr32();
  CHECK(mesh_error_of([&] { bsr_view(BlockCsr<float>::zeros(up, 5, 5), up_rp); }).find("Upper") !=
        std::string::npos);
  CHECK(mesh_error_of([&] { bsr_view(BlockCsr<float>::zeros(p, 2, 3), rp); }).find("square") !=
        std::string::npos);
  CHECK_FALSE(mesh_error_of([&] { bsr_view(m, up_rp); }).empty());
}

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "backends/mesh/block_csr.h"
#include "backends/mesh/export.h"
#include "mesh_test_util.h"

using namespace dualjit::mesh;
using dualjit::mesh::test::dense_assemble;
using dualjit::mesh::test::mesh_error_of;
using dualjit::mesh::test::random_element_matrices;
using dualjit::mesh::test::random_set;

namespace {

struct Case {
  int32_t n_nodes;
  std::vector<ElementSet> sets;
  std::vector<std::vector<double>> matrices;  // per set
  std::vector<const ElementSet*> ptrs() const {
    std::vector<const ElementSet*> p;
    for (const ElementSet& s : sets) p.push_back(&s);
    return p;
  }
};

Case random_case(uint32_t seed, int br, int bc, bool symmetric) {
  std::mt19937 rng(seed);
  Case c{120 + static_cast<int32_t>(rng() % 80), {}, {}};
  const int32_t touched = c.n_nodes - 5;  // a few isolated nodes
  c.sets.push_back(random_set("tris", 3, 150, touched, rng));
  c.sets.push_back(random_set("edges", 2, 400, touched, rng));
  c.sets.push_back(random_set("tets", 4, 80, touched, rng));
  c.sets.push_back(random_set("cells", 1, 60, touched, rng));
  c.sets.push_back(random_set("degenerate", 3, 30, touched, rng, /*distinct=*/false));
  c.sets.push_back(ElementSet{"empty", 3, {}});
  for (const ElementSet& s : c.sets) {
    c.matrices.push_back(random_element_matrices(s.k, br, bc, s.size(), rng, symmetric));
  }
  return c;
}

Eigen::MatrixXd dense_reference(const Case& c, int br, int bc) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(int64_t(c.n_nodes) * br, int64_t(c.n_nodes) * bc);
  for (size_t s = 0; s < c.sets.size(); ++s) dense_assemble(d, c.sets[s], br, bc, c.matrices[s]);
  return d;
}

// Bound on the rounding of a float accumulation: the sum of |contributions| per entry.
Eigen::MatrixXd abs_reference(const Case& c, int br, int bc) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(int64_t(c.n_nodes) * br, int64_t(c.n_nodes) * bc);
  for (size_t s = 0; s < c.sets.size(); ++s) {
    std::vector<double> abs = c.matrices[s];
    for (double& x : abs) x = std::abs(x);
    dense_assemble(d, c.sets[s], br, bc, abs);
  }
  return d;
}

}  // namespace

TEST_CASE("mesh: BlockCsr assembly then to_eigen equals a dense brute-force assembly exactly") {
  for (auto [br, bc] : {std::pair{1, 1}, std::pair{3, 3}, std::pair{2, 5}}) {
    CAPTURE(br);
    CAPTURE(bc);
    const Case c = random_case(100 + br * 10 + bc, br, bc, false);
    const BlockPattern p = BlockPattern::build(c.n_nodes, c.ptrs());
    BlockCsr<double> m = BlockCsr<double>::zeros(p, br, bc);
    REQUIRE(static_cast<int64_t>(m.values.size()) == p.n_blocks() * br * bc);
    for (size_t s = 0; s < c.sets.size(); ++s) add_element_blocks(m, s, c.matrices[s]);
    const Eigen::MatrixXd ref = dense_reference(c, br, bc);
    const Eigen::MatrixXd got = Eigen::MatrixXd(to_eigen(m));
    REQUIRE(got.rows() == ref.rows());
    REQUIRE(got.cols() == ref.cols());
    CHECK(got == ref);
    CHECK(to_eigen(m).nonZeros() == p.n_blocks() * br * bc);  // zeros inside blocks are kept

    // Element by element gives the same, and set_zero clears.
    m.set_zero();
    CHECK(Eigen::MatrixXd(to_eigen(m)).isZero(0.0));
    for (size_t s = 0; s < c.sets.size(); ++s) {
      const int64_t per = int64_t(c.sets[s].k) * c.sets[s].k * br * bc;
      for (int64_t e = 0; e < c.sets[s].size(); ++e) {
        add_element_block(m, s, e, c.matrices[s].data() + e * per);
      }
    }
    CHECK(Eigen::MatrixXd(to_eigen(m)) == ref);
  }
}

TEST_CASE("mesh: split diagonal fp64 / off-diagonal fp32 matches within 1e-6 relative") {
  const int b = 4;
  const Case c = random_case(201, b, b, false);
  const BlockPattern p = BlockPattern::build(c.n_nodes, c.ptrs());
  const BlockPattern off = p.without_diagonal();
  SplitBlockCsr<float> m = SplitBlockCsr<float>::zeros(off, b, b);
  REQUIRE(static_cast<int64_t>(m.diag.size()) == int64_t(c.n_nodes) * b * b);
  REQUIRE(static_cast<int64_t>(m.off.values.size()) == off.n_blocks() * b * b);
  for (size_t s = 0; s < c.sets.size(); ++s) add_element_blocks(m, s, c.matrices[s]);

  const Eigen::MatrixXd ref = dense_reference(c, b, b);
  const Eigen::MatrixXd bound = abs_reference(c, b, b);
  const Eigen::MatrixXd got = Eigen::MatrixXd(to_eigen(m));
  REQUIRE(got.rows() == ref.rows());
  int64_t bad = 0;
  for (int64_t i = 0; i < ref.rows(); ++i) {
    for (int64_t j = 0; j < ref.cols(); ++j) {
      const bool diagonal_block = i / b == j / b;
      if (diagonal_block) {
        bad += got(i, j) != ref(i, j);  // fp64, same order: exact
      } else {
        bad += std::abs(got(i, j) - ref(i, j)) > 1e-6 * bound(i, j);
      }
    }
  }
  CHECK(bad == 0);
  CHECK((got - ref).norm() <= 1e-6 * ref.norm());
  CHECK((got - ref).norm() > 0.0);  // the off part really is float

  // The double split is exact.
  SplitBlockCsr<double> md = SplitBlockCsr<double>::zeros(off, b, b);
  for (size_t s = 0; s < c.sets.size(); ++s) add_element_blocks(md, s, c.matrices[s]);
  CHECK(Eigen::MatrixXd(to_eigen(md)) == ref);

  CHECK(mesh_error_of([&] { SplitBlockCsr<float>::zeros(p, b, b); }).find("without diagonal") !=
        std::string::npos);
  BlockCsr<double> wrong = BlockCsr<double>::zeros(off, b, b);
  const std::string msg = mesh_error_of([&] { add_element_blocks(wrong, 0, c.matrices[0]); });
  CHECK(msg.find("'tris'") != std::string::npos);
  CHECK(msg.find("element 0") != std::string::npos);
}

TEST_CASE("mesh: upper symmetric assembly expanded equals the full assembly") {
  const int b = 3;
  const Case c = random_case(301, b, b, /*symmetric=*/true);
  const BlockPattern full_p = BlockPattern::build(c.n_nodes, c.ptrs());
  const BlockPattern upper_p = BlockPattern::build(c.n_nodes, c.ptrs(), Symmetry::Upper);
  CHECK(upper_p.n_blocks() == (full_p.n_blocks() + c.n_nodes) / 2);

  BlockCsr<double> full = BlockCsr<double>::zeros(full_p, b, b);
  BlockCsr<double> upper = BlockCsr<double>::zeros(upper_p, b, b);
  for (size_t s = 0; s < c.sets.size(); ++s) {
    add_element_blocks(full, s, c.matrices[s]);
    add_element_blocks(upper, s, c.matrices[s]);
  }
  const Eigen::MatrixXd ref = dense_reference(c, b, b);
  REQUIRE(ref == ref.transpose());
  CHECK(Eigen::MatrixXd(to_eigen(full)) == ref);
  CHECK(Eigen::MatrixXd(to_eigen(upper)) == ref);
  // As stored: the upper block triangle only (diagonal blocks whole).
  const Eigen::MatrixXd stored = Eigen::MatrixXd(to_eigen(upper, Expansion::AsStored));
  for (int64_t i = 0; i < ref.rows(); ++i) {
    for (int64_t j = 0; j < ref.cols(); ++j) {
      CHECK(stored(i, j) == (i / b <= j / b ? ref(i, j) : 0.0));
    }
  }

  // Split + upper, fp64 off-diagonal: exact too.
  const BlockPattern upper_off = upper_p.without_diagonal();
  SplitBlockCsr<double> split = SplitBlockCsr<double>::zeros(upper_off, b, b);
  for (size_t s = 0; s < c.sets.size(); ++s) add_element_blocks(split, s, c.matrices[s]);
  CHECK(Eigen::MatrixXd(to_eigen(split)) == ref);

  BlockCsr<double> rect = BlockCsr<double>::zeros(upper_p, 2, 3);
  CHECK(mesh_error_of([&] { (void)to_eigen(rect); }).find("square") != std::string::npos);
}

TEST_CASE("mesh: add_element_blocks checks sizes and element indices") {
  const Case c = random_case(401, 2, 2, false);
  const BlockPattern p = BlockPattern::build(c.n_nodes, c.ptrs());
  BlockCsr<float> m = BlockCsr<float>::zeros(p, 2, 2);
  std::vector<double> short_input(c.matrices[1].begin(), c.matrices[1].end() - 1);
  CHECK(mesh_error_of([&] { add_element_blocks(m, 1, short_input); }).find("'edges'") !=
        std::string::npos);
  const std::string msg =
      mesh_error_of([&] { add_element_block(m, 2, c.sets[2].size(), c.matrices[2].data()); });
  CHECK(msg.find("'tets'") != std::string::npos);
  CHECK(msg.find("element 80") != std::string::npos);
  CHECK(mesh_error_of([&] { BlockCsr<double>::zeros(p, 0, 2); }).find("0x2") != std::string::npos);
}

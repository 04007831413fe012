// ReactorCells on the GPU against the reference evaluator (dsl/reference_evaluator.h, the
// ground truth, which differentiates straight through cuts): production rates and the dense and
// sparse per-cell Jacobians of h2o2 and GRI-3.0 in the (T, Y) constant-pressure and (T, C)
// forms, at random states. The rates against the graph they come from (the values'
// form), the Jacobians against theirs (the derivatives' form). The reference, not the CPU
// backend: a host compiler can take minutes on GRI-3.0's Jacobian (g++ 13: 80-110 s each), and
// CPU equals reference is tested elsewhere.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <regex>

#include "dsl/reference_evaluator.h"
#include "examples/kinetics/reactor_cells.h"
#include "examples/kinetics/units.h"
#include "kinetics_reference.h"
#include "support/gpu.h"

namespace {

using namespace dualjit;
using namespace dualjit::kinetics;

// n cells of test::random_state at one atmosphere, one after another.
std::vector<double> random_cells(const Mechanism& m, ReactorState form, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x;
  for (int64_t c = 0; c < n; ++c) {
    const std::vector<double> s = test::random_state(m, form, kOneAtm, rng);
    x.insert(x.end(), s.begin(), s.end());
  }
  return x;
}

// Largest difference relative to the largest magnitude of the reference, over one block.
double block_rel(std::span<const double> a, std::span<const double> ref) {
  REQUIRE(a.size() == ref.size());
  double scale = 0, diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(ref[i]));
    diff = std::max(diff, std::abs(a[i] - ref[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

struct Errors {
  double rates = 0, jacobian = 0, sparse = 0;
};

// Every `stride`-th cell of the GPU's cell-major results against the reference evaluator.
Errors against_reference(ReactorCells& gpu, const std::vector<double>& x,
                         std::span<const double> uniforms, int64_t stride) {
  const size_t b = size_t(gpu.block_size());
  const std::vector<double> rates = gpu.rates(x), jac = gpu.jacobian(x),
                            sparse = gpu.sparse_jacobian(x);
  const jit::JacobianPattern pattern = gpu.jacobian_pattern();
  const size_t nnz = size_t(pattern.nnz());
  Errors e;
  for (int64_t c = 0; c < gpu.n_cells(); c += stride) {
    const std::span<const double> state(x.data() + c * b, b);
    const JacobianResult ref = evaluate_jacobian(gpu.kernel(), {state, {}, uniforms}, 0);
    const std::vector<double> ref_rates =
        evaluate_values(gpu.rates_kernel(), {state, {}, uniforms});
    e.rates = std::max(e.rates, block_rel({rates.data() + c * b, b}, ref_rates));
    e.jacobian = std::max(e.jacobian, block_rel({jac.data() + c * b * b, b * b}, ref.jacobian));
    std::vector<double> ref_sparse(nnz, 0.0);
    for (size_t r = 0; r < b; ++r)
      for (size_t col = 0; col < b; ++col)
        if (const int64_t at = pattern.index(int(r), int(col)); at >= 0)
          ref_sparse[size_t(at)] = ref.jacobian[r * b + col];
    e.sparse = std::max(e.sparse, block_rel({sparse.data() + c * nnz, nnz}, ref_sparse));
  }
  return e;
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("ReactorCells: GPU rates and Jacobians equal the reference" *
            dualjit::test::needs_gpu()) {
    for (const char* spec : {"h2o2.yaml", "gri30.yaml"}) {
      const Mechanism m = load_mechanism(spec);
      const size_t b = m.species.size() + 1;
      for (auto form : {ReactorState::constant_pressure, ReactorState::concentrations}) {
        CAPTURE(spec);
        CAPTURE(reactor_state_name(form));
        const int64_t n = 2000;
        ReactorCellsOptions o;
        o.rate_law.state = form;
        o.assembler.backend = assembly::Backend::Cuda;
        ReactorCells gpu(m, n, o);
        const std::vector<double> x = random_cells(m, form, n, 7);
        std::vector<double> uniforms;
        if (form == ReactorState::constant_pressure) uniforms = {o.pressure};
        const Errors e = against_reference(gpu, x, uniforms, 97);
        MESSAGE(std::string(spec) << " " << reactor_state_name(form) << ": rates " << e.rates
                                  << ", Jacobian " << e.jacobian << ", sparse " << e.sparse);
        CHECK(e.rates < 1e-12);
        CHECK(e.jacobian < 1e-11);
        CHECK(e.sparse < 1e-11);
        // The rates ran the product form's kernel, the Jacobians the exp form's.
        CHECK(gpu.rates_kernel().name() == gpu.kernel().name() + "_values");
        size_t products = 0;
        for (const auto& k : gpu.kernels())
          products += k.symbol.find("_values") != std::string::npos;
        CHECK(products == 1);
        // Component-major is the cell-major array transposed, to rounding: both by the tape
        // columns (AssemblerOptions::element_tape_columns), each order's launches its own.
        const auto cm = gpu.jacobian(x), km = gpu.jacobian(x, assembly::BlockOrder::ComponentMajor);
        double worst = 0;
        for (int64_t c = 0; c < n; c += 397) {
          double scale = 0;
          for (size_t i = 0; i < b * b; ++i) scale = std::max(scale, std::abs(cm[c * b * b + i]));
          for (size_t i = 0; i < b * b; ++i)
            worst = std::max(worst, std::abs(cm[c * b * b + i] - km[i * n + c]) / scale);
        }
        CHECK(worst <= 1e-13);
      }
    }
  }

  TEST_CASE("ReactorCells: rates of a mechanism too big to stage (nDodecane) on the GPU" *
            dualjit::test::needs_gpu()) {
    const Mechanism m = load_mechanism("nDodecane_Reitz.yaml:nDodecane_IG");
    const size_t b = m.species.size() + 1;
    const int64_t n = 300;
    ReactorCellsOptions o;
    o.assembler.backend = assembly::Backend::Cuda;
    ReactorCells gpu(m, n, o);
    const std::vector<double> x = random_cells(m, ReactorState::constant_pressure, n, 11);
    const std::vector<double> rates = gpu.rates(x), uniforms = {o.pressure};
    double worst = 0;
    for (int64_t c = 0; c < n; c += 29) {
      const std::span<const double> state(x.data() + c * b, b);
      const std::vector<double> ref = evaluate_values(gpu.rates_kernel(), {state, {}, uniforms});
      worst = std::max(worst, block_rel({rates.data() + c * b, b}, ref));
    }
    MESSAGE("nDodecane rates: " << worst);
    CHECK(worst < 1e-12);
  }

  TEST_CASE("ReactorCells: the Jacobian in row groups equals the reference" *
            dualjit::test::needs_gpu()) {
    // Kernels of more than 6,000 statements in row groups are split into launches that
    // compile in parallel (jit/lowering.h lower_launches), for the dense and for the sparse
    // Jacobian: GRI-3.0's in rows of 2 at the default effort, its rates of progress kept as
    // tapes, the tapes' launch and 15 of the 27 groups; h2o2's in rows of 3 is small enough
    // with tapes to stay one launch (no `_k` suffix). GRI-3.0's at full effort, every launch
    // at -O3, is where ptxas computed tapes wrong when it could contract them into FMAs; there
    // the rows take the fewest launches no larger than the tapes': two, the tapes' launch
    // (factored, jit/tape_pattern.h) holding over a third of the kernel's statements.
    struct Case {
      const char* spec;
      int rows;
      jit::CompileEffort effort;
      uint64_t seed;
      size_t launches;  // per Jacobian, counted by their `_k` suffix (0: one launch)
    };
    for (const Case& c : {Case{"h2o2.yaml", 3, jit::CompileEffort::Full, 9, 0},
                          Case{"gri30.yaml", 2, jit::CompileEffort::Auto, 13, 16},
                          Case{"gri30.yaml", 2, jit::CompileEffort::Full, 17, 3}}) {
      CAPTURE(c.spec);
      const Mechanism m = load_mechanism(c.spec);
      const int64_t n = 1000;
      ReactorCellsOptions o;
      o.assembler.backend = assembly::Backend::Cuda;
      o.assembler.element_tape_columns = false;  // the row groups, not the tape columns
      o.assembler.element_rows = c.rows;
      o.assembler.compile_effort = c.effort;
      ReactorCells gpu(m, n, o);
      const std::vector<double> x = random_cells(m, ReactorState::constant_pressure, n, c.seed);
      const std::vector<double> uniforms = {o.pressure};
      const Errors e = against_reference(gpu, x, uniforms, 37);
      MESSAGE(std::string(c.spec) << ", rows of " << c.rows << ": rates " << e.rates
                                  << ", Jacobian " << e.jacobian << ", sparse " << e.sparse);
      CHECK(e.rates < 1e-12);
      CHECK(e.jacobian < 1e-11);
      CHECK(e.sparse < 1e-11);
      const std::string rows = "_r" + std::to_string(c.rows) + "_";
      size_t grouped = 0, launches = 0;
      for (const auto& k : gpu.kernels()) {
        grouped += k.symbol.find(rows) != std::string::npos;
        launches += std::regex_search(k.symbol, std::regex("_k[0-9]+_[0-9]+$"));
      }
      CHECK(grouped >= 2);
      CHECK(launches == 2 * c.launches);
    }
  }

  TEST_CASE("ReactorCells: the residual over a prefix of the cells equals the whole batch's rows" *
            dualjit::test::needs_gpu()) {
    // A shrinking batch (the stiff integrators' running cells) runs f over its first m cells
    // without an assembler of its own size; rows beyond m are not written.
    const Mechanism m = load_mechanism("h2o2.yaml");
    const size_t b = m.species.size() + 1;
    const int64_t n = 1000;
    ReactorCellsOptions o;
    o.assembler.backend = assembly::Backend::Cuda;
    ReactorCells gpu(m, n, o);
    const std::vector<double> x = random_cells(m, ReactorState::constant_pressure, n, 5);
    const std::vector<double> whole = gpu.rates(x);
    assembly::Assembler& a = gpu.assembler();
    for (int64_t cells : {int64_t(1), int64_t(63), int64_t(64), int64_t(65), int64_t(777), n}) {
      CAPTURE(cells);
      // A marker in every row, so that rows the prefix must not write are seen.
      const std::vector<double> marker(size_t(n) * b, -7.0);
      cuda::upload(const_cast<double*>(a.run_residual()), marker.data(),
                   marker.size() * sizeof(double));
      const double* r = a.run_residual(nullptr, cells);
      std::vector<double> got(size_t(n) * b);
      cuda::download(got.data(), r, got.size() * sizeof(double));
      bool prefix_equal = true, rest_kept = true;
      for (size_t i = 0; i < size_t(cells) * b; ++i)
        prefix_equal = prefix_equal && got[i] == whole[i];
      for (size_t i = size_t(cells) * b; i < got.size(); ++i)
        rest_kept = rest_kept && got[i] == -7.0;
      CHECK(prefix_equal);
      CHECK(rest_kept);
    }
    CHECK_THROWS_WITH_AS(a.run_residual(nullptr, n + 1),
                         doctest::Contains("the first 1001 elements of 1000"),
                         assembly::ProblemError);
    // A strategy whose threads are nodes cannot run a prefix of the elements.
    ReactorCellsOptions g = o;
    g.assembler.fused.strategy = "gather-by-column";
    ReactorCells by_column(m, n, g);
    by_column.rates(x);
    CHECK_THROWS_WITH_AS(by_column.assembler().run_residual(nullptr, 10),
                         doctest::Contains("cannot run a prefix"), assembly::ProblemError);
  }
}

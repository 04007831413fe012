// ReactorCells on the GPU against the CPU backend (the same emitted rate laws): production
// rates and the dense per-cell Jacobian of h2o2 and GRI-3.0 in the (T, Y) constant-pressure and
// (T, C) forms, at random states. The GPU may contract a*b + c into FMAs: round-off, not bits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

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

// Largest difference relative to the largest magnitude of the reference, per block of `width`.
double max_block_rel(const std::vector<double>& a, const std::vector<double>& b, size_t width) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (size_t s = 0; s < a.size(); s += width) {
    double scale = 0, diff = 0;
    for (size_t i = s; i < s + width; ++i) {
      scale = std::max(scale, std::abs(b[i]));
      diff = std::max(diff, std::abs(a[i] - b[i]));
    }
    if (scale > 0) worst = std::max(worst, diff / scale);
  }
  return worst;
}

}  // namespace

TEST_SUITE("gpu") {
  TEST_CASE("ReactorCells: GPU rates and Jacobians equal the CPU's" * dualjit::test::needs_gpu()) {
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
        o.assembler.backend = assembly::Backend::Cpu;
        ReactorCells cpu(m, n, o);
        const std::vector<double> x = random_cells(m, form, n, 7);
        const double rates = max_block_rel(gpu.rates(x), cpu.rates(x), b);
        const double jac = max_block_rel(gpu.jacobian(x), cpu.jacobian(x), b * b);
        MESSAGE(std::string(spec) << " " << reactor_state_name(form) << ": rates " << rates
                                  << ", Jacobian " << jac);
        CHECK(rates < 1e-12);
        CHECK(jac < 1e-11);
        // Component-major is the cell-major array transposed.
        const auto cm = gpu.jacobian(x), km = gpu.jacobian(x, assembly::BlockOrder::ComponentMajor);
        bool same = true;
        for (int64_t c = 0; c < n && same; c += 397)
          for (size_t i = 0; i < b * b; ++i) same = same && cm[c * b * b + i] == km[i * n + c];
        CHECK(same);
        // The sparse Jacobian too.
        const double sparse = max_block_rel(gpu.sparse_jacobian(x), cpu.sparse_jacobian(x),
                                            size_t(gpu.jacobian_pattern().nnz()));
        MESSAGE(std::string(spec) << " " << reactor_state_name(form) << ": sparse " << sparse);
        CHECK(sparse < 1e-11);
      }
    }
  }
}

// The batched stiff integrator (stiff_integrator.h) on the CPU, both methods: RODAS4's fourth
// order at fixed steps, the BDF's error proportional to the tolerance and its Jacobian reuse,
// Robertson's stiff chemistry against its reference values, systems independent of their
// batch, the peak of a component's rate, failures named per system, misuse refused; the device
// modules compile under NVRTC.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <vector>

#include "jit/nvrtc_compiler.h"
#include "solvers/device_bdf_engine.h"
#include "solvers/device_rosenbrock_engine.h"
#include "solvers/rosenbrock_method.h"
#include "solvers/solver_error.h"
#include "solvers/stiff_integrator.h"
#include "support/nvrtc_module.h"

using namespace dualjit::solvers;

namespace {

// A host system from per-row f and J.
class HostSystem final : public StiffSystem {
 public:
  using Rhs = std::function<void(const double* y, double* f)>;
  using Jac = std::function<void(const double* y, double* j)>;
  HostSystem(int n, Rhs f, Jac j) : n_(n), f_(std::move(f)), j_(std::move(j)) {}
  int size() const override { return n_; }
  bool on_device() const override { return false; }
  const double* rhs(int64_t m, const double* y) override {
    out_.resize(m * n_);
    for (int64_t r = 0; r < m; ++r) f_(y + r * n_, &out_[r * n_]);
    ++rhs_calls;
    return out_.data();
  }
  const double* jacobian(int64_t m, const double* y) override {
    out_.assign(m * n_ * n_, 0.0);
    for (int64_t r = 0; r < m; ++r) j_(y + r * n_, &out_[r * n_ * n_]);
    return out_.data();
  }
  int rhs_calls = 0;

 private:
  int n_;
  Rhs f_;
  Jac j_;
  std::vector<double> out_;
};

HostSystem robertson() {
  return HostSystem(
      3,
      [](const double* y, double* f) {
        f[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
        f[2] = 3e7 * y[1] * y[1];
        f[1] = -f[0] - f[2];
      },
      [](const double* y, double* j) {
        j[0] = -0.04, j[1] = 1e4 * y[2], j[2] = 1e4 * y[1];
        j[6] = 0, j[7] = 6e7 * y[1], j[8] = 0;
        for (int c = 0; c < 3; ++c) j[3 + c] = -j[c] - j[6 + c];
      });
}

// y' = -y^2 + sin(y): smooth and not stiff, for the order at fixed steps.
HostSystem smooth_scalar() {
  return HostSystem(
      1, [](const double* y, double* f) { f[0] = -y[0] * y[0] + std::sin(y[0]); },
      [](const double* y, double* j) { j[0] = -2 * y[0] + std::cos(y[0]); });
}

const StiffMethod kMethods[] = {StiffMethod::bdf, StiffMethod::rodas4};

double fixed_step_end(HostSystem& s, double y0, double h, double t_end) {
  StiffOptions o;
  o.method = StiffMethod::rodas4;
  o.rtol = 1e30;  // every step accepted
  o.initial_step = h;
  o.max_step = h;
  std::vector<double> y{y0};
  const std::vector<double> te{t_end};
  REQUIRE(integrate_stiff(s, y, te, o).failed() == 0);
  return y[0];
}

}  // namespace

TEST_CASE("RODAS4 converges at fourth order at fixed steps") {
  HostSystem s = smooth_scalar();
  const double exact = fixed_step_end(s, 1.7, 1.0 / 1024, 2.0);
  double previous = 0;
  for (double h : {0.1, 0.05, 0.025}) {
    const double error = std::abs(fixed_step_end(s, 1.7, h, 2.0) - exact);
    if (previous > 0) {
      INFO("h = " << h << ": error " << error << ", previous " << previous);
      CHECK(previous / error > 12.0);
      CHECK(previous / error < 24.0);
    }
    previous = error;
  }
}

TEST_CASE("Robertson's stiff kinetics to t = 40 and 4e5, each system on its own") {
  for (StiffMethod method : kMethods) {
    const std::string name = method == StiffMethod::bdf ? "bdf" : "rodas4";
    CAPTURE(name);
    HostSystem s = robertson();
    // Several copies with different end times; Hairer and Wanner's reference at t = 40.
    const std::vector<double> t_end{40.0, 0.4, 4e5, 40.0};
    std::vector<double> y;
    for (size_t i = 0; i < t_end.size(); ++i) y.insert(y.end(), {1.0, 0.0, 0.0});
    StiffOptions o;
    o.method = method;
    o.rtol = 1e-8;
    o.atol = 1e-14;
    const StiffReport r = integrate_stiff(s, y, t_end, o);
    REQUIRE(r.failed() == 0);
    CHECK(r.t == t_end);
    const double eps = method == StiffMethod::bdf ? 1e-6 : 1e-7;
    CHECK(y[0] == doctest::Approx(0.7158270687).epsilon(eps));
    CHECK(y[1] == doctest::Approx(9.185534764e-6).epsilon(1e-5));
    CHECK(y[2] == doctest::Approx(0.2841637457).epsilon(eps));
    // The same system with the same end time takes the same steps whatever its neighbours.
    for (int c = 0; c < 3; ++c) CHECK(y[9 + c] == y[c]);
    CHECK(r.steps[3] == r.steps[0]);
    for (size_t i = 0; i < t_end.size(); ++i)
      CHECK(y[3 * i] + y[3 * i + 1] + y[3 * i + 2] == doctest::Approx(1.0).epsilon(1e-12));
    // Over 4e5 time units in a few times the steps to 40 (RODAS4 848 and 453, the BDF 888
    // and 369 when written): the steps grow once the fast mode has decayed.
    CHECK(r.steps[2] < 4 * r.steps[0]);
    std::vector<double> single{1.0, 0.0, 0.0};
    const std::vector<double> one{4e5};
    integrate_stiff(s, single, one, o);
    for (int c = 0; c < 3; ++c) CHECK(single[c] == y[6 + c]);
  }
}

TEST_CASE("the BDF keeps its Jacobian across steps and its LU across equal steps") {
  HostSystem s = robertson();
  std::vector<double> y{1.0, 0.0, 0.0};
  StiffOptions o;
  o.rtol = 1e-8;
  o.atol = 1e-14;
  const StiffReport r = integrate_stiff(s, y, std::vector<double>{4e5}, o);
  REQUIRE(r.failed() == 0);
  INFO("steps " << r.system_steps << ", Jacobians " << r.system_jacobians << ", LUs "
                << r.system_factorizations << ", f " << r.system_rhs);
  CHECK(r.system_jacobians * 10 < r.system_steps);
  CHECK(r.system_factorizations * 2 < r.system_steps);
  CHECK(r.system_rhs < 3 * r.system_steps);
  // The Newton iterations' f evaluations and solves are parts of the stages.
  CHECK(r.rhs_seconds > 0.0);
  CHECK(r.newton_seconds > 0.0);
  CHECK(r.rhs_seconds + r.newton_seconds <= r.stage_seconds);
  // One system: a Newton iteration iterates it alone, and every attempt takes one at least.
  CHECK(r.newton_rows == r.newton_sweeps);
  CHECK(r.newton_sweeps >= r.system_steps);
  CHECK(r.newton_sweeps <= 4 * r.system_steps);
  // RODAS4 pays one Jacobian, one LU and six f per attempt.
  o.method = StiffMethod::rodas4;
  std::vector<double> y4{1.0, 0.0, 0.0};
  const StiffReport r4 = integrate_stiff(s, y4, std::vector<double>{4e5}, o);
  CHECK(r4.system_jacobians == r4.system_steps);
  CHECK(r4.system_rhs == 6 * r4.system_steps);
}

TEST_CASE("the BDF's error follows the tolerance") {
  // y' = -y^2 + sin(y) from 1.7 to t = 2 against RODAS4 at a tight tolerance.
  HostSystem s = smooth_scalar();
  StiffOptions ref;
  ref.method = StiffMethod::rodas4;
  ref.rtol = 1e-13;
  ref.atol = 1e-16;
  std::vector<double> exact{1.7};
  integrate_stiff(s, exact, std::vector<double>{2.0}, ref);
  int previous_steps = 0;
  for (double rtol : {1e-5, 1e-7, 1e-9}) {
    StiffOptions o;
    o.rtol = rtol;
    o.atol = 1e-16;
    std::vector<double> y{1.7};
    const StiffReport r = integrate_stiff(s, y, std::vector<double>{2.0}, o);
    const double error = std::abs(y[0] - exact[0]) / std::abs(exact[0]);
    INFO("rtol " << rtol << ": error " << error << " in " << r.steps[0] << " steps");
    CHECK(error < 20 * rtol);
    CHECK(error > 1e-4 * rtol);  // not a method far more accurate than asked (or exact)
    CHECK(r.steps[0] > previous_steps);
    previous_steps = r.steps[0];
  }
}

TEST_CASE("the peak of a component's rate: the logistic curve's inflection") {
  // y' = y (1 - y) peaks at y = 1/2, at t = ln(99) from y(0) = 0.01.
  HostSystem s(
      1, [](const double* y, double* f) { f[0] = y[0] * (1 - y[0]); },
      [](const double* y, double* j) { j[0] = 1 - 2 * y[0]; });
  for (StiffMethod method : kMethods) {
    StiffOptions o;
    o.method = method;
    o.peak_component = 0;
    o.rtol = 1e-8;
    std::vector<double> y{0.01, 0.01};
    const std::vector<double> t_end{10.0, 20.0};
    const StiffReport r = integrate_stiff(s, y, t_end, o);
    REQUIRE(r.failed() == 0);
    for (int i = 0; i < 2; ++i) {
      CHECK(r.peak_time[i] == doctest::Approx(std::log(99.0)).epsilon(1e-4));
      CHECK(r.peak_value[i] == doctest::Approx(0.25).epsilon(1e-6));
    }
  }
}

TEST_CASE("a failing system is named while the others finish") {
  // y' = y^2 from 1 blows up at t = 1; from -1 it decays; a NaN start never becomes finite.
  HostSystem s(
      1, [](const double* y, double* f) { f[0] = y[0] * y[0]; },
      [](const double* y, double* j) { j[0] = 2 * y[0]; });
  for (StiffMethod method : kMethods) {
    const std::string name = method == StiffMethod::bdf ? "bdf" : "rodas4";
    CAPTURE(name);
    std::vector<double> y{-1.0, 1.0, NAN, -1.0};
    const std::vector<double> t_end{2.0, 2.0, 2.0, 0.0};
    StiffOptions o;
    o.method = method;
    const StiffReport r = integrate_stiff(s, y, t_end, o);
    CHECK(r.status[0] == StiffStatus::done);
    CHECK(y[0] == doctest::Approx(-1.0 / 3.0).epsilon(1e-8));
    CHECK(r.status[1] != StiffStatus::done);
    CHECK(r.t[1] == doctest::Approx(1.0).epsilon(1e-6));  // stopped at the blow-up
    CHECK(r.status[2] == StiffStatus::non_finite);
    CHECK(r.status[3] == StiffStatus::done);  // nothing to do
    CHECK(y[3] == -1.0);
    CHECK(r.failed() == 2);
    const std::string text = r.failures();
    CHECK(text.find("system 1: ") != std::string::npos);
    CHECK(text.find("system 2: non-finite state") != std::string::npos);
  }
}

TEST_CASE("integrate_stiff refuses mismatched sizes, bad end times and tolerances") {
  HostSystem s = robertson();
  std::vector<double> y(6, 0.0);
  CHECK_THROWS_AS(integrate_stiff(s, y, std::vector<double>{1.0}, {}), SolverError);
  CHECK_THROWS_WITH_AS(integrate_stiff(s, y, std::vector<double>{1.0, -1.0}, {}),
                       doctest::Contains("system 1"), SolverError);
  StiffOptions o;
  o.rtol = 0;
  CHECK_THROWS_AS(integrate_stiff(s, y, std::vector<double>{1.0, 1.0}, o), SolverError);
  o = {};
  o.peak_component = 3;
  CHECK_THROWS_AS(integrate_stiff(s, y, std::vector<double>{1.0, 1.0}, o), SolverError);
}

TEST_CASE("the device BDF module compiles under NVRTC for sm_90 without a GPU") {
  for (int n : {3, 54, 101})
    for (NewtonFactors factors :
         {NewtonFactors::device_memory, NewtonFactors::shared_memory, NewtonFactors::registers}) {
      if (factors == NewtonFactors::registers && n > 64) continue;
      CAPTURE(n);
      CAPTURE(static_cast<int>(factors));
      // dj_bdf_newton is checked on its own below.
      const dualjit::jit::CompiledImage img = dualjit::test::check_module_compiles(
          "bdf", device_bdf_source(n, factors),
          {"dj_bdf_start", "dj_bdf_plan", "dj_bdf_predict", "dj_bdf_gather_rows",
           "dj_bdf_scatter_jacobians", "dj_bdf_factor", "dj_bdf_error", "dj_bdf_conclude",
           "dj_bdf_accept", "dj_bdf_gather", "dj_bdf_gather_int", "dj_bdf_solution"},
          device_bdf_options());
      const dualjit::jit::PtxasReport r =
          dualjit::jit::parse_ptxas_report(img.log, "dj_bdf_newton");
      CHECK(r.registers > 0);
      if (factors == NewtonFactors::registers) {
        // The factors in registers at three blocks an SM (168 registers a thread), with the
        // next system's indices held beside them: ptxas puts a few words in local memory (12
        // bytes for sm_90 with CUDA 13). Two blocks an SM, without spills, measured slower.
        CHECK(r.registers <= 168);
        CHECK(r.spill_store_bytes <= 16);
      } else {
        CHECK(r.spill_store_bytes == 0);
      }
    }
  // Four warps a block: 54 x 54 fp32 factors a warp; in registers, two stages of five vectors,
  // three scalars and the permutation besides.
  CHECK(bdf_newton_shared_bytes(54, NewtonFactors::shared_memory) == 4 * 54 * 54 * 4);
  CHECK(bdf_newton_shared_bytes(54, NewtonFactors::registers) == 4 * (54 * 54 * 4 + 2 * 2416));
  CHECK(bdf_newton_shared_bytes(54, NewtonFactors::device_memory) == 0);
  // GRI-3.0's 54 unknowns in registers, dodecane's 101 in an H100's 227 KB of shared memory.
  CHECK(newton_factors_for(54, 232448) == NewtonFactors::registers);
  CHECK(newton_factors_for(101, 232448) == NewtonFactors::shared_memory);
  CHECK(newton_factors_for(1269, 232448) == NewtonFactors::device_memory);
}

TEST_CASE("the device Rosenbrock module compiles under NVRTC for sm_90 without a GPU") {
  for (int n : {3, 54, 101}) {
    CAPTURE(n);
    dualjit::test::check_module_compiles(
        "rosenbrock", device_rosenbrock_source(rodas4(), n),
        {"dj_rb_factor", "dj_rb_solve", "dj_rb_combine", "dj_rb_error", "dj_rb_accept",
         "dj_rb_gather", "dj_rb_column"});
  }
}

#include "examples/cfd/host_steady_engine.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "solvers/block_ilu0.h"
#include "solvers/block_jacobi.h"
#include "solvers/bsr_multiply.h"
#include "solvers/multicolor_gauss_seidel.h"
#include "solvers/stopwatch.h"
#include "solvers/vector_ops.h"

namespace dualjit::cfd {
namespace {

constexpr int kB = 5;

class HostSteadyEngine final : public SteadyEngine {
 public:
  HostSteadyEngine(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                   std::vector<double> q, const SteadyOptions& options)
      : assembler_(assembler), em_(em), gamma_(gamma), options_(options), q_(std::move(q)) {
    if (options.storage == JacobianStorage::split || options.storage == JacobianStorage::edges)
      throw std::invalid_argument("solve_steady: the " +
                                  std::string(storage_name(options.storage)) +
                                  " Jacobian storage runs on the CUDA backend only");
    r_ = assembler_.residual(q_);
    norm_ = solvers::norm(r_);
  }

  double residual_norm() override { return norm_; }

  bool implicit_step(double cfl, SteadyIteration& h) override {
    const std::vector<double> dt = local_time_steps(em_, q_, gamma_);
    solvers::Stopwatch assembly;
    mesh::BlockCsr<double> a = assembler_.jacobian(q_);
    for (int64_t i = 0; i < em_.n_nodes; ++i) {
      double* d = a.block(a.pattern->diag_index(i));
      const double shift = em_.node_volume[i] / (cfl * dt[i]);
      for (int k = 0; k < kB; ++k) d[k * kB + k] += shift;
    }
    h.assembly_seconds = assembly.seconds();

    solvers::Stopwatch setup;
    std::unique_ptr<solvers::BlockIlu0> ilu;
    std::unique_ptr<solvers::BlockJacobi> jacobi;
    std::unique_ptr<solvers::MulticolorGaussSeidel> sgs;
    solvers::LinearOperator precondition;
    switch (options_.preconditioner) {
      case SteadyPreconditioner::block_ilu0:
        ilu = std::make_unique<solvers::BlockIlu0>(a);
        precondition = [&](std::span<const double> x, std::span<double> y) { ilu->apply(x, y); };
        break;
      case SteadyPreconditioner::block_jacobi:
        jacobi = std::make_unique<solvers::BlockJacobi>(a);
        precondition = [&](std::span<const double> x, std::span<double> y) { jacobi->apply(x, y); };
        break;
      case SteadyPreconditioner::automatic:
      case SteadyPreconditioner::multicolor_sgs:
        sgs = std::make_unique<solvers::MulticolorGaussSeidel>(a, options_.gauss_seidel_sweeps);
        precondition = [&](std::span<const double> x, std::span<double> y) { sgs->apply(x, y); };
        break;
    }
    h.preconditioner_seconds = setup.seconds();

    solvers::Stopwatch krylov;
    solvers::GmresOptions linear = options_.linear;
    linear.rtol = h.linear_rtol;
    std::vector<double> b(q_.size()), dq(q_.size(), 0.0);
    for (size_t k = 0; k < b.size(); ++k) b[k] = -r_[k];
    const solvers::GmresResult g = solvers::gmres(
        [&](std::span<const double> x, std::span<double> y) { solvers::multiply(a, x, y); },
        precondition, b, dq, linear);
    h.linear_iterations = g.iterations;
    h.linear_residual = g.initial_residual > 0 ? g.residual / g.initial_residual : 0;
    h.krylov_seconds = krylov.seconds();

    std::vector<double> q_old = q_;
    for (size_t k = 0; k < q_.size(); ++k) q_[k] += dq[k];
    if (physical()) {
      std::vector<double> r = assembler_.residual(q_);
      const double norm = solvers::norm(r);
      if (std::isfinite(norm)) {
        r_ = std::move(r);
        norm_ = norm;
        return true;
      }
    }
    q_ = std::move(q_old);
    return false;
  }

  void explicit_step(double cfl, bool measure) override {
    const std::vector<double> dt = local_time_steps(em_, q_, gamma_);
    for (int64_t i = 0; i < em_.n_nodes; ++i) {
      const double f = cfl * dt[i] / em_.node_volume[i];
      for (int k = 0; k < kB; ++k) q_[i * kB + k] -= f * r_[i * kB + k];
    }
    r_ = assembler_.residual(q_);
    if (measure) norm_ = solvers::norm(r_);
  }

  void read_state(std::vector<double>& q) override { q = q_; }

 private:
  // Whether every node's density and pressure are positive and finite.
  bool physical() const {
    for (int64_t i = 0; i < em_.n_nodes; ++i) {
      const double* s = &q_[i * kB];
      const double p =
          (gamma_ - 1) * (s[4] - 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / s[0]);
      if (!(s[0] > 0) || !(p > 0) || !std::isfinite(s[0]) || !std::isfinite(p)) return false;
    }
    return true;
  }

  assembly::Assembler& assembler_;
  const EdgeMesh& em_;
  double gamma_;
  SteadyOptions options_;
  std::vector<double> q_, r_;
  double norm_ = 0;
};

}  // namespace

std::unique_ptr<SteadyEngine> host_steady_engine(assembly::Assembler& assembler, const EdgeMesh& em,
                                                 double gamma, std::vector<double> q,
                                                 const SteadyOptions& options) {
  return std::make_unique<HostSteadyEngine>(assembler, em, gamma, std::move(q), options);
}

}  // namespace dualjit::cfd

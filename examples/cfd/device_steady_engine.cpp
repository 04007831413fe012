#include "examples/cfd/device_steady_engine.h"

#include <cmath>
#include <stdexcept>

#include "backends/cuda/driver.h"
#include "examples/cfd/device_pseudo_time.h"
#include "solvers/device_gmres.h"
#include "solvers/stopwatch.h"

namespace dualjit::cfd {
namespace {

constexpr int kB = 5;

solvers::DevicePreconditioner device_preconditioner(SteadyPreconditioner p) {
  switch (p) {
    case SteadyPreconditioner::automatic:
    case SteadyPreconditioner::multicolor_sgs:
      return solvers::DevicePreconditioner::multicolor_sgs;
    case SteadyPreconditioner::block_jacobi:
      return solvers::DevicePreconditioner::block_jacobi;
    case SteadyPreconditioner::block_ilu0:
      break;
  }
  throw std::invalid_argument(
      "solve_steady: block ILU(0) runs on the CPU backend only (its triangular solves are "
      "sequential); on the GPU use multicolor_sgs or block_jacobi");
}

class DeviceSteadyEngine final : public SteadyEngine {
 public:
  DeviceSteadyEngine(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                     const std::vector<double>& q, const SteadyOptions& options)
      : assembler_(assembler),
        options_(options),
        preconditioner_(device_preconditioner(options.preconditioner)),
        pseudo_time_(em, gamma),
        gmres_(em.n_nodes, kB, options.linear.restart),
        dq_(q.size() * sizeof(double)),
        q_old_(q.size() * sizeof(double)) {
    assembler_.set_state(q);
    r_ = assembler_.run_residual();
    norm_ = gmres_.norm(r_);
  }

  double residual_norm() override { return norm_; }

  bool implicit_step(double cfl, SteadyIteration& h) override {
    solvers::Stopwatch assembly;
    assembly::DeviceBsr general;
    assembly::DeviceSplitJacobian<double> split;
    if (split_) {
      split = assembler_.run_jacobian_split<double>(nullptr, off_order_);
      pseudo_time_.shift_diagonal(split, assembler_.state_device(), cfl);
    } else {
      general = assembler_.run_jacobian();
      pseudo_time_.shift_diagonal(general, assembler_.state_device(), cfl);
    }
    h.assembly_seconds = assembly.seconds();

    solvers::Stopwatch setup;
    if (split_) {
      gmres_.set_matrix(split, preconditioner_, options_.gauss_seidel_sweeps);
    } else {
      gmres_.set_matrix(general, preconditioner_, options_.gauss_seidel_sweeps);
    }
    cuda::check_last("solve_steady: preconditioner set-up");
    h.preconditioner_seconds = setup.seconds();

    solvers::Stopwatch krylov;
    solvers::GmresOptions linear = options_.linear;
    linear.rtol = h.linear_rtol;
    // b = -R: GMRES is sign-equivariant, so solve with R and subtract.
    dq_.fill_bytes(0);
    const solvers::GmresResult g = gmres_.solve(r_, reinterpret_cast<double*>(dq_.get()), linear);
    h.linear_iterations = g.iterations;
    h.linear_residual = g.initial_residual > 0 ? g.residual / g.initial_residual : 0;
    h.krylov_seconds = krylov.seconds();

    double* q = assembler_.state_device();
    cuda::copy_on_device(reinterpret_cast<void*>(q_old_.get()), q, q_old_.bytes());
    pseudo_time_.subtract(q, reinterpret_cast<double*>(dq_.get()));
    if (pseudo_time_.physical(q)) {
      r_ = assembler_.run_residual();
      norm_ = gmres_.norm(r_);
      if (std::isfinite(norm_)) return true;
    }
    cuda::copy_on_device(q, reinterpret_cast<const void*>(q_old_.get()), q_old_.bytes());
    r_ = assembler_.run_residual();
    norm_ = gmres_.norm(r_);
    return false;
  }

  void explicit_step(double cfl, bool measure) override {
    pseudo_time_.explicit_step(assembler_.state_device(), r_, cfl, measure);
    r_ = assembler_.run_residual();
    if (measure) norm_ = gmres_.norm(r_);
  }

  void read_state(std::vector<double>& q) override {
    cuda::check_last("solve_steady");
    cuda::download(q.data(), assembler_.state_device(), q.size() * sizeof(double));
  }

 private:
  assembly::Assembler& assembler_;
  SteadyOptions options_;
  solvers::DevicePreconditioner preconditioner_;
  bool split_ = options_.storage != JacobianStorage::block_csr;
  assembly::OffOrder off_order_ = options_.storage == JacobianStorage::edges
                                      ? assembly::OffOrder::elements
                                      : assembly::OffOrder::rows;
  DevicePseudoTime pseudo_time_;
  solvers::DeviceGmres gmres_;
  cuda::DeviceBuffer dq_, q_old_;
  const double* r_ = nullptr;
  double norm_ = 0;
};

}  // namespace

std::unique_ptr<SteadyEngine> device_steady_engine(assembly::Assembler& assembler,
                                                   const EdgeMesh& em, double gamma,
                                                   const std::vector<double>& q,
                                                   const SteadyOptions& options) {
  return std::make_unique<DeviceSteadyEngine>(assembler, em, gamma, q, options);
}

}  // namespace dualjit::cfd

// What the optimisation solvers minimise: an energy over n_dofs = n_nodes x block_size values
// with its gradient, its Hessian as block CSR, and Hessian-vector products. All host memory.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/mesh/block_csr.h"

namespace dualjit::solvers {

class Objective {
 public:
  virtual ~Objective() = default;

  virtual int64_t n_dofs() const = 0;
  // DOFs per node: the block size of hessian() (DOF d belongs to node d / block_size()).
  virtual int block_size() const = 0;

  virtual double energy(std::span<const double> x) = 0;
  virtual std::vector<double> gradient(std::span<const double> x) = 0;
  // The Hessian as the objective is configured (exact, or PD-projected where the objective
  // offers that), over a General pattern (both triangles stored) with square blocks. Newton
  // solves with it; it need not equal what hvp() multiplies by.
  virtual mesh::BlockCsr<double> hessian(std::span<const double> x) = 0;
  // H(x) v of the exact Hessian, without forming it (Newton-CG).
  virtual std::vector<double> hvp(std::span<const double> x, std::span<const double> v) = 0;
  // hessian(x) left in GPU memory, for linear solvers there (device_pcg.h); null when the
  // objective does not evaluate on a GPU. Valid until the next evaluation.
  virtual const assembly::DeviceBsr* device_hessian(std::span<const double> x);
};

// An Objective over an Assembler's energy terms (host calls). hessian() returns what the
// assembler's options configure, so a projection chosen there reaches Newton unchanged.
class AssemblerObjective : public Objective {
 public:
  // `assembler` must outlive this object.
  explicit AssemblerObjective(assembly::Assembler& assembler) : a_(assembler) {}

  int64_t n_dofs() const override;
  int block_size() const override;
  double energy(std::span<const double> x) override;
  std::vector<double> gradient(std::span<const double> x) override;
  mesh::BlockCsr<double> hessian(std::span<const double> x) override;
  std::vector<double> hvp(std::span<const double> x, std::span<const double> v) override;
  // On the CUDA backend: the state uploaded and run_hessian() (General); else null.
  const assembly::DeviceBsr* device_hessian(std::span<const double> x) override;

  assembly::Assembler& assembler() const { return a_; }

 private:
  assembly::Assembler& a_;
  assembly::DeviceBsr device_hessian_;
};

}  // namespace dualjit::solvers

// What the optimisation solvers minimise: an energy over n_dofs = n_nodes x block_size values
// with its gradient, its Hessian as block CSR, and Hessian-vector products. Its vectors live in
// its space (vector_space.h): host memory, or GPU memory for an objective that evaluates there,
// so that the solvers' iterations stay on the device.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/mesh/block_csr.h"
#include "solvers/vector_space.h"

namespace dualjit::solvers {

class Objective {
 public:
  virtual ~Objective() = default;

  virtual int64_t n_dofs() const = 0;
  // DOFs per node: the block size of hessian() (DOF d belongs to node d / block_size()).
  virtual int block_size() const = 0;
  // Where x and every vector below live; the solvers make theirs here.
  virtual const VectorSpace& space() const = 0;

  virtual double energy(const Vector& x) = 0;
  // g = the gradient at x (g has n_dofs() values).
  virtual void gradient(const Vector& x, Vector& g) = 0;
  // The Hessian as the objective is configured (exact, or PD-projected where the objective
  // offers that), over a General pattern (both triangles stored) with square blocks, in host
  // memory. Newton solves with it; it need not equal what hvp() multiplies by.
  virtual mesh::BlockCsr<double> hessian(const Vector& x) = 0;
  // hv = H(x) v of the exact Hessian, without forming it (Newton-CG).
  virtual void hvp(const Vector& x, const Vector& v, Vector& hv) = 0;
  // hessian(x) left in GPU memory, for linear solvers there (device_pcg.h); null when the
  // objective does not evaluate on a GPU. Valid until the next evaluation.
  virtual const assembly::DeviceBsr* device_hessian(const Vector& x);
};

// An Objective over an Assembler's energy terms. hessian() returns what the assembler's options
// configure, so a projection chosen there reaches Newton unchanged. On the CUDA backend its
// vectors are device vectors, passed to the assembler's device runs without leaving the GPU.
class AssemblerObjective : public Objective {
 public:
  // `assembler` must outlive this object.
  explicit AssemblerObjective(assembly::Assembler& assembler);
  ~AssemblerObjective() override;

  int64_t n_dofs() const override;
  int block_size() const override;
  const VectorSpace& space() const override { return *space_; }
  double energy(const Vector& x) override;
  void gradient(const Vector& x, Vector& g) override;
  mesh::BlockCsr<double> hessian(const Vector& x) override;
  void hvp(const Vector& x, const Vector& v, Vector& hv) override;
  // On the CUDA backend: run_hessian() (General) at x; else null.
  const assembly::DeviceBsr* device_hessian(const Vector& x) override;

  assembly::Assembler& assembler() const { return a_; }

 private:
  bool on_gpu() const;
  void check(const Vector& v, const char* call, const char* what) const;
  // Copies x into the assembler's device state.
  void set_device_state(const Vector& x);

  assembly::Assembler& a_;
  std::unique_ptr<VectorSpace> device_space_;
  const VectorSpace* space_;
  assembly::DeviceBsr device_hessian_;
};

}  // namespace dualjit::solvers

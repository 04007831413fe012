// Multicoloured symmetric block Gauss-Seidel as a preconditioner: with the nodes ordered by
// colour (node_coloring.h), z = (D + U)^-1 D (D + L)^-1 r, one forward sweep over the colours
// from z = 0 and one backward sweep, each colour's nodes updated independently. Stronger than
// block Jacobi, and unlike ILU(0) each sweep is parallel over a colour's nodes: the GPU form is
// DeviceGmres's multicolor_sgs, which this matches to round-off.
#pragma once

#include <span>
#include <vector>

#include "backends/mesh/block_csr.h"
#include "solvers/block_jacobi.h"
#include "solvers/node_coloring.h"

namespace dualjit::solvers {

class MulticolorGaussSeidel {
 public:
  // Square blocks over a structurally symmetric pattern with diagonal; `sweeps` symmetric
  // sweeps (a fixed linear operator for any count, as GMRES needs). Throws SolverError naming
  // the node whose diagonal block is singular or not finite. a must outlive the preconditioner.
  explicit MulticolorGaussSeidel(const mesh::BlockCsr<double>& a, int sweeps = 1);

  // z = M^-1 r. r and z must not alias.
  void apply(std::span<const double> r, std::span<double> z) const;
  const NodeColoring& coloring() const { return coloring_; }

 private:
  void relax(int color, std::span<const double> r, std::span<double> z) const;

  const mesh::BlockCsr<double>* a_;
  int sweeps_;
  BlockJacobi diagonal_;
  NodeColoring coloring_;
};

}  // namespace dualjit::solvers

// The method of manufactured solutions for the steady Euler residual (roe_problem.h): a smooth
// state Q_m(x) that no boundary condition or stream produces, made the steady solution of the
// discrete problem up to the discretisation error by adding to each node the flux of Q_m out
// of its median-dual cell (midpoint rule on each dual face) and by taking Q_m at the boundary
// nodes as their far-field state. Solved with steady_euler.h, the error |Q - Q_m| falls at the
// scheme's first order under refinement.
#pragma once

#include <array>
#include <vector>

#include "backends/assembly/problem.h"
#include "dsl/kernel.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/tet_mesh.h"

namespace dualjit::cfd {

// Conservative Q_m at a point: density, velocity and pressure smooth sines over [0, 1]^3
// around a Mach 0.4 stream, positive everywhere.
std::array<double, 5> manufactured_state(const double x[3], double gamma);

// Q_m at every node (n_nodes x 5).
std::vector<double> manufactured_nodes(const TetMesh& mesh, double gamma);

// Kernel "roe_farfield_state": input Q[5]; params S[3], Qb[5] (the node's own far-field state);
// uniform gamma; output F[5] = Roe flux from Q to Qb through S.
Kernel roe_farfield_state_kernel();

// Kernel "source": input Q[5] (unused: the source is constant); param s[5]; output -s.
Kernel constant_source_kernel();

// Interior Roe edges, far field against Q_m at every boundary node, and at every node minus
// the flux of Q_m out of its dual cell.
assembly::Problem manufactured_problem(const EdgeMesh& em, const TetMesh& mesh, double gamma);

}  // namespace dualjit::cfd

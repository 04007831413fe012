// The node-centred finite-volume residual of the Euler equations on a median-dual edge mesh,
// as a dualjit Problem: interior edges carry the Roe flux (+F at v0, -F at v1); boundary nodes
// carry a characteristic far-field flux, the Roe flux between the node's state and the free
// stream through the node's outward boundary area, or a slip wall's pressure flux. The Jacobian of
// this residual is the FUN3D-style operator (Adiag per node, Aoff per node pair).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "backends/assembly/problem.h"
#include "examples/cfd/boundary.h"
#include "examples/cfd/edge_mesh.h"

namespace dualjit::cfd {

struct FreeStream {
  double mach = 0.5;
  double alpha_deg = 3.0;  // angle of attack, in the x-z plane
  double beta_deg = 0.0;   // sideslip
  double gamma = 1.4;
  // Conservative state with rho = 1, p = 1/gamma (so the speed of sound is 1).
  std::array<double, 5> conservative() const;
};

// Kernel "roe_farfield": input Q[5]; param S[3] (outward boundary area); uniforms gamma,
// Qinf0..Qinf4; output F[5] = Roe flux from Q to the free stream through S.
Kernel roe_farfield_kernel();

// The term "interior edges": roe_flux over em.edges, +F at v0 and -F at v1, through the edges'
// dual-face areas (every problem of this example starts with it).
assembly::Term roe_edge_term(const EdgeMesh& em, double gamma);

// Term 0: "interior edges" (roe_edge_term); term 1: "far-field nodes" (roe_farfield
// over the nodes with a boundary area), when `with_boundary` and the mesh has a boundary.
assembly::Problem roe_problem(const EdgeMesh& em, const FreeStream& inf = {},
                              bool with_boundary = true);

// The same with the boundary split by kind (boundary.h): "far-field nodes" over the nodes with
// a far-field area, then "slip-wall nodes" (roe_slip_wall) over those with a wall area, each
// term present when some node has such an area.
assembly::Problem roe_problem(const EdgeMesh& em, const FreeStream& inf,
                              const BoundaryAreas& boundary);

// The free stream at every node (n_nodes x 5, conservative).
std::vector<double> free_stream_state(int64_t n_nodes, const FreeStream& inf);

// The free stream with independent uniform noise at every node: density and pressure scaled
// by 1 +- `amplitude` (positive for amplitude < 1), each velocity component shifted by
// +- `amplitude` (in units of the free-stream speed of sound). A state whose Jacobian
// exercises every entry, reproducible from `seed`; not smooth in space.
std::vector<double> perturbed_state(int64_t n_nodes, const FreeStream& inf, double amplitude,
                                    uint64_t seed);

}  // namespace dualjit::cfd

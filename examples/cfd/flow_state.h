// Quantities of a node's conservative Euler state (rho, rho u, rho v, rho w, E), on the host:
// the pressure, and the entropy error of a solution against the free stream, the measure of a
// subsonic solution's accuracy (entropy is constant in smooth subsonic flow).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "examples/cfd/edge_mesh.h"

namespace dualjit::cfd {

// p = (gamma - 1) (E - |rho u|^2 / (2 rho)) of the state at q[0..4].
double pressure(const double* q, double gamma);

// Volume-weighted RMS over the nodes of s / s_inf - 1, s = p / rho^gamma, s_inf = 1 / gamma
// (FreeStream's rho = 1, p = 1 / gamma); over the nodes `include` accepts when it is given.
double entropy_error(const EdgeMesh& em, std::span<const double> q, double gamma,
                     const std::function<bool(int64_t)>& include = {});

}  // namespace dualjit::cfd

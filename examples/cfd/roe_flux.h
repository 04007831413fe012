// The 3D Roe approximate Riemann flux for a perfect gas, written once in the DSL as a
// function of the conservative states (so derivatives are taken with respect to
// conservative variables directly) and the edge's directed dual-face area vector.
#pragma once

#include "dsl/kernel.h"

namespace dualjit::cfd {

// Q = (rho, rho u, rho v, rho w, E). Returns the flux through a face of area |S| with unit
// normal S/|S|, from the left state QL into the right state QR.
//
// Entropy fix (Harten): an acoustic eigenvalue |qn -+ c| below delta = entropy_fix * c is
// replaced by (lambda^2 + delta^2) / (2 delta), which keeps it smooth and positive at sonic
// points; the contact/shear eigenvalue is left as |qn|.
std::vector<Expr> roe_flux(const std::vector<Expr>& QL, const std::vector<Expr>& QR,
                           const Vec<3>& S, const Expr& gamma, double entropy_fix = 0.1);

// Physical Euler flux F(Q) . n (unscaled), for consistency checks.
std::vector<Expr> euler_flux(const std::vector<Expr>& Q, const Vec<3>& n, const Expr& gamma);

// Kernel "roe_flux": inputs QL[5], QR[5]; param S[3]; uniform gamma; output F[5].
Kernel roe_flux_kernel();

}  // namespace dualjit::cfd

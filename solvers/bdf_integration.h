// integrate_stiff's BDF method (stiff_integrator.h), per system as SciPy's BDF (Shampine and
// Reichelt's NDF of orders 1-5 in backward-difference form): each attempt predicts from the
// differences, runs up to four modified Newton iterations on (I - c J) with c = h / alpha_q,
// and estimates the error from the correction. The Jacobian is re-evaluated (at the
// prediction) only when an iteration fails to converge with an old one; the LU is refreshed
// when the step or the order changes, which the controller does only after q + 1 equal steps
// or a failure. The batched work is a BdfEngine's (bdf_engine.h).
#pragma once

#include <span>

#include "solvers/stiff_integrator.h"

namespace dualjit::solvers {

// The arguments as integrate_stiff has checked them.
StiffReport integrate_bdf(StiffSystem& system, std::span<double> y, std::span<const double> t_end,
                          const StiffOptions& options);

}  // namespace dualjit::solvers

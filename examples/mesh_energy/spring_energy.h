// The mass-spring edge energy: the smallest mesh energy with a non-trivial Hessian.
#pragma once

#include "dsl/kernel.h"

namespace dualjit::mesh_energy {

// Kernel "spring_energy": inputs xa[3], xb[3]; param rest_length; uniform stiffness;
// output 0.5 k L (|xa - xb| / L - 1)^2.
Kernel spring_energy_kernel();

}  // namespace dualjit::mesh_energy

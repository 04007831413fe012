#include "examples/mesh_energy/spring_energy.h"

namespace dualjit::mesh_energy {

Kernel spring_energy_kernel() {
  return Kernel("spring_energy", [](KernelBuilder& kb) {
    auto xa = kb.input_vec<3>("xa");
    auto xb = kb.input_vec<3>("xb");
    auto rest = kb.param("rest_length", 1);
    Expr k = kb.uniform("stiffness");
    Expr stretch = norm(xa - xb) / rest[0] - 1.0;
    kb.output("energy", 0.5 * k * rest[0] * stretch * stretch);
  });
}

}  // namespace dualjit::mesh_energy

#include "examples/cfd/flow_state.h"

#include <cmath>

namespace dualjit::cfd {

double pressure(const double* q, double gamma) {
  return (gamma - 1) * (q[4] - 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) / q[0]);
}

double entropy_error(const EdgeMesh& em, std::span<const double> q, double gamma,
                     const std::function<bool(int64_t)>& include) {
  double sum = 0, volume = 0;
  for (int64_t i = 0; i < em.n_nodes; ++i) {
    if (include && !include(i)) continue;
    const double* s = &q[i * 5];
    const double e = pressure(s, gamma) * gamma / std::pow(s[0], gamma) - 1;
    sum += em.node_volume[i] * e * e;
    volume += em.node_volume[i];
  }
  return std::sqrt(sum / volume);
}

}  // namespace dualjit::cfd

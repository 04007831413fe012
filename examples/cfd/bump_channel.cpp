#include "examples/cfd/bump_channel.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace dualjit::cfd {

TetMesh bump_channel_mesh(int nx, int ny, int nz, const BumpChannel& c) {
  if (!(c.bump_start >= 0 && c.bump_start < c.bump_end && c.bump_end <= c.length) ||
      !(c.bump_height >= 0 && c.bump_height < 0.5 * c.height))
    throw std::invalid_argument("bump_channel_mesh: the bump [" + std::to_string(c.bump_start) +
                                ", " + std::to_string(c.bump_end) + "] of height " +
                                std::to_string(c.bump_height) + " does not fit a channel of " +
                                std::to_string(c.length) + " by " + std::to_string(c.height));
  TetMesh mesh = box_tet_mesh(nx, ny, nz, c.length, c.width, c.height);
  for (int64_t i = 0; i < mesh.n_nodes; ++i) {
    double* x = &mesh.xyz[i * 3];
    double floor = 0;
    if (x[0] > c.bump_start && x[0] < c.bump_end) {
      const double s =
          std::sin(std::numbers::pi * (x[0] - c.bump_start) / (c.bump_end - c.bump_start));
      floor = c.bump_height * s * s;
    }
    x[2] = floor + x[2] * (c.height - floor) / c.height;
  }
  return mesh;
}

BoundaryAreas bump_channel_boundary(const EdgeMesh& em, const TetMesh& mesh, const BumpChannel& c) {
  const double eps = 1e-9 * c.length;
  return classify_boundary(
      em, mesh, [&](const std::array<double, 3>& centroid, const std::array<double, 3>&) {
        return centroid[0] < eps || centroid[0] > c.length - eps ? BoundaryKind::farfield
                                                                 : BoundaryKind::slip_wall;
      });
}

}  // namespace dualjit::cfd

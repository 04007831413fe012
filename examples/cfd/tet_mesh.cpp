#include "examples/cfd/tet_mesh.h"

#include <array>
#include <limits>
#include <stdexcept>
#include <string>

namespace dualjit::cfd {

namespace {

double signed_volume(const double* a, const double* b, const double* c, const double* d) {
  const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
  return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
          u[2] * (v[0] * w[1] - v[1] * w[0])) /
         6.0;
}

}  // namespace

TetMesh box_tet_mesh(int nx, int ny, int nz, double lx, double ly, double lz) {
  if (nx < 1 || ny < 1 || nz < 1)
    throw std::invalid_argument("box_tet_mesh: cell counts must be positive, got " +
                                std::to_string(nx) + "x" + std::to_string(ny) + "x" +
                                std::to_string(nz));
  if (!(lx > 0) || !(ly > 0) || !(lz > 0))
    throw std::invalid_argument("box_tet_mesh: box lengths must be positive");
  const int64_t px = nx + 1, py = ny + 1, pz = nz + 1;
  const int64_t n_nodes = px * py * pz;
  if (n_nodes > std::numeric_limits<int32_t>::max())
    throw std::invalid_argument("box_tet_mesh: " + std::to_string(n_nodes) +
                                " nodes do not fit 32-bit indices");

  TetMesh mesh;
  mesh.n_nodes = n_nodes;
  mesh.xyz.resize(static_cast<size_t>(n_nodes) * 3);
  for (int64_t k = 0; k < pz; ++k)
    for (int64_t j = 0; j < py; ++j)
      for (int64_t i = 0; i < px; ++i) {
        double* p = &mesh.xyz[static_cast<size_t>((i + px * (j + py * k)) * 3)];
        // Multiply before dividing so that the far faces land exactly on lx, ly, lz.
        p[0] = lx * static_cast<double>(i) / nx;
        p[1] = ly * static_cast<double>(j) / ny;
        p[2] = lz * static_cast<double>(k) / nz;
      }

  // Kuhn split: one tet per ordering (p0, p1, p2) of the axes, along the path of cell corners
  // 0 -> e_p0 -> e_p0 + e_p1 -> (1,1,1). Corners are numbered by bits (x = 1, y = 2, z = 4).
  // An odd ordering gives a negatively oriented path, fixed by swapping the last two corners.
  constexpr std::array<std::array<int, 3>, 6> kAxisOrders = {
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  constexpr std::array<bool, 6> kOdd = {false, true, true, false, false, true};
  std::array<std::array<int, 4>, 6> kuhn{};
  for (int p = 0; p < 6; ++p) {
    const int c1 = 1 << kAxisOrders[p][0];
    const int c2 = c1 | (1 << kAxisOrders[p][1]);
    kuhn[p] = kOdd[p] ? std::array<int, 4>{0, c1, 7, c2} : std::array<int, 4>{0, c1, c2, 7};
  }

  mesh.tets.resize(static_cast<size_t>(nx) * ny * nz * 24);
  size_t out = 0;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        std::array<int32_t, 8> corner{};
        for (int c = 0; c < 8; ++c)
          corner[c] = static_cast<int32_t>((i + (c & 1)) +
                                           px * ((j + ((c >> 1) & 1)) + py * (k + ((c >> 2) & 1))));
        for (const auto& t : kuhn)
          for (int v = 0; v < 4; ++v) mesh.tets[out++] = corner[t[v]];
      }
  return mesh;
}

double tet_signed_volume(const TetMesh& mesh, int64_t t) {
  if (t < 0 || t >= mesh.n_tets())
    throw std::out_of_range("tet_signed_volume: tet " + std::to_string(t) + " out of range [0, " +
                            std::to_string(mesh.n_tets()) + ")");
  const int32_t* v = &mesh.tets[static_cast<size_t>(t) * 4];
  for (int k = 0; k < 4; ++k)
    if (v[k] < 0 || v[k] >= mesh.n_nodes)
      throw std::out_of_range("tet_signed_volume: tet " + std::to_string(t) + " references node " +
                              std::to_string(v[k]) + " outside [0, " +
                              std::to_string(mesh.n_nodes) + ")");
  const double* x = mesh.xyz.data();
  return signed_volume(x + 3 * static_cast<size_t>(v[0]), x + 3 * static_cast<size_t>(v[1]),
                       x + 3 * static_cast<size_t>(v[2]), x + 3 * static_cast<size_t>(v[3]));
}

double total_volume(const TetMesh& mesh) {
  double sum = 0;
  for (int64_t t = 0; t < mesh.n_tets(); ++t) sum += tet_signed_volume(mesh, t);
  return sum;
}

}  // namespace dualjit::cfd

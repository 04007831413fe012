#include "examples/mesh_energy/mesh_generators.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace dualjit::mesh_energy {

ClothGrid cloth_grid(int n) {
  if (n < 2 || int64_t(n) * n > std::numeric_limits<int32_t>::max())
    throw std::invalid_argument("cloth_grid: n = " + std::to_string(n) + " (at least 2)");
  ClothGrid g;
  g.n = n;
  const double h = 1.0 / (n - 1);
  g.mesh.x.resize(int64_t(n) * n * 3);
  const auto id = [n](int i, int j) { return static_cast<int32_t>(int64_t(i) * n + j); };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double* p = &g.mesh.x[int64_t(id(i, j)) * 3];
      p[0] = j * h, p[1] = 0.0, p[2] = i * h;
    }
  }
  const auto spring = [&](int32_t a, int32_t b) {
    g.springs.insert(g.springs.end(), {a, b});
    double d2 = 0;
    for (int c = 0; c < 3; ++c) {
      const double d = g.mesh.x[int64_t(a) * 3 + c] - g.mesh.x[int64_t(b) * 3 + c];
      d2 += d * d;
    }
    g.rest.push_back(std::sqrt(d2));
  };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int32_t v = id(i, j);
      if (j + 1 < n) spring(v, v + 1);
      if (i + 1 < n) spring(v, v + n);
      if (i + 1 < n && j + 1 < n) {
        spring(v, v + n + 1);
        // x runs with j and z with i, so (x, z) counter-clockwise seen from +y is v, v + n, ...
        g.mesh.faces.insert(g.mesh.faces.end(), {v, v + n, v + n + 1, v, v + n + 1, v + 1});
      }
    }
  }
  return g;
}

TriMesh disk(int rings) {
  if (rings < 1) throw std::invalid_argument("disk: rings = " + std::to_string(rings));
  TriMesh m;
  m.x = {0.0, 0.0, 0.0};
  const double pi = std::acos(-1.0);
  // Ring r starts at vertex 1 + 3 r (r - 1) and has 6 r vertices.
  const auto first = [](int r) { return r == 0 ? 0 : 1 + 3 * r * (r - 1); };
  for (int r = 1; r <= rings; ++r) {
    for (int k = 0; k < 6 * r; ++k) {
      const double a = 2 * pi * k / (6 * r), rad = double(r) / rings;
      m.x.insert(m.x.end(), {rad * std::cos(a), rad * std::sin(a), 0.0});
    }
  }
  const auto at = [&](int r, int k) {
    return static_cast<int32_t>(r == 0 ? 0 : first(r) + (k % (6 * r)));
  };
  for (int r = 1; r <= rings; ++r) {
    // Each of the 6 sectors: vertices k = s r + t of ring r against s (r - 1) + t of ring r - 1.
    for (int s = 0; s < 6; ++s) {
      for (int t = 0; t < r; ++t) {
        const int outer = s * r + t, inner = s * (r - 1) + t;
        m.faces.insert(m.faces.end(), {at(r - 1, inner), at(r, outer), at(r, outer + 1)});
        if (t + 1 < r) {
          m.faces.insert(m.faces.end(), {at(r - 1, inner), at(r, outer + 1), at(r - 1, inner + 1)});
        }
      }
    }
  }
  return m;
}

TriMesh icosphere(int level) {
  if (level < 0 || level > 12)
    throw std::invalid_argument("icosphere: level = " + std::to_string(level) + " (0 to 12)");
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  TriMesh m;
  m.x = {-1, t,  0,  1, t, 0,  -1, -t, 0,  1, -t, 0, 0,  -1, t,  0,  1, t,
         0,  -1, -t, 0, 1, -t, t,  0,  -1, t, 0,  1, -t, 0,  -1, -t, 0, 1};
  m.faces = {0, 11, 5,  0, 5,  1, 0, 1, 7, 0, 7,  10, 0, 10, 11, 1, 5, 9, 5, 11,
             4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3,  9,  4, 3,  4,  2, 3, 2, 6, 3,
             6, 8,  3,  8, 9,  4, 9, 5, 2, 4, 11, 6,  2, 10, 8,  6, 7, 9, 8, 1};
  const auto project = [](TriMesh& s) {
    for (int64_t v = 0; v < s.n_vertices(); ++v) {
      double* p = &s.x[v * 3];
      const double r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      for (int c = 0; c < 3; ++c) p[c] /= r;
    }
  };
  project(m);
  for (int l = 0; l < level; ++l) {
    m = subdivide(m);
    project(m);
  }
  return m;
}

TriMesh lumpy_ellipsoid(int level) {
  TriMesh m = icosphere(level);
  const double c1[3] = {0.6, 0.6, 0.53}, c2[3] = {-0.7, -0.2, -0.68};
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    double* p = &m.x[v * 3];
    double d1 = 0, d2 = 0;
    for (int k = 0; k < 3; ++k) d1 += (p[k] - c1[k]) * (p[k] - c1[k]);
    for (int k = 0; k < 3; ++k) d2 += (p[k] - c2[k]) * (p[k] - c2[k]);
    const double r = 1 + 0.45 * std::exp(-6 * d1) + 0.3 * std::exp(-8 * d2);
    p[0] *= 1.8 * r, p[1] *= r, p[2] *= 0.7 * r;
  }
  return m;
}

}  // namespace dualjit::mesh_energy

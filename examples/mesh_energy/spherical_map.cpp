#include "examples/mesh_energy/spherical_map.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "dsl/mat.h"
#include "examples/mesh_energy/injective_bound.nvrtc.h"  // det3
#include "examples/mesh_energy/mesh_checks.h"
#include "examples/mesh_energy/parameterization.h"
#include "examples/mesh_energy/symmetric_dirichlet.h"

namespace dualjit::mesh_energy {
namespace {

void cross(const double* a, const double* b, double* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

// A unit tangent at unit p: p crossed with the coordinate axis most orthogonal to it (never
// close to parallel, so the frame is well conditioned everywhere).
void any_tangent(const double* p, double* t) {
  int axis = 0;
  for (int c = 1; c < 3; ++c)
    if (std::abs(p[c]) < std::abs(p[axis])) axis = c;
  double e[3] = {0, 0, 0};
  e[axis] = 1;
  cross(e, p, t);
  const double n = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
  for (int c = 0; c < 3; ++c) t[c] /= n;
}

void check_closed_genus0(const TriMesh& m, const std::filesystem::path& source) {
  check_surface(m, source);
  const Topology t = topology(m);
  if (t.boundary_edges != 0) {
    throw MeshReadError(source, 0,
                        "not a closed surface: " + std::to_string(t.boundary_edges) +
                            " boundary edges (a spherical map needs none)");
  }
  if (t.euler_characteristic != 2) {
    throw MeshReadError(source, 0,
                        "not genus 0: Euler characteristic " +
                            std::to_string(t.euler_characteristic) + " (a sphere has 2)");
  }
}

}  // namespace

Kernel spherical_map_kernel() {
  return Kernel("spherical_map", [](KernelBuilder& kb) {
    std::array<Vec<2>, 3> u = {kb.input_vec<2>("u0"), kb.input_vec<2>("u1"), kb.input_vec<2>("u2")};
    std::array<Vec<3>, 3> x;
    for (int k = 0; k < 3; ++k) {
      const auto f = kb.param("frame" + std::to_string(k), 9);  // p, b1, b2
      const Vec<3> p = Vec<3>::from(f, 0), b1 = Vec<3>::from(f, 3), b2 = Vec<3>::from(f, 6);
      x[k] = normalized(p + b1 * u[k][0] + b2 * u[k][1]);
    }
    const auto rest = kb.param("rest", 5);  // Dm^-1 row-major, area
    const Expr mu = kb.uniform("barrier");
    const Mat2 dm_inv = Mat2::from_rows({Vec<2>({rest[0], rest[1]}), Vec<2>({rest[2], rest[3]})});
    const Mat<3, 2> j = Mat<3, 2>::from_cols({x[1] - x[0], x[2] - x[0]}) * dm_inv;
    const Mat2 g = transpose(j) * j;
    // |J|_F^2 + |J^+|_F^2 = tr G + tr G^-1 = tr G (1 + 1 / det G) for the 2x2 G.
    const Expr stretch = trace(g) * (1.0 + 1.0 / determinant(g));
    // log(0) = -inf past inversion: an infinite energy that a line search rejects.
    const Expr volume = max(dot(x[0], cross(x[1], x[2])), mu.constant(0.0));
    const Expr area = rest[4];
    kb.output("energy", area * (stretch - mu * log(volume / (2.0 * area))));
  });
}

int64_t count_inverted(std::span<const int32_t> faces, std::span<const double> points) {
  if (points.size() % 3 != 0 || faces.size() % 3 != 0) {
    throw std::invalid_argument("count_inverted: " + std::to_string(points.size()) + " point and " +
                                std::to_string(faces.size()) +
                                " face values (multiples of 3 expected)");
  }
  const int64_t nv = static_cast<int64_t>(points.size() / 3);
  int64_t n = 0;
  for (size_t f = 0; f < faces.size() / 3; ++f) {
    for (int c = 0; c < 3; ++c) {
      if (faces[f * 3 + c] < 0 || faces[f * 3 + c] >= nv) {
        throw std::invalid_argument("count_inverted: face " + std::to_string(f) + ": vertex " +
                                    std::to_string(faces[f * 3 + c]) + " out of range (" +
                                    std::to_string(nv) + " points)");
      }
    }
    const double d = det3(&points[faces[f * 3] * 3], &points[faces[f * 3 + 1] * 3],
                          &points[faces[f * 3 + 2] * 3]);
    if (!(d > 0)) ++n;
  }
  return n;
}

std::vector<double> gauss_map(const TriMesh& m) {
  double centre[3] = {0, 0, 0}, total = 0;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const double* a = &m.x[m.faces[f * 3] * 3];
    const double* b = &m.x[m.faces[f * 3 + 1] * 3];
    const double* c = &m.x[m.faces[f * 3 + 2] * 3];
    double e1[3], e2[3], n[3];
    for (int k = 0; k < 3; ++k) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
    cross(e1, e2, n);
    const double area = 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; ++k) centre[k] += area * (a[k] + b[k] + c[k]) / 3;
    total += area;
  }
  for (double& c : centre) c = total > 0 ? c / total : 0.0;
  std::vector<double> out(m.x.size());
  for (int64_t v = 0; v < m.n_vertices(); ++v) {
    double d[3], n = 0;
    for (int k = 0; k < 3; ++k) d[k] = m.x[v * 3 + k] - centre[k], n += d[k] * d[k];
    n = std::sqrt(n);
    // A vertex at the centre has no direction; any point will do, count_inverted judges.
    for (int k = 0; k < 3; ++k) out[v * 3 + k] = n > 0 ? d[k] / n : (k == 2 ? 1.0 : 0.0);
  }
  return out;
}

std::vector<double> stereographic_tutte_map(const TriMesh& m, const std::filesystem::path& source) {
  check_closed_genus0(m, source);
  // The disk: every face but those around vertex 0, vertices renumbered without it.
  TriMesh disk_mesh;
  disk_mesh.x.assign(m.x.begin() + 3, m.x.end());
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const int32_t* v = &m.faces[f * 3];
    if (v[0] == 0 || v[1] == 0 || v[2] == 0) continue;
    disk_mesh.faces.insert(disk_mesh.faces.end(), {v[0] - 1, v[1] - 1, v[2] - 1});
  }
  const std::filesystem::path disk_source = source.string() + " without vertex 0";
  const std::vector<double> uv = tutte_embedding(disk_mesh, disk_source);
  // Each planar triangle keeps its orientation on the sphere while s^2 D2 < D1, with
  // D1 = det[x y 1] (twice its area) and D2 = det[x y |x|^2] (sigma below multiplies the
  // determinant by a positive factor times D1 s^2 - D2 s^4).
  double s2 = 1.0;
  for (int64_t f = 0; f < disk_mesh.n_faces(); ++f) {
    double x[3], y[3], r[3];
    for (int c = 0; c < 3; ++c) {
      const int32_t v = disk_mesh.faces[f * 3 + c];
      x[c] = uv[v * 2], y[c] = uv[v * 2 + 1], r[c] = x[c] * x[c] + y[c] * y[c];
    }
    const double d1 = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    const double d2 = x[0] * (y[1] * r[2] - r[1] * y[2]) - y[0] * (x[1] * r[2] - r[1] * x[2]) +
                      r[0] * (x[1] * y[2] - y[1] * x[2]);
    if (!(d1 > 0)) {
      throw MeshReadError(disk_source, 0,
                          "face " + std::to_string(f) + " flips in Tutte's embedding");
    }
    if (d2 > 0) s2 = std::min(s2, 0.5 * d1 / d2);
  }
  const double s = std::sqrt(s2);
  // sigma(q) = (2 q, 1 - |q|^2) / (1 + |q|^2): the origin to the north pole, infinity (the
  // removed vertex) to the south pole, orientation kept for the disk's counter-clockwise
  // triangles and for the removed vertex's, whose far edges run clockwise on the circle.
  std::vector<double> out(m.x.size());
  out[0] = 0, out[1] = 0, out[2] = -1;
  for (int64_t v = 0; v < disk_mesh.n_vertices(); ++v) {
    const double qx = s * uv[v * 2], qy = s * uv[v * 2 + 1], q2 = qx * qx + qy * qy;
    double* p = &out[(v + 1) * 3];
    p[0] = 2 * qx / (1 + q2), p[1] = 2 * qy / (1 + q2), p[2] = (1 - q2) / (1 + q2);
  }
  return out;
}

SphericalMap::SphericalMap(TriMesh mesh, std::filesystem::path source, double barrier)
    : SphericalMap(std::move(mesh), std::move(source), {}, barrier) {}

SphericalMap::SphericalMap(TriMesh mesh, std::filesystem::path source, std::vector<double> points,
                           double barrier)
    : mesh_(std::move(mesh)),
      source_(std::move(source)),
      barrier_(barrier),
      kernel_(std::make_shared<Kernel>(spherical_map_kernel())) {
  check_closed_genus0(mesh_, source_);
  if (!(barrier_ > 0) || !std::isfinite(barrier_)) {
    throw std::invalid_argument(source_.string() + ": spherical map barrier weight " +
                                std::to_string(barrier_) + " (positive expected)");
  }
  // The rest shapes, scaled so that the rest area is the sphere's.
  rest_ = symmetric_dirichlet_params(mesh_, source_);
  double area = 0;
  for (int64_t f = 0; f < mesh_.n_faces(); ++f) area += rest_[f * 5 + 4];
  const double s = std::sqrt(4 * std::acos(-1.0) / area);
  for (int64_t f = 0; f < mesh_.n_faces(); ++f) {
    for (int k = 0; k < 4; ++k) rest_[f * 5 + k] /= s;
    rest_[f * 5 + 4] *= s * s;
  }
  if (points.empty()) {
    points = gauss_map(mesh_);
    if (count_inverted(mesh_.faces, points) > 0) {
      points = stereographic_tutte_map(mesh_, source_);
      fallback_ = true;
    }
  } else if (static_cast<int64_t>(points.size()) != mesh_.n_vertices() * 3) {
    throw std::invalid_argument(source_.string() + ": " + std::to_string(points.size()) +
                                " point values for " + std::to_string(mesh_.n_vertices()) +
                                " vertices");
  }
  for (int64_t v = 0; v < mesh_.n_vertices(); ++v) {
    double* p = &points[v * 3];
    const double n = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (!(n > 0) || !std::isfinite(n)) {
      throw std::invalid_argument(source_.string() + ": the point of vertex " + std::to_string(v) +
                                  " is zero or not finite");
    }
    for (int c = 0; c < 3; ++c) p[c] /= n;
  }
  for (int64_t f = 0; f < mesh_.n_faces(); ++f) {
    const int32_t* v = &mesh_.faces[f * 3];
    if (!(det3(&points[v[0] * 3], &points[v[1] * 3], &points[v[2] * 3]) > 0)) {
      throw std::invalid_argument(source_.string() + ": face " + std::to_string(f) +
                                  " is inverted on the sphere" +
                                  (fallback_ ? " (even in the stereographic fallback)" : ""));
    }
  }
  set_points(std::move(points));
}

void SphericalMap::set_points(std::vector<double> points) {
  points_ = std::move(points);
  frames_.resize(points_.size() * 2);
  for (int64_t v = 0; v < mesh_.n_vertices(); ++v) {
    const double* p = &points_[v * 3];
    double* b = &frames_[v * 6];
    any_tangent(p, b);
    cross(p, b, b + 3);  // b1 x b2 = p
  }
}

assembly::Problem SphericalMap::problem() const {
  assembly::Problem p(mesh_.n_vertices(), 2);
  assembly::Term t;
  t.name = "spherical_map";
  t.kernel = kernel_;
  t.elements = {"faces", 3, mesh_.faces};
  t.energy = true;
  t.uniforms = {barrier_};
  t.params.reserve(mesh_.n_faces() * 32);
  for (int64_t f = 0; f < mesh_.n_faces(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t v = mesh_.faces[f * 3 + c];
      t.params.insert(t.params.end(), &points_[v * 3], &points_[v * 3] + 3);
      t.params.insert(t.params.end(), &frames_[v * 6], &frames_[v * 6] + 6);
    }
    t.params.insert(t.params.end(), &rest_[f * 5], &rest_[f * 5] + 5);
  }
  p.add_term(std::move(t));
  return p;
}

std::vector<double> SphericalMap::retracted(std::span<const double> offsets) const {
  if (static_cast<int64_t>(offsets.size()) != mesh_.n_vertices() * 2) {
    throw std::invalid_argument(source_.string() + ": " + std::to_string(offsets.size()) +
                                " offset values for " + std::to_string(mesh_.n_vertices()) +
                                " vertices (2 each)");
  }
  std::vector<double> out(points_.size());
  for (int64_t v = 0; v < mesh_.n_vertices(); ++v) {
    const double u = offsets[v * 2], w = offsets[v * 2 + 1];
    if (!std::isfinite(u) || !std::isfinite(w)) {
      throw std::invalid_argument(source_.string() + ": the offset of vertex " + std::to_string(v) +
                                  " is not finite");
    }
    double q[3], n = 0;
    for (int c = 0; c < 3; ++c) {
      q[c] = points_[v * 3 + c] + frames_[v * 6 + c] * u + frames_[v * 6 + 3 + c] * w;
      n += q[c] * q[c];
    }
    // |q| >= 1: the offset is orthogonal to the unit point.
    n = std::sqrt(n);
    for (int c = 0; c < 3; ++c) out[v * 3 + c] = q[c] / n;
  }
  return out;
}

void SphericalMap::retract(std::span<const double> offsets) {
  set_points(retracted(offsets));
}

}  // namespace dualjit::mesh_energy

#include "examples/mesh_energy/parameterization.h"

#include <omp.h>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "examples/mesh_energy/mesh_checks.h"
#include "examples/mesh_energy/smoothing_energy.h"
#include "examples/mesh_energy/symmetric_dirichlet.h"

namespace dualjit::mesh_energy {
namespace {

uint64_t edge_key(int32_t a, int32_t b) {
  return (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
}

double distance(const TriMesh& m, int32_t a, int32_t b) {
  double s = 0;
  for (int c = 0; c < 3; ++c)
    s += (m.x[a * 3 + c] - m.x[b * 3 + c]) * (m.x[a * 3 + c] - m.x[b * 3 + c]);
  return std::sqrt(s);
}

double cross2(double ax, double ay, double bx, double by) {
  return ax * by - ay * bx;
}

// Twice the signed area of face f of `uv` moved by t duv (duv may be empty: t ignored).
struct FaceQuadratic {
  double a, b, c;  // det(t) = a t^2 + b t + c
};

FaceQuadratic face_quadratic(std::span<const int32_t> faces, std::span<const double> uv,
                             std::span<const double> duv, int64_t f) {
  const int32_t i = faces[f * 3], j = faces[f * 3 + 1], k = faces[f * 3 + 2];
  const double e1x = uv[j * 2] - uv[i * 2], e1y = uv[j * 2 + 1] - uv[i * 2 + 1];
  const double e2x = uv[k * 2] - uv[i * 2], e2y = uv[k * 2 + 1] - uv[i * 2 + 1];
  FaceQuadratic q{0, 0, cross2(e1x, e1y, e2x, e2y)};
  if (duv.empty()) return q;
  const double d1x = duv[j * 2] - duv[i * 2], d1y = duv[j * 2 + 1] - duv[i * 2 + 1];
  const double d2x = duv[k * 2] - duv[i * 2], d2y = duv[k * 2 + 1] - duv[i * 2 + 1];
  q.a = cross2(d1x, d1y, d2x, d2y);
  q.b = cross2(e1x, e1y, d2x, d2y) + cross2(d1x, d1y, e2x, e2y);
  return q;
}

// Threads for a loop over n cheap items: each gets at least 16,384 of them, since waking a
// thread (and waiting for the slowest) costs more than a few thousand items.
int threads_for(int64_t n) {
  return static_cast<int>(std::clamp<int64_t>(n / 16384, 1, omp_get_max_threads()));
}

void check_faces_in(std::span<const int32_t> faces, int64_t n_vertices, const char* what) {
  if (faces.size() % 3 != 0) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(faces.size()) +
                                " face indices, not a multiple of 3");
  }
  // The first bad index, found in parallel (a line search calls this every step).
  const int64_t n = static_cast<int64_t>(faces.size());
  int64_t bad = n;
#pragma omp parallel for reduction(min : bad) num_threads(threads_for(n))
  for (int64_t q = 0; q < n; ++q) {
    if (faces[q] < 0 || faces[q] >= n_vertices) bad = std::min(bad, q);
  }
  if (bad < n) {
    throw std::invalid_argument(std::string(what) + ": face " + std::to_string(bad / 3) +
                                ": vertex " + std::to_string(faces[bad]) + " out of range (" +
                                std::to_string(n_vertices) + " UVs)");
  }
}

// The smallest positive root of a t^2 + b t + c with c > 0, or infinity. q = -(b + sign(b)
// sqrt(disc)) / 2 never cancels, and the roots are c / q and q / a: when a -> 0 the first tends
// to the linear root -c / b and the second to infinity, so no case needs a tolerance.
double smallest_positive_root(double a, double b, double c) {
  const double inf = std::numeric_limits<double>::infinity();
  const double disc = b * b - 4 * a * c;
  if (disc < 0) return inf;  // a > 0 here: det(t) stays positive
  const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
  double t = inf;
  if (q != 0) {
    const double r = c / q;
    if (r > 0) t = std::min(t, r);
  }
  if (a != 0) {
    const double r = q / a;
    if (r > 0) t = std::min(t, r);
  }
  return t;
}

}  // namespace

std::vector<int32_t> boundary_loop(const TriMesh& m, const std::filesystem::path& source) {
  check_surface(m, source);
  std::unordered_set<uint64_t> directed;
  for (int64_t f = 0; f < m.n_faces(); ++f)
    for (int c = 0; c < 3; ++c)
      directed.insert(edge_key(m.faces[f * 3 + c], m.faces[f * 3 + (c + 1) % 3]));
  std::unordered_map<int32_t, int32_t> next;  // boundary edge a -> b, interior on the left
  int32_t start = std::numeric_limits<int32_t>::max();
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t a = m.faces[f * 3 + c], b = m.faces[f * 3 + (c + 1) % 3];
      if (directed.count(edge_key(b, a))) continue;
      if (!next.emplace(a, b).second) {
        throw MeshReadError(source, 0,
                            "not a disk: the boundary touches itself at vertex " +
                                std::to_string(a) + " (face " + std::to_string(f) + ")");
      }
      start = std::min(start, a);
    }
  }
  if (next.empty()) throw MeshReadError(source, 0, "not a disk: no boundary (a closed surface)");
  std::vector<int32_t> loop = {start};
  for (int32_t at = next.at(start); at != start; at = next.at(at)) loop.push_back(at);
  if (loop.size() != next.size()) {
    // Count the loops for the message.
    std::unordered_set<int32_t> seen(loop.begin(), loop.end());
    int64_t loops = 1;
    for (const auto& [a, b] : next) {
      if (seen.count(a)) continue;
      ++loops;
      int32_t at = a;
      while (seen.insert(at).second) at = next.at(at);
    }
    throw MeshReadError(
        source, 0, "not a disk: " + std::to_string(loops) + " boundary loops (a disk has one)");
  }
  const int64_t chi = topology(m).euler_characteristic;
  if (chi != 1) {
    throw MeshReadError(source, 0,
                        "not a disk: Euler characteristic " + std::to_string(chi) +
                            " (a disk has 1; the mesh has handles)");
  }
  return loop;
}

std::vector<double> tutte_embedding(const TriMesh& m, const std::filesystem::path& source,
                                    TutteWeights weights) {
  const std::vector<int32_t> boundary = boundary_loop(m, source);
  const int64_t nv = m.n_vertices();
  std::vector<double> uv(nv * 2, 0.0);
  // The boundary on the unit circle by arc length.
  std::vector<double> at(boundary.size() + 1, 0.0);
  for (size_t k = 0; k < boundary.size(); ++k)
    at[k + 1] = at[k] + distance(m, boundary[k], boundary[(k + 1) % boundary.size()]);
  const double pi = std::acos(-1.0);
  for (size_t k = 0; k < boundary.size(); ++k) {
    const double angle = 2 * pi * at[k] / at.back();
    uv[boundary[k] * 2] = std::cos(angle);
    uv[boundary[k] * 2 + 1] = std::sin(angle);
  }
  // Interior vertices numbered 0 .. n_interior - 1; boundary ones -1.
  std::vector<int64_t> row(nv, 0);
  for (int32_t b : boundary) row[b] = -1;
  int64_t ni = 0;
  for (int64_t v = 0; v < nv; ++v)
    if (row[v] >= 0) row[v] = ni++;
  if (ni == 0) return uv;

  // Directed weights w(i, j): the weight of neighbour j in vertex i's average.
  std::vector<Eigen::Triplet<double>> w;
  if (weights == TutteWeights::Uniform) {
    const std::vector<int32_t> edges = mesh_edges(m);
    for (size_t e = 0; e < edges.size(); e += 2) {
      w.emplace_back(edges[e], edges[e + 1], 1.0);
      w.emplace_back(edges[e + 1], edges[e], 1.0);
    }
  } else {
    // Mean value: w(i, j) = (tan(a / 2) + tan(b / 2)) / |x_j - x_i|, a and b the angles at i
    // of the two faces beside edge ij; tan(t / 2) = |e1 x e2| / (|e1||e2| + e1 . e2).
    for (int64_t f = 0; f < m.n_faces(); ++f) {
      for (int c = 0; c < 3; ++c) {
        const int32_t i = m.faces[f * 3 + c], j = m.faces[f * 3 + (c + 1) % 3],
                      k = m.faces[f * 3 + (c + 2) % 3];
        double e1[3], e2[3];
        for (int d = 0; d < 3; ++d) e1[d] = m.x[j * 3 + d] - m.x[i * 3 + d];
        for (int d = 0; d < 3; ++d) e2[d] = m.x[k * 3 + d] - m.x[i * 3 + d];
        const double l1 = distance(m, i, j), l2 = distance(m, i, k);
        if (!(l1 > 0) || !(l2 > 0))
          throw MeshReadError(source, 0, "face " + std::to_string(f) + " has a zero-length edge");
        const double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
                     cz = e1[0] * e2[1] - e1[1] * e2[0];
        const double cosine_part = l1 * l2 + e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
        if (!(cosine_part > 0))
          throw MeshReadError(source, 0, "face " + std::to_string(f) + " has a straight angle");
        const double half_tan = std::sqrt(cx * cx + cy * cy + cz * cz) / cosine_part;
        w.emplace_back(i, j, half_tan / l1);
        w.emplace_back(i, k, half_tan / l2);
      }
    }
  }
  // sum_j w(i, j) (u_i - u_j) = 0 for each interior i; boundary u_j go to the right-hand side.
  std::vector<Eigen::Triplet<double>> a;
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(ni, 2);
  for (const auto& t : w) {
    const int64_t r = row[t.row()];
    if (r < 0) continue;
    a.emplace_back(r, r, t.value());
    const int64_t col = row[t.col()];
    if (col >= 0) {
      a.emplace_back(r, col, -t.value());
    } else {
      rhs(r, 0) += t.value() * uv[t.col() * 2];
      rhs(r, 1) += t.value() * uv[t.col() * 2 + 1];
    }
  }
  Eigen::SparseMatrix<double> lhs(ni, ni);
  lhs.setFromTriplets(a.begin(), a.end());
  Eigen::MatrixXd sol;
  bool ok = false;
  if (weights == TutteWeights::Uniform) {  // symmetric positive definite
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(lhs);
    if (solver.info() == Eigen::Success) {
      sol = solver.solve(rhs);
      ok = solver.info() == Eigen::Success;
    }
  } else {  // mean value weights are not symmetric
    Eigen::SparseLU<Eigen::SparseMatrix<double>> solver;
    solver.compute(lhs);
    if (solver.info() == Eigen::Success) {
      sol = solver.solve(rhs);
      ok = solver.info() == Eigen::Success;
    }
  }
  if (!ok || !sol.allFinite())
    throw MeshReadError(source, 0, "Tutte's embedding: the interior system cannot be solved");
  for (int64_t v = 0; v < nv; ++v) {
    if (row[v] < 0) continue;
    uv[v * 2] = sol(row[v], 0);
    uv[v * 2 + 1] = sol(row[v], 1);
  }
  return uv;
}

assembly::Problem symmetric_dirichlet_problem(const TriMesh& m,
                                              const std::filesystem::path& source) {
  check_connectivity(m, source);
  assembly::Problem p(m.n_vertices(), 2);
  assembly::Term t;
  t.name = "symmetric_dirichlet";
  t.kernel = std::make_shared<Kernel>(symmetric_dirichlet_kernel());
  t.elements = {"faces", 3, m.faces};
  t.energy = true;
  t.params = symmetric_dirichlet_params(m, source);
  p.add_term(std::move(t));
  return p;
}

Parameterization parameterization(const TriMesh& m, const std::filesystem::path& source,
                                  TutteWeights weights) {
  Parameterization out{symmetric_dirichlet_problem(m, source), tutte_embedding(m, source, weights),
                       boundary_loop(m, source)};
  // Scaled so that the UV area is the rest area: the energy's minimum is at that scale, and the
  // unit disk of a large mesh would start far from it.
  const std::vector<double>& params = out.problem.term(0).params;
  double rest = 0, flat = 0;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    rest += params[f * 5 + 4];
    flat += 0.5 * face_quadratic(m.faces, out.uv, {}, f).c;
  }
  const double s = std::sqrt(rest / flat);
  for (double& c : out.uv) c *= s;
  return out;
}

int64_t count_flipped(std::span<const int32_t> faces, std::span<const double> uv) {
  if (uv.size() % 2 != 0)
    throw std::invalid_argument("count_flipped: " + std::to_string(uv.size()) + " UV values (odd)");
  check_faces_in(faces, static_cast<int64_t>(uv.size() / 2), "count_flipped");
  int64_t n = 0;
  for (int64_t f = 0; f < static_cast<int64_t>(faces.size() / 3); ++f)
    if (!(face_quadratic(faces, uv, {}, f).c > 0)) ++n;
  return n;
}

double max_flip_free_step(std::span<const int32_t> faces, std::span<const double> uv,
                          std::span<const double> duv) {
  if (uv.size() % 2 != 0 || duv.size() != uv.size()) {
    throw std::invalid_argument("max_flip_free_step: " + std::to_string(uv.size()) + " UV and " +
                                std::to_string(duv.size()) +
                                " direction values (two equal, even sizes expected)");
  }
  check_faces_in(faces, static_cast<int64_t>(uv.size() / 2), "max_flip_free_step");
  const int64_t nf = static_cast<int64_t>(faces.size() / 3);
  double alpha = std::numeric_limits<double>::infinity();
  int64_t flipped = nf;  // the first flipped face, if any
#pragma omp parallel for reduction(min : alpha, flipped) num_threads(threads_for(nf))
  for (int64_t f = 0; f < nf; ++f) {
    const FaceQuadratic q = face_quadratic(faces, uv, duv, f);
    if (!(q.c > 0)) {
      flipped = std::min(flipped, f);
    } else {
      alpha = std::min(alpha, smallest_positive_root(q.a, q.b, q.c));
    }
  }
  if (flipped < nf) {
    throw std::invalid_argument("max_flip_free_step: face " + std::to_string(flipped) +
                                " is already flipped or degenerate (twice its signed area is " +
                                std::to_string(face_quadratic(faces, uv, duv, flipped).c) + ")");
  }
  return alpha;
}

}  // namespace dualjit::mesh_energy

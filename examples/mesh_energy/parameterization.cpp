#include "examples/mesh_energy/parameterization.h"

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

#include "examples/mesh_energy/flip_free_bound.nvrtc.h"
#include "examples/mesh_energy/mesh_checks.h"
#include "examples/mesh_energy/smoothing_energy.h"
#include "examples/mesh_energy/symmetric_dirichlet.h"

namespace dualjit::embedded {
extern const char flip_free_bound_text[];
}

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

// Twice the signed area of face f of `uv`.
double twice_signed_area(std::span<const int32_t> faces, std::span<const double> uv, int64_t f) {
  const int32_t i = faces[f * 3], j = faces[f * 3 + 1], k = faces[f * 3 + 2];
  return cross2(uv[j * 2] - uv[i * 2], uv[j * 2 + 1] - uv[i * 2 + 1], uv[k * 2] - uv[i * 2],
                uv[k * 2 + 1] - uv[i * 2 + 1]);
}

void check_faces_in(std::span<const int32_t> faces, int64_t n_vertices, const char* what) {
  if (faces.size() % 3 != 0) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(faces.size()) +
                                " face indices, not a multiple of 3");
  }
  const int64_t n = static_cast<int64_t>(faces.size());
  int64_t bad = n;
  for (int64_t q = 0; q < n && bad == n; ++q) {
    if (faces[q] < 0 || faces[q] >= n_vertices) bad = q;
  }
  if (bad < n) {
    throw std::invalid_argument(std::string(what) + ": face " + std::to_string(bad / 3) +
                                ": vertex " + std::to_string(faces[bad]) + " out of range (" +
                                std::to_string(n_vertices) + " UVs)");
  }
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
    flat += 0.5 * twice_signed_area(m.faces, out.uv, f);
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
    if (!(twice_signed_area(faces, uv, f) > 0)) ++n;
  return n;
}

solvers::ElementStepBound flip_free_step_bound(const solvers::VectorSpace& space,
                                               std::span<const int32_t> faces, int64_t n_vertices) {
  return solvers::ElementStepBound(space,
                                   {.name = "flip-free",
                                    .symbol = "dualjit::mesh_energy::flip_free_bound",
                                    .source = embedded::flip_free_bound_text,
                                    .host = &flip_free_bound,
                                    .nodes = 3,
                                    .width = 2},
                                   n_vertices, faces);
}

}  // namespace dualjit::mesh_energy

#include "examples/cfd/edge_mesh.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace dualjit::cfd {

namespace {

// %g formatting: std::to_string prints tiny volumes as 0.000000.
std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

using Vec3 = std::array<double, 3>;

Vec3 sub(const Vec3& a, const Vec3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// Groups keyed items by row in two counting passes (a bucket sort): `emit_all(emit)` must call
// emit(row, item) for every item, identically both times. Linear, and unlike a map it
// allocates once; each row's items are then few enough to sort on their own.
template <class Item, class EmitAll>
void bucket_by_row(int64_t n_rows, EmitAll emit_all, std::vector<int64_t>& offsets,
                   std::vector<Item>& items) {
  offsets.assign(static_cast<size_t>(n_rows) + 1, 0);
  emit_all([&](int32_t row, Item) { ++offsets[static_cast<size_t>(row) + 1]; });
  for (int64_t r = 0; r < n_rows; ++r) offsets[r + 1] += offsets[r];
  items.resize(static_cast<size_t>(offsets[n_rows]));
  std::vector<int64_t> fill(offsets.begin(), offsets.end() - 1);
  emit_all([&](int32_t row, Item item) { items[static_cast<size_t>(fill[row]++)] = item; });
}

std::string tet_string(const TetMesh& mesh, int64_t t) {
  const int32_t* v = &mesh.tets[static_cast<size_t>(t) * 4];
  return "tet " + std::to_string(t) + " (nodes " + std::to_string(v[0]) + " " +
         std::to_string(v[1]) + " " + std::to_string(v[2]) + " " + std::to_string(v[3]) + ")";
}

// The six edges of a positively oriented tet (a, b, c, d), each as an even permutation
// (a, b, c, d) of the local vertices: with that parity the dual-face formula below gives the
// area vector from a towards b for every edge alike.
constexpr std::array<std::array<int, 4>, 6> kEdgePerms = {
    {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 2, 0, 3}, {1, 3, 2, 0}, {2, 3, 0, 1}}};

// Outward faces of a positively oriented tet, one opposite each vertex.
constexpr std::array<std::array<int, 3>, 4> kFaces = {{{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}};

}  // namespace

EdgeMesh build_edge_mesh(const TetMesh& mesh) {
  const int64_t n_nodes = mesh.n_nodes;
  const int64_t n_tets = mesh.n_tets();
  if (mesh.xyz.size() != static_cast<size_t>(n_nodes) * 3)
    throw std::invalid_argument("build_edge_mesh: xyz has " + std::to_string(mesh.xyz.size()) +
                                " values for " + std::to_string(n_nodes) + " nodes");
  if (mesh.tets.size() % 4 != 0)
    throw std::invalid_argument("build_edge_mesh: tets size " + std::to_string(mesh.tets.size()) +
                                " is not a multiple of 4");
  for (int64_t t = 0; t < n_tets; ++t)
    for (int k = 0; k < 4; ++k) {
      const int32_t v = mesh.tets[static_cast<size_t>(t * 4 + k)];
      if (v < 0 || v >= n_nodes)
        throw std::invalid_argument("build_edge_mesh: " + tet_string(mesh, t) +
                                    " references a node outside [0, " + std::to_string(n_nodes) +
                                    ")");
    }
  const int32_t* tets = mesh.tets.data();
  auto point = [&](int32_t v) {
    const double* p = &mesh.xyz[static_cast<size_t>(v) * 3];
    return Vec3{p[0], p[1], p[2]};
  };

  EdgeMesh out;
  out.n_nodes = n_nodes;

  // Unique edges: bucket every tet edge by its smaller node, then sort/unique each row. The
  // result is sorted by (v0, v1), and the edges of node v0 are contiguous from edge_begin[v0].
  std::vector<int64_t> offsets;
  std::vector<int32_t> upper;
  bucket_by_row<int32_t>(
      n_nodes,
      [&](auto&& emit) {
        for (int64_t t = 0; t < n_tets; ++t) {
          const int32_t* v = tets + t * 4;
          for (const auto& p : kEdgePerms) {
            const int32_t a = v[p[0]], b = v[p[1]];
            emit(std::min(a, b), std::max(a, b));
          }
        }
      },
      offsets, upper);
  std::vector<int64_t> edge_begin(static_cast<size_t>(n_nodes) + 1, 0);
  {
    int64_t n_edges = 0;
    for (int64_t r = 0; r < n_nodes; ++r) {
      auto first = upper.begin() + offsets[r], last = upper.begin() + offsets[r + 1];
      std::sort(first, last);
      const int64_t n_unique = std::unique(first, last) - first;
      std::copy(first, first + n_unique, upper.begin() + n_edges);  // compact in place
      edge_begin[r] = n_edges;
      n_edges += n_unique;
    }
    edge_begin[n_nodes] = n_edges;
    out.edges.resize(static_cast<size_t>(n_edges) * 2);
    for (int64_t r = 0; r < n_nodes; ++r)
      for (int64_t e = edge_begin[r]; e < edge_begin[r + 1]; ++e) {
        out.edges[static_cast<size_t>(e) * 2] = static_cast<int32_t>(r);
        out.edges[static_cast<size_t>(e) * 2 + 1] = upper[static_cast<size_t>(e)];
      }
  }
  upper = {};
  upper.shrink_to_fit();
  const int32_t* edges = out.edges.data();
  auto edge_id = [&](int32_t v0, int32_t v1) {
    // Rows hold ~7 upper neighbours, so a linear scan beats a binary search here.
    int64_t e = edge_begin[v0];
    while (edges[e * 2 + 1] != v1) ++e;
    return e;
  };

  // Dual-face areas and control volumes, one tet at a time.
  out.area.assign(out.edges.size() / 2 * 3, 0.0);
  out.node_volume.assign(static_cast<size_t>(n_nodes), 0.0);
  for (int64_t t = 0; t < n_tets; ++t) {
    const int32_t* v = tets + t * 4;
    const Vec3 x[4] = {point(v[0]), point(v[1]), point(v[2]), point(v[3])};
    const double volume = [&] {
      const Vec3 n = cross(sub(x[2], x[0]), sub(x[3], x[0]));
      const Vec3 u = sub(x[1], x[0]);
      return (u[0] * n[0] + u[1] * n[1] + u[2] * n[2]) / 6.0;
    }();
    if (!(volume > 0))
      throw std::invalid_argument("build_edge_mesh: " + tet_string(mesh, t) +
                                  " has non-positive volume " + short_number(volume));
    for (int k = 0; k < 4; ++k) out.node_volume[v[k]] += 0.25 * volume;
    for (const auto& p : kEdgePerms) {
      // With m the midpoint of ab, the dual triangles (m, centroid abc, tet centroid) and
      // (m, tet centroid, centroid abd) reduce to one vector: with u = x_c - m, w = x_d - m,
      // the centroids sit at m + u/3, m + (u + w)/4 and m + w/3, so both triangles have area
      // (u x w) / 24 and their sum is (u x w) / 12, pointing from a to b for an even (a,b,c,d).
      const Vec3 &xa = x[p[0]], &xb = x[p[1]], &xc = x[p[2]], &xd = x[p[3]];
      double u[3], w[3];
      for (int d = 0; d < 3; ++d) {
        const double m = 0.5 * (xa[d] + xb[d]);
        u[d] = xc[d] - m;
        w[d] = xd[d] - m;
      }
      const int32_t a = v[p[0]], b = v[p[1]];
      const double scale = a < b ? 1.0 / 12.0 : -1.0 / 12.0;  // stored from smaller to larger
      double* s = &out.area[static_cast<size_t>(a < b ? edge_id(a, b) : edge_id(b, a)) * 3];
      s[0] += scale * (u[1] * w[2] - u[2] * w[1]);
      s[1] += scale * (u[2] * w[0] - u[0] * w[2]);
      s[2] += scale * (u[0] * w[1] - u[1] * w[0]);
    }
  }

  // Boundary faces: bucket the faces by smallest node, key = (mid << 33 | max << 1 | parity),
  // parity telling whether sorting the outward (p, q, r) to (min, mid, max) was odd. A face
  // seen once is on the boundary; an interior face is seen twice with opposite parity.
  std::vector<uint64_t> face_keys;
  bucket_by_row<uint64_t>(
      n_nodes,
      [&](auto&& emit) {
        for (int64_t t = 0; t < n_tets; ++t) {
          const int32_t* v = tets + t * 4;
          for (const auto& f : kFaces) {
            int32_t s[3] = {v[f[0]], v[f[1]], v[f[2]]};
            uint64_t parity = 0;  // three compare-swaps sort s; each swap flips the parity
            if (s[0] > s[1]) std::swap(s[0], s[1]), parity ^= 1;
            if (s[1] > s[2]) std::swap(s[1], s[2]), parity ^= 1;
            if (s[0] > s[1]) std::swap(s[0], s[1]), parity ^= 1;
            emit(s[0],
                 static_cast<uint64_t>(s[1]) << 33 | static_cast<uint64_t>(s[2]) << 1 | parity);
          }
        }
      },
      offsets, face_keys);
  for (int64_t r = 0; r < n_nodes; ++r) {
    auto first = face_keys.begin() + offsets[r], last = face_keys.begin() + offsets[r + 1];
    std::sort(first, last);
    for (auto it = first; it != last;) {
      auto run = it + 1;
      while (run != last && (*run >> 1) == (*it >> 1)) ++run;
      const int32_t mid = static_cast<int32_t>(*it >> 33);
      const int32_t max = static_cast<int32_t>((*it >> 1) & 0xffffffffu);
      auto face = [&] {
        return "face (" + std::to_string(r) + " " + std::to_string(mid) + " " +
               std::to_string(max) + ")";
      };
      if (run - it > 2)
        throw std::invalid_argument("build_edge_mesh: " + face() + " is shared by " +
                                    std::to_string(run - it) + " tets (non-manifold mesh)");
      if (run - it == 2 && (*it & 1) == (*(it + 1) & 1))
        throw std::invalid_argument("build_edge_mesh: " + face() +
                                    " is seen with the same orientation by both its tets "
                                    "(overlapping tets)");
      if (run - it == 1) {
        const bool odd = *it & 1;
        out.bfaces.push_back(static_cast<int32_t>(r));
        out.bfaces.push_back(odd ? max : mid);
        out.bfaces.push_back(odd ? mid : max);
      }
      it = run;
    }
  }
  face_keys = {};

  out.bnode_area.assign(static_cast<size_t>(n_nodes) * 3, 0.0);
  for (int64_t f = 0; f < out.n_bfaces(); ++f) {
    const int32_t* v = &out.bfaces[static_cast<size_t>(f) * 3];
    const Vec3 n = cross(sub(point(v[1]), point(v[0])), sub(point(v[2]), point(v[0])));
    // Median-dual closure: the part of a triangle nearest each vertex (vertex, two edge
    // midpoints, centroid) has exactly a third of the triangle's area vector.
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d) out.bnode_area[static_cast<size_t>(v[k]) * 3 + d] += n[d] / 6.0;
  }
  return out;
}

}  // namespace dualjit::cfd

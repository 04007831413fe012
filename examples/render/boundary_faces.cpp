#include "examples/render/boundary_faces.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace dualjit::render {

namespace {

// The four faces of tet (a, b, c, d), each opposite one corner, with outward normals for a
// positively oriented tet.
constexpr int kFaceCorners[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

struct FaceRecord {
  std::array<int32_t, 3> key;  // the sorted nodes
  bool odd;                    // the face's cyclic order is an odd permutation of key
  int64_t face;                // tet * 4 + corner
  bool operator<(const FaceRecord& o) const { return key != o.key ? key < o.key : face < o.face; }
};

FaceRecord record(int32_t p, int32_t q, int32_t r, int64_t face) {
  // Rotate the smallest node first (rotations keep the orientation); the order of the other two
  // is then the orientation.
  while (p > q || p > r) {
    const int32_t t = p;
    p = q;
    q = r;
    r = t;
  }
  return {{p, std::min(q, r), std::max(q, r)}, q > r, face};
}

std::string tet_name(int64_t face) {
  return "tet " + std::to_string(face / 4);
}

}  // namespace

std::vector<int32_t> boundary_faces(const std::vector<int32_t>& tets) {
  if (tets.size() % 4 != 0)
    throw std::invalid_argument("render::boundary_faces: " + std::to_string(tets.size()) +
                                " indices is not a whole number of tets");
  const int64_t n_tets = static_cast<int64_t>(tets.size() / 4);
  std::vector<FaceRecord> records;
  records.reserve(tets.size());
  for (int64_t t = 0; t < n_tets; ++t) {
    const int32_t* v = &tets[t * 4];
    for (int i = 0; i < 4; ++i) {
      if (v[i] < 0)
        throw std::invalid_argument("render::boundary_faces: " + tet_name(t * 4) +
                                    " has a negative node index");
      for (int j = 0; j < i; ++j)
        if (v[i] == v[j])
          throw std::invalid_argument("render::boundary_faces: " + tet_name(t * 4) +
                                      " repeats node " + std::to_string(v[i]));
    }
    for (int f = 0; f < 4; ++f)
      records.push_back(
          record(v[kFaceCorners[f][0]], v[kFaceCorners[f][1]], v[kFaceCorners[f][2]], t * 4 + f));
  }
  std::sort(records.begin(), records.end());

  std::vector<int64_t> boundary;
  for (size_t i = 0; i < records.size();) {
    size_t j = i + 1;
    while (j < records.size() && records[j].key == records[i].key) ++j;
    if (j - i == 1) {
      boundary.push_back(records[i].face);
    } else if (j - i > 2) {
      throw std::invalid_argument("render::boundary_faces: a face of " + tet_name(records[i].face) +
                                  " is shared by " + std::to_string(j - i) + " tets");
    } else if (records[i].odd == records[i + 1].odd) {
      // An interior face is traversed once each way by consistently oriented tets.
      throw std::invalid_argument("render::boundary_faces: " + tet_name(records[i].face) + " and " +
                                  tet_name(records[i + 1].face) + " are not consistently oriented");
    }
    i = j;
  }
  std::sort(boundary.begin(), boundary.end());

  std::vector<int32_t> faces;
  faces.reserve(boundary.size() * 3);
  for (int64_t face : boundary)
    for (int k = 0; k < 3; ++k) faces.push_back(tets[face / 4 * 4 + kFaceCorners[face % 4][k]]);
  return faces;
}

mesh_energy::TriMesh boundary_surface(const std::vector<double>& xyz,
                                      const std::vector<int32_t>& tets) {
  if (xyz.size() % 3 != 0)
    throw std::invalid_argument("render::boundary_surface: " + std::to_string(xyz.size()) +
                                " coordinates is not a whole number of nodes");
  const int64_t n_nodes = static_cast<int64_t>(xyz.size() / 3);
  for (size_t i = 0; i < tets.size(); ++i)
    if (tets[i] >= n_nodes)
      throw std::invalid_argument("render::boundary_surface: " + tet_name(int64_t(i)) +
                                  " names node " + std::to_string(tets[i]) + " of " +
                                  std::to_string(n_nodes));
  mesh_energy::TriMesh mesh;
  mesh.x = xyz;
  mesh.faces = boundary_faces(tets);
  return mesh;
}

}  // namespace dualjit::render

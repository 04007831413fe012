#include "examples/mesh_energy/tri_mesh.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>

namespace dualjit::mesh_energy {
namespace {

// The lines of a text file, for parsers that name the line of what they reject.
std::vector<std::string> read_lines(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw MeshReadError(file, 0, "cannot open: no such file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw MeshReadError(file, 0, "cannot open for reading");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream s(line.substr(0, line.find('#')));
  for (std::string t; s >> t;) out.push_back(t);
  return out;
}

double to_double(const std::string& t, const std::filesystem::path& file, int64_t line) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || errno == ERANGE)
    throw MeshReadError(file, line, "'" + t + "' is not a number");
  if (!std::isfinite(v)) throw MeshReadError(file, line, "non-finite coordinate '" + t + "'");
  return v;
}

int64_t to_int(const std::string& t, const std::filesystem::path& file, int64_t line) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (end == t.c_str() || *end != '\0' || errno == ERANGE)
    throw MeshReadError(file, line, "'" + t + "' is not an integer");
  return v;
}

// Checks shared by the readers, on a whole mesh: degenerate and repeated faces (named with
// the line each face came from).
void check_faces(const TriMesh& m, const std::vector<int64_t>& face_line,
                 const std::filesystem::path& file) {
  std::map<std::array<int32_t, 3>, int64_t> seen;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const int32_t* v = &m.faces[f * 3];
    const int64_t line = face_line[f];
    const std::string face = "face " + std::to_string(f);
    if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2])
      throw MeshReadError(file, line, face + " is degenerate: a vertex repeats");
    std::array<double, 3> e1{}, e2{};
    double longest = 0;
    for (int c = 0; c < 3; ++c) {
      e1[c] = m.x[v[1] * 3 + c] - m.x[v[0] * 3 + c];
      e2[c] = m.x[v[2] * 3 + c] - m.x[v[0] * 3 + c];
      longest = std::max({longest, std::abs(e1[c]), std::abs(e2[c])});
    }
    const double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
                 cz = e1[0] * e2[1] - e1[1] * e2[0];
    if (std::sqrt(cx * cx + cy * cy + cz * cz) <= 1e-14 * longest * longest)
      throw MeshReadError(file, line, face + " is degenerate: zero area");
    std::array<int32_t, 3> key{v[0], v[1], v[2]};
    std::sort(key.begin(), key.end());
    const auto [it, fresh] = seen.emplace(key, f);
    if (!fresh) {
      throw MeshReadError(
          file, line,
          face + " repeats face " + std::to_string(it->second) + " (the same vertices)");
    }
  }
}

uint64_t edge_key(int32_t a, int32_t b) {
  return (uint64_t(uint32_t(a)) << 32) | uint32_t(b);
}

}  // namespace

TriMesh read_off(const std::filesystem::path& file) {
  const std::vector<std::string> lines = read_lines(file);
  // Tokens with their lines, comments and blank lines skipped.
  std::vector<std::pair<std::string, int64_t>> tokens;
  for (size_t i = 0; i < lines.size(); ++i) {
    for (std::string& t : split(lines[i])) tokens.emplace_back(std::move(t), int64_t(i) + 1);
  }
  size_t at = 0;
  const auto line_of_next = [&] {
    return at < tokens.size() ? tokens[at].second : static_cast<int64_t>(lines.size());
  };
  const auto next = [&](const char* what) -> const std::string& {
    if (at >= tokens.size())
      throw MeshReadError(file, line_of_next(), std::string("truncated: expected ") + what);
    return tokens[at++].first;
  };
  if (at >= tokens.size() || tokens[at].first != "OFF")
    throw MeshReadError(file, line_of_next(), "expected the OFF header");
  ++at;
  const int64_t header = line_of_next();
  const int64_t nv = to_int(next("the vertex count"), file, header);
  const int64_t nf = to_int(next("the face count"), file, header);
  to_int(next("the edge count"), file, header);
  if (nv < 0 || nf < 0 || nv > std::numeric_limits<int32_t>::max())
    throw MeshReadError(file, header,
                        "bad counts " + std::to_string(nv) + " " + std::to_string(nf));
  TriMesh m;
  m.x.resize(nv * 3);
  for (int64_t v = 0; v < nv; ++v) {
    for (int c = 0; c < 3; ++c) {
      const int64_t line = line_of_next();
      m.x[v * 3 + c] = to_double(next("a vertex coordinate"), file, line);
    }
  }
  std::vector<int64_t> face_line(nf);
  m.faces.resize(nf * 3);
  for (int64_t f = 0; f < nf; ++f) {
    const int64_t line = face_line[f] = line_of_next();
    const int64_t k = to_int(next("a face"), file, line);
    if (k != 3) {
      throw MeshReadError(file, line,
                          "face " + std::to_string(f) + " has " + std::to_string(k) +
                              " vertices; only triangles are read");
    }
    for (int c = 0; c < 3; ++c) {
      const int64_t i = to_int(next("a face index"), file, line);
      if (i < 0 || i >= nv) {
        throw MeshReadError(file, line,
                            "face " + std::to_string(f) + ": vertex " + std::to_string(i) +
                                " out of range (" + std::to_string(nv) + " vertices)");
      }
      m.faces[f * 3 + c] = static_cast<int32_t>(i);
    }
    // Colours or other per-face values may follow on the face's line.
    while (at < tokens.size() && tokens[at].second == line) ++at;
  }
  check_faces(m, face_line, file);
  return m;
}

TriMesh read_obj(const std::filesystem::path& file) {
  const std::vector<std::string> lines = read_lines(file);
  TriMesh m;
  std::vector<double> vt;
  std::vector<int64_t> corner_vt, face_line;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int64_t line = int64_t(i) + 1;
    const std::vector<std::string> t = split(lines[i]);
    if (t.empty()) continue;
    if (t[0] == "v") {
      if (t.size() < 4) throw MeshReadError(file, line, "a vertex needs 3 coordinates");
      for (int c = 1; c <= 3; ++c) m.x.push_back(to_double(t[c], file, line));
    } else if (t[0] == "vt") {
      if (t.size() < 3) throw MeshReadError(file, line, "a texture coordinate needs 2 values");
      for (int c = 1; c <= 2; ++c) vt.push_back(to_double(t[c], file, line));
    } else if (t[0] == "f") {
      const int64_t f = m.n_faces();
      if (t.size() != 4) {
        throw MeshReadError(file, line,
                            "face " + std::to_string(f) + " has " + std::to_string(t.size() - 1) +
                                " vertices; only triangles are read");
      }
      for (int c = 1; c <= 3; ++c) {
        // v, v/vt, v//vn or v/vt/vn; negative indices count back from the last one read.
        const std::string& ref = t[c];
        const size_t slash = ref.find('/');
        const auto resolve = [&](const std::string& s, int64_t count, const char* what) {
          const int64_t k = to_int(s, file, line);
          const int64_t idx = k < 0 ? count + k : k - 1;
          if (k == 0 || idx < 0 || idx >= count) {
            throw MeshReadError(file, line,
                                "face " + std::to_string(f) + ": " + what + " " + s +
                                    " out of range (" + std::to_string(count) + " so far)");
          }
          return idx;
        };
        m.faces.push_back(
            static_cast<int32_t>(resolve(ref.substr(0, slash), m.n_vertices(), "vertex")));
        int64_t uv = -1;
        if (slash != std::string::npos) {
          const size_t slash2 = ref.find('/', slash + 1);
          const std::string s = ref.substr(
              slash + 1, slash2 == std::string::npos ? std::string::npos : slash2 - slash - 1);
          if (!s.empty()) uv = resolve(s, int64_t(vt.size() / 2), "texture coordinate");
        }
        corner_vt.push_back(uv);
      }
      face_line.push_back(line);
    }
  }
  if (m.n_vertices() > std::numeric_limits<int32_t>::max())
    throw MeshReadError(file, 0, "more than 2^31 - 1 vertices");
  check_faces(m, face_line, file);
  // Per-vertex UVs when every corner names one and each vertex's corners agree.
  std::vector<int64_t> of_vertex(m.n_vertices(), -2);
  bool per_vertex = !corner_vt.empty();
  for (size_t q = 0; q < corner_vt.size() && per_vertex; ++q) {
    int64_t& mine = of_vertex[m.faces[q]];
    if (corner_vt[q] < 0 || (mine != -2 && mine != corner_vt[q])) per_vertex = false;
    mine = corner_vt[q];
  }
  if (per_vertex) {
    m.uv.assign(m.n_vertices() * 2, 0.0);
    for (int64_t v = 0; v < m.n_vertices(); ++v) {
      if (of_vertex[v] < 0) continue;
      m.uv[v * 2] = vt[of_vertex[v] * 2];
      m.uv[v * 2 + 1] = vt[of_vertex[v] * 2 + 1];
    }
  }
  return m;
}

TriMesh read_tri_mesh(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ext == ".off") return read_off(file);
  if (ext == ".obj") return read_obj(file);
  throw MeshReadError(file, 0, "unknown mesh format '" + ext + "' (.off, .obj)");
}

void write_obj(const std::filesystem::path& file, const TriMesh& m) {
  std::FILE* out = std::fopen(file.string().c_str(), "w");
  if (!out) throw std::runtime_error(file.string() + ": cannot open for writing");
  for (int64_t v = 0; v < m.n_vertices(); ++v)
    std::fprintf(out, "v %.17g %.17g %.17g\n", m.x[v * 3], m.x[v * 3 + 1], m.x[v * 3 + 2]);
  const bool uv = !m.uv.empty();
  for (int64_t v = 0; uv && v < m.n_vertices(); ++v)
    std::fprintf(out, "vt %.17g %.17g\n", m.uv[v * 2], m.uv[v * 2 + 1]);
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const int32_t* c = &m.faces[f * 3];
    if (uv) {
      std::fprintf(out, "f %d/%d %d/%d %d/%d\n", c[0] + 1, c[0] + 1, c[1] + 1, c[1] + 1, c[2] + 1,
                   c[2] + 1);
    } else {
      std::fprintf(out, "f %d %d %d\n", c[0] + 1, c[1] + 1, c[2] + 1);
    }
  }
  const bool failed = std::ferror(out) != 0;
  if (std::fclose(out) != 0 || failed) throw std::runtime_error(file.string() + ": write failed");
}

void check_manifold(const TriMesh& m, const std::filesystem::path& source) {
  std::unordered_map<uint64_t, int64_t> directed;  // (a, b) -> face
  std::unordered_map<uint64_t, int> undirected;
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    for (int c = 0; c < 3; ++c) {
      const int32_t a = m.faces[f * 3 + c], b = m.faces[f * 3 + (c + 1) % 3];
      const std::string edge = "edge (" + std::to_string(a) + ", " + std::to_string(b) + ")";
      if (++undirected[edge_key(std::min(a, b), std::max(a, b))] > 2) {
        throw MeshReadError(
            source, 0,
            "face " + std::to_string(f) + ": non-manifold " + edge + " (more than two faces)");
      }
      const auto [it, fresh] = directed.emplace(edge_key(a, b), f);
      if (!fresh) {
        throw MeshReadError(source, 0,
                            "face " + std::to_string(f) + ": " + edge +
                                " runs the same way as in face " + std::to_string(it->second) +
                                " (inconsistent orientation)");
      }
    }
  }
}

Topology topology(const TriMesh& m) {
  std::unordered_map<uint64_t, int> directed;
  for (int64_t f = 0; f < m.n_faces(); ++f)
    for (int c = 0; c < 3; ++c)
      directed[edge_key(m.faces[f * 3 + c], m.faces[f * 3 + (c + 1) % 3])] = 1;
  Topology t;
  std::unordered_multimap<int32_t, int32_t> next;  // boundary: a -> b
  for (const auto& [key, _] : directed) {
    const int32_t a = int32_t(key >> 32), b = int32_t(key & 0xffffffffu);
    if (directed.count(edge_key(b, a))) {
      if (a < b) ++t.edges;
    } else {
      ++t.edges;
      ++t.boundary_edges;
      next.emplace(a, b);
    }
  }
  while (!next.empty()) {  // walk each loop, removing its edges
    auto it = next.begin();
    const int32_t start = it->first;
    int32_t at = it->second;
    next.erase(it);
    while (at != start) {
      auto step = next.find(at);
      if (step == next.end()) break;
      at = step->second;
      next.erase(step);
    }
    ++t.boundary_loops;
  }
  t.euler_characteristic = m.n_vertices() - t.edges + m.n_faces();
  return t;
}

TriMesh subdivide(const TriMesh& m) {
  TriMesh out;
  out.x = m.x;
  out.uv = m.uv;
  std::unordered_map<uint64_t, int32_t> mid;
  const auto midpoint = [&](int32_t a, int32_t b) {
    const uint64_t key = edge_key(std::min(a, b), std::max(a, b));
    if (const auto it = mid.find(key); it != mid.end()) return it->second;
    const int32_t v = static_cast<int32_t>(out.x.size() / 3);
    for (int c = 0; c < 3; ++c) out.x.push_back(0.5 * (m.x[a * 3 + c] + m.x[b * 3 + c]));
    if (!m.uv.empty())
      for (int c = 0; c < 2; ++c) out.uv.push_back(0.5 * (m.uv[a * 2 + c] + m.uv[b * 2 + c]));
    mid.emplace(key, v);
    return v;
  };
  out.faces.reserve(m.faces.size() * 4);
  for (int64_t f = 0; f < m.n_faces(); ++f) {
    const int32_t a = m.faces[f * 3], b = m.faces[f * 3 + 1], c = m.faces[f * 3 + 2];
    const int32_t ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
    out.faces.insert(out.faces.end(), {a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca});
  }
  return out;
}

TriMesh subdivide_to(const TriMesh& m, int64_t vertices) {
  TriMesh out = m;
  while (out.n_vertices() < vertices && out.n_faces() > 0) out = subdivide(out);
  return out;
}

}  // namespace dualjit::mesh_energy

#include "examples/cfd/gmsh_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace dualjit::cfd {

namespace {

// %g formatting: std::to_string prints tiny volumes as 0.000000.
std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

// Whitespace-separated tokens of the whole file, each with the line it sits on. Gmsh's own
// reader is token based too, so line breaks inside a record are tolerated; records of skipped
// elements are skipped by line (each element is one line in both formats).
class Reader {
 public:
  Reader(std::filesystem::path file, std::string text)
      : file_(std::move(file)), text_(std::move(text)) {}

  // The next token, or an empty view at the end of the file.
  std::string_view next() {
    const int64_t previous_line = line_;
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ == text_.size()) line_ = previous_line;  // report EOF at the last token's line
    const size_t begin = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
    return std::string_view(text_).substr(begin, pos_ - begin);
  }

  // A double-quoted string (a physical name may hold spaces), on one line.
  std::string quoted(const char* what) {
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ == text_.size() || text_[pos_] != '"')
      fail("expected a double-quoted " + std::string(what) + " in " + section);
    const size_t begin = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') ++pos_;
    if (pos_ == text_.size() || text_[pos_] != '"')
      fail("unterminated " + std::string(what) + " in " + section);
    return text_.substr(begin, pos_++ - begin);
  }

  // Skips the rest of the current line (the one the last token was on).
  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }

  [[noreturn]] void fail(const std::string& message) const { fail_at(line_, message); }
  [[noreturn]] void fail_at(int64_t line, const std::string& message) const {
    throw MeshReadError(file_, line, message);
  }

  // The next token of a record in the current section: fails on the end of the file or on a
  // section keyword, both of which mean the section is shorter than its header announced.
  std::string_view value(const char* what) {
    const std::string_view t = next();
    if (t.empty())
      fail("unexpected end of file in " + section + " section (truncated?) while reading " + what);
    if (t[0] == '$')
      fail(section + " section ends early (truncated?): found '" + std::string(t) + "' where " +
           what + " was expected");
    return t;
  }

  int64_t integer(const char* what) {
    const std::string_view t = value(what);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size())
      fail("expected an integer (" + std::string(what) + "), found '" + std::string(t) + "'");
    return v;
  }

  int64_t count(const char* what) {
    const int64_t v = integer(what);
    if (v < 0) fail(std::string(what) + " is negative: " + std::to_string(v));
    return v;
  }

  double real(const char* what) {
    std::string_view t = value(what);
    const std::string_view token = t;
    if (t.size() > 1 && t[0] == '+') t.remove_prefix(1);  // from_chars rejects a leading '+'
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v))
      fail("expected a finite number (" + std::string(what) + "), found '" + std::string(token) +
           "'");
    return v;
  }

  void expect(std::string_view keyword) {
    const std::string_view t = next();
    if (t == keyword) return;
    std::string message = "expected '";  // appended piecewise: a false -Wrestrict in GCC 12
    message.append(keyword).append("', found ");
    if (t.empty())
      message.append("end of file");
    else
      message.append("'").append(t).append("'");
    if (!section.empty()) message.append(" (").append(section).append(" longer than announced?)");
    fail(message);
  }

  int64_t line() const { return line_; }

  std::string section;  // the section being read, for messages

 private:
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  }

  std::filesystem::path file_;
  std::string text_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

// What has been read so far: nodes in file order, tets and triangles as node indices.
struct Parsed {
  bool tagged = false;  // read the boundary triangles and what names their groups
  std::vector<int64_t> node_tag, node_line;
  std::vector<double> xyz;
  std::vector<std::pair<int64_t, int32_t>> by_tag;  // (tag, index), sorted, after $Nodes
  bool have_nodes = false;
  std::vector<int32_t> tets;
  std::vector<int64_t> tet_tag, tet_line;
  // Triangles in a physical group (tagged only); physical tags are positive, 0 is none.
  std::vector<int32_t> tris;
  std::vector<int64_t> tri_tag, tri_line, tri_physical;
  std::map<int64_t, std::string> surface_names;               // $PhysicalNames, dimension 2
  std::map<int64_t, std::vector<int64_t>> surface_physicals;  // $Entities: surface -> groups
  bool have_entities = false;
};

void add_node(Reader& in, Parsed& p, int64_t tag) {
  if (tag <= 0) in.fail("node tag " + std::to_string(tag) + " is not positive");
  if (static_cast<int64_t>(p.node_tag.size()) >= std::numeric_limits<int32_t>::max())
    in.fail("too many nodes for 32-bit indices");
  p.node_tag.push_back(tag);
  p.node_line.push_back(in.line());
}

void read_coordinates(Reader& in, Parsed& p, int extra) {
  for (int d = 0; d < 3; ++d) p.xyz.push_back(in.real("node coordinate"));
  for (int d = 0; d < extra; ++d) in.real("parametric coordinate");
}

// Sorted (tag, index) pairs for looking up element nodes; duplicate tags are an error.
void index_nodes(Reader& in, Parsed& p) {
  p.by_tag.resize(p.node_tag.size());
  for (size_t i = 0; i < p.node_tag.size(); ++i)
    p.by_tag[i] = {p.node_tag[i], static_cast<int32_t>(i)};
  std::sort(p.by_tag.begin(), p.by_tag.end());
  for (size_t i = 1; i < p.by_tag.size(); ++i)
    if (p.by_tag[i].first == p.by_tag[i - 1].first) {
      const int32_t later = std::max(p.by_tag[i].second, p.by_tag[i - 1].second);
      in.fail_at(p.node_line[later], "duplicate node tag " + std::to_string(p.by_tag[i].first));
    }
  p.have_nodes = true;
}

// Appends the indices of an element's n node tags to `nodes`.
void read_element_nodes(Reader& in, const Parsed& p, int64_t tag, int n, const char* what,
                        std::vector<int32_t>& nodes) {
  for (int k = 0; k < n; ++k) {
    const int64_t node = in.integer(what);
    const auto it =
        std::lower_bound(p.by_tag.begin(), p.by_tag.end(), std::pair<int64_t, int32_t>{node, -1});
    if (it == p.by_tag.end() || it->first != node)
      in.fail("element " + std::to_string(tag) + " references unknown node tag " +
              std::to_string(node));
    nodes.push_back(it->second);
  }
}

void read_tet(Reader& in, Parsed& p, int64_t tag) {
  read_element_nodes(in, p, tag, 4, "tetrahedron node tag", p.tets);
  p.tet_tag.push_back(tag);
  p.tet_line.push_back(in.line());
}

// A triangle in physical group `physical`; one outside every group tags nothing.
void read_triangle(Reader& in, Parsed& p, int64_t tag, int64_t physical) {
  if (physical == 0) {
    in.skip_line();
    return;
  }
  read_element_nodes(in, p, tag, 3, "triangle node tag", p.tris);
  p.tri_tag.push_back(tag);
  p.tri_line.push_back(in.line());
  p.tri_physical.push_back(physical);
}

void read_physical_names(Reader& in, Parsed& p) {
  const int64_t n = in.count("number of physical names");
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dim = in.integer("physical dimension");
    const int64_t tag = in.integer("physical tag");
    std::string name = in.quoted("physical name");
    if (dim == 2) p.surface_names[tag] = std::move(name);
  }
}

// MSH 4.1 $Entities: points (tag, x, y, z, physical tags), then curves, surfaces and volumes
// (tag, bounding box, physical tags, bounding entities); only the surfaces' groups are kept.
void read_entities_v4(Reader& in, Parsed& p) {
  int64_t n[4];
  for (int64_t& count : n) count = in.count("number of entities");
  for (int dim = 0; dim < 4; ++dim)
    for (int64_t i = 0; i < n[dim]; ++i) {
      const int64_t tag = in.integer("entity tag");
      for (int k = 0; k < (dim == 0 ? 3 : 6); ++k) in.real("entity coordinate");
      const int64_t n_physical = in.count("number of physical tags");
      std::vector<int64_t> physical;
      for (int64_t k = 0; k < n_physical; ++k) physical.push_back(in.integer("physical tag"));
      if (dim > 0) {
        const int64_t n_bounding = in.count("number of bounding entities");
        for (int64_t k = 0; k < n_bounding; ++k) in.integer("bounding entity tag");
      }
      if (dim == 2) p.surface_physicals[tag] = std::move(physical);
    }
  p.have_entities = true;
}

// The physical group of the triangles of MSH 4.1 surface entity `entity` (0 for none).
int64_t surface_group(Reader& in, const Parsed& p, int64_t dim, int64_t entity) {
  const std::string name = "surface entity " + std::to_string(entity);
  if (!p.have_entities)
    in.fail("triangles on " + name + " with no $Entities section to give their physical group");
  const auto it = p.surface_physicals.find(entity);
  if (dim != 2 || it == p.surface_physicals.end())
    in.fail("triangles on " + name + " (dimension " + std::to_string(dim) +
            "), which $Entities does not list");
  if (it->second.size() > 1)
    in.fail(name + " is in " + std::to_string(it->second.size()) +
            " physical groups; a boundary face needs exactly one");
  if (!it->second.empty() && it->second[0] <= 0)
    in.fail(name + " has physical tag " + std::to_string(it->second[0]) + ", not positive");
  return it->second.empty() ? 0 : it->second[0];
}

void read_nodes_v4(Reader& in, Parsed& p) {
  const int64_t n_blocks = in.count("number of node blocks");
  const int64_t n_nodes = in.count("number of nodes");
  in.integer("minimum node tag");
  in.integer("maximum node tag");
  for (int64_t b = 0; b < n_blocks; ++b) {
    const int64_t dim = in.integer("entity dimension");
    if (dim < 0 || dim > 3) in.fail("entity dimension " + std::to_string(dim) + " not in 0..3");
    in.integer("entity tag");
    const int64_t parametric = in.integer("parametric flag");
    if (parametric != 0 && parametric != 1)
      in.fail("parametric flag must be 0 or 1, found " + std::to_string(parametric));
    const int64_t n = in.count("number of nodes in block");
    const size_t first = p.node_tag.size();
    for (int64_t i = 0; i < n; ++i) add_node(in, p, in.integer("node tag"));
    // The block lists its tags first, then one coordinate record per tag.
    for (int64_t i = 0; i < n; ++i) {
      read_coordinates(in, p, parametric ? static_cast<int>(dim) : 0);
      p.node_line[first + i] = in.line();  // report the coordinate line for this node
    }
  }
  if (static_cast<int64_t>(p.node_tag.size()) != n_nodes)
    in.fail("$Nodes header announces " + std::to_string(n_nodes) + " nodes, its blocks hold " +
            std::to_string(p.node_tag.size()));
}

void read_nodes_v2(Reader& in, Parsed& p) {
  const int64_t n_nodes = in.count("number of nodes");
  for (int64_t i = 0; i < n_nodes; ++i) {
    add_node(in, p, in.integer("node tag"));
    read_coordinates(in, p, 0);
  }
}

void read_elements_v4(Reader& in, Parsed& p) {
  const int64_t n_blocks = in.count("number of element blocks");
  const int64_t n_elements = in.count("number of elements");
  in.integer("minimum element tag");
  in.integer("maximum element tag");
  int64_t seen = 0;
  for (int64_t b = 0; b < n_blocks; ++b) {
    const int64_t dim = in.integer("entity dimension");
    const int64_t entity = in.integer("entity tag");
    const int64_t type = in.integer("element type");
    const int64_t n = in.count("number of elements in block");
    const bool triangles = p.tagged && type == 2;
    const int64_t physical = triangles ? surface_group(in, p, dim, entity) : 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t tag = in.integer("element tag");
      if (type == 4)
        read_tet(in, p, tag);
      else if (triangles)
        read_triangle(in, p, tag, physical);
      else
        in.skip_line();
    }
    seen += n;
  }
  if (seen != n_elements)
    in.fail("$Elements header announces " + std::to_string(n_elements) +
            " elements, its blocks hold " + std::to_string(seen));
}

void read_elements_v2(Reader& in, Parsed& p) {
  const int64_t n_elements = in.count("number of elements");
  for (int64_t i = 0; i < n_elements; ++i) {
    const int64_t tag = in.integer("element tag");
    const int64_t type = in.integer("element type");
    if (type != 4 && !(p.tagged && type == 2)) {
      in.skip_line();
      continue;
    }
    // The first of the element's tags is its physical group (0: none).
    const int64_t n_tags = in.count("number of element tags");
    int64_t physical = 0;
    for (int64_t k = 0; k < n_tags; ++k) {
      const int64_t value = in.integer("element tag value");
      if (k == 0) physical = value;
    }
    if (type == 4) {
      read_tet(in, p, tag);
    } else {
      if (physical < 0) in.fail("physical tag " + std::to_string(physical) + " is negative");
      read_triangle(in, p, tag, physical);
    }
  }
}

// The whole file; `tagged` also reads the triangles, $PhysicalNames and $Entities.
Parsed parse(const std::filesystem::path& file, bool tagged) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw MeshReadError(file, 0, "cannot open: no such file");
  std::ifstream stream(file, std::ios::binary);
  if (!stream) throw MeshReadError(file, 0, "cannot open for reading");
  std::ostringstream buffer;
  buffer << stream.rdbuf();
  Reader in(file, buffer.str());

  if (in.next() != "$MeshFormat") in.fail("not a Gmsh file: expected '$MeshFormat' first");
  in.section = "$MeshFormat";
  const std::string version(in.value("format version"));
  if (version != "4.1" && version != "2.2")
    in.fail("unsupported MSH version " + version + " (4.1 and 2.2 are read)");
  const int64_t file_type = in.integer("file type");
  if (file_type != 0)
    in.fail("binary MSH files are not supported (file type " + std::to_string(file_type) +
            "); save as ASCII");
  in.integer("data size");
  in.section.clear();
  in.expect("$EndMeshFormat");
  const bool v4 = version == "4.1";

  Parsed p;
  p.tagged = tagged;
  bool have_elements = false;
  for (std::string_view t = in.next(); !t.empty(); t = in.next()) {
    if (t[0] != '$') in.fail("unexpected '" + std::string(t) + "' between sections");
    const std::string name(t.substr(1));
    in.section = "$" + name;
    if (name == "Nodes") {
      if (p.have_nodes) in.fail("second $Nodes section");
      v4 ? read_nodes_v4(in, p) : read_nodes_v2(in, p);
      index_nodes(in, p);
    } else if (name == "Elements") {
      if (!p.have_nodes) in.fail("$Elements before $Nodes");
      if (have_elements) in.fail("second $Elements section");
      v4 ? read_elements_v4(in, p) : read_elements_v2(in, p);
      have_elements = true;
    } else if (tagged && name == "PhysicalNames") {
      read_physical_names(in, p);
    } else if (tagged && v4 && name == "Entities") {
      if (p.have_entities) in.fail("second $Entities section");
      read_entities_v4(in, p);
    } else {
      // Sections this reader has no use for ($NodeData, $Periodic, ...).
      const std::string end = "$End" + name;
      std::string_view s;
      do s = in.next();
      while (!s.empty() && s != end);
      if (s.empty()) in.fail("unexpected end of file: section $" + name + " has no " + end);
      in.section.clear();
      continue;
    }
    const std::string end = "$End" + name;
    in.expect(end);
    in.section.clear();
  }
  if (!p.have_nodes) throw MeshReadError(file, 0, "no $Nodes section");
  if (!have_elements) throw MeshReadError(file, 0, "no $Elements section");
  if (p.tets.empty()) throw MeshReadError(file, 0, "no 4-node tetrahedra (element type 4)");
  return p;
}

// The tets over the nodes some tet uses, in file order, positively oriented. new_index maps
// a file node index to its mesh index (-1: on no tet).
TetMesh tet_mesh(const std::filesystem::path& file, const Parsed& p,
                 std::vector<int32_t>& new_index) {
  new_index.assign(p.node_tag.size(), -1);
  for (int32_t v : p.tets) new_index[v] = 0;
  TetMesh mesh;
  for (size_t i = 0; i < new_index.size(); ++i)
    if (new_index[i] == 0) {
      new_index[i] = static_cast<int32_t>(mesh.n_nodes++);
      mesh.xyz.insert(mesh.xyz.end(), p.xyz.begin() + 3 * i, p.xyz.begin() + 3 * i + 3);
    }
  mesh.tets.resize(p.tets.size());
  for (size_t k = 0; k < p.tets.size(); ++k) mesh.tets[k] = new_index[p.tets[k]];

  for (int64_t t = 0; t < mesh.n_tets(); ++t) {
    int32_t* v = &mesh.tets[static_cast<size_t>(t) * 4];
    const double volume = tet_signed_volume(mesh, t);
    double longest = 0;  // degeneracy is judged relative to the tet's own size
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        double l2 = 0;
        for (int d = 0; d < 3; ++d) {
          const double dx = mesh.xyz[3 * static_cast<size_t>(v[a]) + d] -
                            mesh.xyz[3 * static_cast<size_t>(v[b]) + d];
          l2 += dx * dx;
        }
        longest = std::max(longest, std::sqrt(l2));
      }
    if (!(std::abs(volume) > 1e-12 * longest * longest * longest))
      throw MeshReadError(file, p.tet_line[t],
                          "element " + std::to_string(p.tet_tag[t]) +
                              " is a degenerate tetrahedron (volume " + short_number(volume) + ")");
    if (volume < 0) std::swap(v[2], v[3]);
  }
  return mesh;
}

// The faces of a positively oriented tet (a, b, c, d) with outward normals (tet_mesh.h).
constexpr int kTetFace[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

using FaceKey = std::array<int32_t, 3>;

FaceKey sorted_key(int32_t a, int32_t b, int32_t c) {
  FaceKey k{a, b, c};
  std::sort(k.begin(), k.end());
  return k;
}

// Face `local` of tet t, by its sorted nodes.
struct TetFace {
  FaceKey key;
  int64_t tet;
  int local;
};

// Assigns each boundary face of the tets the group of its triangle; every boundary face needs
// one.
GmshMesh tag_boundary(const std::filesystem::path& file, const Parsed& p, TetMesh mesh,
                      const std::vector<int32_t>& new_index) {
  std::vector<TetFace> faces;
  faces.reserve(static_cast<size_t>(mesh.n_tets()) * 4);
  for (int64_t t = 0; t < mesh.n_tets(); ++t) {
    const int32_t* v = &mesh.tets[static_cast<size_t>(t) * 4];
    for (int f = 0; f < 4; ++f)
      faces.push_back({sorted_key(v[kTetFace[f][0]], v[kTetFace[f][1]], v[kTetFace[f][2]]), t, f});
  }
  std::sort(faces.begin(), faces.end(),
            [](const TetFace& a, const TetFace& b) { return a.key < b.key; });
  // boundary_of[i]: the boundary face that faces[i] is, or -1 for a face of two tets.
  std::vector<int64_t> boundary_of(faces.size(), -1), boundary_face;
  for (size_t i = 0; i < faces.size();) {
    size_t j = i + 1;
    while (j < faces.size() && faces[j].key == faces[i].key) ++j;
    if (j == i + 1) {
      boundary_of[i] = static_cast<int64_t>(boundary_face.size());
      boundary_face.push_back(static_cast<int64_t>(i));
    }
    i = j;
  }

  // Groups in order of physical tag; each triangle's group needs a name.
  std::map<int64_t, int32_t> group_of_physical;
  for (size_t k = 0; k < p.tri_tag.size(); ++k) {
    if (!p.surface_names.contains(p.tri_physical[k]))
      throw MeshReadError(
          file, p.tri_line[k],
          "element " + std::to_string(p.tri_tag[k]) + " (triangle) is in physical group " +
              std::to_string(p.tri_physical[k]) + ", which has no surface name in $PhysicalNames");
    group_of_physical[p.tri_physical[k]] = 0;
  }
  GmshMesh out;
  for (auto& [physical, group] : group_of_physical) {
    group = static_cast<int32_t>(out.groups.size());
    out.groups.push_back(p.surface_names.at(physical));
  }

  std::vector<int32_t> group(boundary_face.size(), -1);
  std::vector<size_t> tagged_by(boundary_face.size());
  for (size_t k = 0; k < p.tri_tag.size(); ++k) {
    const std::string element = "element " + std::to_string(p.tri_tag[k]) + " (triangle, group \"" +
                                p.surface_names.at(p.tri_physical[k]) + "\")";
    int32_t v[3];
    for (int c = 0; c < 3; ++c) {
      const int32_t file_node = p.tris[3 * k + c];
      v[c] = new_index[file_node];
      if (v[c] < 0)
        throw MeshReadError(file, p.tri_line[k],
                            element + " is not a boundary face of the tetrahedra: node tag " +
                                std::to_string(p.node_tag[file_node]) + " is on no tetrahedron");
    }
    const FaceKey key = sorted_key(v[0], v[1], v[2]);
    const auto it = std::lower_bound(faces.begin(), faces.end(), key,
                                     [](const TetFace& f, const FaceKey& k) { return f.key < k; });
    if (it == faces.end() || it->key != key)
      throw MeshReadError(file, p.tri_line[k],
                          element +
                              " is not a boundary face of the tetrahedra: no tetrahedron "
                              "has this face");
    const int64_t b = boundary_of[static_cast<size_t>(it - faces.begin())];
    if (b < 0)
      throw MeshReadError(file, p.tri_line[k],
                          element +
                              " is not a boundary face of the tetrahedra: two tetrahedra "
                              "share it");
    const int32_t g = group_of_physical.at(p.tri_physical[k]);
    if (group[b] >= 0 && group[b] != g)
      throw MeshReadError(file, p.tri_line[k],
                          element + " tags a face that element " +
                              std::to_string(p.tri_tag[tagged_by[b]]) + " (line " +
                              std::to_string(p.tri_line[tagged_by[b]]) + ") tags as \"" +
                              out.groups[group[b]] + "\"");
    group[b] = g;
    tagged_by[b] = k;
  }

  // An untagged boundary face: named by its tet, the first one in the file.
  int64_t untagged = -1;
  for (size_t b = 0; b < boundary_face.size(); ++b)
    if (group[b] < 0 &&
        (untagged < 0 || faces[boundary_face[b]].tet < faces[boundary_face[untagged]].tet))
      untagged = static_cast<int64_t>(b);
  if (untagged >= 0) {
    std::vector<int64_t> tag_of_node(mesh.n_nodes);
    for (size_t i = 0; i < new_index.size(); ++i)
      if (new_index[i] >= 0) tag_of_node[new_index[i]] = p.node_tag[i];
    const TetFace& f = faces[boundary_face[untagged]];
    throw MeshReadError(
        file, p.tet_line[f.tet],
        "element " + std::to_string(p.tet_tag[f.tet]) +
            " (tetrahedron) has a boundary face, node tags " +
            std::to_string(tag_of_node[f.key[0]]) + " " + std::to_string(tag_of_node[f.key[1]]) +
            " " + std::to_string(tag_of_node[f.key[2]]) + ", with no triangle in a physical group");
  }

  out.boundary.resize(boundary_face.size());
  for (size_t b = 0; b < boundary_face.size(); ++b) {
    const TetFace& f = faces[boundary_face[b]];
    const int32_t* v = &mesh.tets[static_cast<size_t>(f.tet) * 4];
    for (int c = 0; c < 3; ++c) out.boundary[b].nodes[c] = v[kTetFace[f.local][c]];
    out.boundary[b].group = group[b];
  }
  out.mesh = std::move(mesh);
  return out;
}

}  // namespace

TetMesh read_gmsh(const std::filesystem::path& file) {
  std::vector<int32_t> new_index;
  return tet_mesh(file, parse(file, false), new_index);
}

GmshMesh read_gmsh_tagged(const std::filesystem::path& file) {
  const Parsed p = parse(file, true);
  std::vector<int32_t> new_index;
  TetMesh mesh = tet_mesh(file, p, new_index);
  return tag_boundary(file, p, std::move(mesh), new_index);
}

}  // namespace dualjit::cfd

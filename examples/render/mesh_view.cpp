#include "examples/render/mesh_view.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "examples/render/colorbar.h"
#include "examples/render/raster.h"
#include "examples/render/text.h"

namespace dualjit::render {

namespace {

using V3 = std::array<double, 3>;

V3 operator-(const V3& a, const V3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
V3 operator+(const V3& a, const V3& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
V3 operator*(double s, const V3& a) {
  return {s * a[0], s * a[1], s * a[2]};
}
double dot(const V3& a, const V3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
V3 cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const V3& a) {
  return std::sqrt(dot(a, a));
}
V3 normalized(const V3& a) {
  const double n = norm(a);
  return n > 0 ? (1 / n) * a : V3{0, 0, 0};
}

constexpr double kDeg = std::numbers::pi / 180;
constexpr int kFontScale = 2;
constexpr int kColorbarWidth = 18;

void check_faces(const mesh_energy::TriMesh& mesh, const char* who) {
  const int64_t n = mesh.n_vertices();
  for (size_t i = 0; i < mesh.faces.size(); ++i)
    if (mesh.faces[i] < 0 || mesh.faces[i] >= n)
      throw std::invalid_argument(std::string("render::") + who + ": face " +
                                  std::to_string(i / 3) + " names vertex " +
                                  std::to_string(mesh.faces[i]) + " of " + std::to_string(n));
}

Rgba scaled(Rgba c, double s) {
  const auto ch = [&](uint8_t v) {
    return static_cast<uint8_t>(std::lround(std::clamp(v * s, 0.0, 255.0)));
  };
  return {ch(c.r), ch(c.g), ch(c.b), c.a};
}

// Room at the top for the title (none without one).
int title_room(const std::string& title) {
  return title.empty() ? 0 : text_height(kFontScale) + 8;
}

void draw_title(Image& image, const std::string& title) {
  if (title.empty()) return;
  draw_text(image, (image.width() - text_width(title, kFontScale)) / 2, 6, title, kBlack,
            kFontScale);
}

// The uniform scale and offset that fit the box [lo, hi] (y up) into the pixel rectangle
// (x0, y0, w, h) (y down), centred.
struct Fit {
  double scale = 1, cx = 0, cy = 0, px = 0, py = 0;
  Point operator()(double x, double y) const {
    return {px + scale * (x - cx), py - scale * (y - cy)};
  }
};
Fit fit_box(double x_lo, double x_hi, double y_lo, double y_hi, double x0, double y0, double w,
            double h) {
  const double dx = x_hi - x_lo, dy = y_hi - y_lo;
  w = std::max(w, 1.0);  // an image smaller than its margins must not mirror the picture
  h = std::max(h, 1.0);
  Fit f;
  f.scale = std::min(dx > 0 ? w / dx : std::numeric_limits<double>::infinity(),
                     dy > 0 ? h / dy : std::numeric_limits<double>::infinity());
  if (!std::isfinite(f.scale)) f.scale = 1;  // a single point
  f.cx = 0.5 * (x_lo + x_hi);
  f.cy = 0.5 * (y_lo + y_hi);
  f.px = x0 + 0.5 * w;
  f.py = y0 + 0.5 * h;
  return f;
}

}  // namespace

Image render_uv_layout(const mesh_energy::TriMesh& mesh, const UvLayoutOptions& o) {
  if (mesh.uv.size() != static_cast<size_t>(mesh.n_vertices()) * 2 || mesh.uv.empty())
    throw std::invalid_argument("render::render_uv_layout: the mesh has no UVs (one per vertex)");
  check_faces(mesh, "render_uv_layout");
  const int64_t nf = mesh.n_faces();
  if (!o.face_values.empty() && static_cast<int64_t>(o.face_values.size()) != nf)
    throw std::invalid_argument(
        "render::render_uv_layout: " + std::to_string(o.face_values.size()) + " face values for " +
        std::to_string(nf) + " faces");

  Image image(o.width, o.height, o.background);
  const bool coloured = !o.face_values.empty();
  const ValueRange range = o.value_range.value_or(finite_range(o.face_values));
  const bool bar = coloured && o.colorbar;
  const int bar_room = bar ? colorbar_room(kColorbarWidth, range, kFontScale) + o.margin : 0;

  double u_lo = std::numeric_limits<double>::infinity(), u_hi = -u_lo, v_lo = u_lo, v_hi = -u_lo;
  for (int32_t v : mesh.faces) {
    const double u = mesh.uv[v * 2], w = mesh.uv[v * 2 + 1];
    if (!std::isfinite(u) || !std::isfinite(w)) continue;
    u_lo = std::min(u_lo, u);
    u_hi = std::max(u_hi, u);
    v_lo = std::min(v_lo, w);
    v_hi = std::max(v_hi, w);
  }
  const int top = o.margin + title_room(o.title);
  if (u_lo <= u_hi) {
    const Fit fit = fit_box(u_lo, u_hi, v_lo, v_hi, o.margin, top,
                            o.width - 2 * o.margin - bar_room, o.height - top - o.margin);
    const auto corner = [&](int64_t f, int k) {
      const int32_t v = mesh.faces[f * 3 + k];
      return fit(mesh.uv[v * 2], mesh.uv[v * 2 + 1]);
    };
    const auto signed_area2 = [&](int64_t f) {
      const double* a = &mesh.uv[mesh.faces[f * 3] * 2];
      const double* b = &mesh.uv[mesh.faces[f * 3 + 1] * 2];
      const double* c = &mesh.uv[mesh.faces[f * 3 + 2] * 2];
      return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    };
    // Flipped triangles last, so that the triangles they overlap cannot hide them.
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t f = 0; f < nf; ++f) {
        const bool flipped = signed_area2(f) < 0;
        if (flipped != (pass == 1)) continue;
        const Rgba c = flipped    ? o.flipped
                       : coloured ? viridis(range.normalize(o.face_values[f]))
                                  : o.fill;
        const Point a = corner(f, 0), b = corner(f, 1), d = corner(f, 2);
        fill_triangle(image, nullptr, {a.x, a.y, 0, c}, {b.x, b.y, 0, c}, {d.x, d.y, 0, c});
      }
    if (o.edge_width > 0) {
      // Each edge once: blending a shared edge twice would draw interior edges darker.
      std::vector<std::pair<int32_t, int32_t>> edges;
      edges.reserve(mesh.faces.size());
      for (int64_t f = 0; f < nf; ++f)
        for (int k = 0; k < 3; ++k) {
          const int32_t a = mesh.faces[f * 3 + k], b = mesh.faces[f * 3 + (k + 1) % 3];
          edges.emplace_back(std::min(a, b), std::max(a, b));
        }
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      for (const auto& [a, b] : edges)
        draw_line(image, fit(mesh.uv[a * 2], mesh.uv[a * 2 + 1]),
                  fit(mesh.uv[b * 2], mesh.uv[b * 2 + 1]), o.edge_color, o.edge_width);
    }
  }
  if (bar)
    draw_colorbar(image, o.width - bar_room, top + (o.height - top - o.margin) / 6, kColorbarWidth,
                  (o.height - top - o.margin) * 2 / 3, range, kFontScale);
  draw_title(image, o.title);
  return image;
}

Image render_mesh(const mesh_energy::TriMesh& mesh, const MeshViewOptions& o) {
  check_faces(mesh, "render_mesh");
  const int64_t nv = mesh.n_vertices(), nf = mesh.n_faces();
  if (!o.vertex_values.empty() && static_cast<int64_t>(o.vertex_values.size()) != nv)
    throw std::invalid_argument("render::render_mesh: " + std::to_string(o.vertex_values.size()) +
                                " vertex values for " + std::to_string(nv) + " vertices");
  const V3 up = normalized(o.camera.up);
  if (norm(up) == 0) throw std::invalid_argument("render::render_mesh: camera.up is zero");
  const int ss = std::max(1, o.supersample);

  const auto pos = [&](int32_t v) {
    return V3{mesh.x[v * 3], mesh.x[v * 3 + 1], mesh.x[v * 3 + 2]};
  };
  const auto finite_vertex = [&](int32_t v) {
    return std::isfinite(mesh.x[v * 3]) && std::isfinite(mesh.x[v * 3 + 1]) &&
           std::isfinite(mesh.x[v * 3 + 2]);
  };
  std::vector<char> face_ok(nf);
  V3 lo{1, 1, 1}, hi{-1, -1, -1};
  bool any = false;
  for (int64_t f = 0; f < nf; ++f) {
    const int32_t* t = &mesh.faces[f * 3];
    face_ok[f] = finite_vertex(t[0]) && finite_vertex(t[1]) && finite_vertex(t[2]);
    if (!face_ok[f]) continue;
    for (int k = 0; k < 3; ++k) {
      const V3 p = pos(t[k]);
      for (int i = 0; i < 3; ++i) {
        lo[i] = any ? std::min(lo[i], p[i]) : p[i];
        hi[i] = any ? std::max(hi[i], p[i]) : p[i];
      }
      any = true;
    }
  }

  const bool coloured = !o.vertex_values.empty();
  const ValueRange range = o.value_range.value_or(finite_range(o.vertex_values));
  const bool bar = coloured && o.colorbar;
  const int bar_room = bar ? colorbar_room(kColorbarWidth, range, kFontScale) + o.margin : 0;
  const int top = o.margin + title_room(o.title);

  Image big(o.width * ss, o.height * ss, o.background);
  if (any) {
    // The camera frame: the reference direction normal to up, turned by the azimuth.
    V3 ref = std::abs(up[2]) < std::cos(25 * kDeg) ? V3{0, 0, 1} : V3{1, 0, 0};
    ref = normalized(ref - dot(ref, up) * up);
    const V3 side = cross(up, ref);
    const double az = o.camera.azimuth_deg * kDeg, el = o.camera.elevation_deg * kDeg;
    const V3 horizontal = std::cos(az) * ref + std::sin(az) * side;
    const V3 to_eye = std::cos(el) * horizontal + std::sin(el) * up;
    const V3 forward = -1.0 * to_eye;
    // Right stays horizontal, so looking straight down (elevation 90) is still well defined.
    const V3 right = std::cos(az) * side - std::sin(az) * ref;
    const V3 cam_up = cross(right, forward);

    const V3 centre = 0.5 * (lo + hi);
    const double radius = std::max(0.5 * norm(hi - lo), 1e-300);
    const double fov = std::clamp(o.camera.fov_deg, 1.0, 170.0) * kDeg;
    // The bounding sphere stays in front of the eye and within the field of view.
    const V3 eye = centre + (radius / std::sin(fov / 2)) * to_eye;

    struct Projected {
      double sx, sy, depth;
    };
    std::vector<Projected> proj(nv);
    double sx_lo = std::numeric_limits<double>::infinity(), sx_hi = -sx_lo, sy_lo = sx_lo,
           sy_hi = -sx_lo;
    std::vector<char> used(nv, 0);
    for (int64_t f = 0; f < nf; ++f)
      if (face_ok[f])
        for (int k = 0; k < 3; ++k) used[mesh.faces[f * 3 + k]] = 1;
    for (int64_t v = 0; v < nv; ++v) {
      if (!used[v]) continue;
      const V3 rel = pos(static_cast<int32_t>(v)) - eye;
      const double x = dot(rel, right), y = dot(rel, cam_up), z = dot(rel, forward);
      // 1 / view depth is affine in screen space (the z-buffer interpolates linearly); its
      // negative keeps "smaller is nearer".
      proj[v] = o.camera.perspective ? Projected{x / z, y / z, -1 / z} : Projected{x, y, z};
      sx_lo = std::min(sx_lo, proj[v].sx);
      sx_hi = std::max(sx_hi, proj[v].sx);
      sy_lo = std::min(sy_lo, proj[v].sy);
      sy_hi = std::max(sy_hi, proj[v].sy);
    }
    const Fit fit = fit_box(sx_lo, sx_hi, sy_lo, sy_hi, double(o.margin) * ss, double(top) * ss,
                            double(o.width - 2 * o.margin - bar_room) * ss,
                            double(o.height - top - o.margin) * ss);

    // Unit face normals and area weights, then per-corner normals averaged over the faces around
    // the vertex that meet the corner's face at less than the crease angle.
    std::vector<V3> face_normal(nf);
    std::vector<double> face_area(nf);
    for (int64_t f = 0; f < nf; ++f) {
      if (!face_ok[f]) continue;
      const int32_t* t = &mesh.faces[f * 3];
      const V3 n = cross(pos(t[1]) - pos(t[0]), pos(t[2]) - pos(t[0]));
      face_area[f] = norm(n);
      face_normal[f] = normalized(n);
    }
    std::vector<int64_t> start(nv + 1, 0), around;
    for (int32_t v : mesh.faces) ++start[v + 1];
    for (int64_t v = 0; v < nv; ++v) start[v + 1] += start[v];
    around.resize(mesh.faces.size());
    {
      std::vector<int64_t> fill(start.begin(), start.end() - 1);
      for (int64_t f = 0; f < nf; ++f)
        for (int k = 0; k < 3; ++k) around[fill[mesh.faces[f * 3 + k]]++] = f;
    }
    const double cos_crease = std::cos(std::clamp(o.crease_angle_deg, 0.0, 180.0) * kDeg);
    const auto corner_normal = [&](int64_t f, int32_t v) {
      if (o.crease_angle_deg <= 0) return face_normal[f];
      V3 sum{0, 0, 0};
      for (int64_t i = start[v]; i < start[v + 1]; ++i) {
        const int64_t g = around[i];
        if (face_ok[g] && dot(face_normal[g], face_normal[f]) >= cos_crease - 1e-12)
          sum = sum + face_area[g] * face_normal[g];
      }
      const V3 n = normalized(sum);
      return norm(n) > 0 ? n : face_normal[f];
    };

    const V3 light = normalized(o.light[0] * right + o.light[1] * cam_up + o.light[2] * to_eye);
    DepthBuffer depth(big.width(), big.height());
    const TriangleEdges wire{o.wire_color, o.wireframe ? o.wire_width * ss : 0.0};
    for (int64_t f = 0; f < nf; ++f) {
      if (!face_ok[f]) continue;
      const int32_t* t = &mesh.faces[f * 3];
      Point p[3];
      for (int k = 0; k < 3; ++k) p[k] = fit(proj[t[k]].sx, proj[t[k]].sy);
      // Seen from outside, a counter-clockwise triangle stays counter-clockwise on the screen,
      // which is clockwise (negative area) in pixel coordinates whose y points down.
      const double area2 =
          (p[1].x - p[0].x) * (p[2].y - p[0].y) - (p[1].y - p[0].y) * (p[2].x - p[0].x);
      const bool front = area2 < 0;
      ScreenVertex sv[3];
      for (int k = 0; k < 3; ++k) {
        V3 n = corner_normal(f, t[k]);
        if (!front) n = -1.0 * n;  // two-sided: light the side that is seen
        const double diffuse = (1 - o.headlight) * std::max(0.0, dot(n, light)) +
                               o.headlight * std::max(0.0, dot(n, to_eye));
        const double lit = o.ambient + (1 - o.ambient) * diffuse;
        const Rgba base = coloured ? viridis(range.normalize(o.vertex_values[t[k]]))
                          : front  ? o.front_color
                                   : o.back_color;
        sv[k] = {p[k].x, p[k].y, proj[t[k]].depth, scaled(base, lit)};
      }
      fill_triangle(big, &depth, sv[0], sv[1], sv[2], wire);
    }
  }
  Image image = downsample(big, ss);
  if (bar)
    draw_colorbar(image, o.width - bar_room, top + (o.height - top - o.margin) / 6, kColorbarWidth,
                  (o.height - top - o.margin) * 2 / 3, range, kFontScale);
  draw_title(image, o.title);
  return image;
}

}  // namespace dualjit::render

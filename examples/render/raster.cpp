#include "examples/render/raster.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dualjit::render {

namespace {

// Calls visit(x, y, coverage) for every pixel of the image that the round-capped segment of
// half-width r touches. Walks the major axis so that a long diagonal costs its length times its
// thickness, not its bounding box.
template <class Visit>
void segment_pixels(Point a, Point b, double r, int width, int height, Visit visit) {
  const bool steep = std::abs(b.y - a.y) > std::abs(b.x - a.x);
  // In (u, v) coordinates u is the major axis; swap back when visiting.
  const double au = steep ? a.y : a.x, av = steep ? a.x : a.y;
  const double bu = steep ? b.y : b.x, bv = steep ? b.x : b.y;
  const int u_size = steep ? height : width, v_size = steep ? width : height;
  const double du = bu - au, dv = bv - av, len2 = du * du + dv * dv;
  const double slope = du != 0 ? dv / du : 0;
  const double reach = r + 1;
  const int u_lo = std::max(0, static_cast<int>(std::floor(std::min(au, bu) - reach)));
  const int u_hi = std::min(u_size - 1, static_cast<int>(std::ceil(std::max(au, bu) + reach)));
  for (int u = u_lo; u <= u_hi; ++u) {
    const double cu = u + 0.5;
    const double t = du != 0 ? std::clamp((cu - au) / du, 0.0, 1.0) : 0.0;
    const double vc = av + t * dv;
    // |slope| <= 1 on the major axis, so this window holds every pixel within reach.
    const double half = reach * (1 + std::abs(slope)) + 1;
    const int v_lo = std::max(0, static_cast<int>(std::floor(vc - half)));
    const int v_hi = std::min(v_size - 1, static_cast<int>(std::ceil(vc + half)));
    for (int v = v_lo; v <= v_hi; ++v) {
      const double cv = v + 0.5;
      double s = len2 > 0 ? ((cu - au) * du + (cv - av) * dv) / len2 : 0.0;
      s = std::clamp(s, 0.0, 1.0);
      const double eu = cu - (au + s * du), ev = cv - (av + s * dv);
      const double coverage = std::clamp(r + 0.5 - std::sqrt(eu * eu + ev * ev), 0.0, 1.0);
      if (coverage > 0) steep ? visit(v, u, coverage) : visit(u, v, coverage);
    }
  }
}

bool finite(Point p) {
  return std::isfinite(p.x) && std::isfinite(p.y);
}

// Clips the segment to the image grown by `margin` (Liang-Barsky), so that far-away endpoints
// neither overflow the integer pixel loops nor change the segment's direction. False when
// nothing of it is that near the image.
bool clip_near(Point& a, Point& b, const Image& image, double margin) {
  const double m = margin;
  const double lo[2] = {-m, -m}, hi[2] = {image.width() + m, image.height() + m};
  const double p0[2] = {a.x, a.y}, d[2] = {b.x - a.x, b.y - a.y};
  double t0 = 0, t1 = 1;
  for (int k = 0; k < 2; ++k) {
    if (d[k] == 0) {
      if (p0[k] < lo[k] || p0[k] > hi[k]) return false;
      continue;
    }
    double ta = (lo[k] - p0[k]) / d[k], tb = (hi[k] - p0[k]) / d[k];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
    if (t0 > t1) return false;
  }
  b = {p0[0] + t1 * d[0], p0[1] + t1 * d[1]};
  a = {p0[0] + t0 * d[0], p0[1] + t0 * d[1]};
  return true;
}

uint8_t to_byte(double v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0, 255.0)));
}

}  // namespace

void draw_line(Image& image, Point a, Point b, Rgba color, double width) {
  if (!finite(a) || !finite(b) || !clip_near(a, b, image, width / 2 + 2)) return;
  segment_pixels(a, b, width / 2, image.width(), image.height(),
                 [&](int x, int y, double c) { image.blend(x, y, color, c); });
}

void draw_polyline(Image& image, const std::vector<Point>& points, Rgba color, double width) {
  if (image.width() == 0 || image.height() == 0) return;
  // A single point draws a dot.
  if (points.size() == 1) return draw_line(image, points[0], points[0], color, width);
  std::vector<float> coverage(static_cast<size_t>(image.width()) * image.height(), 0.0f);
  bool any = false;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    Point a = points[i], b = points[i + 1];
    if (!finite(a) || !finite(b) || !clip_near(a, b, image, width / 2 + 2)) continue;
    segment_pixels(a, b, width / 2, image.width(), image.height(), [&](int x, int y, double c) {
      float& cov = coverage[static_cast<size_t>(y) * image.width() + x];
      cov = std::max(cov, static_cast<float>(c));
      any = true;
    });
  }
  if (!any) return;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const float c = coverage[static_cast<size_t>(y) * image.width() + x];
      if (c > 0) image.blend(x, y, color, c);
    }
}

DepthBuffer::DepthBuffer(int width, int height) : width_(width), height_(height) {
  if (width < 0 || height < 0) throw std::invalid_argument("render::DepthBuffer: negative size");
  depth_.assign(static_cast<size_t>(width) * height, std::numeric_limits<double>::infinity());
}

bool DepthBuffer::test_and_set(int x, int y, double depth) {
  double& d = depth_[static_cast<size_t>(y) * width_ + x];
  if (!(depth < d)) return false;
  d = depth;
  return true;
}

void fill_triangle(Image& image, DepthBuffer* depth, const ScreenVertex& a, const ScreenVertex& b,
                   const ScreenVertex& c, const TriangleEdges& edges) {
  if (depth && (depth->width() != image.width() || depth->height() != image.height()))
    throw std::invalid_argument("render::fill_triangle: depth buffer and image sizes differ");
  const ScreenVertex* v[3] = {&a, &b, &c};
  for (const ScreenVertex* p : v)
    if (!std::isfinite(p->x) || !std::isfinite(p->y) || !std::isfinite(p->depth)) return;
  double area2 = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  if (area2 == 0) return;
  // One orientation from here on, so that "inside" is all three edge functions >= 0.
  if (area2 < 0) {
    std::swap(v[1], v[2]);
    area2 = -area2;
  }
  // Edge i runs from v[i+1] to v[i+2], opposite corner i; its edge function at p is twice the
  // area of (v[i+1], v[i+2], p): the barycentric weight of corner i times area2.
  double ex[3], ey[3], len[3];
  bool include_zero[3];
  for (int i = 0; i < 3; ++i) {
    const ScreenVertex& p = *v[(i + 1) % 3];
    const ScreenVertex& q = *v[(i + 2) % 3];
    ex[i] = q.x - p.x;
    ey[i] = q.y - p.y;
    len[i] = std::hypot(ex[i], ey[i]);
    // Two triangles traverse a shared edge in opposite directions, so this antisymmetric rule
    // gives a centre on the edge to exactly one of them.
    include_zero[i] = ey[i] > 0 || (ey[i] == 0 && ex[i] < 0);
  }
  const auto edge_fn = [&](int i, double px, double py) {
    const ScreenVertex& p = *v[(i + 1) % 3];
    return ex[i] * (py - p.y) - ey[i] * (px - p.x);
  };

  const double min_x = std::min({a.x, b.x, c.x}), max_x = std::max({a.x, b.x, c.x});
  const double min_y = std::min({a.y, b.y, c.y}), max_y = std::max({a.y, b.y, c.y});
  // Clamped before the conversion, so that far-away corners cannot overflow an int.
  const auto to_pixel = [](double v, int size) {
    return static_cast<int>(std::clamp(v - 0.5, -1.0, size + 1.0));
  };
  const int x_lo = std::max(0, to_pixel(std::floor(min_x), image.width()));
  const int x_hi = std::min(image.width() - 1, to_pixel(std::ceil(max_x), image.width()));
  const int y_lo = std::max(0, to_pixel(std::floor(min_y), image.height()));
  const int y_hi = std::min(image.height() - 1, to_pixel(std::ceil(max_y), image.height()));
  const double half_edge = edges.width / 2;

  for (int y = y_lo; y <= y_hi; ++y)
    for (int x = x_lo; x <= x_hi; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      double w[3];
      bool inside = true;
      for (int i = 0; i < 3 && inside; ++i) {
        w[i] = edge_fn(i, px, py);
        inside = w[i] > 0 || (w[i] == 0 && include_zero[i]);
      }
      if (!inside) continue;
      const double l[3] = {w[0] / area2, w[1] / area2, w[2] / area2};
      const double z = l[0] * v[0]->depth + l[1] * v[1]->depth + l[2] * v[2]->depth;
      if (depth && !depth->test_and_set(x, y, z)) continue;
      const auto channel = [&](auto member) {
        return l[0] * (v[0]->color.*member) + l[1] * (v[1]->color.*member) +
               l[2] * (v[2]->color.*member);
      };
      double rgba[4] = {channel(&Rgba::r), channel(&Rgba::g), channel(&Rgba::b), channel(&Rgba::a)};
      if (half_edge > 0) {
        // Distance to the nearest edge line: the edge function over the edge's length.
        const double d = std::min({w[0] / len[0], w[1] / len[1], w[2] / len[2]});
        const double t = std::clamp(half_edge + 0.5 - d, 0.0, 1.0) * edges.color.a / 255.0;
        const uint8_t e[3] = {edges.color.r, edges.color.g, edges.color.b};
        for (int k = 0; k < 3; ++k) rgba[k] += (e[k] - rgba[k]) * t;
        rgba[3] += (255 - rgba[3]) * t;
      }
      // Opaque triangles replace what is behind them; translucent ones composite over it.
      image.blend(x, y, {to_byte(rgba[0]), to_byte(rgba[1]), to_byte(rgba[2]), to_byte(rgba[3])});
    }
}

}  // namespace dualjit::render

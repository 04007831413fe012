// Drawing primitives on an Image: anti-aliased thick lines and polylines, and filled triangles
// with per-vertex colour and depth interpolation against a depth buffer (z-buffer).
#pragma once

#include <vector>

#include "examples/render/image.h"

namespace dualjit::render {

// A point in pixel coordinates (x right, y down; pixel centres at half-integers).
struct Point {
  double x = 0, y = 0;
};

// A line `width` pixels wide with round caps, anti-aliased by the distance of each pixel centre
// to the segment (coverage clamp(width / 2 + 1/2 - distance, 0, 1)).
void draw_line(Image& image, Point a, Point b, Rgba color, double width = 1.0);

// Connected segments blended once per pixel (coverage is the maximum over the segments), so that
// joints are not darker than the line. Non-finite points break the line there.
void draw_polyline(Image& image, const std::vector<Point>& points, Rgba color, double width = 1.0);

// A depth per pixel, +infinity where nothing has been drawn; smaller is nearer.
class DepthBuffer {
 public:
  DepthBuffer(int width, int height);
  int width() const { return width_; }
  int height() const { return height_; }
  double at(int x, int y) const { return depth_[static_cast<size_t>(y) * width_ + x]; }
  // Stores `depth` and returns true where it is nearer than the stored depth.
  bool test_and_set(int x, int y, double depth);

 private:
  int width_, height_;
  std::vector<double> depth_;
};

// A triangle corner on the screen: its position in pixels, a depth that must be affine in
// screen space (orthographic view depth, or -1 / view depth for a perspective camera) and a
// colour.
struct ScreenVertex {
  double x = 0, y = 0, depth = 0;
  Rgba color;
};

// Edges drawn inside a triangle as it is filled, so that the depth test hides them with the
// triangle (a wireframe overlay without a separate line pass); width 0 draws none.
struct TriangleEdges {
  Rgba color = kBlack;
  double width = 0;
};

// Fills the pixels whose centres lie inside the triangle (either orientation; centres on an
// edge follow a top-left style rule, so triangles sharing an edge cover each pixel once),
// interpolating depth and colour linearly. With a depth buffer, a pixel is drawn only where the
// triangle is nearer than what was drawn before. Pixels within edges.width / 2 of an edge are
// mixed towards the edge colour (anti-aliased). A degenerate triangle draws nothing.
void fill_triangle(Image& image, DepthBuffer* depth, const ScreenVertex& a, const ScreenVertex& b,
                   const ScreenVertex& c, const TriangleEdges& edges = {});

}  // namespace dualjit::render

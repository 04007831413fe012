// Mesh pictures (examples/render/mesh_view.h): flipped UV triangles in red, face colouring, the
// shaded 3D view's framing, lighting side, two-sided colours and depth order, input checks.
#include <doctest/doctest.h>

#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "examples/mesh_energy/mesh_generators.h"
#include "examples/render/mesh_view.h"

using namespace dualjit;
using namespace dualjit::render;
using mesh_energy::TriMesh;

namespace {

int count_if_color(const Image& im, bool (*pred)(Rgba)) {
  int n = 0;
  for (int y = 0; y < im.height(); ++y)
    for (int x = 0; x < im.width(); ++x) n += pred(im.at(x, y));
  return n;
}

bool reddish(Rgba c) {
  return c.r > 200 && c.g < 60 && c.b < 60;
}

// Two triangles side by side in UV; the second one's corners can be swapped to flip it.
TriMesh two_triangles(bool flip_second) {
  TriMesh m;
  m.x = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  m.uv = {0, 0, 1, 0, 0, 1, 1, 1};
  m.faces = {0, 1, 2, 1, 3, 2};
  if (flip_second) m.uv[3 * 2] = -0.5, m.uv[3 * 2 + 1] = -0.5;  // (1, 3, 2) turns clockwise
  return m;
}

// A square of side 2 in the plane z = `z`, facing +z, with per-vertex values `value`.
void add_square(TriMesh& m, double z) {
  const int32_t b = static_cast<int32_t>(m.n_vertices());
  const double s = z > 0 ? 0.5 : 1.0;  // the nearer one smaller, so both stay visible
  m.x.insert(m.x.end(), {-s, -s, z, s, -s, z, s, s, z, -s, s, z});
  m.faces.insert(m.faces.end(), {b, b + 1, b + 2, b, b + 2, b + 3});
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("viridis: matplotlib's colours at the ends and the middle; ValueRange") {
    CHECK(viridis(0.0) == Rgba{68, 1, 84, 255});
    CHECK(viridis(1.0) == Rgba{253, 231, 37, 255});
    CHECK(viridis(-3.0) == viridis(0.0));
    CHECK(viridis(7.0) == viridis(1.0));
    const Rgba mid = viridis(0.5);  // between table entries 127 (33, 144, 141), 128 (33, 145, 140)
    CHECK(std::abs(mid.r - 33) <= 1);
    CHECK(std::abs(mid.g - 144) <= 1);
    CHECK(std::abs(mid.b - 140) <= 1);
    CHECK(ValueRange{2, 4}.normalize(3) == 0.5);
    CHECK(ValueRange{2, 2}.normalize(2) == 0.5);
    const ValueRange r = finite_range({3, std::numeric_limits<double>::quiet_NaN(), -1, 2});
    CHECK(r.lo == -1);
    CHECK(r.hi == 3);
  }

  TEST_CASE("render_uv_layout: a flipped triangle is red, an unflipped layout has no red") {
    UvLayoutOptions o;
    o.width = o.height = 200;
    const Image ok = render_uv_layout(two_triangles(false), o);
    CHECK(count_if_color(ok, reddish) == 0);
    const Image flipped = render_uv_layout(two_triangles(true), o);
    CHECK(count_if_color(flipped, reddish) > 500);
    // The layout fills the image up to the margins: the fill colour is present and the
    // corner is background.
    CHECK(flipped.at(0, 0) == kWhite);
  }

  TEST_CASE("render_uv_layout: faces coloured with viridis by value, edges drawn") {
    UvLayoutOptions o;
    o.width = o.height = 200;
    o.face_values = {0.0, 1.0};
    o.colorbar = false;
    o.edge_width = 0;
    const Image im = render_uv_layout(two_triangles(false), o);
    // v points up: face 0 (u + v < 1) is the lower left half, face 1 the upper right.
    CHECK(im.at(40, 150) == viridis(0.0));
    CHECK(im.at(160, 50) == viridis(1.0));
    o.edge_width = 2;
    o.edge_color = kBlack;
    const Image edged = render_uv_layout(two_triangles(false), o);
    CHECK(edged.at(100, 100) != viridis(0.0));  // on the shared diagonal
    CHECK(edged.at(40, 150) == viridis(0.0));
  }

  TEST_CASE("render_uv_layout: input checks") {
    TriMesh no_uv = two_triangles(false);
    no_uv.uv.clear();
    CHECK_THROWS_AS(render_uv_layout(no_uv), std::invalid_argument);
    TriMesh bad = two_triangles(false);
    bad.faces[4] = 9;
    CHECK_THROWS_WITH_AS(render_uv_layout(bad), doctest::Contains("face 1"), std::invalid_argument);
    UvLayoutOptions o;
    o.face_values = {1.0};
    CHECK_THROWS_AS(render_uv_layout(two_triangles(false), o), std::invalid_argument);
  }

  TEST_CASE("render_mesh: a sphere is framed in the image and lit from the upper left") {
    MeshViewOptions o;
    o.width = 240;
    o.height = 200;
    o.margin = 10;
    const Image im = render_mesh(mesh_energy::icosphere(2), o);
    CHECK(im.at(120, 100) != kWhite);
    CHECK(im.at(3, 3) == kWhite);
    CHECK(im.at(236, 196) == kWhite);
    // The sphere reaches the top and bottom margins (height is the tighter fit).
    bool top = false, bottom = false;
    for (int x = 100; x < 140; ++x) {
      top = top || im.at(x, 12) != kWhite;
      bottom = bottom || im.at(x, 187) != kWhite;
    }
    CHECK(top);
    CHECK(bottom);
    const auto brightness = [&](int x, int y) {
      const Rgba c = im.at(x, y);
      return c.r + c.g + c.b;
    };
    CHECK(brightness(90, 70) > brightness(150, 130) + 60);

    // A wireframe adds dark edge pixels, hidden ones excluded: about half the edges are seen.
    const auto dark_pixels = [](const Image& image) {
      int n = 0;
      for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
          const Rgba c = image.at(x, y);
          n += c.r + c.g + c.b < 120;  // darker than any lit surface (ambient 0.3)
        }
      return n;
    };
    CHECK(dark_pixels(im) == 0);
    o.wireframe = true;
    CHECK(dark_pixels(render_mesh(mesh_energy::icosphere(2), o)) > 1000);
  }

  TEST_CASE("render_mesh: two-sided colours follow which side of the triangles is seen") {
    TriMesh square;
    add_square(square, 0);
    MeshViewOptions o;
    o.width = o.height = 100;
    o.camera.azimuth_deg = 0;  // looking at the +z side, the side the normals point to
    o.camera.elevation_deg = 0;
    const Rgba front = render_mesh(square, o).at(50, 50);
    o.camera.azimuth_deg = 180;
    const Rgba back = render_mesh(square, o).at(50, 50);
    CHECK(front.b > front.r);  // front_color is blue
    CHECK(back.r > back.b);    // back_color is orange
  }

  TEST_CASE("render_mesh: the depth buffer shows the nearer surface, perspective or not") {
    TriMesh m;
    add_square(m, 0);    // far, value 0
    add_square(m, 0.5);  // near (camera on +z), value 1
    MeshViewOptions o;
    o.width = o.height = 120;
    o.camera.azimuth_deg = 0;
    o.camera.elevation_deg = 0;
    o.ambient = 1.0;  // unshaded colours
    o.vertex_values = {0, 0, 0, 0, 1, 1, 1, 1};
    o.colorbar = false;
    for (bool perspective : {true, false}) {
      CAPTURE(perspective);
      o.camera.perspective = perspective;
      const Image im = render_mesh(m, o);
      CHECK(im.at(60, 60) == viridis(1.0));  // the near square covers the centre
      CHECK(im.at(25, 60) == viridis(0.0));  // only the far one out there
      // Drawn in the other order the result is the same.
      TriMesh swapped = m;
      std::swap_ranges(swapped.faces.begin(), swapped.faces.begin() + 6, swapped.faces.begin() + 6);
      CHECK(render_mesh(swapped, o).at(60, 60) == viridis(1.0));
    }
  }

  TEST_CASE("render_mesh: input checks; an empty mesh is background") {
    TriMesh bad = two_triangles(false);
    bad.faces[2] = -1;
    CHECK_THROWS_AS(render_mesh(bad), std::invalid_argument);
    MeshViewOptions o;
    o.vertex_values = {1.0, 2.0};
    CHECK_THROWS_AS(render_mesh(two_triangles(false), o), std::invalid_argument);
    MeshViewOptions zero_up;
    zero_up.camera.up = {0, 0, 0};
    CHECK_THROWS_AS(render_mesh(two_triangles(false), zero_up), std::invalid_argument);
    MeshViewOptions small;
    small.width = 30;
    small.height = 20;
    const Image empty = render_mesh(TriMesh{}, small);
    CHECK(empty.width() == 30);
    CHECK(empty.at(15, 10) == kWhite);
  }
}

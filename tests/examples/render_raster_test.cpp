// Drawing primitives (examples/render/raster.h, text.h): which pixels a triangle covers, the
// depth test, colour interpolation, anti-aliased lines and polylines, and the bitmap font.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>

#include "examples/render/raster.h"
#include "examples/render/text.h"

using namespace dualjit::render;

namespace {

constexpr Rgba kRed{255, 0, 0, 255}, kGreen{0, 255, 0, 255}, kBlue{0, 0, 255, 255};

bool is(const Image& im, int x, int y, Rgba c) {
  return im.at(x, y) == c;
}

int count(const Image& im, Rgba c) {
  int n = 0;
  for (int y = 0; y < im.height(); ++y)
    for (int x = 0; x < im.width(); ++x) n += is(im, x, y, c);
  return n;
}

ScreenVertex sv(double x, double y, double depth, Rgba c) {
  return {x, y, depth, c};
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("fill_triangle: covers the pixels whose centres are inside, in either orientation") {
    for (bool flip : {false, true}) {
      CAPTURE(flip);
      Image im(12, 12);
      // The right triangle x >= 1, y >= 1, x + y <= 10: pixel (i, j) has its centre inside when
      // i + j + 1 < 10, outside when i + j + 1 > 10 (centres on the diagonal are a tie).
      const ScreenVertex a = sv(1, 1, 0, kRed), b = sv(9, 1, 0, kRed), c = sv(1, 9, 0, kRed);
      flip ? fill_triangle(im, nullptr, a, c, b) : fill_triangle(im, nullptr, a, b, c);
      int wrong = 0;
      for (int j = 0; j < 12; ++j)
        for (int i = 0; i < 12; ++i) {
          const bool inside = i >= 1 && j >= 1 && i + j + 1 < 10;
          const bool outside = i < 1 || j < 1 || i + j + 1 > 10;
          if (inside) wrong += !is(im, i, j, kRed);
          if (outside) wrong += !is(im, i, j, kWhite);
        }
      CHECK(wrong == 0);
      CHECK(is(im, 1, 1, kRed));
      CHECK(is(im, 7, 1, kRed));
      CHECK(is(im, 0, 5, kWhite));
      CHECK(is(im, 8, 8, kWhite));
    }
  }

  TEST_CASE("fill_triangle: two triangles sharing an edge cover each pixel exactly once") {
    // A square split along its diagonal, where pixel centres lie exactly on the shared edge.
    Image first(10, 10), second(10, 10);
    fill_triangle(first, nullptr, sv(1, 1, 0, kRed), sv(9, 1, 0, kRed), sv(1, 9, 0, kRed));
    fill_triangle(second, nullptr, sv(9, 1, 0, kBlue), sv(9, 9, 0, kBlue), sv(1, 9, 0, kBlue));
    int twice = 0, never = 0;
    for (int y = 1; y < 9; ++y)
      for (int x = 1; x < 9; ++x) {
        const bool a = is(first, x, y, kRed), b = is(second, x, y, kBlue);
        twice += a && b;
        never += !a && !b;
      }
    CHECK(twice == 0);
    CHECK(never == 0);
    CHECK(count(first, kRed) + count(second, kBlue) == 64);
  }

  TEST_CASE("fill_triangle: the depth buffer keeps the nearer triangle in either drawing order") {
    for (bool near_first : {false, true}) {
      CAPTURE(near_first);
      Image im(20, 20);
      DepthBuffer depth(20, 20);
      const auto near_tri = [&] {
        fill_triangle(im, &depth, sv(0, 0, 1.0, kRed), sv(20, 0, 1.0, kRed), sv(0, 20, 1.0, kRed));
      };
      const auto far_tri = [&] {
        fill_triangle(im, &depth, sv(0, 0, 2.0, kBlue), sv(20, 0, 2.0, kBlue),
                      sv(20, 20, 2.0, kBlue));
      };
      if (near_first) {
        near_tri();
        far_tri();
      } else {
        far_tri();
        near_tri();
      }
      CHECK(is(im, 12, 3, kRed));    // in both: the nearer wins
      CHECK(is(im, 3, 12, kRed));    // only the near one
      CHECK(is(im, 17, 12, kBlue));  // only the far one
      CHECK(depth.at(12, 3) == doctest::Approx(1.0));
      CHECK(depth.at(17, 12) == doctest::Approx(2.0));
      CHECK(depth.at(2, 18) == std::numeric_limits<double>::infinity());
    }
  }

  TEST_CASE("fill_triangle: depth interpolates, so crossing triangles swap in the middle") {
    Image im(20, 20);
    DepthBuffer depth(20, 20);
    // Two triangles over the same square whose depths cross at x = 10.
    fill_triangle(im, &depth, sv(0, 0, 0, kRed), sv(20, 0, 2, kRed), sv(0, 40, 0, kRed));
    fill_triangle(im, &depth, sv(0, 0, 2, kBlue), sv(20, 0, 0, kBlue), sv(0, 40, 2, kBlue));
    CHECK(is(im, 4, 2, kRed));
    CHECK(is(im, 16, 2, kBlue));
  }

  TEST_CASE("fill_triangle: per-vertex colours interpolate linearly") {
    Image im(60, 60);
    fill_triangle(im, nullptr, sv(0, 0, 0, kRed), sv(60, 0, 0, kGreen), sv(0, 60, 0, kBlue));
    const Rgba near_red = im.at(1, 1), centre = im.at(19, 19);
    CHECK(near_red.r > 240);
    CHECK(near_red.g < 15);
    // At the centre (19.5, 19.5): weights 0.35 red, 0.325 green, 0.325 blue.
    CHECK(int(centre.r) == 89);
    CHECK(int(centre.g) == 83);
    CHECK(int(centre.b) == 83);
  }

  TEST_CASE("fill_triangle: edges drawn inside the triangle; degenerate triangles draw nothing") {
    Image im(40, 40);
    fill_triangle(im, nullptr, sv(0, 0, 0, kRed), sv(40, 0, 0, kRed), sv(0, 40, 0, kRed),
                  {kBlack, 2.0});
    CHECK(is(im, 10, 0, kBlack));  // along the top edge
    CHECK(is(im, 10, 10, kRed));   // inside, away from the edges
    // Corners far outside the image: only the part inside is visited.
    Image huge(10, 10);
    fill_triangle(huge, nullptr, sv(-1e12, -1, 0, kRed), sv(1e12, -1, 0, kRed),
                  sv(5, 1e12, 0, kRed));
    CHECK(count(huge, kRed) == 100);
    Image flat(10, 10);
    fill_triangle(flat, nullptr, sv(0, 0, 0, kRed), sv(5, 5, 0, kRed), sv(9, 9, 0, kRed));
    CHECK(count(flat, kWhite) == 100);
  }

  TEST_CASE("draw_line: pixels within half the width, anti-aliased at the sides") {
    Image im(12, 12);
    draw_line(im, {2, 5.5}, {9, 5.5}, kBlue, 1.0);
    for (int x = 2; x < 9; ++x) CHECK(is(im, x, 5, kBlue));
    CHECK(is(im, 5, 4, kWhite));
    CHECK(is(im, 5, 6, kWhite));
    CHECK(is(im, 11, 5, kWhite));

    Image thick(12, 12);
    draw_line(thick, {2, 5.5}, {9, 5.5}, kBlue, 3.0);
    for (int y = 4; y <= 6; ++y) CHECK(is(thick, 5, y, kBlue));
    CHECK(is(thick, 5, 3, kWhite));
    CHECK(is(thick, 5, 7, kWhite));

    // On a pixel boundary the two rows share the coverage.
    Image between(12, 12);
    draw_line(between, {2, 6}, {9, 6}, kBlue, 1.0);
    const Rgba up = between.at(5, 5), down = between.at(5, 6);
    CHECK(up == down);
    CHECK(int(up.r) == doctest::Approx(127.5).epsilon(0.02));

    // A long diagonal touches the pixels along it and none far from it.
    Image diag(100, 100);
    draw_line(diag, {0, 0}, {100, 100}, kBlue, 1.0);
    for (int i = 0; i < 100; ++i) CHECK(is(diag, i, i, kBlue));
    CHECK(is(diag, 50, 47, kWhite));
    CHECK(is(diag, 47, 50, kWhite));

    // Endpoints far outside keep the line's direction.
    Image far(50, 50);
    draw_line(far, {-1e12, -1e12}, {1e12, 1e12}, kBlue, 1.0);
    for (int i = 0; i < 50; ++i) CHECK(is(far, i, i, kBlue));
    CHECK(is(far, 10, 40, kWhite));
  }

  TEST_CASE("draw_polyline: joints are blended once; non-finite points break the line") {
    const Rgba translucent{0, 0, 255, 128};
    Image single(30, 30);
    draw_line(single, {5, 15.5}, {15, 15.5}, translucent, 3.0);
    const uint8_t once = single.at(10, 15).r;

    Image joined(30, 30);
    draw_polyline(joined, {{5, 15.5}, {15, 15.5}, {15.5, 5}}, translucent, 3.0);
    uint8_t darkest = 255;
    for (int y = 0; y < 30; ++y)
      for (int x = 0; x < 30; ++x) darkest = std::min(darkest, joined.at(x, y).r);
    CHECK(darkest == once);  // nothing drawn twice at the joint

    Image broken(30, 30);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    draw_polyline(broken, {{2, 2.5}, {10, 2.5}, {nan, 0}, {20, 20.5}, {28, 20.5}}, kBlue, 1.0);
    CHECK(is(broken, 5, 2, kBlue));
    CHECK(is(broken, 24, 20, kBlue));
    CHECK(is(broken, 15, 11, kWhite));  // no segment across the gap
  }

  TEST_CASE("text: sizes, glyph pixels, rotated text, clipping") {
    CHECK(text_width("", 1) == 0);
    CHECK(text_width("ab", 1) == 11);
    CHECK(text_width("1e-6", 2) == 46);
    CHECK(text_height(3) == 24);

    Image im(8, 10);
    draw_text(im, 1, 1, "-", kBlack);
    // '-' is the middle row (row 3) of the 5 x 7 cell.
    for (int x = 0; x < 8; ++x)
      for (int y = 0; y < 10; ++y)
        CHECK(is(im, x, y, (y == 4 && x >= 1 && x <= 5) ? kBlack : kWhite));

    Image up(10, 8);
    draw_text(up, 1, 1, "-", kBlack, 1, TextDirection::Up);
    // Turned a quarter counter-clockwise the row becomes a column 3 pixels from the left.
    for (int x = 0; x < 10; ++x)
      for (int y = 0; y < 8; ++y)
        CHECK(is(up, x, y, (x == 4 && y >= 1 && y <= 5) ? kBlack : kWhite));

    Image big(40, 20);
    draw_text(big, 0, 0, "8", kBlack, 2);
    CHECK(is(big, 2, 0, kBlack));  // top bar of '8', scaled: columns 2..7
    CHECK(is(big, 0, 0, kWhite));
    CHECK(is(big, 0, 2, kBlack));         // left side, second row
    CHECK(count(big, kBlack) == 4 * 17);  // 17 ink pixels in the glyph, 2 x 2 each

    Image clip(4, 4);
    CHECK_NOTHROW(draw_text(clip, -3, -3, "Hello: 1.5e+3", kBlack, 2));
    Image unknown(6, 8);
    draw_text(unknown, 0, 0, "\x01", kBlack);
    Image question(6, 8);
    draw_text(question, 0, 0, "?", kBlack);
    CHECK(count(unknown, kBlack) == count(question, kBlack));
  }
}

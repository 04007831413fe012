// Line plots (examples/render/plot.h): axis ranges and ticks, where a point lands on a log axis
// (found in the picture itself, between the drawn box lines), broken lines, input checks.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "examples/render/plot.h"

using namespace dualjit::render;

namespace {

bool dark(Rgba c) {
  return c.r < 60 && c.g < 60 && c.b < 60;
}

// A gradient norm falling from 1e2 to 1e-6 over 10 iterations: a straight line on a log axis.
Series convergence() {
  Series s;
  s.label = "gradient norm";
  s.color = Rgba{200, 30, 30, 255};
  for (int i = 0; i <= 10; ++i) {
    s.x.push_back(i);
    s.y.push_back(std::pow(10.0, 2 - 0.8 * i));
  }
  return s;
}

}  // namespace

TEST_SUITE("render") {
  TEST_CASE("plot_frame: linear ticks on 1-2-5 steps, log ticks on whole decades") {
    Series s{"", {0, 1, 2, 3}, {0.03, 0.2, 0.61, 0.97}, std::nullopt, 1.0};
    const PlotFrame lin = plot_frame({s});
    CHECK(lin.x_lo == 0);
    CHECK(lin.x_hi == 3);
    CHECK(lin.y_lo == 0);
    CHECK(lin.y_hi == doctest::Approx(1.0));
    REQUIRE(lin.y_ticks.size() == 6);
    CHECK(lin.y_ticks[1] == doctest::Approx(0.2));
    CHECK(lin.left < lin.right);
    CHECK(lin.top < lin.bottom);

    PlotOptions log;
    log.log_y = true;
    const PlotFrame f = plot_frame({convergence()}, log);
    CHECK(f.y_lo == -6);
    CHECK(f.y_hi == 2);
    CHECK(f.y_ticks.size() == 9);
    CHECK(f.x_lo == 0);
    CHECK(f.x_hi == 10);
  }

  TEST_CASE("render_plot: on a log axis 1e-2 of a 1e-6..1e2 range is half-way up the box") {
    PlotOptions o;
    o.log_y = true;
    o.width = 400;
    o.height = 300;
    o.title = "convergence";
    o.x_label = "iteration";
    o.y_label = "|g|";
    o.legend = false;  // its text would stop the walk to the box line below
    const PlotFrame f = plot_frame({convergence()}, o);
    const Image im = render_plot({convergence()}, o);
    const Point p = f.to_pixel(5, 1e-2);
    const int x = static_cast<int>(p.x), y = static_cast<int>(p.y);
    // The box lines as drawn, found by walking up and down the column from the point.
    int top = y - 4, bottom = y + 4;
    while (top > 0 && !dark(im.at(x, top))) --top;
    while (bottom < im.height() - 1 && !dark(im.at(x, bottom))) ++bottom;
    REQUIRE(top > 0);
    REQUIRE(bottom < im.height() - 1);
    CAPTURE(top);
    CAPTURE(bottom);
    CHECK(std::abs(y - 0.5 * (top + bottom)) <= 1.0);
    const Rgba on_line = im.at(x, y);
    CHECK(on_line.r > 150);
    CHECK(on_line.g < 120);
    // Away from the line the column shows the background or a gridline, not the series.
    const auto series_red = [](Rgba c) { return c.r > 150 && c.g < 120; };
    CHECK_FALSE(series_red(im.at(x, y - 12)));
    CHECK_FALSE(series_red(im.at(x, y + 12)));
  }

  TEST_CASE("render_plot: non-positive values break a log-axis line; mismatched sizes throw") {
    Series s;
    s.color = Rgba{0, 0, 255, 255};
    s.x = {0, 1, 2, 3, 4, 5};
    s.y = {2, 2, 0, -1, 2, 2};
    PlotOptions o;
    o.log_y = true;
    o.width = 300;
    o.height = 200;
    o.legend = false;
    const PlotFrame f = plot_frame({s}, o);
    const Image im = render_plot({s}, o);
    const Point a = f.to_pixel(0.5, 2), gap = f.to_pixel(2.5, 2);
    CHECK(im.at(int(a.x), int(a.y)).b > 200);
    CHECK(im.at(int(a.x), int(a.y)).r < 60);
    CHECK(im.at(int(gap.x), int(gap.y)).r > 150);  // no line across the gap
    CHECK(std::isnan(f.to_pixel(1, 0).y));

    Series bad{"broken series", {0, 1}, {1}, std::nullopt, 1.0};
    CHECK_THROWS_WITH_AS(plot_frame({bad}), doctest::Contains("broken series"),
                         std::invalid_argument);
  }

  TEST_CASE("render_plot: no data still draws axes; constant data gets a range") {
    const Image empty = render_plot({}, PlotOptions{});
    CHECK(empty.width() == 800);
    Series flat{"", {0, 1}, {3, 3}, std::nullopt, 1.0};
    const PlotFrame f = plot_frame({flat});
    CHECK(f.y_lo < 3);
    CHECK(f.y_hi > 3);
  }

  TEST_CASE("render_plot: markers alone are rings at the points, no line between them") {
    Series s;
    s.label = "markers";
    s.color = Rgba{0, 0, 255, 255};
    s.x = {1, 2, 3};
    s.y = {1, 2, 3};
    s.width = 0;
    s.marker = 12;
    PlotOptions o;
    o.width = 400;
    o.height = 300;
    o.legend_left = true;
    const PlotFrame f = plot_frame({s}, o);
    const Image im = render_plot({s}, o);
    const auto blue = [](Rgba c) { return c.b > 200 && c.r < 120; };
    const Point p = f.to_pixel(2, 2), mid = f.to_pixel(2.5, 2.5);
    CHECK(blue(im.at(int(p.x + 6), int(p.y))));  // on the ring
    CHECK(blue(im.at(int(p.x), int(p.y - 6))));
    CHECK_FALSE(blue(im.at(int(p.x), int(p.y))));      // its centre is empty
    CHECK_FALSE(blue(im.at(int(mid.x), int(mid.y))));  // no line
    // The legend, top left: a ring beside the label.
    bool legend_ring = false;
    for (int y = int(f.top); y < int(f.top) + 40; ++y)
      for (int x = int(f.left); x < int(f.left) + 60; ++x) legend_ring |= blue(im.at(x, y));
    CHECK(legend_ring);
  }
}

#include "examples/render/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "examples/render/text.h"

namespace dualjit::render {

namespace {

constexpr int kPad = 10;        // around the picture
constexpr int kTickLength = 5;  // outward from the box
constexpr Rgba kGrid{222, 222, 222, 255};
constexpr Rgba kMinorGrid{242, 242, 242, 255};

// Matplotlib's "tab10", a palette whose neighbours stay distinguishable.
constexpr Rgba kPalette[] = {{31, 119, 180, 255},  {255, 127, 14, 255},  {44, 160, 44, 255},
                             {214, 39, 40, 255},   {148, 103, 189, 255}, {140, 86, 75, 255},
                             {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255},
                             {23, 190, 207, 255}};

double axis_value(double v, bool log) {
  if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
  if (!log) return v;
  return v > 0 ? std::log10(v) : std::numeric_limits<double>::quiet_NaN();
}

struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  double step = 1;  // between ticks, in axis units
};

// Whole ticks around the finite axis values [lo, hi] (lo > hi: there are none).
Axis make_axis(double lo, double hi, bool log) {
  Axis a;
  if (lo > hi) {
    lo = 0;
    hi = 1;
  }
  if (log) {
    // The tolerance keeps data at a power of ten up to rounding (1e-6 as 9.99...e-7) on its
    // decade.
    lo = std::floor(lo + 1e-9);
    hi = std::ceil(hi - 1e-9);
    if (hi == lo) hi = lo + 1;
    // At most about eight labelled decades, on multiples of the step.
    a.step = std::max(1.0, std::ceil((hi - lo) / 8));
    a.lo = std::floor(lo / a.step) * a.step;
    a.hi = std::ceil(hi / a.step) * a.step;
  } else {
    if (hi == lo) {
      const double d = lo == 0 ? 1 : 0.5 * std::abs(lo);
      lo -= d;
      hi += d;
    }
    const double raw = (hi - lo) / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / mag;
    a.step = (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
    // The tolerance keeps a value that is a tick up to rounding from adding a whole step.
    a.lo = std::floor(lo / a.step + 1e-9) * a.step;
    a.hi = std::ceil(hi / a.step - 1e-9) * a.step;
  }
  const long first = std::lround(a.lo / a.step), last = std::lround(a.hi / a.step);
  for (long k = first; k <= last; ++k) a.ticks.push_back(k * a.step);
  return a;
}

std::string tick_label(double v, bool log, double step) {
  char buf[32];
  if (log) {
    const long e = std::lround(v);
    if (e > -3 && e < 4)
      std::snprintf(buf, sizeof buf, "%g", std::pow(10.0, double(e)));
    else
      std::snprintf(buf, sizeof buf, "1e%ld", e);
  } else {
    if (std::abs(v) < step * 1e-9) v = 0;  // not 5.55e-17
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

Rgba series_color(const std::vector<Series>& series, size_t i) {
  return series[i].color.value_or(kPalette[i % std::size(kPalette)]);
}

double pixel_centre(double v) {
  return std::floor(v) + 0.5;
}

// A ring of the given diameter (pixels) around p.
void draw_marker(Image& image, Point p, double diameter, Rgba color) {
  if (!std::isfinite(p.x) || !std::isfinite(p.y)) return;
  constexpr int kSides = 24;
  std::vector<Point> ring;
  for (int k = 0; k <= kSides; ++k) {
    const double a = 2 * std::numbers::pi * k / kSides;
    ring.push_back({p.x + 0.5 * diameter * std::cos(a), p.y + 0.5 * diameter * std::sin(a)});
  }
  draw_polyline(image, ring, color, std::max(1.5, diameter / 6));
}

}  // namespace

Point PlotFrame::to_pixel(double x, double y) const {
  const double ax = axis_value(x, log_x), ay = axis_value(y, log_y);
  return {left + (ax - x_lo) / (x_hi - x_lo) * (right - left),
          bottom - (ay - y_lo) / (y_hi - y_lo) * (bottom - top)};
}

PlotFrame plot_frame(const std::vector<Series>& series, const PlotOptions& o) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  for (const Series& s : series) {
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("render::plot: series \"" + s.label + "\" has " +
                                  std::to_string(s.x.size()) + " x values and " +
                                  std::to_string(s.y.size()) + " y values");
    for (size_t i = 0; i < s.x.size(); ++i) {
      const double ax = axis_value(s.x[i], o.log_x), ay = axis_value(s.y[i], o.log_y);
      if (std::isnan(ax) || std::isnan(ay)) continue;
      x_lo = std::min(x_lo, ax);
      x_hi = std::max(x_hi, ax);
      y_lo = std::min(y_lo, ay);
      y_hi = std::max(y_hi, ay);
    }
  }
  const Axis xa = make_axis(x_lo, x_hi, o.log_x), ya = make_axis(y_lo, y_hi, o.log_y);

  PlotFrame f;
  f.log_x = o.log_x;
  f.log_y = o.log_y;
  f.x_lo = xa.lo;
  f.x_hi = xa.hi;
  f.y_lo = ya.lo;
  f.y_hi = ya.hi;
  f.x_ticks = xa.ticks;
  f.y_ticks = ya.ticks;

  const int fs = std::max(1, o.font_scale), th = text_height(fs);
  int y_label_width = 0;
  for (double t : ya.ticks)
    y_label_width = std::max(y_label_width, text_width(tick_label(t, o.log_y, ya.step), fs));
  const int last_x_label = text_width(tick_label(xa.ticks.back(), o.log_x, xa.step), fs);
  const double left = kPad + (o.y_label.empty() ? 0 : th + 8) + y_label_width + kTickLength + 4;
  const double top = kPad + (o.title.empty() ? th / 2 : text_height(fs + 1) + 10);
  const double bottom = o.height - kPad - (o.x_label.empty() ? 0 : th + 6) - th - kTickLength - 4;
  const double right = o.width - kPad - std::max(last_x_label / 2, 4);
  f.left = pixel_centre(left);
  f.top = pixel_centre(top);
  f.right = pixel_centre(std::max(right, left + 1));
  f.bottom = pixel_centre(std::max(bottom, top + 1));
  return f;
}

Image render_plot(const std::vector<Series>& series, const PlotOptions& o) {
  const PlotFrame f = plot_frame(series, o);
  Image image(o.width, o.height, o.background);
  const int fs = std::max(1, o.font_scale), th = text_height(fs);
  const auto px = [&](double ax) {
    return f.left + (ax - f.x_lo) / (f.x_hi - f.x_lo) * (f.right - f.left);
  };
  const auto py = [&](double ay) {
    return f.bottom - (ay - f.y_lo) / (f.y_hi - f.y_lo) * (f.bottom - f.top);
  };
  const double x_step = f.x_ticks.size() > 1 ? f.x_ticks[1] - f.x_ticks[0] : 1;
  const double y_step = f.y_ticks.size() > 1 ? f.y_ticks[1] - f.y_ticks[0] : 1;

  // Grid first, under everything: minor lines at 2..9 of each decade of a log axis.
  const auto minor = [](double lo, double hi, double step, auto line) {
    if (step != 1) return;
    for (double d = lo; d < hi; ++d)
      for (int m = 2; m <= 9; ++m) line(d + std::log10(double(m)));
  };
  if (f.log_x)
    minor(f.x_lo, f.x_hi, x_step, [&](double a) {
      const double x = pixel_centre(px(a));
      draw_line(image, {x, f.top}, {x, f.bottom}, kMinorGrid);
    });
  if (f.log_y)
    minor(f.y_lo, f.y_hi, y_step, [&](double a) {
      const double y = pixel_centre(py(a));
      draw_line(image, {f.left, y}, {f.right, y}, kMinorGrid);
    });
  for (double t : f.x_ticks) {
    const double x = pixel_centre(px(t));
    draw_line(image, {x, f.top}, {x, f.bottom}, kGrid);
    draw_line(image, {x, f.bottom}, {x, f.bottom + kTickLength}, kBlack);
    const std::string s = tick_label(t, f.log_x, x_step);
    draw_text(image, static_cast<int>(x) - text_width(s, fs) / 2,
              static_cast<int>(f.bottom) + kTickLength + 4, s, kBlack, fs);
  }
  for (double t : f.y_ticks) {
    const double y = pixel_centre(py(t));
    draw_line(image, {f.left, y}, {f.right, y}, kGrid);
    draw_line(image, {f.left - kTickLength, y}, {f.left, y}, kBlack);
    const std::string s = tick_label(t, f.log_y, y_step);
    draw_text(image, static_cast<int>(f.left) - kTickLength - 4 - text_width(s, fs),
              static_cast<int>(y) - th / 2, s, kBlack, fs);
  }

  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    std::vector<Point> points;
    points.reserve(s.x.size());
    for (size_t k = 0; k < s.x.size(); ++k) points.push_back(f.to_pixel(s.x[k], s.y[k]));
    if (s.width > 0) draw_polyline(image, points, series_color(series, i), s.width);
    if (s.marker > 0)
      for (const Point& p : points) draw_marker(image, p, s.marker, series_color(series, i));
  }

  // The box over the series' line ends.
  draw_line(image, {f.left, f.top}, {f.right, f.top}, kBlack);
  draw_line(image, {f.right, f.top}, {f.right, f.bottom}, kBlack);
  draw_line(image, {f.right, f.bottom}, {f.left, f.bottom}, kBlack);
  draw_line(image, {f.left, f.bottom}, {f.left, f.top}, kBlack);

  if (!o.title.empty())
    draw_text(image, static_cast<int>(0.5 * (f.left + f.right)) - text_width(o.title, fs + 1) / 2,
              kPad, o.title, kBlack, fs + 1);
  if (!o.x_label.empty())
    draw_text(image, static_cast<int>(0.5 * (f.left + f.right)) - text_width(o.x_label, fs) / 2,
              o.height - kPad - th, o.x_label, kBlack, fs);
  if (!o.y_label.empty())
    draw_text(image, kPad,
              static_cast<int>(0.5 * (f.top + f.bottom)) - text_width(o.y_label, fs) / 2, o.y_label,
              kBlack, fs, TextDirection::Up);

  if (o.legend) {
    std::vector<size_t> listed;
    int label_width = 0;
    for (size_t i = 0; i < series.size(); ++i)
      if (!series[i].label.empty()) {
        listed.push_back(i);
        label_width = std::max(label_width, text_width(series[i].label, fs));
      }
    if (!listed.empty()) {
      const int sample = 30, row = th + 6;
      const int w = 8 + sample + 8 + label_width + 8, h = static_cast<int>(listed.size()) * row + 8;
      const int x0 =
          o.legend_left ? static_cast<int>(f.left) + 8 : static_cast<int>(f.right) - 8 - w;
      const int y0 = static_cast<int>(f.top) + 8;
      for (int y = y0; y < y0 + h; ++y)
        for (int x = x0; x < x0 + w; ++x) image.blend(x, y, kWhite, 0.9);
      const double l = x0 + 0.5, r = x0 + w - 0.5, t = y0 + 0.5, b = y0 + h - 0.5;
      const Rgba frame{160, 160, 160, 255};
      draw_line(image, {l, t}, {r, t}, frame);
      draw_line(image, {r, t}, {r, b}, frame);
      draw_line(image, {r, b}, {l, b}, frame);
      draw_line(image, {l, b}, {l, t}, frame);
      for (size_t k = 0; k < listed.size(); ++k) {
        const Series& s = series[listed[k]];
        const int ty = y0 + 4 + static_cast<int>(k) * row + 3;
        const double cy = ty + th / 2.0 - 0.5;
        if (s.width > 0)
          draw_line(image, {x0 + 8.0, cy}, {x0 + 8.0 + sample, cy}, series_color(series, listed[k]),
                    s.width);
        if (s.marker > 0)
          draw_marker(image, {x0 + 8.0 + sample / 2.0, cy}, std::min<double>(s.marker, row),
                      series_color(series, listed[k]));
        draw_text(image, x0 + 8 + sample + 8, ty, s.label, kBlack, fs);
      }
    }
  }
  return image;
}

}  // namespace dualjit::render

#include "examples/mesh_energy/solve_plot.h"

#include <cmath>

#include "examples/render/plot.h"

namespace dualjit::mesh_energy {

render::Image solve_convergence_plot(const solvers::SolveResult& result, const std::string& title,
                                     const std::string& x_label, double minimum) {
  render::Series grad, gap;
  grad.label = "|g| / |g0|";
  gap.label = std::isfinite(minimum) ? "(E - E_min) / |E_min|" : "(E - E_final) / |E_final|";
  const auto& rs = result.iterations;
  if (!rs.empty()) {
    const double g0 = rs.front().gradient_norm;
    const double e_last = std::isfinite(minimum) ? minimum : rs.back().energy;
    const double e_scale = std::abs(e_last) > 0 ? std::abs(e_last) : 1.0;
    for (size_t k = 0; k < rs.size(); ++k) {
      grad.x.push_back(double(k));
      grad.y.push_back(g0 > 0 ? rs[k].gradient_norm / g0 : rs[k].gradient_norm);
      gap.x.push_back(double(k));
      gap.y.push_back((rs[k].energy - e_last) / e_scale);
    }
  }
  render::PlotOptions o;
  o.title = title;
  o.x_label = x_label;
  o.y_label = "relative";
  o.log_y = true;
  return render::render_plot({grad, gap}, o);
}

}  // namespace dualjit::mesh_energy

#include "examples/cfd/steady_demo.h"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include "examples/cfd/bump_channel.h"
#include "examples/cfd/roe_problem.h"
#include "examples/cfd/steady_output.h"

namespace dualjit::cfd {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

SteadyDemoReport run_steady_demo(const SteadyDemoOptions& o) {
  if (o.size < 1) throw std::invalid_argument("steady demo: size " + std::to_string(o.size));
  if (!(o.mach > 0 && o.mach <= 0.8))
    throw std::invalid_argument("steady demo: Mach " + std::to_string(o.mach) +
                                " (0 to 0.8: the bump's flow stays subsonic)");
  const std::filesystem::path dir = o.output_dir.empty() ? "." : o.output_dir;
  std::filesystem::create_directories(dir);

  const TetMesh mesh = bump_channel_mesh(12 * o.size, 2, 4 * o.size);
  const EdgeMesh em = build_edge_mesh(mesh);
  FreeStream fs;
  fs.mach = o.mach;
  fs.alpha_deg = 0;
  assembly::Problem p = roe_problem(em, fs, bump_channel_boundary(em, mesh));
  assembly::AssemblerOptions ao;
  ao.backend = o.backend;
  assembly::Assembler a(p, ao);

  SteadyDemoReport report;
  report.nodes = em.n_nodes;
  report.summary =
      "channel with a bump (length 3, height 1, bump 0.1): " + std::to_string(em.n_nodes) +
      " nodes, " + std::to_string(mesh.n_tets()) + " tets, " + std::to_string(em.n_edges()) +
      " edges; Mach " + std::to_string(o.mach).substr(0, 4) + "; assembly on the " +
      (o.backend == assembly::Backend::Cuda ? "GPU" : "CPU");
  const auto inf = fs.conservative();
  std::vector<double> q;
  for (int64_t i = 0; i < em.n_nodes; ++i) q.insert(q.end(), inf.begin(), inf.end());
  const std::vector<double> q0 = q;

  SteadyOptions so;
  so.max_iterations = o.max_iterations;
  auto t0 = std::chrono::steady_clock::now();
  report.implicit = solve_steady(a, em, fs.gamma, q, so);
  report.implicit_seconds = seconds_since(t0);
  report.ok = report.implicit.converged;

  double sum = 0, volume = 0;
  const double s_inf = 1.0 / fs.gamma;
  for (int64_t i = 0; i < em.n_nodes; ++i) {
    const double* s = &q[i * 5];
    const double p_i =
        (fs.gamma - 1) * (s[4] - 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / s[0]);
    const double e = p_i / std::pow(s[0], fs.gamma) / s_inf - 1;
    sum += em.node_volume[i] * e * e;
    volume += em.node_volume[i];
  }
  report.entropy_error = std::sqrt(sum / volume);

  std::vector<LabelledHistory> plots{{"implicit (PTC, GMRES + block ILU(0))", &report.implicit}};
  if (o.explicit_cap > 0) {
    std::vector<double> qe = q0;
    t0 = std::chrono::steady_clock::now();
    report.explicit_steps =
        solve_steady_explicit(a, em, fs.gamma, qe, 0.9, o.explicit_cap, so.rtol);
    report.explicit_seconds = seconds_since(t0);
    plots.push_back({"explicit local time stepping, CFL 0.9", &report.explicit_steps});
  }
  const std::filesystem::path vtu = dir / "cfd_steady.vtu", png = dir / "cfd_steady_residual.png";
  write_vtu(vtu, mesh, q, fs.gamma);
  write_residual_plot(png, plots, "steady Euler, channel with a bump");
  report.files = {vtu, png};
  return report;
}

}  // namespace dualjit::cfd

#include "examples/cfd/steady_demo.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "examples/cfd/boundary.h"
#include "examples/cfd/bump_channel.h"
#include "examples/cfd/cfd_geometry.h"
#include "examples/cfd/flow_state.h"
#include "examples/cfd/gmsh_reader.h"
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
  const bool sphere = o.geometry == SteadyGeometry::sphere || !o.mesh.empty();
  const double mach = o.mach != 0 ? o.mach : sphere ? 0.3 : 0.5;
  if (!(mach > 0 && mach <= 0.8))
    throw std::invalid_argument("steady demo: Mach " + std::to_string(mach) +
                                " (0 to 0.8: the flow stays subsonic)");
  const std::filesystem::path dir = o.output_dir.empty() ? "." : o.output_dir;
  const auto one_rank = [&](const std::function<void()>& f) {
    if (o.on_one_rank) {
      o.on_one_rank(f);
    } else {
      f();
    }
  };
  one_rank([&] { std::filesystem::create_directories(dir); });

  TetMesh mesh;
  EdgeMesh em;
  BoundaryAreas boundary;
  std::string what;
  if (o.geometry == SteadyGeometry::bump && o.mesh.empty()) {
    mesh = bump_channel_mesh(12 * o.size, 2, 4 * o.size);
    em = build_edge_mesh(mesh);
    boundary = bump_channel_boundary(em, mesh);
    what = "channel with a bump (length 3, height 1, bump 0.1)";
  } else {
    std::filesystem::path file = o.mesh;
    if (file.empty()) {
      file = cfd_geometry_path("sphere", o.size, dir);
      one_rank([&] { mesh_cfd_geometry("sphere", o.size, dir); });
    }
    const GmshMesh g = read_gmsh_tagged(file);
    mesh = g.mesh;
    em = build_edge_mesh(mesh);
    boundary = tagged_boundary(
        em, g, {{"farfield", BoundaryKind::farfield}, {"wall", BoundaryKind::slip_wall}});
    what = o.mesh.empty()
               ? "sphere (radius 0.5) in a box, Gmsh refinement " + std::to_string(o.size)
               : file.filename().string();
  }
  FreeStream fs;
  fs.mach = mach;
  fs.alpha_deg = 0;
  assembly::Problem p = roe_problem(em, fs, boundary);
  assembly::AssemblerOptions ao;
  ao.backend = o.backend;
  // One process's Assembler over the whole problem: the one-process solves only.
  std::unique_ptr<assembly::Assembler> a;
  if (!o.implicit_solve) a = std::make_unique<assembly::Assembler>(p, ao);
  const bool gpu = assembly::resolve_backend(o.backend) == assembly::Backend::Cuda;

  SteadyDemoReport report;
  report.nodes = em.n_nodes;
  report.gpu = gpu;
  char mach_text[16];
  std::snprintf(mach_text, sizeof mach_text, "%.2f", mach);
  report.summary =
      what + ": " + std::to_string(em.n_nodes) + " nodes, " + std::to_string(mesh.n_tets()) +
      " tets, " + std::to_string(em.n_edges()) + " edges; Mach " + mach_text + "; " +
      (o.solver_text.empty() ? std::string("on the ") + (gpu ? "GPU" : "CPU") : o.solver_text);
  const std::vector<double> q0 = free_stream_state(em.n_nodes, fs);
  std::vector<double> q = q0;

  SteadyOptions so;
  so.max_iterations = o.max_iterations;
  auto t0 = std::chrono::steady_clock::now();
  report.implicit = o.implicit_solve ? o.implicit_solve(p, em, fs.gamma, q, so)
                                     : solve_steady(*a, em, fs.gamma, q, so);
  report.implicit_seconds = seconds_since(t0);
  report.ok = report.implicit.converged;
  report.summary += "; Jacobian storage " + std::string(storage_name(report.implicit.storage)) +
                    (gpu && !o.implicit_solve ? " (tuned: storage_tuner.h)" : "");

  report.entropy_error = entropy_error(em, q, fs.gamma);

  std::vector<LabelledHistory> plots{{o.implicit_solve
                                          ? "implicit (PTC, PETSc GMRES)"
                                          : "implicit (PTC, GMRES + multicoloured SGS)",
                                      &report.implicit}};
  if (o.explicit_cap > 0 && a) {
    std::vector<double> qe = q0;
    t0 = std::chrono::steady_clock::now();
    report.explicit_steps =
        solve_steady_explicit(*a, em, fs.gamma, qe, 0.9, o.explicit_cap, so.rtol);
    report.explicit_seconds = seconds_since(t0);
    plots.push_back({"explicit local time stepping, CFL 0.9", &report.explicit_steps});
  }
  const std::filesystem::path vtu = dir / "cfd_steady.vtu", png = dir / "cfd_steady_residual.png";
  one_rank([&] {
    write_vtu(vtu, mesh, q, fs.gamma);
    write_residual_plot(png, plots,
                        sphere ? "steady Euler, sphere" : "steady Euler, channel with a bump");
  });
  report.files = {vtu, png};
  return report;
}

}  // namespace dualjit::cfd

#include "examples/cfd/steady_output.h"

#include <cmath>
#include <fstream>
#include <stdexcept>
#include <string>

#include "examples/cfd/flow_state.h"
#include "examples/render/plot.h"

namespace dualjit::cfd {
namespace {

template <class F>
void data_array(std::ofstream& out, const char* name, int components, int64_t n, F value) {
  out << "        <DataArray type=\"Float64\" Name=\"" << name << "\" NumberOfComponents=\""
      << components << "\" format=\"ascii\">\n";
  for (int64_t i = 0; i < n; ++i) {
    out << "         ";
    for (int c = 0; c < components; ++c) out << ' ' << value(i, c);
    out << '\n';
  }
  out << "        </DataArray>\n";
}

}  // namespace

void write_vtu(const std::filesystem::path& file, const TetMesh& mesh, std::span<const double> q,
               double gamma) {
  const int64_t n = mesh.n_nodes;
  if (q.size() != static_cast<size_t>(n) * 5)
    throw std::invalid_argument("write_vtu: a state of " + std::to_string(q.size()) +
                                " values for " + std::to_string(n) + " nodes of 5");
  std::ofstream out(file);
  if (!out) throw std::runtime_error("write_vtu: cannot write " + file.string());
  out.precision(12);
  auto velocity = [&](int64_t i, int c) { return q[i * 5 + 1 + c] / q[i * 5]; };
  out << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
      << "  <UnstructuredGrid>\n"
      << "    <Piece NumberOfPoints=\"" << n << "\" NumberOfCells=\"" << mesh.n_tets() << "\">\n"
      << "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n";
  data_array(out, "density", 1, n, [&](int64_t i, int) { return q[i * 5]; });
  data_array(out, "velocity", 3, n, velocity);
  data_array(out, "pressure", 1, n, [&](int64_t i, int) { return pressure(&q[i * 5], gamma); });
  data_array(out, "mach", 1, n, [&](int64_t i, int) {
    const double u2 = velocity(i, 0) * velocity(i, 0) + velocity(i, 1) * velocity(i, 1) +
                      velocity(i, 2) * velocity(i, 2);
    return std::sqrt(u2 / (gamma * pressure(&q[i * 5], gamma) / q[i * 5]));
  });
  out << "      </PointData>\n      <Points>\n";
  data_array(out, "points", 3, n, [&](int64_t i, int c) { return mesh.xyz[i * 3 + c]; });
  out << "      </Points>\n      <Cells>\n"
      << "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
  for (int64_t t = 0; t < mesh.n_tets(); ++t)
    out << "          " << mesh.tets[t * 4] << ' ' << mesh.tets[t * 4 + 1] << ' '
        << mesh.tets[t * 4 + 2] << ' ' << mesh.tets[t * 4 + 3] << '\n';
  out << "        </DataArray>\n"
      << "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
  for (int64_t t = 0; t < mesh.n_tets(); ++t) out << "          " << 4 * (t + 1) << '\n';
  out << "        </DataArray>\n"
      << "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
  for (int64_t t = 0; t < mesh.n_tets(); ++t) out << "          10\n";  // VTK_TETRA
  out << "        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n"
      << "</VTKFile>\n";
  if (!out) throw std::runtime_error("write_vtu: writing " + file.string() + " failed");
}

void write_residual_plot(const std::filesystem::path& file,
                         const std::vector<LabelledHistory>& histories, const std::string& title) {
  std::vector<render::Series> series;
  for (const LabelledHistory& h : histories) {
    render::Series s;
    s.label = h.label;
    const SteadyResult& r = *h.result;
    for (const SteadyIteration& it : r.history) {
      s.x.push_back(it.iteration);
      s.y.push_back(it.residual / r.initial_residual);
    }
    s.x.push_back(static_cast<double>(r.steps));
    s.y.push_back(r.final_residual / r.initial_residual);
    series.push_back(std::move(s));
  }
  render::PlotOptions o;
  o.title = title;
  o.x_label = "nonlinear step";
  o.y_label = "|R| / |R0|";
  o.log_y = true;
  render::write_png(render::render_plot(series, o), file);
}

}  // namespace dualjit::cfd

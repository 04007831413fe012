// dualjit's answer for a peer benchmark input: reads a DJMESH1 file (bench/peers/README.md),
// assembles the Roe residual and FUN3D Jacobian of its edges with the host assembly
// (cfd::roe_problem without the boundary term, as the peers have none; Aoff in fp32 like the
// peers') and prints the CHECK line the peers print, so that every peer's matrix can be
// confirmed equal to dualjit's (bench/peers/summarize.py compares the lines).
//
// Usage: djmesh_check MESH.bin[:label] [...] [--path serial|fused|both] [--print-edge E]
//   serial: assembly::HostElementAssembly residual and jacobian_split<float> (the reference);
//   fused:  assembly::Assembler on the CPU, gather by column (generated in-place assembly);
//   both:   both, and their largest differences.
// --print-edge E prints edge E's flux and local Jacobians dF/dQL, dF/dQR as the hand-written
// peer's --print-edge does (EDGE lines), from the reference evaluator.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "backends/assembly/host_element_assembly.h"
#include "bench/wall_clock.h"
#include "dsl/reference_evaluator.h"
#include "examples/cfd/roe_flux.h"
#include "examples/cfd/roe_problem.h"

using namespace dualjit;
using bench::seconds_since;

namespace {

struct MeshFile {
  int64_t n_nodes = 0, n_edges = 0;
  std::vector<int32_t> edges;  // 2m
  std::vector<double> area;    // 3m
  std::vector<double> q;       // 5n
};

template <class T>
void read_array(std::ifstream& f, std::vector<T>& v, size_t n, const std::string& path,
                const char* what) {
  v.resize(n);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
  if (!f) throw std::runtime_error(path + ": truncated in " + what);
}

// The checks of bench/peers/mesh_io.read_mesh, as exceptions naming the file and record.
MeshFile read_djmesh(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  char magic[8];
  MeshFile m;
  f.read(magic, 8);
  f.read(reinterpret_cast<char*>(&m.n_nodes), 8);
  f.read(reinterpret_cast<char*>(&m.n_edges), 8);
  if (!f || std::memcmp(magic, "DJMESH1\0", 8) != 0)
    throw std::runtime_error(path + ": not a DJMESH1 file");
  if (m.n_nodes <= 0 || m.n_edges <= 0 || m.n_nodes > INT32_MAX)
    throw std::runtime_error(path + ": bad sizes n_nodes=" + std::to_string(m.n_nodes) +
                             " n_edges=" + std::to_string(m.n_edges));
  read_array(f, m.edges, 2 * m.n_edges, path, "edges");
  read_array(f, m.area, 3 * m.n_edges, path, "area");
  read_array(f, m.q, 5 * m.n_nodes, path, "Q");
  for (int64_t e = 0; e < m.n_edges; ++e) {
    const int32_t a = m.edges[2 * e], b = m.edges[2 * e + 1];
    if (a < 0 || a >= m.n_nodes || b < 0 || b >= m.n_nodes || a == b)
      throw std::runtime_error(path + ": edge " + std::to_string(e) + " (" + std::to_string(a) +
                               ", " + std::to_string(b) + ") is out of range or a self-loop");
  }
  return m;
}

struct Checksums {
  double adiag_fro = 0, adiag_sum = 0, aoff_fro = 0, aoff_sum = 0, r_fro = 0, r_abs = 0;
};

// Same definitions as bench/peers/mesh_io.checksums (fp32 Aoff widened to double).
Checksums checksums(const mesh::SplitBlockCsr<float>& J, const std::vector<double>& r) {
  Checksums c;
  for (double x : J.diag) c.adiag_fro += x * x, c.adiag_sum += x;
  for (float x : J.off.values) c.aoff_fro += double(x) * x, c.aoff_sum += x;
  for (double x : r) c.r_fro += x * x, c.r_abs += std::abs(x);
  c.adiag_fro = std::sqrt(c.adiag_fro);
  c.aoff_fro = std::sqrt(c.aoff_fro);
  c.r_fro = std::sqrt(c.r_fro);
  return c;
}

void print_check(const std::string& peer, const std::string& label, const Checksums& c) {
  std::printf(
      "CHECK peer=%s order=%s adiag_fro=%.10e adiag_sum=%.10e aoff_fro=%.10e "
      "aoff_sum=%.10e r_fro=%.10e r_abs=%.10e\n",
      peer.c_str(), label.c_str(), c.adiag_fro, c.adiag_sum, c.aoff_fro, c.aoff_sum, c.r_fro,
      c.r_abs);
}

template <class T>
double max_abs_diff(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(double(a[i]) - double(b[i])));
  return d;
}

template <class T>
double max_abs(const std::vector<T>& a) {
  double d = 0;
  for (T x : a) d = std::max(d, std::abs(double(x)));
  return d;
}

void print_edge(const MeshFile& m, int64_t e, double gamma) {
  if (e < 0 || e >= m.n_edges)
    throw std::invalid_argument("--print-edge " + std::to_string(e) + " outside [0, " +
                                std::to_string(m.n_edges) + ")");
  const Kernel k = cfd::roe_flux_kernel();
  std::vector<double> in(&m.q[5 * size_t(m.edges[2 * e])], &m.q[5 * size_t(m.edges[2 * e]) + 5]);
  in.insert(in.end(), &m.q[5 * size_t(m.edges[2 * e + 1])],
            &m.q[5 * size_t(m.edges[2 * e + 1]) + 5]);
  const std::vector<double> s(&m.area[3 * e], &m.area[3 * e + 3]), u = {gamma};
  const auto r = evaluate_jacobian(k, {in, s, u}, 10);  // 5 x 10: [dF/dQL | dF/dQR]
  std::printf("EDGE %lld F", static_cast<long long>(e));
  for (double x : r.values) std::printf(" %.17g", x);
  for (int side = 0; side < 2; ++side) {
    std::printf("\nEDGE %lld %s", static_cast<long long>(e), side == 0 ? "JL" : "JR");
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) std::printf(" %.17g", r.jacobian[i * 10 + side * 5 + j]);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> specs;
    std::string path_kind = "serial";
    int64_t edge_to_print = -1;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if ((a == "--path" || a == "--print-edge") && i + 1 >= argc)
        throw std::invalid_argument(a + " needs a value");
      if (a == "--path")
        path_kind = argv[++i];
      else if (a == "--print-edge")
        edge_to_print = std::stoll(argv[++i]);
      else if (a.starts_with("--"))
        throw std::invalid_argument("unknown option " + a);
      else
        specs.push_back(a);
    }
    if (specs.empty()) throw std::invalid_argument("no mesh file given");
    if (path_kind != "serial" && path_kind != "fused" && path_kind != "both")
      throw std::invalid_argument("--path must be serial, fused or both");
    bool ok = true;
    for (const auto& spec : specs) {
      const auto colon = spec.rfind(':');
      const std::string file = colon == std::string::npos ? spec : spec.substr(0, colon);
      const std::string label = colon == std::string::npos ? file : spec.substr(colon + 1);
      auto t = std::chrono::steady_clock::now();
      const MeshFile m = read_djmesh(file);
      cfd::EdgeMesh em;
      em.n_nodes = m.n_nodes;
      em.edges = m.edges;
      em.area = m.area;
      em.bnode_area.assign(3 * m.n_nodes, 0.0);
      const cfd::FreeStream inf;  // gamma 1.4, as the peers
      assembly::Problem p = cfd::roe_problem(em, inf, /*with_boundary=*/false);
      std::printf("[dualjit] %s: %lld nodes, %lld edges, %lld off-diagonal blocks (read %.1f s)\n",
                  file.c_str(), static_cast<long long>(m.n_nodes),
                  static_cast<long long>(m.n_edges),
                  static_cast<long long>(p.off_pattern().n_blocks()), seconds_since(t));
      if (edge_to_print >= 0) print_edge(m, edge_to_print, inf.gamma);

      std::vector<double> r_serial, r_fused;
      mesh::SplitBlockCsr<float> j_serial, j_fused;
      if (path_kind != "fused") {
        t = std::chrono::steady_clock::now();
        assembly::HostElementAssembly serial(p);
        r_serial = serial.residual(m.q);
        j_serial = serial.jacobian_split<float>(m.q);
        std::printf(
            "[dualjit] serial host assembly (element-local results summed in order): "
            "%.1f s\n",
            seconds_since(t));
        print_check("dualjit", label, checksums(j_serial, r_serial));
      }
      if (path_kind != "serial") {
        t = std::chrono::steady_clock::now();
        assembly::FusedOptions o;
        o.strategy = "gather-by-column";
        assembly::AssemblerOptions ao;
        ao.backend = assembly::Backend::Cpu;
        ao.fused = o;
        j_fused = assembly::Assembler(p, ao).jacobian_split<float>(m.q, &r_fused);
        std::printf("[dualjit] fused host assembly (gather by column): %.1f s\n", seconds_since(t));
        print_check("dualjit_fused", label, checksums(j_fused, r_fused));
      }
      if (path_kind == "both") {
        // Same element code, different summation order: fp64 parts to round-off, fp32 Aoff to
        // its rounding (each Aoff block has a single writer on a mesh without duplicate edges).
        const double er = max_abs_diff(r_serial, r_fused) / max_abs(r_serial);
        const double ed = max_abs_diff(j_serial.diag, j_fused.diag) / max_abs(j_serial.diag);
        const double eo =
            max_abs_diff(j_serial.off.values, j_fused.off.values) / max_abs(j_serial.off.values);
        const bool same = er < 1e-12 && ed < 1e-12 && eo < 1e-6;
        std::printf(
            "[dualjit] serial vs fused, max diff / max: residual %.2e, Adiag %.2e, Aoff "
            "%.2e  %s\n",
            er, ed, eo, same ? "PASS" : "FAIL");
        ok = ok && same;
      }
    }
    return ok ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "djmesh_check: %s\nusage: djmesh_check MESH.bin[:label] [...] "
                 "[--path serial|fused|both] [--print-edge E]\n",
                 e.what());
    return 1;
  }
}

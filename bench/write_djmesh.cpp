// Writes dualjit's own benchmark mesh as DJMESH1 files (format: bench/peers/README.md) so the
// peers in bench/peers (hand-written CUDA, JAX, PyTorch) run on exactly the input dualjit's
// benchmarks use: cfd::box_tet_mesh(n, n, n), renumbered natural / rcm / random as in
// bench/assembly_strategies.cpp, median-dual edge areas from build_edge_mesh, and the state
// cfd::perturbed_state(n_nodes, {}, amplitude, seed) of the natural ordering.
//
// The state moves with its node under renumbering (it is drawn once, in natural order), so the
// files of one cell count are permutations of one problem and the peers' CHECK checksums agree
// across orderings. Edges are as build_edge_mesh stores them: unique, v0 < v1, sorted by
// (v0, v1), area pointing from v0 to v1 (the residual adds +F to v0 and -F to v1).
//
// Usage: write_djmesh CELLS OUT_DIR [--orders natural,rcm,random] [--amplitude 0.2] [--seed 3]
//                     [--perm-seed 7]
// writes OUT_DIR/<order>.bin for each order (96 cells: 912,673 nodes, about 6.3 M edges).
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/wall_clock.h"
#include "examples/cfd/mesh.h"
#include "examples/cfd/roe_problem.h"

using namespace dualjit;
using bench::seconds_since;

namespace {

struct Options {
  int cells = 0;
  std::filesystem::path out_dir;
  std::vector<std::string> orders = {"natural", "rcm", "random"};
  double amplitude = 0.2;   // as bench/assembly_strategies.cpp
  uint64_t state_seed = 3;  // as bench/assembly_strategies.cpp
  uint64_t perm_seed = 7;   // the random ordering of bench/assembly_strategies.cpp
};

const char* const kUsage =
    "usage: write_djmesh CELLS OUT_DIR [--orders natural,rcm,random] [--amplitude 0.2] "
    "[--seed 3] [--perm-seed 7]";

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--orders")
      o.orders = split_commas(value());
    else if (a == "--amplitude")
      o.amplitude = std::stod(value());
    else if (a == "--seed")
      o.state_seed = std::stoull(value());
    else if (a == "--perm-seed")
      o.perm_seed = std::stoull(value());
    else if (a.starts_with("--"))
      throw std::invalid_argument("unknown option " + a);
    else
      positional.push_back(a);
  }
  if (positional.size() != 2) throw std::invalid_argument("expected CELLS and OUT_DIR");
  o.cells = std::stoi(positional[0]);
  o.out_dir = positional[1];
  if (o.cells < 1) throw std::invalid_argument("CELLS must be positive");
  if (!(o.amplitude >= 0 && o.amplitude < 1))
    throw std::invalid_argument("--amplitude must be in [0, 1) to keep density and pressure > 0");
  for (const auto& order : o.orders)
    if (order != "natural" && order != "rcm" && order != "random")
      throw std::invalid_argument("unknown order '" + order + "' (natural, rcm, random)");
  return o;
}

// The peers divide by density and take square roots of pressure: refuse a state they cannot use.
void check_physical(const std::vector<double>& q, double gamma) {
  for (size_t i = 0; i < q.size() / 5; ++i) {
    const double* s = &q[i * 5];
    const double p = (gamma - 1) * (s[4] - 0.5 * (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]) / s[0]);
    if (!(s[0] > 0) || !(p > 0))
      throw std::runtime_error("node " + std::to_string(i) + ": density " + std::to_string(s[0]) +
                               ", pressure " + std::to_string(p) + " not positive");
  }
}

template <class T>
void write_array(std::ofstream& f, const std::vector<T>& v) {
  f.write(reinterpret_cast<const char*>(v.data()),
          static_cast<std::streamsize>(v.size() * sizeof(T)));
}

// DJMESH1: magic, n_nodes, n_edges (int64), edges int32[2m], area float64[3m], Q float64[5n],
// little endian. Written to a temporary name and renamed, so a reader never sees half a file.
void write_djmesh(const std::filesystem::path& path, const cfd::EdgeMesh& em,
                  const std::vector<double>& q) {
  static_assert(std::endian::native == std::endian::little, "DJMESH1 is little endian");
  const auto tmp = std::filesystem::path(path.string() + ".tmp");
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error(tmp.string() + ": cannot open for writing");
    const char magic[8] = {'D', 'J', 'M', 'E', 'S', 'H', '1', '\0'};
    const int64_t sizes[2] = {em.n_nodes, em.n_edges()};
    f.write(magic, 8);
    f.write(reinterpret_cast<const char*>(sizes), sizeof sizes);
    write_array(f, em.edges);
    write_array(f, em.area);
    write_array(f, q);
    f.close();
    if (!f) throw std::runtime_error(tmp.string() + ": write failed");
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    std::filesystem::create_directories(o.out_dir);
    const cfd::FreeStream inf;
    const cfd::TetMesh base = cfd::box_tet_mesh(o.cells, o.cells, o.cells);
    const int64_t n = base.n_nodes;
    const auto q_natural = cfd::perturbed_state(n, inf, o.amplitude, o.state_seed);
    check_physical(q_natural, inf.gamma);
    std::vector<int32_t> natural_edges;  // for RCM, built once
    for (const auto& order : o.orders) {
      const auto t = std::chrono::steady_clock::now();
      cfd::TetMesh mesh = base;
      std::vector<double> q = q_natural;
      if (order != "natural") {
        if (order == "rcm" && natural_edges.empty())
          natural_edges = cfd::build_edge_mesh(base).edges;
        const auto new_of_old = order == "rcm" ? cfd::reverse_cuthill_mckee(n, natural_edges)
                                               : cfd::random_permutation(n, o.perm_seed);
        cfd::renumber_nodes(mesh, new_of_old);
        for (int64_t i = 0; i < n; ++i)
          std::copy_n(&q_natural[i * 5], 5, &q[static_cast<size_t>(new_of_old[i]) * 5]);
      }
      const cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
      const auto path = o.out_dir / (order + ".bin");
      write_djmesh(path, em, q);
      std::printf(
          "write_djmesh: %s: %d^3 cells, %lld nodes, %lld edges, order %s (bandwidth %lld), "
          "state seed %llu amplitude %g (%.1f s)\n",
          path.c_str(), o.cells, static_cast<long long>(n), static_cast<long long>(em.n_edges()),
          order.c_str(), static_cast<long long>(cfd::edge_bandwidth(em.edges)),
          static_cast<unsigned long long>(o.state_seed), o.amplitude, seconds_since(t));
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_djmesh: %s\n%s\n", e.what(), kUsage);
    return 1;
  }
}

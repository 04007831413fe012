// A model of the communication volume of distributed runs (issue 19: "a model of the
// communication volume (ghost counts from the partitions, bytes per exchange) for larger
// counts"). Each mesh's node graph is split by partition_nodes (METIS k-way, as a distributed
// run splits it) into P = 2, 4, ..., max parts, and per P the program reports what each rank
// of such a run would hold and send (rank_problem.h's rules: a rank owns its part's nodes and
// assembles every element with an owned vertex; its ghosts are the other vertices of those
// elements, received from their owners once per exchange, ghost_exchange.h):
//   owned nodes per rank (min / mean / max), ghost nodes per rank (min / mean / max, total),
//   neighbours per rank (mean / max), bytes received per state exchange (ghosts x block x 8,
//   mean / max per rank, total), the largest rank's bytes sent, and the redundant element work
//   (sum over ranks of local elements / elements - 1; and the largest rank's local elements
//   over elements / P, the assembly's imbalance).
// Ghosts of all ranks come from one pass over the elements (rank_layout is a pass per rank);
// for P <= --verify-parts every rank's ghosts and local elements are checked against
// rank_layout and check_layout.
//
// Then a time model per exchange for one GPU per rank, host-staged as ghost_exchange.h is (the
// assumptions are the options below, printed with the results): per rank r
//   t_r = 2 copy_us + (sent_r + recv_r) / pcie   (pack + D2H of the sent rows, H2D of ghosts)
//       + neighbours_r msg_us + max(sent_r, recv_r) / mpi   (one message each way per neighbour)
// and an exchange takes max_r t_r (every rank waits for its slowest neighbour's rows). A global
// reduction (a dot product, a norm) is copy_us + ceil(log2 P) msg_us. Against it, the measured
// one-GPU times of bench/RESULTS.md (H100), split into the part that scales with a rank's local
// elements (assembly) and the part that scales with its owned nodes (set-up, Krylov), so a
// rank's compute is element_ms x max local elements / elements + node_ms x max owned / nodes:
// the one-GPU time / P, plus the redundant elements and the imbalance. Compute is assumed to
// shrink linearly with the rank's share (no launch-latency floor), which makes communication
// look dominant at smaller P than a real GPU would show, and hides that small per-rank sizes
// run below the GPU's bandwidth.
//
//   distributed_ghosts [--box N]... [--msh FILE]... [--cloth N]... [--max-parts P]
//                      [--metis-cap S] [--verify-parts P] [--csv FILE]
//                      [--pcie-gbs B] [--copy-us L] [--mpi-gbs B] [--msg-us L]
// Without a mesh argument: --box 47 --box 95 --msh .meshes/sphere_4.msh --msh
// .meshes/sphere_5.msh.gz (each when present; .gz is read through gzip -dc) --cloth 1000.
// A box N is box_tet_mesh(N, N, N): (N + 1)^3 nodes. Parts stop at --max-parts (1024) and,
// per mesh, after the first partition that took longer than --metis-cap seconds (120).
// Defaults of the model: PCIe 25 GB/s, 10 us per staged copy (launch of the pack kernel,
// cudaMemcpyAsync and the stream's synchronisation), MPI 12.5 GB/s per rank (100 Gb/s), 3 us
// per message.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "backends/distributed/partition.h"
#include "backends/distributed/rank_problem.h"
#include "bench/wall_clock.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/gmsh_reader.h"
#include "examples/cfd/tet_mesh.h"
#include "examples/mesh_energy/mesh_generators.h"

using namespace dualjit;

namespace {

// A measured one-GPU time this program compares an exchange with.
struct Reference {
  std::string what;
  double element_ms = 0;  // the part that scales with a rank's local elements
  double node_ms = 0;     // the part that scales with its owned nodes
  int exchanges = 1;      // ghost exchanges of `block` values per node in it
  int reductions = 0;     // global reductions in it
  std::string source;
  double total_ms() const { return element_ms + node_ms; }
};

struct Case {
  std::string name;
  int64_t n_nodes = 0;
  int block = 5;  // values per node in an exchange
  int dim = 3;    // for the surface-to-volume fit of the weak-scaling estimate
  std::vector<mesh::ElementSet> sets;
  std::vector<Reference> refs;
  int64_t n_elements() const {
    int64_t n = 0;
    for (const auto& s : sets) n += s.size();
    return n;
  }
};

struct Model {
  double pcie_gbs = 25, copy_us = 10, mpi_gbs = 12.5, msg_us = 3;
  // Seconds-free: microseconds for bytes at GB/s.
  static double us(double bytes, double gbs) { return bytes / (gbs * 1e3); }
  double exchange_us(double sent, double recv, int neighbours) const {
    if (neighbours == 0) return 0;
    return 2 * copy_us + us(sent + recv, pcie_gbs) + neighbours * msg_us +
           us(std::max(sent, recv), mpi_gbs);
  }
  // The same without the staging (GPU-direct MPI), to show the staging's share.
  double direct_us(double sent, double recv, int neighbours) const {
    if (neighbours == 0) return 0;
    return neighbours * msg_us + us(std::max(sent, recv), mpi_gbs);
  }
  double reduction_us(int parts) const {
    return parts <= 1 ? 0 : copy_us + std::ceil(std::log2(parts)) * msg_us;
  }
};

struct Stats {
  double min = 0, mean = 0, max = 0, total = 0;
};

template <class T>
Stats stats(const std::vector<T>& v) {
  Stats s;
  if (v.empty()) return s;
  s.min = s.max = double(v[0]);
  for (T x : v) {
    s.min = std::min(s.min, double(x));
    s.max = std::max(s.max, double(x));
    s.total += double(x);
  }
  s.mean = s.total / double(v.size());
  return s;
}

// Per rank, from one pass over the elements.
struct Ghosts {
  std::vector<int64_t> owned, ghosts, neighbours, sent_nodes, local_elements;
  std::vector<std::vector<int32_t>> ghost_list;  // per rank, ascending (kept for verification)
};

Ghosts all_ghosts(const Case& c, const distributed::NodePartition& p, bool keep_lists) {
  const int P = p.n_parts;
  Ghosts g;
  g.owned = p.owned_counts();
  g.ghosts.assign(P, 0);
  g.neighbours.assign(P, 0);
  g.sent_nodes.assign(P, 0);
  g.local_elements.assign(P, 0);
  // (rank, node) for each node that is a ghost of rank: a vertex of an element holding a
  // vertex the rank owns, owned elsewhere. Sorted and made unique, grouped by rank.
  std::vector<uint64_t> pairs;
  for (const mesh::ElementSet& set : c.sets) {
    const int k = set.k;
    for (int64_t e = 0; e < set.size(); ++e) {
      int32_t ranks[8];
      int n_ranks = 0;
      for (int a = 0; a < k; ++a) {
        const int32_t r = p.owner[set.vertex(e, a)];
        if (std::find(ranks, ranks + n_ranks, r) == ranks + n_ranks) ranks[n_ranks++] = r;
      }
      for (int i = 0; i < n_ranks; ++i) ++g.local_elements[ranks[i]];
      if (n_ranks == 1) continue;
      for (int a = 0; a < k; ++a) {
        const int32_t v = set.vertex(e, a);
        for (int i = 0; i < n_ranks; ++i)
          if (ranks[i] != p.owner[v]) pairs.push_back(uint64_t(ranks[i]) << 32 | uint32_t(v));
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  if (keep_lists) g.ghost_list.assign(P, {});
  std::vector<int32_t> seen(P, -1);  // per owner: the last rank that counted it as a neighbour
  for (uint64_t key : pairs) {
    const int32_t r = int32_t(key >> 32), v = int32_t(key & 0xffffffffu), o = p.owner[v];
    ++g.ghosts[r];
    ++g.sent_nodes[o];
    if (seen[o] != r) seen[o] = r, ++g.neighbours[r];
    if (keep_lists) g.ghost_list[r].push_back(v);
  }
  return g;
}

// rank_layout per rank (and rank_problem's rule for local elements) against the one pass.
void verify(const Case& c, const distributed::NodePartition& p, const Ghosts& g) {
  std::vector<const mesh::ElementSet*> sets;
  for (const auto& s : c.sets) sets.push_back(&s);
  for (int r = 0; r < p.n_parts; ++r) {
    const distributed::RankLayout l = distributed::rank_layout(p, r, sets);
    distributed::check_layout(l, p);
    const std::vector<int32_t> ghosts(l.global.begin() + l.n_owned, l.global.end());
    int64_t local = 0;
    for (const auto* s : sets) {
      for (int64_t e = 0; e < s->size(); ++e) {
        bool owned = false;
        for (int a = 0; a < s->k; ++a) owned = owned || p.owner[s->vertex(e, a)] == r;
        local += owned;
      }
    }
    if (l.n_owned != g.owned[r] || ghosts != g.ghost_list[r] || local != g.local_elements[r]) {
      throw std::runtime_error(c.name + ", " + std::to_string(p.n_parts) + " parts, rank " +
                               std::to_string(r) + ": the one-pass ghosts disagree with " +
                               "rank_layout (" + std::to_string(g.ghosts[r]) + " against " +
                               std::to_string(ghosts.size()) + " ghosts)");
    }
  }
}

mesh::ElementSet edge_set(std::string name, std::vector<int32_t> edges) {
  mesh::ElementSet s;
  s.name = std::move(name);
  s.k = 2;
  s.conn = std::move(edges);
  return s;
}

// The edges of a tet mesh: the elements of the Roe residual's interior term (its boundary terms
// are single nodes, which add neither ghosts nor redundant work).
Case cfd_case(std::string name, const cfd::TetMesh& mesh) {
  cfd::EdgeMesh em = cfd::build_edge_mesh(mesh);
  Case c;
  c.name = std::move(name);
  c.n_nodes = em.n_nodes;
  c.block = 5;
  c.dim = 3;
  c.sets.push_back(edge_set("interior edges", std::move(em.edges)));
  return c;
}

cfd::TetMesh read_msh(const std::string& file) {
  if (file.size() < 3 || file.compare(file.size() - 3, 3, ".gz") != 0) return cfd::read_gmsh(file);
  // The reader takes plain text; inflate to a temporary file (the sphere 5 mesh is stored gzipped).
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                                    ("distributed_ghosts_" + std::to_string(getpid()) + ".msh");
  const std::string cmd = "gzip -dc '" + file + "' > '" + tmp.string() + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("failed: " + cmd);
  cfd::TetMesh m = cfd::read_gmsh(tmp);
  std::filesystem::remove(tmp);
  return m;
}

// The measured one-GPU figures (H100, bench/RESULTS.md) this program compares exchanges with.
void add_references(Case& c, const std::string& key) {
  const std::string storage = "RESULTS.md, edge-based storage and the storage tuner";
  if (key == "box 95") {
    c.refs.push_back({"FUN3D assembly", 2.146, 0, 1, 0, storage + " (edge-based, 95^3 box)"});
  } else if (key == "box 47") {
    // Not measured: the 95^3 box's assembly scaled by edges (assumes the GPU stays saturated
    // at 0.75 M edges).
    c.refs.push_back({"FUN3D assembly (scaled)", 0, 0, 1, 0, "95^3 box's 2.146 ms x edges"});
  } else if (key == "sphere_4") {
    // One pseudo-time step: 1 state exchange, then per Krylov iteration (5) one product with
    // its ghost exchange and 2 reductions (Gram-Schmidt, norm), plus the residual's norm. The
    // preconditioner is rank-local (PETSc's block Jacobi / local SOR) and exchanges nothing.
    c.refs.push_back({"assembly", 0.35, 0, 1, 0, storage + " (split by rows)"});
    c.refs.push_back({"nonlinear iteration", 0.35, 5.22 - 0.35, 6, 11, storage + " (split)"});
  } else if (key == "sphere_5") {
    c.refs.push_back({"assembly", 1.51, 0, 1, 0, storage + " (split by rows)"});
    c.refs.push_back({"nonlinear iteration", 1.51, 16.77 - 1.51, 6, 11, storage + " (split)"});
  } else if (key == "cloth 1000") {
    // E + g + H in one pass (the energy is a reduction), and one PCG iteration (a product with
    // its exchange of the direction, 2 dot products).
    c.refs.push_back({"E+g+H", 0.487, 0, 1, 1, "RESULTS.md, the Newton step in one pass"});
    c.refs.push_back({"PCG iteration", 0, 0.659, 1, 2, "RESULTS.md, the cloth's Newton solve"});
  }
}

struct Row {
  int parts = 0;
  double metis_s = 0, pass_s = 0;
  Stats owned, ghosts, neighbours, recv, sent, local;
  double redundancy = 0, imbalance = 0, exchange_us = 0, direct_us = 0;
};

std::string fmt_bytes(double b) {
  char buf[32];
  if (b >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f MB", b / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> boxes, cloths;
  std::vector<std::string> mshs;
  int max_parts = 1024, verify_parts = 8;
  double metis_cap = 120;
  std::string csv;
  Model model;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--box" && has) {
      boxes.push_back(std::atoi(argv[++i]));
    } else if (a == "--msh" && has) {
      mshs.push_back(argv[++i]);
    } else if (a == "--cloth" && has) {
      cloths.push_back(std::atoi(argv[++i]));
    } else if (a == "--max-parts" && has) {
      max_parts = std::atoi(argv[++i]);
    } else if (a == "--metis-cap" && has) {
      metis_cap = std::atof(argv[++i]);
    } else if (a == "--verify-parts" && has) {
      verify_parts = std::atoi(argv[++i]);
    } else if (a == "--csv" && has) {
      csv = argv[++i];
    } else if (a == "--pcie-gbs" && has) {
      model.pcie_gbs = std::atof(argv[++i]);
    } else if (a == "--copy-us" && has) {
      model.copy_us = std::atof(argv[++i]);
    } else if (a == "--mpi-gbs" && has) {
      model.mpi_gbs = std::atof(argv[++i]);
    } else if (a == "--msg-us" && has) {
      model.msg_us = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--box N]... [--msh FILE]... [--cloth N]... [--max-parts P] "
                   "[--metis-cap S] [--verify-parts P] [--csv FILE] [--pcie-gbs B] "
                   "[--copy-us L] [--mpi-gbs B] [--msg-us L]\n",
                   argv[0]);
      return 2;
    }
  }
  if (boxes.empty() && mshs.empty() && cloths.empty()) {
    boxes = {47, 95};
    for (const char* f : {"/../.meshes/sphere_4.msh", "/../.meshes/sphere_5.msh.gz"}) {
      const std::string path = std::string(DUALJIT_BENCH_DIR) + f;
      if (std::filesystem::exists(path))
        mshs.push_back(path);
      else
        std::printf("(%s not present: skipped; tools/make_cfd_meshes.sh writes it)\n",
                    path.c_str());
    }
    cloths = {1000};
  }
  std::printf(
      "Model per exchange (host-staged, per rank): 2 x %.0f us (pack + D2H, H2D) + (sent + "
      "received) / %.1f GB/s (PCIe) + neighbours x %.1f us + max(sent, received) / %.1f GB/s "
      "(MPI); an exchange = the slowest rank's. Reduction: %.0f us + ceil(log2 P) x %.1f us.\n",
      model.copy_us, model.pcie_gbs, model.msg_us, model.mpi_gbs, model.copy_us, model.msg_us);

  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    out << "mesh,nodes,elements,block,parts,metis_s,owned_min,owned_mean,owned_max,ghosts_min,"
           "ghosts_mean,ghosts_max,ghosts_total,neighbours_mean,neighbours_max,recv_bytes_mean,"
           "recv_bytes_max,recv_bytes_total,sent_bytes_max,redundancy,imbalance,exchange_us,"
           "direct_us\n";
  }

  std::vector<Case> cases;
  const auto t_build = std::chrono::steady_clock::now();
  for (int n : boxes) {
    Case c = cfd_case("box " + std::to_string(n) + "^3", cfd::box_tet_mesh(n, n, n));
    add_references(c, "box " + std::to_string(n));
    cases.push_back(std::move(c));
  }
  for (const std::string& f : mshs) {
    const std::string stem = std::filesystem::path(f).filename().string();
    Case c = cfd_case(stem, read_msh(f));
    add_references(c, stem.substr(0, stem.find('.')));
    cases.push_back(std::move(c));
  }
  for (int n : cloths) {
    mesh_energy::ClothGrid g = mesh_energy::cloth_grid(n);
    Case c;
    c.name = "cloth " + std::to_string(n) + "x" + std::to_string(n);
    c.n_nodes = int64_t(n) * n;
    c.block = 3;
    c.dim = 2;
    // The springs; the inertia term is single vertices (no ghosts, no redundant work).
    c.sets.push_back(edge_set("springs", std::move(g.springs)));
    add_references(c, "cloth " + std::to_string(n));
    cases.push_back(std::move(c));
  }
  // The scaled reference of the smaller box needs the larger box's edges.
  for (Case& c : cases) {
    for (Reference& r : c.refs) {
      if (r.element_ms != 0 || r.node_ms != 0) continue;
      for (const Case& big : cases)
        if (big.name == "box 95^3")
          r.element_ms = 2.146 * double(c.n_elements()) / double(big.n_elements());
    }
    c.refs.erase(std::remove_if(c.refs.begin(), c.refs.end(),
                                [](const Reference& r) { return r.total_ms() == 0; }),
                 c.refs.end());
  }
  std::printf("Meshes built in %.1f s\n", bench::seconds_since(t_build));

  for (const Case& c : cases) {
    const int64_t n_el = c.n_elements();
    std::printf("\n== %s: %lld nodes, %lld elements (edges), %d values per node\n", c.name.c_str(),
                (long long)c.n_nodes, (long long)n_el, c.block);
    std::vector<const mesh::ElementSet*> sets;
    for (const auto& s : c.sets) sets.push_back(&s);
    std::vector<Row> rows;
    std::printf("%5s %7s | %22s | %22s %9s %6s | %9s | %17s %9s %9s | %10s %9s | %9s %9s\n", "P",
                "METIS s", "owned min/mean/max", "ghosts min/mean/max", "total", "g/n",
                "nbrs mn/mx", "recv/rank mean/max", "total", "sent max", "redundant", "imbalance",
                "exch us", "direct us");
    for (int parts = 2; parts <= max_parts && parts <= c.n_nodes; parts *= 2) {
      Row row;
      row.parts = parts;
      auto t0 = std::chrono::steady_clock::now();
      const distributed::NodePartition p = distributed::partition_nodes(c.n_nodes, sets, parts);
      row.metis_s = bench::seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      const bool check = parts <= verify_parts;
      const Ghosts g = all_ghosts(c, p, check);
      row.pass_s = bench::seconds_since(t0);
      if (check) verify(c, p, g);
      std::vector<double> recv(parts), sent(parts);
      for (int r = 0; r < parts; ++r) {
        recv[r] = double(g.ghosts[r]) * c.block * 8;
        sent[r] = double(g.sent_nodes[r]) * c.block * 8;
        row.exchange_us =
            std::max(row.exchange_us, model.exchange_us(sent[r], recv[r], int(g.neighbours[r])));
        row.direct_us =
            std::max(row.direct_us, model.direct_us(sent[r], recv[r], int(g.neighbours[r])));
      }
      row.owned = stats(g.owned);
      row.ghosts = stats(g.ghosts);
      row.neighbours = stats(g.neighbours);
      row.recv = stats(recv);
      row.sent = stats(sent);
      row.local = stats(g.local_elements);
      row.redundancy = row.local.total / double(n_el) - 1;
      row.imbalance = row.local.max / (double(n_el) / parts);
      std::printf(
          "%5d %7.2f | %6.0f %7.0f %7.0f | %6.0f %7.0f %7.0f %9.0f %5.1f%% | %4.1f %4.0f | "
          "%8s %8s %9s %9s | %9.2f%% %8.3f | %9.1f %9.1f%s\n",
          parts, row.metis_s, row.owned.min, row.owned.mean, row.owned.max, row.ghosts.min,
          row.ghosts.mean, row.ghosts.max, row.ghosts.total,
          100 * row.ghosts.total / double(c.n_nodes), row.neighbours.mean, row.neighbours.max,
          fmt_bytes(row.recv.mean).c_str(), fmt_bytes(row.recv.max).c_str(),
          fmt_bytes(row.recv.total).c_str(), fmt_bytes(row.sent.max).c_str(), 100 * row.redundancy,
          row.imbalance, row.exchange_us, row.direct_us,
          check ? "  (checked against rank_layout)" : "");
      std::fflush(stdout);
      if (out.is_open()) {
        out << '"' << c.name << "\"," << c.n_nodes << ',' << n_el << ',' << c.block << ',' << parts
            << ',' << row.metis_s << ',' << row.owned.min << ',' << row.owned.mean << ','
            << row.owned.max << ',' << row.ghosts.min << ',' << row.ghosts.mean << ','
            << row.ghosts.max << ',' << row.ghosts.total << ',' << row.neighbours.mean << ','
            << row.neighbours.max << ',' << row.recv.mean << ',' << row.recv.max << ','
            << row.recv.total << ',' << row.sent.max << ',' << row.redundancy << ','
            << row.imbalance << ',' << row.exchange_us << ',' << row.direct_us << '\n';
      }
      rows.push_back(row);
      if (row.metis_s > metis_cap && parts * 2 <= max_parts) {
        std::printf("  (METIS took %.0f s > --metis-cap %.0f s: larger P left out for this mesh)\n",
                    row.metis_s, metis_cap);
        break;
      }
    }

    // Strong scaling: the one-GPU time split over P ranks against the communication it adds.
    for (const Reference& ref : c.refs) {
      std::printf(
          "\n  %s: %.3f ms on one GPU (%.3f per element part, %.3f per node part; %d "
          "exchange%s, %d reduction%s; %s)\n",
          ref.what.c_str(), ref.total_ms(), ref.element_ms, ref.node_ms, ref.exchanges,
          ref.exchanges == 1 ? "" : "s", ref.reductions, ref.reductions == 1 ? "" : "s",
          ref.source.c_str());
      std::printf("  %5s %12s %12s %12s %9s %11s\n", "P", "T1/P us", "compute us", "comm us",
                  "comm/comp", "efficiency");
      int crossover = 0;
      for (const Row& row : rows) {
        const double ideal = ref.total_ms() * 1e3 / row.parts;
        const double compute = ref.element_ms * 1e3 * row.local.max / double(n_el) +
                               ref.node_ms * 1e3 * row.owned.max / double(c.n_nodes);
        const double comm =
            ref.exchanges * row.exchange_us + ref.reductions * model.reduction_us(row.parts);
        if (crossover == 0 && comm >= compute) crossover = row.parts;
        std::printf("  %5d %12.1f %12.1f %12.1f %9.2f %10.0f%%\n", row.parts, ideal, compute, comm,
                    comm / compute, 100 * ideal / (compute + comm));
      }
      if (crossover)
        std::printf("  communication >= compute from P = %d\n", crossover);
      else
        std::printf("  communication < compute up to P = %d\n",
                    rows.empty() ? 1 : rows.back().parts);
    }

    // Weak scaling: a whole mesh of this size on every GPU. Ghosts per interior rank follow
    // the surface of its part, c x owned^((d-1)/d); c is fitted (median) on the rows with
    // P >= 64, where most parts are interior, and the neighbours taken from the largest P.
    if (!c.refs.empty() && !rows.empty() && rows.back().parts >= 64) {
      const double e = double(c.dim - 1) / c.dim;
      std::vector<double> cs;
      for (const Row& row : rows)
        if (row.parts >= 64) cs.push_back(row.ghosts.max / std::pow(row.owned.mean, e));
      std::sort(cs.begin(), cs.end());
      const double coef = cs[cs.size() / 2];
      const double ghosts = coef * std::pow(double(c.n_nodes), e);
      const int nbrs = int(rows.back().neighbours.max);
      const double bytes = ghosts * c.block * 8;
      const double t = model.exchange_us(bytes, bytes, nbrs);
      std::printf(
          "\n  Weak scaling, %lld nodes per GPU: ghosts of the largest rank ~ %.2f x owned^%.2f = "
          "%.0f (%.1f%% of owned), %s received and sent, %d neighbours: %.0f us per exchange "
          "(%.0f us GPU-direct)\n",
          (long long)c.n_nodes, coef, e, ghosts, 100 * ghosts / double(c.n_nodes),
          fmt_bytes(bytes).c_str(), nbrs, t, model.direct_us(bytes, bytes, nbrs));
      for (const Reference& ref : c.refs) {
        // At 1024 ranks the reductions' log2 P latency is added too.
        const double comm = ref.exchanges * t + ref.reductions * model.reduction_us(1024);
        std::printf("    %s: %.0f us of communication (1024 ranks) = %.1f%% of %.3f ms\n",
                    ref.what.c_str(), comm, 100 * comm / (ref.total_ms() * 1e3), ref.total_ms());
      }
    }
  }
  return 0;
}

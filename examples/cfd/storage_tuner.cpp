#include "examples/cfd/storage_tuner.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "backends/tuning/tuned_choice.h"
#include "backends/tuning/tuning_target.h"
#include "examples/cfd/device_steady_engine.h"

namespace dualjit::cfd {
namespace {

constexpr JacobianStorage kCandidates[] = {JacobianStorage::block_csr, JacobianStorage::split,
                                           JacobianStorage::edges};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

jit::TuningKey storage_key(assembly::Problem& p, const SteadyOptions& o) {
  const std::string mode = "steady-storage/" + std::string(preconditioner_name(o.preconditioner)) +
                           "/" + std::to_string(o.gauss_seidel_sweeps);
  return tuning::tuning_key(tuning::cuda_target(),
                            tuning::kernels_hash(tuning::vector_term_kernels(p)), mode,
                            tuning::vector_term_elements(p));
}

}  // namespace

std::vector<StorageTiming> time_storages(assembly::Assembler& assembler, const EdgeMesh& em,
                                         double gamma, const std::vector<double>& q,
                                         const SteadyOptions& options, int steps) {
  if (assembler.backend() != assembly::Backend::Cuda)
    throw std::invalid_argument("time_storages: the storages are timed on the CUDA backend");
  std::vector<StorageTiming> out;
  for (JacobianStorage s : kCandidates) {
    SteadyOptions o = options;
    o.storage = s;
    const auto engine = device_steady_engine(assembler, em, gamma, q, o);
    std::vector<double> total, assembly, setup, krylov;
    StorageTiming t;
    t.storage = s;
    for (int k = 0; k <= steps; ++k) {
      SteadyIteration h;
      h.linear_rtol = options.linear.rtol;
      const auto start = std::chrono::steady_clock::now();
      engine->implicit_step(options.cfl_initial, h);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      if (k == 0) continue;
      if (k == 1) t.krylov_iterations = h.linear_iterations;
      total.push_back(ms);
      assembly.push_back(1e3 * h.assembly_seconds);
      setup.push_back(1e3 * h.preconditioner_seconds);
      krylov.push_back(1e3 * h.krylov_seconds);
    }
    t.iteration_ms = median(total);
    t.assembly_ms = median(assembly);
    t.setup_ms = median(setup);
    t.krylov_ms = median(krylov);
    out.push_back(t);
  }
  return out;
}

StorageChoice choose_storage(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                             const std::vector<double>& q, const SteadyOptions& options,
                             jit::TuningDb& db) {
  if (assembler.backend() != assembly::Backend::Cuda)
    throw std::invalid_argument("choose_storage: the storage is tuned on the CUDA backend");
  const jit::TuningKey key = storage_key(assembler.problem(), options);
  StorageChoice choice;
  choice.key = key.describe();
  if (const auto record = db.load(key)) {
    const auto it = record->winner.find("storage");
    if (it != record->winner.end()) {
      try {
        choice.storage = parse_storage(it->second);
        choice.from_record = true;
        return choice;
      } catch (const std::invalid_argument& e) {
        spdlog::warn("dualjit: tuning record {} ignored: {}", db.record_path(key).string(),
                     e.what());
      }
    }
  }
  choice.candidates = time_storages(assembler, em, gamma, q, options);
  jit::TuningRecord record;
  record.key = key;
  record.problem = "cfd-steady";
  record.n_elements = tuning::vector_term_elements(assembler.problem());
  record.created = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const StorageTiming* best = &choice.candidates[0];
  for (const StorageTiming& t : choice.candidates) {
    if (t.iteration_ms < best->iteration_ms) best = &t;
    jit::CandidateResult c;
    c.label = std::string(storage_name(t.storage)) + " (assembly " + std::to_string(t.assembly_ms) +
              " ms)";
    c.config = {{"storage", std::string(storage_name(t.storage))}};
    c.ms = t.iteration_ms;
    record.candidates.push_back(c);
    if (t.storage == JacobianStorage::split) {
      record.heuristic = c.config;
      record.heuristic_ms = t.iteration_ms;
    }
  }
  choice.storage = best->storage;
  record.winner = {{"storage", std::string(storage_name(best->storage))}};
  record.winner_ms = best->iteration_ms;
  db.store(record);
  spdlog::info(
      "dualjit: steady Jacobian storage {} ({:.3f} ms per nonlinear iteration), stored "
      "as {}",
      storage_name(best->storage), best->iteration_ms, key.describe());
  return choice;
}

}  // namespace dualjit::cfd

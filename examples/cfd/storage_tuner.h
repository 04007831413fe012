// Which Jacobian storage makes the steady solve fastest on this GPU, chosen by time per
// nonlinear iteration: assembly, preconditioner set-up and the Krylov iterations of a
// pseudo-time step, since a storage that assembles faster may be slower to read by rows (edge-
// based storage reads Aoff through an index). The choice is kept in the tuning database
// (jit/tuning_db.h) per problem kernels, device, preconditioner and size bucket, so it is
// measured once.
#pragma once

#include <string>
#include <vector>

#include "backends/assembly/assembler.h"
#include "examples/cfd/edge_mesh.h"
#include "examples/cfd/steady_euler.h"
#include "jit/tuning_db.h"

namespace dualjit::cfd {

struct StorageTiming {
  JacobianStorage storage = JacobianStorage::split;
  // Medians over the timed steps, milliseconds.
  double iteration_ms = 0, assembly_ms = 0, setup_ms = 0, krylov_ms = 0;
  int krylov_iterations = 0;  // of the first timed step (the same for every storage)
};

struct StorageChoice {
  JacobianStorage storage = JacobianStorage::split;
  bool from_record = false;               // the tuning database had it
  std::vector<StorageTiming> candidates;  // what was measured (empty when from the record)
  std::string key;                        // the record's key, described
};

// The storages the GPU can use (block_csr, split, edges), each timed over `steps` implicit
// steps at options.cfl_initial with GMRES to options.linear.rtol after one untimed step (which
// compiles and colours): every storage starts from q and takes the same steps. CUDA backend.
std::vector<StorageTiming> time_storages(assembly::Assembler& assembler, const EdgeMesh& em,
                                         double gamma, const std::vector<double>& q,
                                         const SteadyOptions& options, int steps = 3);

// The database's record for the assembler's problem on this GPU, else time_storages and a
// stored record (the fastest iteration wins). Throws std::invalid_argument on the CPU backend.
StorageChoice choose_storage(assembly::Assembler& assembler, const EdgeMesh& em, double gamma,
                             const std::vector<double>& q, const SteadyOptions& options,
                             jit::TuningDb& db);

}  // namespace dualjit::cfd

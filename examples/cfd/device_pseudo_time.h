// The Euler-specific device work of a pseudo-transient step (steady_euler.h on the GPU): each
// node's spectral radius sum lambda_i = sum over its dual faces of |u_i . S| + c_i |S|, the
// local time step being V_i / lambda_i at CFL 1 (local_time_steps), and what the solver does
// with it: the diagonal shift V_i / (CFL dt_i) = lambda_i / CFL of the implicit step, the
// explicit update, and the state update. One thread per node gathers over the node's edges
// in ascending edge order, then its boundary face part, the order local_time_steps adds them.
#pragma once

#include <memory>
#include <string>

#include "backends/assembly/assembler.h"
#include "backends/assembly/device_element_assembly.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/source_module.h"
#include "examples/cfd/edge_mesh.h"

namespace dualjit::cfd {

// The module's CUDA source (for compiling without a GPU).
std::string device_pseudo_time_source();

class DevicePseudoTime {
 public:
  // Uploads the node-to-edge incidence, the edges' area vectors and the boundary areas.
  DevicePseudoTime(const EdgeMesh& em, double gamma);
  ~DevicePseudoTime();

  // a's diagonal blocks += lambda_i / cfl I at the device state q (n_nodes x 5). Throws
  // std::invalid_argument naming a node whose density or pressure is not positive.
  void shift_diagonal(const assembly::DeviceBsr& a, const double* q, double cfl);
  // The same on the split form's diagonal blocks.
  void shift_diagonal(const assembly::DeviceSplitJacobian<double>& a, const double* q, double cfl);
  // q_i -= cfl / lambda_i r_i (explicit local time stepping); with check_now, throws as
  // shift_diagonal for a bad node met by this step or an unchecked one before it (without, it
  // does not wait for the GPU).
  void explicit_step(double* q, const double* r, double cfl, bool check_now);
  // q -= dq
  void subtract(double* q, const double* dq);
  // Whether every node's density and pressure are positive and finite.
  bool physical(const double* q);

 private:
  // The kernels' mesh arguments, as launch parameters.
  struct Args {
    const long long* ptr;
    const int* edge;
    const double* area;
    const double* barea;
    long long* status;
    long long n;
    double gamma;
  };
  Args args() const;
  void check(const char* who);
  void shift(const int* row_ptr, const int* col_idx, double* vals, double* diag, const double* q,
             double cfl);
  int64_t n_nodes_;
  double gamma_;
  std::unique_ptr<cuda::SourceModule> module_;
  cuda::DeviceBuffer node_ptr_, node_edge_, area_, bnode_area_, status_;
};

}  // namespace dualjit::cfd
